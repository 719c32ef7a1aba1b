//! The ShapeScript checker: sizes, dims, aliases, imports, signatures and bodies. Pure: files come in through the `Files` trait, nothing here does I/O.
