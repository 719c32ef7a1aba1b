//! The error a graph builder returns when an operation's shapes or dtypes do
//! not fit; it carries the op-level message and notes, never a source span or
//! operand names (the caller knows how the operands were written).

use crate::codes;
use std::fmt;

/// Which diagnostic code the caller should report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpErrorKind {
    /// Shapes do not fit: `E-DIM-001`.
    DimMismatch,
    /// Dtypes differ, or a dtype is not accepted here: `E-DIM-002`.
    DtypeMismatch,
    /// A tensor was expected (e.g. two plain numbers given to a tensor op): `E-DIM-003`.
    NotATensor,
}

impl OpErrorKind {
    /// The code of this kind in `codes`.
    pub fn code(self) -> diag::Code {
        match self {
            OpErrorKind::DimMismatch => codes::E_DIM_001,
            OpErrorKind::DtypeMismatch => codes::E_DIM_002,
            OpErrorKind::NotATensor => codes::E_DIM_003,
        }
    }
}

/// A rejected operation. `message` is the diagnostic's headline in the book's
/// style (`matmul: inner dims differ: [2, 16] x [32, 8]`); `notes` are extra
/// op-level explanations (e.g. the broadcast that would have applied) to print
/// after the caller's own `operands: ...` note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpError {
    pub kind: OpErrorKind,
    pub message: String,
    pub notes: Vec<String>,
}

impl OpError {
    pub fn dim(message: impl Into<String>) -> OpError {
        OpError {
            kind: OpErrorKind::DimMismatch,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    pub fn dtype(message: impl Into<String>) -> OpError {
        OpError {
            kind: OpErrorKind::DtypeMismatch,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    pub fn not_a_tensor(message: impl Into<String>) -> OpError {
        OpError {
            kind: OpErrorKind::NotATensor,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> OpError {
        self.notes.push(note.into());
        self
    }

    pub fn code(&self) -> diag::Code {
        self.kind.code()
    }
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OpError {}

/// An error type that is only its message, as `npy` and `tensor` report
/// theirs: the public struct, `Display` (the message), `std::error::Error`
/// and a private constructor from anything that converts into a `String`.
macro_rules! message_error {
    ($(#[$doc:meta])* $name:ident, $new:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name {
            pub message: String,
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.message)
            }
        }

        impl std::error::Error for $name {}

        fn $new(message: impl Into<String>) -> $name {
            $name {
                message: message.into(),
            }
        }
    };
}

pub(crate) use message_error;
