//! The codes of the graph builders' errors (`OpError`): shapes that do not
//! fit, dtypes that differ, a tensor expected. The front end's table
//! (`sexpgpu::codes`) takes them in, so these explanations (each in
//! `codes/<CODE>.md`, included when the crate compiles) are what
//! `sexpgpu explain` prints.

diag::codes! {
    /// The three codes an `OpError` can carry.
    pub static CODES;
    E_DIM_001 = "E-DIM-001", "shapes do not fit", include_str!("codes/E-DIM-001.md");
    E_DIM_002 = "E-DIM-002", "dtypes differ, or a keyword is not a dtype", include_str!("codes/E-DIM-002.md");
    E_DIM_003 = "E-DIM-003", "a tensor was expected", include_str!("codes/E-DIM-003.md");
}
