//! SexpGPU: reader, host evaluator, tracer, graph, autodiff and backends.
