//! Graphs whose gradients meet ties, for `emulate.rs`: `max-pool` (tiles,
//! and overlapping padded windows with `:return-indices`), `max-unpool` of
//! overlapping windows, `scatter` with repeated ids and `scatter-reduce`
//! `:amax`/`:amin` with and without the base's own values, each traced
//! with `value-and-grad` from a `.sx` program and given inputs that hold
//! equal maxima, NaN, infinities and signed zeros: the values and
//! gradients the Python tests compare with PyTorch's
//! (`tests/python/test_sexpgpu_torch_ops.py`).

use sexpgpu_graph::{DType, Graph, NodeId, Op, Tensor};

/// A host that prints nothing and reads no file.
struct Quiet;

impl sexpgpu::Host for Quiet {
    fn print(&mut self, _text: &str) {}
}

const PROGRAM: &str = r"
(defn weighted [f x w]
  (:x (second (value-and-grad (fn [p] (sum (* w (f (:x p))))) {:x x}))))
(defn weighted2 [f a b w]
  (second (value-and-grad (fn [p] (sum (* w (f (:a p) (:b p))))) {:a a :b b})))
(defgraph max-pool-tiles [(x [1 1 5 6] :f32) (w [1 1 2 3] :f32)]
  (let [f (fn [t] (max-pool t :window [2 2]))]
    [(f x) (weighted f x w)]))
(defgraph max-pool-overlapping [(x [1 1 5 6] :f32) (w [1 1 3 4] :f32)]
  (let [f (fn [t] (first (max-pool t :window [3 3] :stride [2 2] :padding [1 1]
                                   :ceil-mode true :return-indices true)))]
    [(f x) (weighted f x w)]))
(defgraph max-unpool-overlapping [(x [1 2 5 6] :f32) (w [1 2 5 6] :f32)]
  (let [f (fn [t] (let [[v i] (max-pool t :window [3 3] :stride [2 2] :padding [1 1]
                                        :return-indices true)]
                    (max-unpool v i :window [3 3] :stride [2 2] :padding [1 1]
                                :output-size [5 6])))]
    [(f x) (weighted f x w)]))
(defgraph scatter-repeated [(base [5 4] :f32) (idx [4 4] :i64) (src [4 4] :f32)
                            (w [5 4] :f32)]
  (let [f (fn [b s] (scatter b idx s :axis 0))
        g (weighted2 f base src w)]
    [(f base src) (:a g) (:b g)]))
";

/// One `scatter-reduce` graph of `PROGRAM`'s inputs.
fn scatter_reduce_graph(how: &str, include_self: bool) -> String {
    format!(
        "(defgraph scatter-{how}-{include_self} [(base [5 4] :f32) (idx [4 4] :i64)
                                                 (src [4 4] :f32) (w [5 4] :f32)]
           (let [f (fn [b s] (scatter-reduce b idx s :{how} :axis 0
                                             :include-self {include_self}))
                 g (weighted2 f base src w)]
             [(f base src) (:a g) (:b g)]))\n"
    )
}

/// Each graph with its arguments, by input name.
pub fn tie_graphs() -> Vec<(String, Graph, Vec<Tensor>)> {
    let mut text = PROGRAM.to_string();
    for how in ["amax", "amin"] {
        for include_self in [true, false] {
            text.push_str(&scatter_reduce_graph(how, include_self));
        }
    }
    let mut session = sexpgpu::Session::new(sexpgpu::Mode::Check, 0, Box::new(Quiet));
    let diagnostics = session.eval_file("ties.sx", &text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    session
        .graphs()
        .iter()
        .map(|g| {
            let args = g
                .graph
                .arguments()
                .iter()
                .map(|&a| argument(&g.graph, a))
                .collect();
            (g.name.clone(), g.graph.clone(), args)
        })
        .collect()
}

/// The value of input `a`, by its name and shape.
fn argument(g: &Graph, a: NodeId) -> Tensor {
    let Op::Input { name } = &g.node(a).op else {
        panic!("{a} is not an input")
    };
    let shape = g.shape(a).clone();
    let n = shape.numel();
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let floats = |v: &[f64]| Tensor::from_f64s(shape.clone(), v, DType::F32).unwrap();
    match (name.as_str(), shape.dims()) {
        // Equal maxima, NaN (the last of a window's wins) and -inf.
        ("x", [1, 1, 5, 6]) => floats(&[
            1.0, 1.0, 0.0, 2.0, 2.0, 5.0, 0.0, nan, 3.0, 3.0, nan, nan, -inf, -inf, 4.0, 0.0, 1.0,
            1.0, -inf, -inf, 2.0, 2.0, 7.0, 7.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0,
        ]),
        // Distinct values, some the maximum of two overlapping windows.
        ("x", _) => floats(&(0..n).map(|i| ((i * 37) % n) as f64).collect::<Vec<_>>()),
        ("base", _) => floats(&[
            1.0, -inf, inf, 0.0, nan, 1.0, 1.0, 1.0, 3.0, 2.0, inf, 2.0, 4.0, 5.0, 1.0, -inf, nan,
            5.0, 6.0, 7.0,
        ]),
        ("src", _) => floats(&[
            nan, -inf, inf, -0.0, 2.0, -inf, 2.0, 0.0, inf, 5.0, inf, 2.0, 1.0, 5.0, -inf, -inf,
        ]),
        ("idx", _) => {
            let ids = [0, 0, 2, 0, 0, 0, 2, 0, 2, 3, 2, 2, 3, 3, 3, 3];
            Tensor::from_i64s(shape.clone(), &ids, DType::I64).unwrap()
        }
        ("w", _) => floats(
            &(0..n)
                .map(|i| -1.0 + 3.0 * i as f64 / (n - 1) as f64)
                .collect::<Vec<_>>(),
        ),
        (other, _) => panic!("no argument for input `{other}`"),
    }
}
