//! The IR printer: one graph in SSA form, one node a line with shape, dtype
//! and source position, in the format of the design's section 7. Never
//! changes a graph.

use diag::SourceMap;

use crate::format::format_f64;
use crate::graph::{Graph, Node};
use crate::op::Op;
use crate::shape::format_list;

/// The op column is at least this wide, the shape-and-dtype column at least
/// `TYPE_WIDTH`; both grow to their longest entry plus two spaces.
const OP_WIDTH: usize = 27;
const TYPE_WIDTH: usize = 14;
/// Literal constants with more elements print as a count.
const MAX_LITERAL: usize = 8;

/// A node's line before alignment: id, op, shape and dtype, location.
type Row = (String, String, String, String);

/// Prints `graph` as `sexpgpu ir` shows it. Spans are shown as
/// `file:line:col` through `sources`; nodes without one end after the dtype.
pub fn print_ir(graph: &Graph, sources: &SourceMap) -> String {
    let rows: Vec<Row> = graph
        .nodes()
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let location = node.span.map_or(String::new(), |span| {
                let lc = sources.line_col(span.file, span.start);
                format!("{}:{}:{}", sources.name(span.file), lc.line, lc.col)
            });
            (
                format!("%{i}"),
                op_text(node),
                format!("{} {}", node.shape, node.dtype),
                location,
            )
        })
        .collect();
    // A column's width: its longest entry plus `pad`, at least `least`.
    let width = |entry: fn(&Row) -> &str, pad: usize, least: usize| {
        let longest = rows.iter().map(|r| entry(r).len() + pad).max();
        longest.unwrap_or(0).max(least)
    };
    let id_width = width(|r| &r.0, 0, 0);
    let op_width = width(|r| &r.1, 2, OP_WIDTH);
    let type_width = width(|r| &r.2, 2, TYPE_WIDTH);
    let mut out = format!(
        "graph {} (inputs {}, params {}, nodes {})\n",
        graph.name(),
        graph.input_count(),
        graph.param_count(),
        graph.len()
    );
    for (id, op, ty, location) in rows {
        let line = format!("  {id:<id_width$} = {op:<op_width$}{ty:<type_width$}{location}");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let outputs: Vec<String> = graph.outputs().iter().map(|o| o.to_string()).collect();
    out.push_str(&format!("  return {}\n", outputs.join(" ")).replace("return \n", "return\n"));
    out
}

/// `matmul %0 %1`, `sum %3 :axes [1] :keepdims false`, `input x`.
fn op_text(node: &Node) -> String {
    let mut text = node.op.name().to_string();
    for input in &node.inputs {
        text.push_str(&format!(" {input}"));
    }
    let attrs = match &node.op {
        Op::Input { name } | Op::Param { name } => format!(" {name}"),
        Op::Constant { value } if value.numel() <= MAX_LITERAL => format!(" {value}"),
        Op::Constant { value } => format!(" <{} values>", value.numel()),
        Op::Full { value } => format!(" {value}"),
        Op::Iota { axis } => format!(" :axis {axis}"),
        Op::Normal { mean, std, stream } => {
            format!(
                " :mean {} :std {} :stream {stream}",
                format_f64(*mean),
                format_f64(*std)
            )
        }
        Op::Uniform { low, high, stream } => {
            format!(
                " :low {} :high {} :stream {stream}",
                format_f64(*low),
                format_f64(*high)
            )
        }
        Op::Reduce { axes, keepdims, .. } => {
            format!(" :axes {} :keepdims {keepdims}", format_list(axes))
        }
        Op::Transpose { perm } => format!(" {}", format_list(perm)),
        Op::Slice { axis, start, stop } => format!(" :axis {axis} :start {start} :stop {stop}"),
        Op::Concat { axis } | Op::Gather { axis } | Op::ScatterAdd { axis } => {
            format!(" :axis {axis}")
        }
        Op::LinearScan { axis, reverse } => format!(" :axis {axis} :reverse {reverse}"),
        Op::Argsort { axis, descending } => format!(" :axis {axis} :descending {descending}"),
        Op::Attention { causal, scale, .. } => {
            format!(" :causal {causal} :scale {}", crate::format_f64(*scale))
        }
        Op::Unary(_)
        | Op::Binary(_)
        | Op::Compare(_)
        | Op::Where
        | Op::Cast
        | Op::Reshape
        | Op::Broadcast
        | Op::Matmul
        | Op::Index
        | Op::IndexAdd => String::new(),
    };
    text.push_str(&attrs);
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DType, ReduceOp, Shape};
    use diag::Span;
    use expect_test::expect;

    #[test]
    fn seed_example_layout() {
        let text = "(defmodel bad-shape [] ...)\n\n\n\n\n\n  (lambda (x) (matmul x weight)))\n";
        let mut sources = SourceMap::new();
        let file = sources.add("bad-shape.sx", text);
        let at = |line: usize, col: u32| {
            let start = sources.line_start(file, line - 1) + col - 1;
            Some(Span::new(file, start, start + 1))
        };
        let mut g = Graph::new("bad-shape");
        g.set_span(at(7, 12));
        let x = g.input("x", Shape::from([2, 16]), DType::F32);
        g.set_span(at(3, 1));
        let w = g.param("weight", Shape::from([16, 8]), DType::F32);
        g.set_span(at(7, 15));
        let y = g.matmul(x, w).unwrap();
        g.set_outputs(vec![y]);
        expect![[r#"
            graph bad-shape (inputs 1, params 1, nodes 3)
              %0 = input x                    [2, 16] f32   bad-shape.sx:7:12
              %1 = param weight               [16, 8] f32   bad-shape.sx:3:1
              %2 = matmul %0 %1               [2, 8] f32    bad-shape.sx:7:15
              return %2
        "#]]
        .assert_eq(&print_ir(&g, &sources));
    }

    #[test]
    fn columns_grow_and_attributes_print() {
        let sources = SourceMap::new();
        let mut g = Graph::new("attrs");
        let x = g.input("x", Shape::from([2, 3]), DType::BF16);
        let s = g.reduce(ReduceOp::Sum, x, Some(&[-1]), true).unwrap();
        let y = g.binary(crate::BinaryOp::Add, x, s).unwrap();
        let t = g.transpose(y, &[1, 0]).unwrap();
        let r = g
            .normal(Shape::from([3, 2]), DType::BF16, 0.0, 0.02)
            .unwrap();
        let z = g.binary(crate::BinaryOp::Mul, t, r).unwrap();
        let z = g.binary(crate::BinaryOp::Mul, z, 2.0).unwrap();
        let c =
            g.constant(crate::Tensor::from_i64s(Shape::from([2]), &[4, 5], DType::I64).unwrap());
        let many =
            g.constant(crate::Tensor::from_i64s(Shape::from([9]), &[0; 9], DType::I32).unwrap());
        let cat = g.concat(0, &[x, x]).unwrap();
        let sl = g.slice(cat, 0, 1, 3).unwrap();
        g.set_outputs(vec![z, c, many, sl]);
        expect![[r#"
            graph attrs (inputs 1, params 0, nodes 14)
              %0  = input x                               [2, 3] bf16
              %1  = sum %0 :axes [1] :keepdims true       [2, 1] bf16
              %2  = broadcast %1                          [2, 3] bf16
              %3  = add %0 %2                             [2, 3] bf16
              %4  = transpose %3 [1, 0]                   [3, 2] bf16
              %5  = normal :mean 0.0 :std 0.02 :stream 0  [3, 2] bf16
              %6  = mul %4 %5                             [3, 2] bf16
              %7  = full 2.0                              [] bf16
              %8  = broadcast %7                          [3, 2] bf16
              %9  = mul %6 %8                             [3, 2] bf16
              %10 = constant [4 5]                        [2] i64
              %11 = constant <9 values>                   [9] i32
              %12 = concat %0 %0 :axis 0                  [4, 3] bf16
              %13 = slice %12 :axis 0 :start 1 :stop 3    [2, 3] bf16
              return %9 %10 %11 %13
        "#]]
        .assert_eq(&print_ir(&g, &sources));
    }
}
