//! Tracing: the graphs being recorded, tensor handles tied to their graph,
//! `defgraph` (trace a function of typed inputs), `call` (run one with the
//! reference executor, or only check it under `sexpgpu check`) and `to-vec`.
//! The tensor operation builtins are in `ops`, each described by a `spec`
//! (argument parsing in `args`) and recorded by `record`; `value-and-grad`
//! in `grad`; `dynamic` refuses the operations whose result's shape would
//! depend on the data. Staging mistakes are `E-FLOW-*`; nothing here prints.

pub(crate) mod args;
mod dynamic;
mod grad;
pub mod ops;
mod overload;
mod record;
mod spec;
pub mod structured;

/// The list of operations in `docs/sexpgpu/operations.md`: `ops::OPS`, then
/// the structured operations.
pub fn operation_list() -> String {
    ops::doc_list() + &ops::doc_list_of(structured::OPS)
}

use crate::codes;
use crate::eval::{
    arity, error, malformed, wrong_type, Ctx, EvalResult, Flow, Interp, Mode, Site, Special,
};
use crate::reader::{Form, FormKind};
use crate::value::{short, Env, GraphDef, Outputs, Traced, Value};
use diag::{Diagnostic, Span};
use sexpgpu_graph::{DType, Graph, Nested, NodeId, Scalar, Shape, Tensor, TensorData};
use std::rc::Rc;

static SPECIALS: &[Special] = &[Special {
    name: "defgraph",
    eval: |interp, u, env, _| defgraph(interp, u.args, env, u.form.span),
    defines: true,
}];

/// Registers `defgraph`, the tensor operations, how graphs are called and
/// how host arithmetic hands tensors over; `seed` folds into every random
/// stream of the graphs `call` runs.
pub fn install(interp: &mut Interp, seed: u64) {
    interp.state::<Tracer>().seed = seed;
    interp.register_specials(SPECIALS);
    ops::install(interp);
    dynamic::install(interp);
    grad::install(interp);
    structured::install(interp);
    interp.register_graph_call(call_graph);
    interp.register_overload(overload::overload);
}

/// The tracer kept in the interpreter's state.
pub(crate) fn tracer(interp: &mut Interp) -> &mut Tracer {
    interp.state::<Tracer>()
}

/// The graphs traced so far, in definition order (a redefinition keeps its
/// first place).
pub fn graphs(interp: &Interp) -> &[Rc<GraphDef>] {
    interp.state_ref::<Tracer>().map_or(&[], |t| &t.graphs)
}

/// A graph being recorded.
struct Active {
    id: u32,
    graph: Graph,
    /// What `metric`, `counter`, `tap-gradient` and `diagnostic` asked to
    /// report while this graph was traced; a training run reads them back.
    reports: Vec<Report>,
}

/// One reporting operation recorded while tracing.
#[derive(Clone, Debug)]
pub struct Report {
    pub kind: ReportKind,
    pub name: String,
    pub value: ReportValue,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportKind {
    /// A scalar averaged over the logging window.
    Metric,
    /// A quantity summed over steps and shown as a rate.
    Counter,
    /// The norm of the gradient flowing into a node.
    Tap,
    /// A boolean condition that stops the run when true.
    Diagnostic,
}

/// A reported node of the graph, or a number known while tracing.
#[derive(Clone, Copy, Debug)]
pub enum ReportValue {
    Node(NodeId),
    Number(f64),
}

/// Starts recording into `graph`; returns the id its tensors carry.
pub(crate) fn begin(interp: &mut Interp, graph: Graph) -> u32 {
    let id = tracer(interp).next_id;
    tracer(interp).next_id += 1;
    tracer(interp).active.push(Active {
        id,
        graph,
        reports: Vec::new(),
    });
    id
}

/// Stops the innermost recording and hands back its graph and reports.
pub(crate) fn end(interp: &mut Interp) -> (Graph, Vec<Report>) {
    let active = tracer(interp)
        .active
        .pop()
        .expect("end follows a matching begin");
    (active.graph, active.reports)
}

/// The graph being recorded now (between `begin` and `end`).
pub(crate) fn active_graph(interp: &mut Interp) -> Option<(&mut Graph, u32)> {
    tracer(interp)
        .active
        .last_mut()
        .map(|a| (&mut a.graph, a.id))
}

/// Records a reporting operation on the graph being traced.
pub(crate) fn add_report(interp: &mut Interp, report: Report) {
    if let Some(active) = tracer(interp).active.last_mut() {
        active.reports.push(report);
    }
}

/// The reports recorded so far on the graph being traced.
pub(crate) fn reports(interp: &Interp) -> Vec<Report> {
    interp
        .state_ref::<Tracer>()
        .and_then(|t| t.active.last())
        .map_or(Vec::new(), |a| a.reports.clone())
}

/// Registers a traced graph for `sexpgpu ir` (a redefinition keeps its place).
pub(crate) fn register(interp: &mut Interp, def: Rc<GraphDef>) {
    let graphs = &mut tracer(interp).graphs;
    match graphs.iter().position(|g| g.name == def.name) {
        Some(i) => graphs[i] = def,
        None => graphs.push(def),
    }
}

/// Every graph traced so far, and the ones being traced now (innermost last).
#[derive(Default)]
pub struct Tracer {
    pub seed: u64,
    active: Vec<Active>,
    next_id: u32,
    /// How many functions `call` has run (folded into their seeds).
    calls: u64,
    pub graphs: Vec<Rc<GraphDef>>,
}

impl Tracer {
    fn current(&mut self) -> Option<&mut Active> {
        self.active.last_mut()
    }
}

/// The graph the next tensor operation records into, or `E-FLOW-003`.
pub(crate) fn current_graph<'a>(
    interp: &'a mut Interp,
    op: &str,
    site: &Site,
) -> EvalResult<(&'a mut Graph, u32)> {
    match tracer(interp).current() {
        Some(active) => {
            active.graph.set_span(Some(site.span));
            Ok((&mut active.graph, active.id))
        }
        None => Err(Flow::from(
            Diagnostic::error(codes::E_FLOW_003, format!("`{op}` outside a traced function"))
                .with_primary(site.span, "no graph is being traced here")
                .with_note("tensors exist only while a function is traced; host code sees shapes, not values")
                .with_help("put tensor code in `(defgraph name [(x [2 16] :f32)] ...)` and run it with `(call name ...)`"),
        )),
    }
}

/// `(defgraph name [(x [2 16] :f32) ...] body...)`.
pub fn defgraph(interp: &mut Interp, args: &[Form], env: &Env, span: Span) -> EvalResult {
    let usage = "(defgraph name [(x [2 16] :f32) ...] body...)";
    let [name_form, inputs_form, body @ ..] = args else {
        return Err(malformed("defgraph", usage, span));
    };
    let Some(name) = name_form.as_symbol() else {
        return Err(malformed("defgraph", usage, name_form.span));
    };
    let (FormKind::Vector(specs) | FormKind::List(specs)) = &inputs_form.kind else {
        return Err(malformed("defgraph", usage, inputs_form.span));
    };
    let mut inputs = Vec::new();
    for spec in specs {
        inputs.push(input_spec(interp, spec, env)?);
    }
    let id = tracer(interp).next_id;
    tracer(interp).next_id += 1;
    let mut graph = Graph::new(name);
    let mut body_env = env.clone();
    for (input_name, name_span, shape, dtype) in inputs {
        graph.set_span(Some(name_span));
        let node = graph.input(input_name.as_ref(), shape.clone(), dtype);
        let tensor = Traced {
            graph: id,
            node,
            shape,
            dtype,
        };
        body_env = body_env.bind(input_name, Value::Tensor(Rc::new(tensor)));
    }
    tracer(interp).active.push(Active {
        id,
        graph,
        reports: Vec::new(),
    });
    let result = interp.eval_body(body, &body_env, Ctx::TOP);
    let active = tracer(interp).active.pop().expect("pushed above");
    let result = result?;
    let mut graph = active.graph;
    let result_span = body.last().map_or(span, |f| f.span);
    let (outputs, kind) = graph_outputs(&mut graph, id, &result, result_span)?;
    graph.set_outputs(outputs);
    let def = Rc::new(GraphDef {
        name: name.to_string(),
        graph,
        outputs: kind,
        span,
        buffers: Vec::new(),
    });
    let graphs = &mut tracer(interp).graphs;
    match graphs.iter().position(|g| g.name == name) {
        Some(i) => graphs[i] = def.clone(),
        None => graphs.push(def.clone()),
    }
    interp.define_here(name, Value::Graph(def));
    Ok(Value::symbol(name))
}

type InputSpec = (Rc<str>, Span, Shape, DType);

/// `(x [2 16] :f32)`; the dtype may be left out for `:f32`.
fn input_spec(interp: &mut Interp, spec: &Form, env: &Env) -> EvalResult<InputSpec> {
    let usage = "(defgraph name [(x [2 16] :f32) ...] body...)";
    let (FormKind::List(parts) | FormKind::Vector(parts)) = &spec.kind else {
        return Err(malformed("defgraph", usage, spec.span));
    };
    let (name, shape_form, dtype_form) = match &parts[..] {
        [n, s] => (n, s, None),
        [n, s, d] => (n, s, Some(d)),
        _ => return Err(malformed("defgraph", usage, spec.span)),
    };
    let Some(input_name) = name.as_symbol() else {
        return Err(malformed("defgraph", usage, name.span));
    };
    let shape_value = interp.eval(shape_form, env, Ctx::TOP)?;
    let site = Site {
        span: spec.span,
        args: vec![shape_form.span, dtype_form.map_or(spec.span, |d| d.span)],
    };
    let shape = args::shape_of("defgraph", &shape_value, &site, 0)?;
    let dtype = match dtype_form {
        Some(form) => {
            let value = interp.eval(form, env, Ctx::TOP)?;
            args::dtype_of("defgraph", &value, &site, 1)?
        }
        None => DType::F32,
    };
    Ok((Rc::from(input_name), name.span, shape, dtype))
}

/// The graph's outputs from the body's value: a tensor, or vectors and
/// maps of tensors, nested up to [`MAX_RESULT_DEPTH`] deep; the outputs
/// in order (depth first) and their layout. Host tensors enter as
/// constants.
pub(crate) fn graph_outputs(
    graph: &mut Graph,
    id: u32,
    result: &Value,
    span: Span,
) -> EvalResult<(Vec<NodeId>, Outputs)> {
    let mut ids = Vec::new();
    let layout = collect_outputs(graph, (id, span), result, 0, &mut ids)?;
    Ok((ids, layout))
}

/// How deep vectors and maps may nest in a graph's result.
const MAX_RESULT_DEPTH: usize = 32;

/// [`graph_outputs`] of `value`, `depth` collections deep in the result.
fn collect_outputs(
    graph: &mut Graph,
    (id, span): (u32, Span),
    value: &Value,
    depth: usize,
    ids: &mut Vec<NodeId>,
) -> EvalResult<Outputs> {
    let nested = |what: String| {
        let label = if depth == 0 { "this is" } else { "this holds" };
        Flow::from(
            Diagnostic::error(codes::E_DIM_003, what)
                .with_primary(span, format!("{label} `{}`", short(value)))
                .with_help("return a tensor, or vectors and maps of tensors"),
        )
    };
    match value {
        Value::Vector(_) | Value::List(_) | Value::Map(_) if depth >= MAX_RESULT_DEPTH => {
            Err(nested(format!(
                "a graph's result nests vectors and maps at most {MAX_RESULT_DEPTH} deep"
            )))
        }
        Value::Vector(items) | Value::List(items) => {
            let items = items
                .iter()
                .map(|item| collect_outputs(graph, (id, span), item, depth + 1, ids))
                .collect::<EvalResult<Vec<_>>>()?;
            Ok(Outputs::Vector(items))
        }
        Value::Map(entries) => {
            let entries = entries
                .iter()
                .map(|(key, item)| {
                    let layout = collect_outputs(graph, (id, span), item, depth + 1, ids)?;
                    Ok((key.clone(), layout))
                })
                .collect::<EvalResult<Vec<_>>>()?;
            Ok(Outputs::Map(entries))
        }
        Value::Tensor(t) if t.graph == id => {
            ids.push(t.node);
            Ok(Outputs::One)
        }
        Value::Tensor(t) => Err(args::foreign(t, "the result", span)),
        Value::HostTensor(t) => {
            ids.push(graph.constant((**t).clone()));
            Ok(Outputs::One)
        }
        other if depth == 0 => Err(nested(format!(
            "a graph returns tensors, but this one returns {}",
            other.type_name()
        ))),
        other => Err(nested(format!(
            "a graph returns tensors, but its result holds {}",
            other.type_name()
        ))),
    }
}

/// `(call g arg...)` and `(g arg...)`: binds each argument (nested vectors of
/// numbers, or a host tensor) to an input, then executes the graph, or under
/// `check` returns zeros of the right shapes without executing.
pub fn call_graph(
    interp: &mut Interp,
    def: &Rc<GraphDef>,
    args: Vec<Value>,
    site: &Site,
) -> EvalResult {
    let graph = &def.graph;
    let inputs = graph.arguments();
    if args.len() != inputs.len() {
        return Err(Flow::from(
            Diagnostic::error(
                codes::E_EVAL_002,
                format!(
                    "graph `{}` takes {} inputs, got {}",
                    def.name,
                    inputs.len(),
                    args.len()
                ),
            )
            .with_primary(site.span, "")
            .with_secondary(def.span, "defined here"),
        ));
    }
    let mut tensors = Vec::with_capacity(args.len());
    for (i, (arg, &node)) in args.iter().zip(&inputs).enumerate() {
        let input = graph.node(node);
        let name = match &input.op {
            sexpgpu_graph::Op::Input { name } | sexpgpu_graph::Op::Param { name } => name.clone(),
            _ => String::new(),
        };
        tensors.push(args::host_tensor(
            arg,
            &name,
            &input.shape,
            input.dtype,
            site,
            i,
        )?);
    }
    let results = match interp.mode {
        Mode::Check => zero_outputs(graph),
        Mode::Run => sexpgpu_graph::execute(graph, &tensors, tracer(interp).seed).map_err(|e| {
            let mut d = Diagnostic::error(
                codes::E_RUN_001,
                format!("graph `{}` failed: {}", def.name, e.message),
            )
            .with_primary(site.span, "while running this call");
            if let Some(span) = e.node.and_then(|n| graph.node(n).span) {
                d = d.with_secondary(span, "at this operation");
            }
            Flow::from(d)
        })?,
    };
    let mut results = results.into_iter().map(|t| Value::HostTensor(Rc::new(t)));
    Ok(def.outputs.rebuild(&mut results))
}

fn zeros(shape: &Shape, dtype: DType) -> Tensor {
    let value = match dtype {
        DType::Bool => Scalar::Bool(false),
        DType::I32 | DType::I64 => Scalar::Int(0),
        _ => Scalar::Float(0.0),
    };
    Tensor::full(shape.clone(), value, dtype)
}

/// `(call g arg...)`.
pub fn call(interp: &mut Interp, op: &ops::Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let Some((g, rest)) = args.split_first() else {
        return Err(error(
            codes::E_EVAL_002,
            format!("`{}` takes a graph and its inputs", op.name),
            site.span,
        ));
    };
    let inner = Site {
        span: site.span,
        args: site.args.iter().skip(1).copied().collect(),
    };
    match g {
        Value::Graph(def) => call_graph(interp, &def.clone(), rest.to_vec(), &inner),
        // A builtin operation is a function too: `(call cumprod t)`.
        Value::Fn(_) | Value::Builtin { .. } => call_function(interp, g, rest.to_vec(), &inner),
        _ => Err(wrong_type(
            op.name,
            "a graph made by `defgraph`, or a function",
            g,
            site,
            0,
        )),
    }
}

/// `(call f arg...)` with a function: traces `f` with each computed tensor
/// argument (alone or in maps and vectors) as a graph input and other
/// values as they are, runs the graph once and returns its results. Each
/// such call folds a counter into the seed, so sampling differs per call.
fn call_function(interp: &mut Interp, f: &Value, args: Vec<Value>, site: &Site) -> EvalResult {
    let mut graph = Graph::new("call");
    graph.set_span(Some(site.span));
    let id = begin(interp, graph);
    let mut bound = Vec::new();
    let traced_args: Vec<Value> = {
        let (graph, _) = active_graph(interp).expect("begun above");
        args.iter()
            .map(|a| as_inputs(graph, id, a, &mut bound))
            .collect()
    };
    let result = interp.apply(f, traced_args, site);
    let (graph, _) = end(interp);
    let result = result?;
    run_recorded(interp, graph, id, &result, &bound, site, "`call`")
}

/// Runs a graph recorded with `begin`/`end` whose result is `result`, with
/// `bound` for its inputs, on the compiled CPU backend (under `check`,
/// zeros of each output's shape); hands back host tensors in the result's
/// layout. Each run folds a counter into the seed. `what` names the caller
/// in failures.
pub(crate) fn run_recorded(
    interp: &mut Interp,
    mut graph: Graph,
    id: u32,
    result: &Value,
    bound: &[Tensor],
    site: &Site,
    what: &str,
) -> EvalResult {
    let (outputs, kind) = graph_outputs(&mut graph, id, result, site.span)?;
    graph.set_outputs(outputs);
    let results = match interp.mode {
        Mode::Check => zero_outputs(&graph),
        Mode::Run => {
            tracer(interp).calls += 1;
            let seed = sexpgpu_graph::random::fold_seed(tracer(interp).seed, tracer(interp).calls);
            let program = sexpgpu_cpu::compile(&graph).map_err(|e| {
                error(
                    codes::E_RUN_001,
                    format!("{what} could not compile its graph: {e}"),
                    site.span,
                )
            })?;
            program.run(bound, seed).map_err(|e| {
                let mut d =
                    Diagnostic::error(codes::E_RUN_001, format!("{what} failed: {}", e.message))
                        .with_primary(site.span, "while running this call");
                if let Some(span) = e.node.and_then(|n| graph.node(n).span) {
                    d = d.with_secondary(span, "at this operation");
                }
                Flow::from(d)
            })?
        }
    };
    let mut results = results.into_iter().map(|t| Value::HostTensor(Rc::new(t)));
    Ok(kind.rebuild(&mut results))
}

/// What `sexpgpu check` gives for a graph's outputs instead of running
/// it: zeros of their shapes and dtypes.
fn zero_outputs(graph: &Graph) -> Vec<Tensor> {
    graph
        .outputs()
        .iter()
        .map(|&o| zeros(graph.shape(o), graph.dtype(o)))
        .collect()
}

/// A host value with each computed tensor replaced by a new graph input.
fn as_inputs(graph: &mut Graph, id: u32, value: &Value, bound: &mut Vec<Tensor>) -> Value {
    match value {
        Value::HostTensor(t) => {
            let node = graph.input(format!("arg{}", bound.len()), t.shape().clone(), t.dtype());
            bound.push((**t).clone());
            Value::Tensor(Rc::new(Traced {
                graph: id,
                node,
                shape: t.shape().clone(),
                dtype: t.dtype(),
            }))
        }
        Value::Map(m) => Value::Map(Rc::new(
            m.iter()
                .map(|(k, v)| (k.clone(), as_inputs(graph, id, v, bound)))
                .collect(),
        )),
        Value::Vector(xs) => {
            Value::vector(xs.iter().map(|v| as_inputs(graph, id, v, bound)).collect())
        }
        other => other.clone(),
    }
}

/// `(to-vec t)`: a computed tensor as nested vectors (a bare number for a scalar).
pub fn to_vec(_: &mut Interp, op: &ops::Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 1, Some(1))?;
    match &args[0] {
        Value::HostTensor(t) => Ok(nested_value(&t.to_nested(), t.data())),
        Value::Tensor(_) => Err(Flow::from(
            Diagnostic::error(
                codes::E_EVAL_003,
                format!("`{}` needs a computed tensor, got a traced one", op.name),
            )
            .with_primary(site.arg(0), "this only has a value when its graph runs")
            .with_help("return it from the graph and `(to-vec (call g ...))` the result"),
        )),
        other => Err(wrong_type(op.name, "a tensor from `call`", other, site, 0)),
    }
}

fn nested_value(nested: &Nested, data: &TensorData) -> Value {
    match nested {
        Nested::List(items) => Value::vector(items.iter().map(|n| nested_value(n, data)).collect()),
        Nested::Scalar(Scalar::Int(n)) => Value::Int(*n),
        Nested::Scalar(Scalar::Bool(b)) => Value::Bool(*b),
        // f32 and bf16 values come back with their own shortest digits
        // (0.1f32 prints `0.1`, not `0.10000000149011612`).
        Nested::Scalar(Scalar::Float(x)) => match data {
            TensorData::F32(_) | TensorData::BF16(_) => {
                Value::Float(sexpgpu_graph::format_f32(*x as f32).parse().unwrap_or(*x))
            }
            _ => Value::Float(*x),
        },
    }
}
