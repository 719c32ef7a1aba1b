//! SexpGPU tensor graphs: dtypes, shapes, operations with their shape rules, the IR printer, random streams and the reference CPU executor. Knows nothing of the Lisp reader or evaluator.
