//! Whole programs: buffers reused by liveness still give the reference's
//! results, argument errors are the reference's, and `describe` shows the
//! kernels and slots of the optimized program.

mod common;

use common::{accum_tol, check, tensor, Rng, Tol};
use expect_test::expect;
use sexpgpu_cpu::compile;
use sexpgpu_graph::{execute, BinaryOp, CompareOp, DType, Graph, ReduceOp, Scalar, Shape, UnaryOp};

/// `depth` layers of matmul then tanh: each layer's buffers die two
/// kernels later, so the arena needs far fewer slots than buffers.
fn deep(depth: usize) -> Graph {
    let mut g = Graph::new("deep");
    let mut h = g.input("x", Shape::from([16, 32]), DType::F32);
    let mut ws = Vec::new();
    for i in 0..depth {
        ws.push(g.param(format!("w{i}"), Shape::from([32, 32]), DType::F32));
    }
    for w in ws {
        h = g.matmul(h, w).unwrap();
        h = g.unary(UnaryOp::Tanh, h).unwrap();
    }
    let s = g.reduce(ReduceOp::Sum, h, None, false).unwrap();
    g.set_outputs(vec![h, s]);
    g
}

#[test]
fn reused_buffers_give_the_references_results() {
    let g = deep(6);
    let mut rng = Rng::new(30);
    let mut args = vec![tensor(&mut rng, &[16, 32], DType::F32)];
    for _ in 0..6 {
        let w = tensor(&mut rng, &[32, 32], DType::F32);
        let scaled: Vec<f64> = w.to_f64s().iter().map(|x| x * 0.2).collect();
        args.push(
            sexpgpu_graph::Tensor::from_f64s(Shape::from([32, 32]), &scaled, DType::F32).unwrap(),
        );
    }
    check(&g, &args, accum_tol(DType::F32, 32 * 6));
    let plan = compile(&g).unwrap();
    let plan = plan.plan();
    assert_eq!(plan.buffers.len(), 13);
    // Two working slots alternate; the last tanh overwrites its product
    // in place, in a slot that leaves as an output; the sum has its own.
    assert_eq!(plan.slots.len(), 3, "{:?}", plan.slots);
}

#[test]
fn wrong_arguments_are_the_references_errors() {
    let g = deep(1);
    let program = compile(&g).unwrap();
    let mut rng = Rng::new(31);
    let x = tensor(&mut rng, &[16, 32], DType::F32);
    let bad = tensor(&mut rng, &[32, 31], DType::F32);
    for args in [vec![x.clone()], vec![x.clone(), bad]] {
        let want = execute(&g, &args, 0).unwrap_err();
        assert_eq!(program.run(&args, 0).unwrap_err(), want);
    }
}

#[test]
fn describe_shows_kernels_buffers_and_fused_loops() {
    let mut g = Graph::new("mlp");
    let x = g.input("x", Shape::from([8, 4]), DType::F32);
    let w = g.param("w", Shape::from([3, 4]), DType::F32);
    let b = g.param("b", Shape::from([3]), DType::F32);
    let wt = g.transpose(w, &[1, 0]).unwrap();
    let h = g.matmul(x, wt).unwrap();
    let h = g.binary(BinaryOp::Add, h, b).unwrap();
    let h = g.binary(BinaryOp::Maximum, h, Scalar::Float(0.0)).unwrap();
    let m = g.reduce(ReduceOp::Max, h, Some(&[-1]), false).unwrap();
    g.set_outputs(vec![h, m]);
    expect![[r#"
        program mlp (kernels 3, buffers 3, slots 2, fused nodes 1, arena 0 B)
          slot s0 f32 x 24 (96 B) output
          slot s1 f32 x 8 (32 B) output
          k0 matmul %4 -> b0 (s0) 24 f32 <- arg x, arg w[offset 0 strides [1, 4]]
          k1 fused %9 -> b1 (s0) 24 f32 <- b0, arg b[offset 0 strides [0, 1]], splat 0.0 f32
              r0 = load 0 f32
              r1 = load 1 f32
              r2 = add r0 r1 f32  ; %6
              r3 = load 2 f32
              r4 = maximum r2 r3 f32  ; %9
              r4 overwrites input 0 in place
          k2 reduce-max %10 -> b2 (s1) 8 f32 <- b1
          return b1, b2
    "#]]
    .assert_eq(&compile(&g).unwrap().describe());
}

#[test]
fn one_program_runs_from_several_threads_at_once() {
    let g = deep(3);
    let mut rng = Rng::new(32);
    let mut args = vec![tensor(&mut rng, &[16, 32], DType::F32)];
    for _ in 0..3 {
        args.push(tensor(&mut rng, &[32, 32], DType::F32));
    }
    let program = compile(&g).unwrap();
    let want = program.run(&args, 0).unwrap();
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..4)
            .map(|_| s.spawn(|| program.run(&args, 0).unwrap()))
            .collect();
        for run in runs {
            assert_eq!(run.join().unwrap(), want);
        }
    });
}

/// A value two fused loops read (a forward `tanh` the backward pass reads
/// again) is recomputed in each from what they load, not stored: two
/// kernels, two buffers, and the reference's results bit for bit.
#[test]
fn a_value_two_loops_read_is_recomputed_in_each() {
    let mut g = Graph::new("shared");
    let x = g.input("x", Shape::from([64, 300]), DType::F32);
    let three = g
        .full(Shape::from([64, 300]), Scalar::Float(3.0), DType::F32)
        .unwrap();
    let scaled = g.binary(BinaryOp::Mul, x, three).unwrap();
    let t = g.unary(UnaryOp::Tanh, scaled).unwrap();
    let one = g
        .full(Shape::from([64, 300]), Scalar::Float(1.0), DType::F32)
        .unwrap();
    let a = g.binary(BinaryOp::Add, t, one).unwrap();
    let b = g.binary(BinaryOp::Mul, t, t).unwrap();
    g.set_outputs(vec![a, b]);
    let mut rng = Rng::new(33);
    check(
        &g,
        &[tensor(&mut rng, &[64, 300], DType::F32)],
        common::Tol::Exact,
    );
    let program = compile(&g).unwrap();
    let plan = program.plan();
    assert_eq!(plan.launches.len(), 2, "{}", program.describe());
    assert_eq!(plan.buffers.len(), 2, "{}", program.describe());
}

/// Equal instructions in one fused loop are computed once: the two
/// products `g * x` autodiff writes for the derivative of `x * x`, and two
/// `full` nodes of one value, share a register; the root stays the last
/// instruction, and the results are the reference's bit for bit.
#[test]
fn common_subexpressions_of_a_fused_loop_are_computed_once() {
    let mut g = Graph::new("square");
    let x = g.input("x", Shape::from([3, 500]), DType::F32);
    let dy = g.input("dy", Shape::from([3, 500]), DType::F32);
    let half = |g: &mut Graph| {
        g.full(Shape::from([3, 500]), Scalar::Float(0.5), DType::F32)
            .unwrap()
    };
    let (h1, h2) = (half(&mut g), half(&mut g));
    let left = g.binary(BinaryOp::Mul, dy, x).unwrap();
    let right = g.binary(BinaryOp::Mul, dy, x).unwrap();
    let left = g.binary(BinaryOp::Mul, left, h1).unwrap();
    let right = g.binary(BinaryOp::Mul, right, h2).unwrap();
    let dx = g.binary(BinaryOp::Add, left, right).unwrap();
    g.set_outputs(vec![dx]);
    expect![[r#"
        program square (kernels 1, buffers 1, slots 1, fused nodes 4, arena 0 B)
          slot s0 f32 x 1500 (5.9 KiB) output
          k0 fused %8 -> b0 (s0) 1500 f32 <- arg dy, arg x, splat 0.5 f32
              r0 = load 0 f32
              r1 = load 1 f32
              r2 = mul r0 r1 f32  ; %4
              r3 = load 2 f32
              r4 = mul r2 r3 f32  ; %6
              r5 = add r4 r4 f32  ; %8
              r5 overwrites input 0 in place (when the run owns the argument)
          return b0
    "#]]
    .assert_eq(&compile(&g).unwrap().describe());
    let mut rng = Rng::new(34);
    let args = [
        tensor(&mut rng, &[3, 500], DType::F32),
        tensor(&mut rng, &[3, 500], DType::F32),
    ];
    check(&g, &args, common::Tol::Exact);
}

/// An optimizer-like update: the new moment `m2` and the mask `up` are
/// outputs that only the update's loop reads, so that one loop computes
/// and stores them beside the new parameter (side outputs of any dtype),
/// rather than three loops writing and reading them back. Large enough
/// for the threads to split it.
#[test]
fn outputs_only_one_loop_reads_are_stored_by_that_loop() {
    let dims = [300, 400];
    let mut g = Graph::new("update");
    let p = g.input("p", Shape::from(dims), DType::F32);
    let grad = g.input("grad", Shape::from(dims), DType::F32);
    let m = g.input("m", Shape::from(dims), DType::F32);
    let m_kept = g.binary(BinaryOp::Mul, m, Scalar::Float(0.9)).unwrap();
    let g_part = g.binary(BinaryOp::Mul, grad, Scalar::Float(0.1)).unwrap();
    let m2 = g.binary(BinaryOp::Add, m_kept, g_part).unwrap();
    let up = g.compare(CompareOp::Gt, m2, Scalar::Float(0.0)).unwrap();
    let zero = g
        .full(Shape::from(dims), Scalar::Float(0.0), DType::F32)
        .unwrap();
    let step = g.where_(up, m2, zero).unwrap();
    let step = g.binary(BinaryOp::Mul, step, Scalar::Float(0.01)).unwrap();
    let p2 = g.binary(BinaryOp::Sub, p, step).unwrap();
    g.set_outputs(vec![p2, m2, up]);
    expect![[r#"
        program update (kernels 1, buffers 3, slots 3, fused nodes 6, arena 0 B)
          slot s0 f32 x 120000 (468.8 KiB) output
          slot s1 f32 x 120000 (468.8 KiB) output
          slot s2 bool x 120000 (117.2 KiB) output
          k0 fused %18 -> b2 (s0) 120000 f32 <- arg p, arg m, splat 0.8999999761581421 f32, arg grad, splat 0.10000000149011612 f32, splat 0.0 f32, splat 0.009999999776482582 f32
              r0 = load 0 f32
              r1 = load 1 f32
              r2 = load 2 f32
              r3 = mul r1 r2 f32  ; %5
              r4 = load 3 f32
              r5 = load 4 f32
              r6 = mul r4 r5 f32  ; %8
              r7 = add r3 r6 f32  ; %9
              r8 = load 5 f32
              r9 = gt r7 r8 bool  ; %12
              r10 = where r9 r7 r8 f32  ; %14
              r11 = load 6 f32
              r12 = mul r10 r11 f32  ; %17
              r13 = sub r0 r12 f32  ; %18
              store r7 -> b0 (s1) 120000 f32
              store r9 -> b1 (s2) 120000 bool
              r13 overwrites input 0 in place (when the run owns the argument)
              r7 overwrites input 1 in place (when the run owns the argument)
          return b2, b0, b1
    "#]]
    .assert_eq(&compile(&g).unwrap().describe());
    let mut rng = Rng::new(35);
    let args = [
        tensor(&mut rng, &dims, DType::F32),
        tensor(&mut rng, &dims, DType::F32),
        tensor(&mut rng, &dims, DType::F32),
    ];
    check(&g, &args, common::Tol::Exact);
}

/// An output computed by a fused loop from a product that dies there,
/// where that product sits in a slot a larger, dead product left: the
/// output gets a slot of exactly its size (so the next run can serve it
/// from the last run's arguments instead of fresh memory) and does not
/// compute in place, and the results are still the reference's.
#[test]
fn outputs_never_take_over_a_larger_slot() {
    let mut g = Graph::new("step");
    let a = g.input("a", Shape::from([64, 64]), DType::F32);
    let c = g.input("c", Shape::from([16, 16]), DType::F32);
    let large = g.matmul(a, a).unwrap();
    let total = g.reduce(ReduceOp::Sum, large, None, false).unwrap();
    let small = g.matmul(c, c).unwrap();
    let out = g.binary(BinaryOp::Mul, small, Scalar::Float(2.0)).unwrap();
    g.set_outputs(vec![out, total]);
    let mut rng = Rng::new(41);
    let args = vec![
        tensor(&mut rng, &[64, 64], DType::F32),
        tensor(&mut rng, &[16, 16], DType::F32),
    ];
    check(&g, &args, accum_tol(DType::F32, 64));
    let program = compile(&g).unwrap();
    let plan = program.plan();
    let small_slot = plan.buffers.iter().find(|b| b.len == 256).unwrap().slot;
    assert_eq!(
        plan.slots[small_slot].capacity,
        64 * 64,
        "the small product reuses the large one's slot: {}",
        program.describe()
    );
    for output in &plan.outputs {
        let sexpgpu_compile::Loc::Buf(b) = output.loc else {
            continue;
        };
        let buffer = &plan.buffers[b.0 as usize];
        assert_eq!(
            plan.slots[buffer.slot].capacity,
            buffer.len,
            "an output's slot is its own size: {}",
            program.describe()
        );
    }
}

/// A step that updates a parameter in place (`w - 0.5 * g`) and reports
/// a sum: run three times with the new parameter kept on the device and
/// given back, it matches the reference iterated on the host, and the
/// parameter's buffer is overwritten in place rather than reallocated.
#[test]
fn kept_outputs_feed_the_next_run_on_the_device() {
    use sexpgpu_compile::{Arena, Backend, DeviceArg, DeviceResult};
    use sexpgpu_cpu::CpuBackend;
    let mut g = Graph::new("step");
    let w = g.param("w", Shape::from([64]), DType::F32);
    let grad = g.input("g", Shape::from([64]), DType::F32);
    let scaled = g.binary(BinaryOp::Mul, grad, Scalar::Float(0.5)).unwrap();
    let new_w = g.binary(BinaryOp::Sub, w, scaled).unwrap();
    let loss = g.reduce(ReduceOp::Sum, new_w, None, false).unwrap();
    g.set_outputs(vec![loss, new_w]);
    let program = sexpgpu_compile::compile(&g).unwrap();
    let backend = CpuBackend::new(1);
    let mut arena = Arena::default();
    let mut rng = Rng::new(40);
    let mut host_w = tensor(&mut rng, &[64], DType::F32);
    let mut device_w = backend.upload(&host_w).unwrap();
    for step in 0..3 {
        let grad = tensor(&mut rng, &[64], DType::F32);
        let want = execute(&g, &[host_w.clone(), grad.clone()], 0).unwrap();
        let address = |t: &sexpgpu_graph::TensorData| match t {
            sexpgpu_graph::TensorData::F32(v) => v.as_ptr(),
            _ => unreachable!("the parameter is f32"),
        };
        let before = address(&device_w);
        let args = vec![DeviceArg::Given(device_w), DeviceArg::Host(grad)];
        let got = program
            .run_resident(&backend, &mut arena, args, &[false, true], 0)
            .unwrap();
        let mut got = got.into_iter();
        let (Some(DeviceResult::Host(loss)), Some(DeviceResult::Kept(buf))) =
            (got.next(), got.next())
        else {
            panic!("step {step}: the loss comes to the host, the parameter stays");
        };
        assert_eq!(loss.to_f64s(), want[0].to_f64s(), "step {step}");
        let on_device = backend.download_copy(&buf, 0, want[1].shape()).unwrap();
        assert_eq!(on_device.to_f64s(), want[1].to_f64s(), "step {step}");
        assert_eq!(address(&buf), before, "step {step}: updated in place");
        device_w = buf;
        host_w = want[1].clone();
    }
    // A device buffer too short for its argument is refused by name.
    let short = backend
        .upload(&tensor(&mut rng, &[63], DType::F32))
        .unwrap();
    let grad = tensor(&mut rng, &[64], DType::F32);
    let err = program
        .run_resident(
            &backend,
            &mut arena,
            vec![DeviceArg::Lent(&short), DeviceArg::Host(grad)],
            &[],
            0,
        )
        .err()
        .expect("a short buffer is an error");
    assert_eq!(
        err.message,
        "argument `w` must be [64] f32, got a device buffer of 63 f32 elements"
    );
}

/// A fused loop may overwrite an argument the run owns in place, its
/// buffer then becoming the target's slot's; only when it holds the slot,
/// since a later loop may write in place over the result in that slot (a
/// finding of the differential tests, `docs/fuzzing.md`: the owned runs'
/// gradient was 0, the slot's next write having replaced the small
/// argument buffer with a fresh one before reading it). The loss is
/// `min(max(full [8 5] 0.5), max(max(w), x))`; the 40 halves take the
/// slot that the loop over `x` writes into later.
#[test]
fn an_argument_smaller_than_its_targets_slot_is_not_taken_over() {
    let mut g = Graph::new("g");
    let w = g.input("w", Shape::from([3]), DType::F32);
    let x = g.input("x", Shape::new(vec![]), DType::F32);
    let top = g.reduce(ReduceOp::Max, w, None, false).unwrap();
    let v = g.binary(BinaryOp::Maximum, top, x).unwrap();
    let halves = g
        .full(Shape::from([8, 5]), Scalar::Float(0.5), DType::F32)
        .unwrap();
    let half = g.reduce(ReduceOp::Max, halves, None, false).unwrap();
    let loss = g.binary(BinaryOp::Minimum, half, v).unwrap();
    let grads = sexpgpu_autodiff::grad(&mut g, loss, &[w]).unwrap();
    g.set_outputs(vec![loss, grads[0]]);
    let args = vec![
        sexpgpu_graph::Tensor::from_f64s(Shape::from([3]), &[0.3, -0.2, 0.1], DType::F32).unwrap(),
        sexpgpu_graph::Tensor::from_f64s(Shape::new(vec![]), &[-0.5], DType::F32).unwrap(),
    ];
    let program = compile(&g).unwrap();
    let describe = program.describe();
    assert!(
        describe.contains("in place (when the run owns the argument)"),
        "{describe}"
    );
    let want = check(&g, &args, Tol::Exact);
    assert_eq!(want[1].to_f64s(), [1.0, 0.0, 0.0]);
}

/// A `scatter-add` whose base dies there (cross-entropy's backward: the
/// softmax's gradient, then each row's target added in) adds into the
/// base's buffer in place, touching only the places named; repeated ids
/// along a line sum in order from the base, as the reference does.
#[test]
fn a_scatter_into_a_dying_base_adds_in_place() {
    for dtype in [DType::F32, DType::BF16] {
        let mut g = Graph::new("ce");
        let x = g.input("x", Shape::from([5, 7]), dtype);
        let idx = g.input("idx", Shape::from([5, 3]), DType::I64);
        let values = g.input("v", Shape::from([5, 3]), dtype);
        let soft = g.unary(UnaryOp::Exp, x).unwrap();
        let added = g.scatter_add(soft, idx, values, 1).unwrap();
        g.set_outputs(vec![added]);
        let mut rng = Rng::new(50);
        // Line 0 names place 2 twice; the others as drawn.
        let ids: Vec<f64> = (0..15)
            .map(|i| if i < 2 { 2.0 } else { ((i * 5) % 7) as f64 })
            .collect();
        let args = vec![
            tensor(&mut rng, &[5, 7], dtype),
            sexpgpu_graph::Tensor::from_f64s(Shape::from([5, 3]), &ids, DType::I64).unwrap(),
            tensor(&mut rng, &[5, 3], dtype),
        ];
        check(&g, &args, Tol::Exact);
        let program = compile(&g).unwrap();
        let text = program.describe();
        assert!(text.contains("adds into its base in place"), "{text}");
        let scatter = program.plan().launches.last().unwrap();
        assert_eq!(scatter.step.reads().len(), 2, "{text}");
    }
    // A base that stays alive (also an output) is copied, not overwritten.
    let mut g = Graph::new("kept");
    let x = g.input("x", Shape::from([2, 3]), DType::F32);
    let idx = g.input("idx", Shape::from([2, 1]), DType::I64);
    let values = g.input("v", Shape::from([2, 1]), DType::F32);
    let soft = g.unary(UnaryOp::Exp, x).unwrap();
    let added = g.scatter_add(soft, idx, values, 1).unwrap();
    g.set_outputs(vec![added, soft]);
    let program = compile(&g).unwrap();
    let text = program.describe();
    assert!(!text.contains("adds into its base"), "{text}");
}
