//! SexpGPU tensor graphs: dtypes, shapes, operations with their shape rules,
//! the IR printer, random streams and the reference CPU executor. Knows
//! nothing of the Lisp reader or evaluator and never reads files itself.
//!
//! A caller (the tracer, autodiff) builds a [`Graph`] with one method per
//! operation; each checks the shape and dtype rules of `docs/sexpgpu/operations.md` and either appends
//! nodes (adding explicit `broadcast` nodes) or returns an [`OpError`] whose
//! kind gives the diagnostic code. [`execute`] runs a graph on host
//! [`Tensor`]s; [`print_ir`] prints it.
//!
//! ```
//! use sexpgpu_graph::{execute, BinaryOp, DType, Graph, Shape, Tensor};
//!
//! let mut g = Graph::new("double");
//! let x = g.input("x", Shape::from([2, 2]), DType::F32);
//! let y = g.binary(BinaryOp::Mul, x, 2.0).unwrap();
//! g.set_outputs(vec![y]);
//! let arg = Tensor::from_f64s(Shape::from([2, 2]), &[1.0, 2.0, 3.0, 4.0], DType::F32).unwrap();
//! let out = execute(&g, &[arg], 0).unwrap();
//! assert_eq!(out[0].to_clojure_string(), "[[2.0 4.0] [6.0 8.0]]");
//!
//! let w = g.input("w", Shape::from([32, 8]), DType::F32);
//! let err = g.matmul(x, w).unwrap_err();
//! assert_eq!((err.code().id, err.message.as_str()), ("E-DIM-001", "matmul: inner dims differ: [2, 2] x [32, 8]"));
//! ```

mod build;
pub mod codes;
mod dedup;
mod dtype;
mod error;
mod exec;
mod format;
mod graph;
mod ir;
pub mod math;
mod npy;
mod op;
pub mod random;
mod shape;
mod tensor;

pub use build::{ConvOptions, ConvPadding, PadMode, PerAxis, PoolOptions, Resize, ScatterReduce};
pub use dtype::{hash_f64, DType, Scalar};
pub use error::{OpError, OpErrorKind};
pub use exec::{execute, execute_f64, sort_lines, total_order, ExecError};
pub use format::{format_f32, format_f64};
pub use graph::{Graph, Node, NodeId, Operand};
pub use ir::print_ir;
pub use npy::{
    convert_for_input, from_npy, from_npy_counted, narrowing_overflows, npy_bytes, npy_file_size,
    to_npy, NpyError,
};
pub use op::{AttentionPart, BinaryOp, CompareOp, Op, Operands, ReduceOp, UnaryOp};
pub use shape::{broadcast_shapes, format_list, normalize_axis, Shape, MAX_ELEMENTS};
pub use tensor::{Nested, Tensor, TensorData, TensorError};
