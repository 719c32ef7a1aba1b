//! Training runs (`docs/sexpgpu/models.md`, `docs/sexpgpu/runs.md`): `defmodel` (a function whose body
//! is traced into an init graph of parameters), `defrun` (a run's options,
//! checked and traced into step and eval graphs at definition time) and the
//! reporting operations `metric`, `counter`, `tap-gradient`, `diagnostic`
//! and `error!`, and a model's buffers (`buffer`, `set-buffer!`,
//! `training?`). Executing a run is `run`; this module never does I/O.

mod batches;
mod buffers;
pub mod checkpoint;
pub mod device;
pub mod dist;
mod options;
mod report;
pub mod run;
mod split;
mod step;
mod zero;

pub use options::RunSpec;
pub(crate) use options::KEYS as RUN_OPTIONS;
pub use step::{EvalGraph, StepGraph};

use crate::codes;
use crate::eval::{
    arity, malformed, wrong_type, Builtin, EvalResult, Flow, Interp, Primitive, Site, Special,
};
use crate::reader::{Form, FormKind};
use crate::special::make_lambda;
use crate::trace;
use crate::value::{Clause, Env, GraphDef, Lambda, Params, Pattern, Value};
use diag::{Diagnostic, Span};
use sexpgpu_graph::Graph;
use std::rc::Rc;

static TABLE: &[Builtin] = table! {
    "trace-model" => trace_model, "metric" => report::metric, "counter" => report::counter,
    "tap-gradient" => report::tap_gradient, "diagnostic" => report::diagnostic,
    "error!" => report::error_bang, "buffer" => buffers::buffer,
    "training?" => buffers::training, "set-buffer!" => buffers::set_buffer,
};

static SPECIALS: &[Special] = &[
    Special {
        name: "defmodel",
        eval: |interp, u, env, _| defmodel(interp, u.args, env, u.form.span),
        defines: true,
    },
    Special {
        name: "defrun",
        eval: |interp, u, env, _| defrun(interp, u.args, env, u.form.span),
        defines: true,
    },
];

/// Registers `defmodel`, `defrun` and the reporting operations.
pub fn install(interp: &mut Interp) {
    interp.register_specials(SPECIALS);
    interp.register_builtins(TABLE.iter().map(|b| b as &dyn Primitive));
}

/// The runs `defrun` traced, in definition order (a redefinition keeps its
/// first place); kept in the interpreter's state.
#[derive(Default)]
pub struct Runs(pub Vec<Rc<TracedRun>>);

/// The name the wrapper of a `defmodel` binds its body function to; not a
/// name a program can write by accident.
const BODY: &str = "defmodel/body";

/// `(defmodel name [args] body...)`: defines `name` as a function; calling
/// it traces the body into a fresh init graph named `name`, whose outputs
/// are the map of parameter tensors the body returns, and gives that graph.
pub fn defmodel(interp: &mut Interp, args: &[Form], env: &Env, span: Span) -> EvalResult {
    let usage = "(defmodel name [args] body...)";
    let Some((name_form, rest)) = args.split_first() else {
        return Err(malformed("defmodel", usage, span));
    };
    let Some(name) = name_form.as_symbol() else {
        return Err(malformed("defmodel", usage, name_form.span));
    };
    let rest = crate::special::skip_docstring(rest);
    if rest.len() < 2 {
        return Err(malformed("defmodel", usage, span));
    }
    let body = make_lambda(interp, "defmodel", Some(name), rest, env, span)?;
    // The wrapper: (fn (& args) (trace-model 'name defmodel/body args)).
    let symbol = |s: &str| Form::new(FormKind::Symbol(s.to_string()), span);
    let call = Form::new(
        FormKind::List(vec![
            symbol("trace-model"),
            Form::new(FormKind::List(vec![symbol("quote"), symbol(name)]), span),
            symbol(BODY),
            symbol("args"),
        ]),
        span,
    );
    let wrapper = Lambda {
        name: Some(Rc::from(name)),
        clauses: vec![Clause {
            params: Params {
                fixed: Vec::new(),
                rest: Some(Pattern::Name(Rc::from("args"))),
            },
            body: Rc::from(vec![call]),
        }],
        env: env.bind(Rc::from(BODY), Value::Fn(Rc::new(body))),
        span,
        namespace: interp.namespace.clone(),
        library: interp.in_library,
    };
    interp.define_here(name, Value::Fn(Rc::new(wrapper)));
    Ok(Value::symbol(name))
}

/// `(trace-model 'name body-fn args)`: what a `defmodel` wrapper calls.
fn trace_model(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("trace-model", site, &args, 3, Some(3))?;
    let name = match &args[0] {
        Value::Symbol(s) | Value::Str(s) => s.to_string(),
        other => return Err(wrong_type("trace-model", "a name", other, site, 0)),
    };
    let call_args = match &args[2] {
        Value::List(xs) | Value::Vector(xs) => xs.to_vec(),
        Value::Nil => Vec::new(),
        other => return Err(wrong_type("trace-model", "a list", other, site, 2)),
    };
    let mut graph = Graph::new(&name);
    graph.set_span(Some(site.span));
    let id = trace::begin(interp, graph);
    buffers::begin_model(interp, id);
    let result = interp.apply(&args[1], call_args, site);
    let marked = buffers::end_model(interp, id);
    let (mut graph, _) = trace::end(interp);
    let result = result?;
    if !matches!(result, Value::Map(_)) {
        return Err(Flow::from(
            Diagnostic::error(
                codes::E_RUN_002,
                format!(
                    "model `{name}` must return a map of parameter tensors, got {}",
                    result.type_name()
                ),
            )
            .with_primary(site.span, "")
            .with_help(
                "end the model's body with a map such as `{:w (normal [4 2]) :b (zeros [2])}`",
            ),
        ));
    }
    let (outputs, kind) = trace::graph_outputs(&mut graph, id, &result, site.span)?;
    let buffers = (0..outputs.len())
        .filter(|&i| marked.contains(&outputs[i]))
        .collect();
    graph.set_outputs(outputs);
    let def = Rc::new(GraphDef {
        name,
        graph,
        outputs: kind,
        span: site.span,
        buffers,
    });
    trace::register(interp, def.clone());
    Ok(Value::Graph(def))
}

/// `(defrun name :seed 0 :model ... :data ... :loss ... :optimizer ... ...)`.
pub fn defrun(interp: &mut Interp, args: &[Form], env: &Env, span: Span) -> EvalResult {
    let spec = options::parse(interp, args, env, span)?;
    let name = spec.name.clone();
    let traced = step::trace_run(interp, spec)?;
    let runs = &mut interp.state::<Runs>().0;
    match runs.iter().position(|r| r.spec.name == name) {
        Some(i) => runs[i] = Rc::new(traced),
        None => runs.push(Rc::new(traced)),
    }
    Ok(Value::symbol(&name))
}

/// A run ready to execute: its options and its traced graphs.
pub struct TracedRun {
    pub spec: RunSpec,
    pub step: StepGraph,
    pub eval: Option<EvalGraph>,
    /// The optimizer's state initialiser: trainable parameters in, state out.
    pub opt_init: Graph,
}

/// An error at a run's form, with a code.
pub(crate) fn run_error(code: diag::Code, message: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic::error(code, message).with_primary(span, "")
}

/// `run_error` for a value of the wrong kind: `` what, got `value` ``.
pub(crate) fn wrong_value(code: diag::Code, what: &str, got: &Value, span: Span) -> Diagnostic {
    let message = format!("{what}, got `{}`", crate::value::short(got));
    run_error(code, message, span)
}
