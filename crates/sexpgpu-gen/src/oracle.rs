//! The oracles a generated program is checked by:
//!
//! - **compiled against the reference**: the program's graph (its value
//!   and gradients) compiled for the CPU backend and run on random
//!   arguments in `[-1, 1]` must give the reference executor's outputs,
//!   each element within `CPU_TOLERANCE` of the output's scale;
//! - **gradients against finite differences**: the gradients the graph
//!   computes, run in f64 (`sexpgpu_graph::execute_f64`, every float node
//!   in f64, unrounded), must match central differences of the value, also
//!   in f64, within `FD_TOLERANCE`.
//!
//! Programs whose reference outputs are not finite are skipped, not
//! failed (the generator keeps operands in their domains, so this is rare).

use diag::render::{render_human, HumanOptions};
use sexpgpu::{Host, Mode, Session};
use sexpgpu_graph::{execute, execute_f64, DType, Graph, Tensor};

use crate::rng::Rng;

/// `|cpu - reference| <= CPU_TOLERANCE * max(1, max |reference|)` per
/// output. The backend sums matmuls in its own blocked order (with FMA)
/// where the reference sums in f64, so a product may differ in its last
/// bit; the generated chains (up to ~20 operations, tanh and softmax
/// among them, bounded values) amplify that by far less than 1e-4. A
/// wrong kernel is off by far more.
pub const CPU_TOLERANCE: f64 = 1e-4;

/// The same for bf16 programs: every node's result is rounded to bf16
/// (8 significant bits, a relative step of 2^-8 = 4e-3), so a last-bit
/// difference of a product rounds to a different bf16 value a step
/// apart, which later nodes carry on.
pub const BF16_TOLERANCE: f64 = 3e-2;

/// `|fd - grad| <= FD_TOLERANCE * (1 + |grad| + |value|)`, with steps of
/// `FD_STEP` (checked again at `10 * FD_STEP` before a mismatch counts,
/// and skipped where the value has a kink, `KINK`). In f64 the
/// difference's truncation error is about `step^2 f''' / 6` (1e-12 times
/// the third derivative) and its rounding error `1e-16 |value| / step`
/// (1e-10 times the value): five orders below the tolerance.
pub const FD_TOLERANCE: f64 = 1e-6;
pub const FD_STEP: f64 = 1e-6;

/// The value is taken to have a kink or a step where the point is (and
/// the direction is skipped) when its forward and backward differences
/// differ by more than `KINK * (1 + |central|)`. For a smooth function
/// they differ by about `step * f''` (1e-6 times the second derivative);
/// at a kink by the change of slope, at a step by the jump over the step.
/// Ties that the program's structure makes exact (`maximum` of a value and
/// itself computed two ways) are such kinks at every point.
pub const KINK: f64 = 1e-3;

/// Parameters with more elements than this are checked at this many
/// random elements and along two random directions.
const FD_ELEMENTS: usize = 12;

/// A program's graph and the arguments it is checked on.
pub struct Traced {
    pub graph: Graph,
    pub args: Vec<Tensor>,
    /// The first `params` arguments are the parameters; the graph's
    /// outputs are the value, then one gradient per parameter.
    pub params: usize,
}

/// What an oracle found.
#[derive(Clone, Debug, PartialEq)]
pub enum Finding {
    /// The front end refused the program (its diagnostic).
    Refused(String),
    /// The reference executor failed.
    Reference(String),
    /// The CPU backend failed to compile or run the graph.
    Cpu(String),
    /// A compiled output differs from the reference.
    CpuMismatch(String),
    /// A gradient differs from finite differences.
    Gradient(String),
}

impl Finding {
    /// The oracle that failed; the minimiser keeps a failure of one kind.
    pub fn kind(&self) -> &'static str {
        match self {
            Finding::Refused(_) => "refused",
            Finding::Reference(_) => "reference",
            Finding::Cpu(_) => "cpu-error",
            Finding::CpuMismatch(_) => "cpu-mismatch",
            Finding::Gradient(_) => "gradient",
        }
    }

    /// Whether `other` is the same failure for the minimiser: the same
    /// oracle, and for a refusal the same code and operation.
    pub fn same_kind(&self, other: &Finding) -> bool {
        let head = |s: &str| s.split(':').take(2).collect::<Vec<_>>().join(":");
        match (self, other) {
            (Finding::Refused(a), Finding::Refused(b)) => head(a) == head(b),
            _ => self.kind() == other.kind(),
        }
    }

    pub fn detail(&self) -> &str {
        match self {
            Finding::Refused(s)
            | Finding::Reference(s)
            | Finding::Cpu(s)
            | Finding::CpuMismatch(s)
            | Finding::Gradient(s) => s,
        }
    }
}

/// What a program that passed was checked on.
#[derive(Clone, Copy, Debug, Default)]
pub struct Checked {
    /// Skipped: the reference's outputs were not all finite.
    pub skipped: bool,
    pub graph_nodes: usize,
    pub compared_elements: usize,
    pub differences: usize,
    /// Differences skipped because the value has a kink at the point.
    pub kinks: usize,
}

/// A host that prints nothing and has no files.
struct Quiet;

impl Host for Quiet {
    fn print(&mut self, _text: &str) {}
}

/// Evaluates `text` as `sexpgpu check` does and returns its graph `g`
/// with arguments drawn from `seed`.
pub fn trace(text: &str, params: usize, seed: u64) -> Result<Traced, Finding> {
    let mut session = Session::new(Mode::Check, 0, Box::new(Quiet));
    session.set_step_limit(1_000_000);
    let diagnostics = session.eval_file("gen.sx", text);
    if let Some(d) = diagnostics.first() {
        let shown = render_human(session.sources(), d, HumanOptions::default());
        return Err(Finding::Refused(shown));
    }
    let graph = session
        .graphs()
        .iter()
        .find(|g| g.name == "g")
        .map(|g| g.graph.clone())
        .ok_or_else(|| Finding::Refused("no graph `g`".into()))?;
    let mut rng = Rng::new(seed ^ 0x5EED);
    let args = graph
        .arguments()
        .iter()
        .map(|&a| {
            let shape = graph.shape(a).clone();
            let values: Vec<f64> = (0..shape.numel()).map(|_| 2.0 * rng.unit() - 1.0).collect();
            Tensor::from_f64s(shape, &values, graph.dtype(a)).expect("a shape and its values")
        })
        .collect();
    Ok(Traced {
        graph,
        args,
        params,
    })
}

/// Runs both oracles on `program`'s text.
pub fn check(text: &str, params: usize, seed: u64) -> Result<Checked, Finding> {
    let traced = trace(text, params, seed)?;
    let reference = execute(&traced.graph, &traced.args, 0)
        .map_err(|e| Finding::Reference(e.message.clone()))?;
    let mut checked = Checked {
        graph_nodes: traced.graph.len(),
        ..Checked::default()
    };
    if reference
        .iter()
        .any(|t| t.to_f64s().iter().any(|x| !x.is_finite()))
    {
        checked.skipped = true;
        return Ok(checked);
    }
    checked.compared_elements = compiled_matches(&traced, &reference)?;
    (checked.differences, checked.kinks) = gradients_match(&traced)?;
    Ok(checked)
}

/// The compiled CPU program's outputs against the reference's, run
/// twice (the second run takes its arguments, reusing the first run's
/// arena, so a kernel that relies on fresh memory shows); the number of
/// elements compared.
pub fn compiled_matches(traced: &Traced, reference: &[Tensor]) -> Result<usize, Finding> {
    let program = cpu_program(traced)?;
    let tol = tolerance(traced);
    let mut n = 0;
    for round in 0..2 {
        let got = if round == 0 {
            program.run(&traced.args, 0)
        } else {
            program.run_owned(traced.args.clone(), 0)
        };
        let got = got.map_err(|e| Finding::Cpu(e.message.clone()))?;
        for (i, (g, w)) in got.iter().zip(reference).enumerate() {
            if let Some(why) = differs(g, w, tol) {
                return Err(Finding::CpuMismatch(format!(
                    "run {round}, output {i}: {why}"
                )));
            }
            n += w.numel();
        }
    }
    Ok(n / 2)
}

/// How close a backend must come to the reference (or to another
/// backend) on `traced`: by the dtype of its arguments.
pub fn tolerance(traced: &Traced) -> f64 {
    if traced.args.iter().any(|a| a.dtype() == DType::BF16) {
        BF16_TOLERANCE
    } else {
        CPU_TOLERANCE
    }
}

/// The graph compiled for the CPU backend (two threads) and run on the
/// arguments, with seed 0 as the reference runs it.
pub fn run_cpu(traced: &Traced) -> Result<Vec<Tensor>, Finding> {
    cpu_program(traced)?
        .run(&traced.args, 0)
        .map_err(|e| Finding::Cpu(e.message.clone()))
}

fn cpu_program(traced: &Traced) -> Result<sexpgpu_cpu::CpuProgram, Finding> {
    let program = sexpgpu_cpu::compile(&traced.graph).map_err(|e| Finding::Cpu(e.to_string()))?;
    Ok(program.with_threads(2))
}

/// Where `got` is further than `tol` (relative to `want`'s scale) from
/// `want`, said in words.
pub fn differs(got: &Tensor, want: &Tensor, tol: f64) -> Option<String> {
    if got.shape() != want.shape() || got.dtype() != want.dtype() {
        return Some(format!(
            "{} {} where the reference gives {} {}",
            got.shape(),
            got.dtype(),
            want.shape(),
            want.dtype()
        ));
    }
    let (g, w) = (got.to_f64s(), want.to_f64s());
    let scale = w.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    g.iter().zip(&w).enumerate().find_map(|(i, (a, b))| {
        let same = (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol * scale;
        (!same).then(|| format!("element {i} is {a:e}, the reference {b:e} (scale {scale:e})"))
    })
}

/// The f64 gradients against central differences of the f64 value: the
/// number of differences taken and of those skipped as kinks.
pub fn gradients_match(traced: &Traced) -> Result<(usize, usize), Finding> {
    let args: Vec<Vec<f64>> = traced.args.iter().map(Tensor::to_f64s).collect();
    let run = |args: &[Vec<f64>]| {
        execute_f64(&traced.graph, args, 0).map_err(|e| Finding::Reference(e.message.clone()))
    };
    let outs = run(&args)?;
    let value = outs[0][0];
    let mut rng = Rng::new(args.len() as u64);
    let (mut taken, mut kinks) = (0, 0);
    for p in 0..traced.params {
        let grad = &outs[1 + p];
        for direction in directions(grad.len(), &mut rng) {
            let analytic: f64 = direction.iter().zip(grad).map(|(d, g)| d * g).sum();
            // The forward and backward differences at `step`.
            let sides = |step: f64| -> Result<(f64, f64), Finding> {
                let mut a = args.clone();
                let mut at = |sign: f64| {
                    for ((x, x0), d) in a[p].iter_mut().zip(&args[p]).zip(&direction) {
                        *x = x0 + sign * step * d;
                    }
                    run(&a).map(|o| o[0][0])
                };
                Ok(((at(1.0)? - value) / step, (value - at(-1.0)?) / step))
            };
            let tol = FD_TOLERANCE * (1.0 + analytic.abs() + value.abs());
            taken += 1;
            let mut wrong = None;
            for step in [FD_STEP, 10.0 * FD_STEP] {
                let (forward, backward) = sides(step)?;
                let central = (forward + backward) / 2.0;
                if (forward - backward).abs() > KINK * (1.0 + central.abs()) {
                    kinks += 1;
                    wrong = None;
                    break;
                }
                if (central - analytic).abs() <= tol {
                    wrong = None;
                    break;
                }
                wrong.get_or_insert(central);
            }
            if let Some(fd) = wrong {
                let nonzero: Vec<usize> = (0..direction.len())
                    .filter(|&i| direction[i] != 0.0)
                    .collect();
                let along = match nonzero[..] {
                    [i] => format!("element {i}"),
                    _ => "a random direction".to_string(),
                };
                return Err(Finding::Gradient(format!(
                    "parameter {p} along {along}: finite differences {fd:e}, gradient {analytic:e} (value {value:e})"
                )));
            }
        }
    }
    Ok((taken, kinks))
}

/// The directions a parameter of `n` elements is checked along: each
/// element, or `FD_ELEMENTS` random ones and two random directions.
fn directions(n: usize, rng: &mut Rng) -> Vec<Vec<f64>> {
    let unit = |i: usize| {
        let mut d = vec![0.0; n];
        d[i] = 1.0;
        d
    };
    if n <= FD_ELEMENTS {
        return (0..n).map(unit).collect();
    }
    let mut out: Vec<Vec<f64>> = (0..FD_ELEMENTS).map(|_| unit(rng.int(0, n - 1))).collect();
    for _ in 0..2 {
        out.push((0..n).map(|_| 2.0 * rng.unit() - 1.0).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRAPH: &str = "(defgraph g [(w [2 3]) (x [3])]\n  (value-and-grad (fn [w] LOSS) w))";

    fn checked(loss: &str) -> Result<Checked, Finding> {
        check(&GRAPH.replace("LOSS", loss), 1, 7)
    }

    #[test]
    fn a_correct_program_passes_every_oracle() {
        let c = checked("(sum (tanh (matmul w x)))").unwrap();
        assert!(!c.skipped);
        // The value, and the gradient's six elements, each differenced.
        assert_eq!((c.compared_elements, c.differences), (7, 6));
    }

    #[test]
    fn a_gradient_the_value_does_not_have_is_found() {
        // `stop-gradient` keeps the value and drops half the derivative,
        // which finite differences of the value see.
        let f = checked("(sum (* w (stop-gradient w)))").unwrap_err();
        assert_eq!(f.kind(), "gradient", "{f:?}");
    }

    #[test]
    fn a_tie_the_structure_makes_is_a_kink_not_a_finding() {
        // The inner gradient at a tie of `maximum` is half of each side's;
        // rounding breaks the tie one way or the other at every moved
        // point, so its square jumps there (the first finding of the
        // campaign, seed 10491: docs/fuzzing.md).
        let loss = "(let [[v g] (value-and-grad (fn [u] (maximum (nn/mean u) (nn/mean w))) \
                    (broadcast-to (nn/mean w) [3 3]))] (+ v (* 0.5 (sum (* g g)))))";
        let c = check(
            &format!("(require nn)\n{}", GRAPH.replace("LOSS", loss)),
            1,
            7,
        )
        .unwrap();
        assert!(c.kinks > 0, "{c:?}");
    }

    #[test]
    fn refusals_and_non_finite_values_are_told_apart() {
        let f = checked("(sum (matmul x w))").unwrap_err();
        assert!(f.detail().contains("E-DIM-001"), "{f:?}");
        assert!(checked("(sum (log (- w 2.0)))").unwrap().skipped);
    }

    #[test]
    fn outputs_differ_beyond_the_tolerance_only() {
        let t =
            |v: &[f64]| Tensor::from_f64s(sexpgpu_graph::Shape::from([2]), v, DType::F32).unwrap();
        assert_eq!(
            differs(&t(&[1.0, 100.0]), &t(&[1.005, 100.0]), CPU_TOLERANCE),
            None
        );
        assert!(differs(&t(&[1.0, 100.0]), &t(&[1.02, 100.0]), CPU_TOLERANCE).is_some());
        assert!(differs(&t(&[f64::NAN, 1.0]), &t(&[0.0, 1.0]), CPU_TOLERANCE).is_some());
    }
}
