//! What the structured builders record (`docs/sexpgpu/operations.md`): the
//! lowering each chooses (a stride-1 convolution takes its windows as
//! slices, with no `index` and one `matmul`; strides and groups take the
//! `index` path), shapes of the results, and that refused options record
//! nothing. Values and gradients are checked against PyTorch in
//! `crates/sexpgpu-autodiff/tests/torch_structured.rs`.

use sexpgpu_graph::{ConvOptions, ConvPadding, DType, Graph, NodeId, PerAxis, Shape};

fn count(g: &Graph, name: &str) -> usize {
    g.nodes().iter().filter(|n| n.op.name() == name).count()
}

fn conv_graph(x: &[usize], w: &[usize], opts: &ConvOptions) -> (Graph, NodeId) {
    let mut g = Graph::new("conv");
    let x = g.input("x", Shape::from(x), DType::F32);
    let w = g.input("w", Shape::from(w), DType::F32);
    let y = g.conv(x, w, opts).expect("conv builds");
    (g, y)
}

#[test]
fn stride_one_conv_slices_windows_and_multiplies_once() {
    let opts = ConvOptions {
        padding: ConvPadding::Sizes(PerAxis::All(1)),
        ..ConvOptions::default()
    };
    let (g, y) = conv_graph(&[2, 3, 8, 8], &[4, 3, 3, 3], &opts);
    assert_eq!(g.shape(y), &Shape::from([2, 4, 8, 8]));
    assert_eq!(count(&g, "index"), 0);
    assert_eq!(count(&g, "matmul"), 1);
    // 9 kernel positions' windows, as slices of the flattened input.
    assert_eq!(count(&g, "slice"), 9 + 1);
}

#[test]
fn strided_and_grouped_convs_take_windows_with_index() {
    let opts = ConvOptions {
        stride: PerAxis::All(2),
        ..ConvOptions::default()
    };
    let (g, y) = conv_graph(&[1, 4, 9, 9], &[2, 4, 3, 3], &opts);
    assert_eq!(g.shape(y), &Shape::from([1, 2, 4, 4]));
    assert_eq!(count(&g, "index"), 2);
    let opts = ConvOptions {
        groups: 2,
        ..ConvOptions::default()
    };
    let (g, y) = conv_graph(&[1, 4, 5, 5], &[6, 2, 3, 3], &opts);
    assert_eq!(g.shape(y), &Shape::from([1, 6, 3, 3]));
    assert_eq!(count(&g, "index"), 2);
}

#[test]
fn refused_options_record_nothing_of_their_own() {
    let mut g = Graph::new("bad");
    let x = g.input("x", Shape::from([1, 2, 5, 5]), DType::F32);
    let w = g.input("w", Shape::from([3, 2, 3, 3]), DType::F32);
    let before = g.len();
    let same_strided = ConvOptions {
        padding: ConvPadding::Same,
        stride: PerAxis::All(2),
        ..ConvOptions::default()
    };
    let err = g.conv(x, w, &same_strided).unwrap_err();
    assert_eq!(err.message, "conv: `:padding :same` needs `:stride 1`");
    let three = ConvOptions {
        dilation: PerAxis::Each(vec![1, 2, 3]),
        ..ConvOptions::default()
    };
    let err = g.conv(x, w, &three).unwrap_err();
    assert_eq!(
        err.message,
        "conv: `:dilation` has 3 values, but there are 2 spatial axes"
    );
    assert_eq!(g.len(), before);
}
