//! The structured operations (`conv`, `conv-transpose`, the pools with
//! `ceil_mode`, `pad` with crops, `interpolate` with `nearest-exact`,
//! `einsum`) against PyTorch: each case builds one op on
//! random parameters, takes `sum(out * cot)` for a random cotangent and its
//! gradients, and writes parameters, output and gradients as `.npy` with
//! the PyTorch expression that should give them; `torch_structured.py`
//! recomputes all cases in one run. Once in f32 (the reference executor as
//! a training step runs it) and once in f64 (`execute_f64`, to 1e-9). A
//! missing venv is a failure, never a skip.

mod common;

use std::path::{Path, PathBuf};

use sexpgpu_autodiff::grad;
use sexpgpu_graph::{
    execute, execute_f64, npy_bytes, to_npy, BinaryOp, ConvOptions, ConvPadding, DType, Graph,
    NodeId, OpError, PadMode, PerAxis, PoolOptions, ReduceOp, Resize, Scalar, Shape, Tensor,
};
use uitest::support::Rng;

/// How a case builds its op on the parameters.
type Build = dyn Fn(&mut Graph, &[NodeId]) -> Result<NodeId, OpError>;

/// One case: parameter shapes, how to build the op on them, and the
/// PyTorch expression over `p0`, `p1`, ... (with `F` = `torch.nn.functional`).
struct Case {
    name: String,
    params: Vec<Vec<usize>>,
    build: Box<Build>,
    torch: String,
}

fn case(
    name: &str,
    params: &[&[usize]],
    torch: &str,
    build: impl Fn(&mut Graph, &[NodeId]) -> Result<NodeId, OpError> + 'static,
) -> Case {
    Case {
        name: name.to_string(),
        params: params.iter().map(|p| p.to_vec()).collect(),
        build: Box::new(build),
        torch: torch.to_string(),
    }
}

fn each(v: &[i64]) -> PerAxis {
    PerAxis::Each(v.to_vec())
}

fn conv_opts(stride: &[i64], padding: &[i64], dilation: &[i64], groups: i64) -> ConvOptions {
    ConvOptions {
        stride: each(stride),
        padding: ConvPadding::Sizes(each(padding)),
        dilation: each(dilation),
        groups,
        output_padding: PerAxis::All(0),
    }
}

fn conv_cases() -> Vec<Case> {
    vec![
        case(
            "conv1d",
            &[&[2, 4, 9], &[6, 2, 3]],
            "F.conv1d(p0, p1, stride=2, padding=1, dilation=1, groups=2)",
            |g, p| g.conv(p[0], p[1], &conv_opts(&[2], &[1], &[1], 2)),
        ),
        case(
            "conv1d_stride1",
            &[&[3, 2, 6], &[4, 2, 3]],
            "F.conv1d(p0, p1, padding=2, dilation=2)",
            |g, p| g.conv(p[0], p[1], &conv_opts(&[1], &[2], &[2], 1)),
        ),
        case(
            "conv_transpose1d_one_group",
            &[&[2, 3, 4], &[3, 2, 2]],
            "F.conv_transpose1d(p0, p1, stride=3, padding=1)",
            |g, p| g.conv_transpose(p[0], p[1], &conv_opts(&[3], &[1], &[1], 1)),
        ),
        case(
            "conv2d",
            &[&[2, 3, 7, 6], &[4, 3, 3, 2]],
            "F.conv2d(p0, p1, stride=(2, 1), padding=(1, 2), dilation=(1, 2))",
            |g, p| g.conv(p[0], p[1], &conv_opts(&[2, 1], &[1, 2], &[1, 2], 1)),
        ),
        case(
            "conv2d_size1",
            &[&[1, 1, 1, 5], &[2, 1, 1, 1]],
            "F.conv2d(p0, p1)",
            |g, p| g.conv(p[0], p[1], &ConvOptions::default()),
        ),
        case(
            "conv2d_empty_batch",
            &[&[0, 2, 5, 5], &[3, 2, 3, 3]],
            "F.conv2d(p0, p1, padding=1)",
            |g, p| g.conv(p[0], p[1], &conv_opts(&[1, 1], &[1, 1], &[1, 1], 1)),
        ),
        case(
            "conv2d_same_unbatched",
            &[&[2, 5, 5], &[3, 2, 3, 2]],
            "F.conv2d(p0, p1, padding='same', dilation=2)",
            |g, p| {
                let opts = ConvOptions {
                    padding: ConvPadding::Same,
                    dilation: PerAxis::All(2),
                    ..ConvOptions::default()
                };
                g.conv(p[0], p[1], &opts)
            },
        ),
        case(
            "conv2d_stride1",
            &[&[2, 3, 6, 7], &[5, 3, 3, 2]],
            "F.conv2d(p0, p1, padding=(2, 1), dilation=(1, 2))",
            |g, p| g.conv(p[0], p[1], &conv_opts(&[1, 1], &[2, 1], &[1, 2], 1)),
        ),
        case(
            "conv3d_stride1",
            &[&[1, 2, 4, 5, 3], &[3, 2, 2, 3, 2]],
            "F.conv3d(p0, p1, padding=1)",
            |g, p| g.conv(p[0], p[1], &conv_opts(&[1, 1, 1], &[1, 1, 1], &[1, 1, 1], 1)),
        ),
        case(
            "conv_transpose3d",
            &[&[1, 2, 3, 2, 3], &[2, 3, 2, 2, 3]],
            "F.conv_transpose3d(p0, p1, stride=(1, 2, 2), padding=(0, 1, 1), output_padding=(0, 1, 0))",
            |g, p| {
                let opts = ConvOptions {
                    output_padding: PerAxis::Each(vec![0, 1, 0]),
                    ..conv_opts(&[1, 2, 2], &[0, 1, 1], &[1, 1, 1], 1)
                };
                g.conv_transpose(p[0], p[1], &opts)
            },
        ),
        case(
            "conv3d",
            &[&[1, 4, 4, 5, 3], &[2, 2, 2, 3, 1]],
            "F.conv3d(p0, p1, stride=(1, 2, 1), padding=(0, 1, 1), groups=2)",
            |g, p| {
                g.conv(
                    p[0],
                    p[1],
                    &conv_opts(&[1, 2, 1], &[0, 1, 1], &[1, 1, 1], 2),
                )
            },
        ),
        case(
            "conv_transpose1d",
            &[&[2, 4, 5], &[4, 3, 3]],
            "F.conv_transpose1d(p0, p1, stride=2, padding=1, output_padding=1, groups=2)",
            |g, p| {
                let opts = ConvOptions {
                    output_padding: PerAxis::All(1),
                    ..conv_opts(&[2], &[1], &[1], 2)
                };
                g.conv_transpose(p[0], p[1], &opts)
            },
        ),
        case(
            "conv_transpose2d",
            &[&[2, 3, 4, 3], &[3, 2, 3, 2]],
            "F.conv_transpose2d(p0, p1, stride=(2, 3), padding=(2, 0), dilation=(1, 2))",
            |g, p| g.conv_transpose(p[0], p[1], &conv_opts(&[2, 3], &[2, 0], &[1, 2], 1)),
        ),
    ]
}

fn pool(window: &[i64], stride: Option<&[i64]>, padding: &[i64], include: bool) -> PoolOptions {
    PoolOptions {
        window: each(window),
        stride: stride.map(each),
        padding: each(padding),
        dilation: PerAxis::All(1),
        count_include_pad: include,
        ceil_mode: false,
    }
}

/// `opts` with PyTorch's `ceil_mode`.
fn ceil(opts: PoolOptions) -> PoolOptions {
    PoolOptions {
        ceil_mode: true,
        ..opts
    }
}

fn pool_cases() -> Vec<Case> {
    vec![
        case(
            "max_pool1d",
            &[&[2, 3, 9]],
            "F.max_pool1d(p0, 3, stride=2, padding=1, dilation=2)",
            |g, p| {
                let opts = PoolOptions {
                    dilation: PerAxis::All(2),
                    ..pool(&[3], Some(&[2]), &[1], true)
                };
                g.max_pool(p[0], &opts)
            },
        ),
        case(
            "max_pool2d",
            &[&[2, 2, 6, 7]],
            "F.max_pool2d(p0, (2, 3), padding=(1, 1))",
            |g, p| g.max_pool(p[0], &pool(&[2, 3], None, &[1, 1], true)),
        ),
        case(
            "max_pool2d_tiles",
            &[&[2, 3, 7, 9]],
            "F.max_pool2d(p0, (2, 3))",
            |g, p| g.max_pool(p[0], &pool(&[2, 3], None, &[0, 0], true)),
        ),
        case(
            "avg_pool3d_tiles",
            &[&[1, 2, 5, 4, 3]],
            "F.avg_pool3d(p0, 2)",
            |g, p| g.avg_pool(p[0], &pool(&[2, 2, 2], None, &[0, 0, 0], true)),
        ),
        case(
            "max_pool3d_unbatched",
            &[&[2, 4, 3, 5]],
            "F.max_pool3d(p0, (2, 1, 3), stride=(1, 2, 2))",
            |g, p| g.max_pool(p[0], &pool(&[2, 1, 3], Some(&[1, 2, 2]), &[0, 0, 0], true)),
        ),
        case(
            "avg_pool2d",
            &[&[2, 3, 5, 6]],
            "F.avg_pool2d(p0, 3, stride=2, padding=1)",
            |g, p| g.avg_pool(p[0], &pool(&[3, 3], Some(&[2, 2]), &[1, 1], true)),
        ),
        case(
            "avg_pool2d_exclude_pad",
            &[&[1, 2, 5, 4]],
            "F.avg_pool2d(p0, (3, 2), stride=(2, 1), padding=(1, 1), count_include_pad=False)",
            |g, p| g.avg_pool(p[0], &pool(&[3, 2], Some(&[2, 1]), &[1, 1], false)),
        ),
        case(
            "avg_pool1d",
            &[&[3, 2, 1]],
            "F.avg_pool1d(p0, 1)",
            |g, p| g.avg_pool(p[0], &pool(&[1], None, &[0], true)),
        ),
        case(
            "avg_pool3d",
            &[&[1, 2, 4, 4, 3]],
            "F.avg_pool3d(p0, 2, stride=1, padding=1, count_include_pad=False)",
            |g, p| g.avg_pool(p[0], &pool(&[2, 2, 2], Some(&[1, 1, 1]), &[1, 1, 1], false)),
        ),
        case(
            "max_pool2d_ceil",
            &[&[2, 2, 7, 8]],
            "F.max_pool2d(p0, 3, stride=2, padding=1, ceil_mode=True)",
            |g, p| g.max_pool(p[0], &ceil(pool(&[3, 3], Some(&[2, 2]), &[1, 1], true))),
        ),
        case(
            "max_pool1d_ceil_dilation",
            &[&[2, 3, 10]],
            "F.max_pool1d(p0, 3, stride=3, dilation=2, ceil_mode=True)",
            |g, p| {
                let opts = PoolOptions {
                    dilation: PerAxis::All(2),
                    ..ceil(pool(&[3], Some(&[3]), &[0], true))
                };
                g.max_pool(p[0], &opts)
            },
        ),
        case(
            "avg_pool2d_ceil",
            &[&[1, 2, 6, 7]],
            "F.avg_pool2d(p0, (3, 2), stride=2, ceil_mode=True)",
            |g, p| g.avg_pool(p[0], &ceil(pool(&[3, 2], Some(&[2, 2]), &[0, 0], true))),
        ),
        case(
            "avg_pool1d_ceil_padding",
            &[&[2, 1, 8]],
            "F.avg_pool1d(p0, 4, stride=3, padding=2, ceil_mode=True)",
            |g, p| g.avg_pool(p[0], &ceil(pool(&[4], Some(&[3]), &[2], true))),
        ),
        case(
            "avg_pool2d_ceil_exclude_pad",
            &[&[1, 2, 5, 6]],
            "F.avg_pool2d(p0, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)",
            |g, p| g.avg_pool(p[0], &ceil(pool(&[3, 3], Some(&[2, 2]), &[1, 1], false))),
        ),
        case(
            "adaptive_avg_pool2d",
            &[&[2, 3, 7, 5]],
            "F.adaptive_avg_pool2d(p0, (3, 5))",
            |g, p| g.adaptive_avg_pool(p[0], &[3, 5]),
        ),
        case(
            "adaptive_avg_pool1d_up",
            &[&[2, 3, 4]],
            "F.adaptive_avg_pool1d(p0, 7)",
            |g, p| g.adaptive_avg_pool(p[0], &[7]),
        ),
    ]
}

fn pad_cases() -> Vec<Case> {
    let pad = |pairs: &'static [(i64, i64)], mode: PadMode, value: f64| {
        move |g: &mut Graph, p: &[NodeId]| g.pad(p[0], pairs, mode, Scalar::Float(value))
    };
    vec![
        case(
            "pad_constant",
            &[&[2, 3, 4]],
            "F.pad(p0, (2, 1, 0, 3), value=1.5)",
            pad(&[(0, 3), (2, 1)], PadMode::Constant, 1.5),
        ),
        case(
            "pad_negative",
            &[&[2, 5, 4]],
            "F.pad(p0, (-1, 2, 1, -3))",
            pad(&[(1, -3), (-1, 2)], PadMode::Constant, 0.0),
        ),
        case(
            "pad_reflect",
            &[&[1, 2, 4, 5]],
            "F.pad(p0, (4, 2, 3, 1), mode='reflect')",
            pad(&[(3, 1), (4, 2)], PadMode::Reflect, 0.0),
        ),
        case(
            "pad_replicate",
            &[&[2, 2, 3]],
            "F.pad(p0, (4, 1), mode='replicate')",
            pad(&[(4, 1)], PadMode::Replicate, 0.0),
        ),
        case(
            "pad_reflect_after_crop",
            &[&[2, 3, 6]],
            "F.pad(p0, (-3, 4), mode='reflect')",
            pad(&[(-3, 4)], PadMode::Reflect, 0.0),
        ),
        case(
            "pad_reflect_crops_2d",
            &[&[1, 2, 5, 6]],
            "F.pad(p0, (-2, 5, 2, -3), mode='reflect')",
            pad(&[(2, -3), (-2, 5)], PadMode::Reflect, 0.0),
        ),
        case(
            "pad_replicate_past_the_crop",
            &[&[2, 2, 6]],
            "F.pad(p0, (-7, 3), mode='replicate')",
            pad(&[(-7, 3)], PadMode::Replicate, 0.0),
        ),
        case(
            "pad_constant_cropped_to_nothing",
            &[&[2, 2, 6]],
            "F.pad(p0, (-6, 2), value=0.5)",
            pad(&[(-6, 2)], PadMode::Constant, 0.5),
        ),
        case(
            "pad_circular",
            &[&[1, 2, 3, 4, 2]],
            "F.pad(p0, (1, 2, 4, 0, 0, 3), mode='circular')",
            pad(&[(0, 3), (4, 0), (1, 2)], PadMode::Circular, 0.0),
        ),
    ]
}

fn resize_cases() -> Vec<Case> {
    let resize = |sizes: &'static [i64], mode: Resize, corners: bool| {
        move |g: &mut Graph, p: &[NodeId]| g.interpolate(p[0], sizes, mode, corners)
    };
    vec![
        case(
            "nearest1d",
            &[&[2, 3, 5]],
            "F.interpolate(p0, size=8, mode='nearest')",
            resize(&[8], Resize::Nearest, false),
        ),
        case(
            "nearest2d_down",
            &[&[1, 2, 7, 6]],
            "F.interpolate(p0, size=(3, 4), mode='nearest')",
            resize(&[3, 4], Resize::Nearest, false),
        ),
        case(
            "nearest_exact1d",
            &[&[2, 3, 5]],
            "F.interpolate(p0, size=8, mode='nearest-exact')",
            resize(&[8], Resize::NearestExact, false),
        ),
        case(
            "nearest_exact2d_down",
            &[&[1, 2, 7, 9]],
            "F.interpolate(p0, size=(3, 4), mode='nearest-exact')",
            resize(&[3, 4], Resize::NearestExact, false),
        ),
        case(
            "linear1d",
            &[&[2, 2, 4]],
            "F.interpolate(p0, size=9, mode='linear')",
            resize(&[9], Resize::Linear, false),
        ),
        case(
            "bilinear_corners",
            &[&[1, 2, 3, 5]],
            "F.interpolate(p0, size=(7, 2), mode='bilinear', align_corners=True)",
            resize(&[7, 2], Resize::Bilinear, true),
        ),
        case(
            "bilinear_to_one",
            &[&[1, 1, 4, 3]],
            "F.interpolate(p0, size=(1, 5), mode='bilinear')",
            resize(&[1, 5], Resize::Bilinear, false),
        ),
        case(
            "trilinear",
            &[&[1, 2, 3, 2, 4]],
            "F.interpolate(p0, size=(5, 3, 2), mode='trilinear')",
            resize(&[5, 3, 2], Resize::Trilinear, false),
        ),
    ]
}

fn einsum_cases() -> Vec<Case> {
    let e = |spec: &'static str| move |g: &mut Graph, p: &[NodeId]| g.einsum(spec, p);
    vec![
        case(
            "einsum_attention",
            &[&[2, 3, 4, 5], &[2, 3, 6, 5]],
            "torch.einsum('bhid,bhjd->bhij', p0, p1)",
            e("bhid,bhjd->bhij"),
        ),
        case(
            "einsum_trace",
            &[&[4, 4]],
            "torch.einsum('ii', p0)",
            e("ii"),
        ),
        case(
            "einsum_diagonal",
            &[&[3, 2, 3]],
            "torch.einsum('iji->ji', p0)",
            e("iji->ji"),
        ),
        case(
            "einsum_three",
            &[&[2, 3], &[3, 4], &[4, 2, 5]],
            "torch.einsum('ij,jk,kil->l', p0, p1, p2)",
            e("ij,jk,kil->l"),
        ),
        case(
            "einsum_ellipsis",
            &[&[2, 1, 3, 4], &[5, 4, 6]],
            "torch.einsum('...ij,...jk->...ik', p0, p1)",
            e("...ij,...jk->...ik"),
        ),
        case(
            "einsum_implicit_outer",
            &[&[3], &[2]],
            "torch.einsum('i,j', p0, p1)",
            e("i,j"),
        ),
        case(
            "einsum_sum_and_transpose",
            &[&[2, 3, 4]],
            "torch.einsum('abc->ca', p0)",
            e("abc->ca"),
        ),
    ]
}

/// What one case wrote: its folder, for the report.
fn write_case(rng: &mut Rng, root: &Path, c: &Case) -> PathBuf {
    let mut g = Graph::new(&c.name);
    let params: Vec<NodeId> = c
        .params
        .iter()
        .enumerate()
        .map(|(i, s)| g.param(format!("p{i}"), Shape::new(s.clone()), DType::F32))
        .collect();
    let out = (c.build)(&mut g, &params).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    let cot = g.input("cot", g.shape(out).clone(), DType::F32);
    let product = g.binary(BinaryOp::Mul, out, cot).expect("mul");
    let loss = g.reduce(ReduceOp::Sum, product, None, false).expect("sum");
    let grads = grad(&mut g, loss, &params).expect("grad");
    g.set_outputs([vec![out], grads].concat());
    let args: Vec<Tensor> = g
        .arguments()
        .iter()
        .map(|&a| {
            let shape = g.shape(a).clone();
            let values: Vec<f64> = (0..shape.numel()).map(|_| rng.uniform(-1.0, 1.0)).collect();
            Tensor::from_f64s(shape, &values, DType::F32).expect("sizes")
        })
        .collect();
    let names: Vec<String> = (0..params.len())
        .map(|i| format!("p{i}"))
        .chain(["cot".to_string()])
        .collect();
    let results = execute(&g, &args, 0).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    let dir = root.join(&c.name);
    let write = |sub: &str, name: &str, bytes: Vec<u8>| {
        let d = dir.join(sub);
        std::fs::create_dir_all(&d).expect("dir");
        std::fs::write(d.join(format!("{name}.npy")), bytes).expect("write");
    };
    let wide: Vec<Vec<f64>> = args.iter().map(Tensor::to_f64s).collect();
    let results64 = execute_f64(&g, &wide, 0).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    let outputs = g.outputs().to_vec();
    let result_names: Vec<String> = std::iter::once("out".to_string())
        .chain((0..params.len()).map(|i| format!("grad_p{i}")))
        .collect();
    for sub in ["f32", "f64"] {
        for (name, t) in names.iter().zip(&args) {
            write(sub, name, to_npy(t));
        }
        std::fs::write(dir.join(sub).join("expr.txt"), &c.torch).expect("write");
        if sub == "f64" && c.name.contains("linear") {
            // The interpolation weights are f32 constants of the graph, so
            // the f64 run computes with weights rounded to f32.
            std::fs::write(dir.join(sub).join("rtol.txt"), "1e-6").expect("write");
        }
    }
    for (i, name) in result_names.iter().enumerate() {
        write("f32", name, to_npy(&results[i]));
        let bytes: Vec<u8> = results64[i].iter().flat_map(|v| v.to_le_bytes()).collect();
        write(
            "f64",
            name,
            npy_bytes("<f8", g.shape(outputs[i]).dims(), &bytes),
        );
    }
    dir
}

fn check(group: &str, cases: Vec<Case>) {
    let root =
        std::env::temp_dir().join(format!("sexpgpu-structured-{group}-{}", std::process::id()));
    let mut rng = Rng::new(group.len() as u64 + 7);
    for c in &cases {
        write_case(&mut rng, &root, c);
    }
    let root_text = root.to_string_lossy();
    let report = common::run_script("torch_structured.py", &[&root_text], &root);
    assert!(
        report.contains(&format!("{} cases agree", cases.len())),
        "{report}"
    );
    std::fs::remove_dir_all(&root).expect("remove temp dir");
}

#[test]
fn convolutions_match_torch() {
    check("conv", conv_cases());
}

#[test]
fn pools_match_torch() {
    check("pool", pool_cases());
}

#[test]
fn padding_matches_torch() {
    check("pad", pad_cases());
}

#[test]
fn interpolation_matches_torch() {
    check("resize", resize_cases());
}

#[test]
fn einsum_matches_torch() {
    check("einsum", einsum_cases());
}
