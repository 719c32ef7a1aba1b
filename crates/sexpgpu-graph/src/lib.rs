//! SexpGPU tensor graphs: dtypes, shapes, operations with their shape rules,
//! the IR printer, random streams and the reference CPU executor. Knows
//! nothing of the Lisp reader or evaluator and never reads files itself.

mod build;
mod dtype;
mod error;
mod exec;
mod format;
mod graph;
mod ir;
mod npy;
mod op;
pub mod random;
mod shape;
mod tensor;

pub use dtype::{DType, Scalar};
pub use error::{OpError, OpErrorKind};
pub use exec::{execute, ExecError};
pub use format::{format_f32, format_f64};
pub use graph::{Graph, Node, NodeId, Operand};
pub use ir::print_ir;
pub use npy::{convert_for_input, from_npy, to_npy, NpyError};
pub use op::{BinaryOp, CompareOp, Op, ReduceOp, UnaryOp};
pub use shape::{broadcast_shapes, format_list, normalize_axis, Shape};
pub use tensor::{Nested, Tensor, TensorData, TensorError};
