//! Evaluator tests: each case runs a small program and shows what it printed,
//! then each diagnostic as `code line:col: message`, then the graphs' IR
//! when the case asks for it.

use super::Session;
use crate::eval::{Host, Mode};
use expect_test::{expect, Expect};
use std::cell::RefCell;
use std::rc::Rc;

struct Buffer(Rc<RefCell<String>>);

impl Host for Buffer {
    fn print(&mut self, text: &str) {
        self.0.borrow_mut().push_str(text);
    }
}

fn run(mode: Mode, src: &str, with_ir: bool) -> String {
    let printed = Rc::new(RefCell::new(String::new()));
    let mut session = Session::new(mode, 0, Box::new(Buffer(printed.clone())));
    let diagnostics = session.eval_file("test.sx", src);
    let mut out = printed.borrow().clone();
    for d in &diagnostics {
        let at = d.primary.as_ref().map_or(String::new(), |l| {
            let lc = session.sources().line_col(l.span.file, l.span.start);
            format!(" {}:{}", lc.line, lc.col)
        });
        out.push_str(&format!("{}{at}: {}\n", d.code, d.message));
    }
    if with_ir {
        for g in session.graphs() {
            out.push_str(&sexpgpu_graph::print_ir(&g.graph, session.sources()));
        }
    }
    out
}

fn check(src: &str, expect: Expect) {
    expect.assert_eq(&run(Mode::Run, src, false));
}

fn check_ir(src: &str, expect: Expect) {
    expect.assert_eq(&run(Mode::Check, src, true));
}

#[test]
fn numbers_print_as_clojure_prints_them() {
    check(
        "(println 1 -2 1.0 0.5 1e-4 1e7 123456.0 (/ 1.0 0) (- (/ 1.0 0)) (/ 0.0 0))",
        expect![[r#"
            1 -2 1.0 0.5 1.0E-4 1.0E7 123456.0 ##Inf ##-Inf ##NaN
        "#]],
    );
}

#[test]
fn symbolic_floats_read_back() {
    check(
        "(println ##Inf ##-Inf ##NaN (= ##Inf (/ 1.0 0)) (< ##-Inf -1e308))",
        expect![[r#"
            ##Inf ##-Inf ##NaN true true
        "#]],
    );
}

#[test]
fn collections_print_and_compare() {
    check(
        r#"(prn [1 "a" :k 'sym nil true] '(1 2) {:a [1]} (= [1 2] '(1 2)) (= 1 1.0) (= {:a 1 :b 2} {:b 2 :a 1}))"#,
        expect![[r#"
            [1 "a" :k sym nil true] (1 2) {:a [1]} true false true
        "#]],
    );
}

#[test]
fn closures_capture_their_environment() {
    check(
        "(defn adder (n) (fn (x) (+ x n)))
         (def add3 (adder 3))
         (println (add3 4) (map (adder 10) [1 2]))",
        expect![[r#"
            7 (11 12)
        "#]],
    );
}

#[test]
fn destructuring_in_let_and_parameters() {
    check(
        "(defn f [[a b] & {:keys [scale] :or {scale 1}}] (* scale (+ a b)))
         (let [[x & xs :as all] [1 2 3]
               {:keys [k]} {:k :v}]
           (println x xs all k (f [1 2]) (f [1 2] :scale 10)))",
        expect![[r#"
            1 (2 3) [1 2 3] :v 3 30
        "#]],
    );
}

#[test]
fn loop_recur_runs_long_without_nesting() {
    check(
        "(println (loop [i 0 acc 0] (if (< i 100000) (recur (inc i) (+ acc i)) acc)))
         (defn count-down (n) (if (zero? n) :done (recur (dec n))))
         (println (count-down 50000))",
        expect![[r#"
            4999950000
            :done
        "#]],
    );
}

#[test]
fn macros_expand_with_quasiquote() {
    check(
        "(defmacro twice (form) `(do ~form ~form))
         (twice (print \"hi \"))
         (println)
         (defmacro my-list (& xs) `(list ~@xs))
         (println (my-list 1 2 3))",
        expect![[r#"
            hi hi 
            (1 2 3)
        "#]],
    );
}

#[test]
fn one_mistake_gives_one_diagnostic() {
    check(
        "(def broken (undefined-thing))
         (println broken)
         (defn g () (+ broken 1))
         (println (g))
         (println :after)",
        expect![[r#"
            :after
            E-EVAL-001 1:14: unbound name `undefined-thing`
        "#]],
    );
}

#[test]
fn namespaces_keep_library_names_apart() {
    check(
        "(defn mean (xs) :mine)
         (require nn)
         (println (mean [1]) (fn? nn/mean) (fn? nn/softmax))",
        expect![[r#"
            :mine true true
        "#]],
    );
}

#[test]
fn tensor_values_and_queries() {
    check(
        "(defgraph g [(x [2 3] :f32)]
           (println (shape x) (rank x) (dim x -1) (numel x) (dtype x) x)
           {:sum (sum x) :same x})
         (let [{:keys [sum same]} (call g [[1 2 3] [4 5 6]])]
           (println (to-vec sum) (shape same) same))",
        expect![[r#"
            [2 3] 2 3 6 :f32 #<tensor [2, 3] f32>
            21.0 [2 3] [[1.0 2.0 3.0] [4.0 5.0 6.0]]
        "#]],
    );
}

#[test]
fn numeric_equality_on_tensors_compares_for_equality() {
    check(
        "(defgraph g [(x [3] :f32)] [(== x 2) (= x 2) (not= x 2)])
         (println (map to-vec (call g [1 2 3])))",
        expect![[r#"
            ([false true false] [false true false] [true false true])
        "#]],
    );
}

#[test]
fn staging_errors() {
    check(
        "(def leak nil)
         (defgraph a [(x [2] :f32)] (def leak x) x)
         (defgraph b [(y [2] :f32)] (+ y leak))
         (+ leak 1)
         (defgraph c [(x [2] :f32)] (when (> x 0) x))
         (defgraph d [(x [2] :f32)] (filter (fn (v) (> x v)) [1 2]))",
        expect![[r#"
            E-FLOW-002 3:42: a tensor from another graph
            E-FLOW-003 4:10: `+` outside a traced function
            E-FLOW-001 5:43: branching on a tensor
            E-FLOW-001 6:37: branching on a tensor
        "#]],
    );
}

#[test]
fn numbers_in_front_of_a_product_fold_first() {
    check_ir(
        "(defgraph g [(x [3] :f32)] (* 0.5 4 x 2))",
        expect![[r#"
            graph g (inputs 1, params 0, nodes 7)
              %0 = input x                    [3] f32       test.sx:1:15
              %1 = full 2.0                   [] f32        test.sx:1:28
              %2 = broadcast %1               [3] f32       test.sx:1:28
              %3 = mul %2 %0                  [3] f32       test.sx:1:28
              %4 = full 2.0                   [] f32        test.sx:1:28
              %5 = broadcast %4               [3] f32       test.sx:1:28
              %6 = mul %3 %5                  [3] f32       test.sx:1:28
              return %6
        "#]],
    );
}

#[test]
fn call_under_check_binds_arguments_but_runs_nothing() {
    let out = run(
        Mode::Check,
        "(defgraph g [(x [2] :i32)] (+ x 1))
         (println (to-vec (call g [5 6])))
         (call g [1.5 2])",
        false,
    );
    expect![[r#"
        E-DIM-002 3:18: call: input `x` is i32: 1.5 is a float, which does not fit dtype i32
    "#]]
    .assert_eq(&out);
}

#[test]
fn functions_with_several_arities() {
    check(
        "(defn greet ([] (greet \"world\")) ([who] (str \"hello \" who)) ([a & more] (count more)))
         (println (greet) (greet \"you\") (greet 1 2 3))
         (defn one ([x] x))
         (one)",
        expect![[r#"
            hello world hello you 2
            E-EVAL-002 4:10: `one` takes 1 argument, got 0
        "#]],
    );
}

#[test]
fn comprehensions_and_format() {
    check(
        r#"(println (for [x [1 2 3] :when (odd? x) y [10 20] :let [z (+ x y)]] z))
           (println (mapcat (fn (x) [x x]) [1 2]))
           (println (format "%s: %.3f (%d) %5d|%-4s|%e %%" "loss" 0.123456 42 7 "ab" 1500.0))
           (format "%d" 1.5)"#,
        expect![[r#"
            (11 21 13 23)
            (1 1 2 2)
            loss: 0.123 (42)     7|ab  |1.500000e+03 %
            E-EVAL-003 4:12: `format`: `%d` cannot format a float
        "#]],
    );
}

#[test]
fn conditional_binding_and_case() {
    check(
        "(println (when-let [x (get {:a 1} :a)] (inc x)) (when-let [x nil] :no)
                  (if-let [x false] :yes :no) (if-let [[a] [5]] a :no))
         (defn kind (x) (case x 1 :one \"two\" :two :many))
         (println (kind 1) (kind \"two\") (kind 3) (case 9 1 :one))",
        expect![[r#"
            2 nil :no 5
            :one :two :many nil
        "#]],
    );
}

/// A user's `def` of a builtin's name (`dtype`, `concat`: natural names
/// in a training script) is theirs alone: the prelude and the nn library
/// keep the builtins they were written against, as Clojure's namespaces do.
#[test]
fn user_definitions_do_not_reach_into_the_library() {
    check(
        "(require nn)
         (def dtype :bf16)
         (def concat \"mine\")
         (def exp 2)
         (println dtype concat exp)
         (println (mapcat (fn (x) [x x]) [1 2]))
         (defgraph g [(q [2 3 4] :f32)]
           (nn/attention q q q :causal true))
         (println (shape (call g (call (fn () (ones [2 3 4]))))))
         (println (to-vec (call (fn () (nn/softmax (zeros [2]))))))",
        expect![[r#"
            :bf16 mine 2
            (1 1 2 2)
            [2 3 4]
            [0.5 0.5]
        "#]],
    );
}
