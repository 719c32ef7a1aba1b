//! Python code generation: turns checked ShapeScript into PyTorch modules. Does no I/O; returns file contents for the caller to write.
