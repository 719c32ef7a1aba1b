"""PyTorch CPU peer for `cargo run --release -p sexpgpu-cpu --example bench`.

Times the same workloads as the Rust benchmark, eager mode, with the
thread count it is given, and prints one `key milliseconds` line each (the
median of --iters runs after one warm-up). The data differ from the Rust
side's but the shapes, dtypes and operations are the same.
"""

import argparse
import time

import torch


def median_ms(iters, fn):
    fn()
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[len(times) // 2]


def chain(x, y):
    # The same 13 operations, in the same order, as the Rust graph.
    t = x * 1.5
    t = t + 0.25
    t = torch.maximum(t, torch.tensor(0.0))
    t = t * y
    u = torch.abs(y) + 1.0
    t = t - x / u
    t = torch.minimum(t, torch.tensor(2.0))
    t = t * t
    t = torch.sqrt(t + 1.0)
    return torch.where(x > 0.0, t, -t)


def mlp(x, params):
    h = x
    for i, (w, b) in enumerate(params):
        h = h @ w + b
        if i + 1 < len(params):
            h = torch.maximum(h, torch.tensor(0.0))
    return h


def rand(*shape):
    """Uniform values in [-1, 1)."""
    return torch.rand(*shape, dtype=torch.float32) * 2 - 1


def attention_steps(dims, sliced):
    """Causal attention's forward and backward over `dims`, fused and
    unfused; q, k and v of their own, or (`sliced`) the heads of one
    [batch, context, 3 * heads * width] projection, as a model reads them."""
    batch, heads, context, width = dims
    if sliced:
        qkv = rand(batch, context, 3 * heads * width).requires_grad_(True)
        wrt = (qkv,)

        def inputs():
            split = qkv.view(batch, context, 3, heads, width).permute(2, 0, 3, 1, 4)
            return split[0], split[1], split[2]
    else:
        q, k, v = (rand(*dims).requires_grad_(True) for _ in range(3))
        wrt = (q, k, v)

        def inputs():
            return q, k, v

    cot = rand(*dims)
    mask = torch.ones(context, context, dtype=torch.bool).tril()

    def sdpa_step():
        q, k, v = inputs()
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return (out, *torch.autograd.grad(out, wrt, cot))

    def unfused_step():
        q, k, v = inputs()
        scores = (q @ k.transpose(-1, -2)) / width**0.5
        weights = torch.softmax(scores.masked_fill(~mask, -1e30), dim=-1)
        out = weights @ v
        return (out, *torch.autograd.grad(out, wrt, cot))

    return sdpa_step, unfused_step


def conv_steps(dims, out):
    """A 3x3 conv2d with padding 1: forward and backward, forward alone,
    and the backward kernel alone (input and weight gradients)."""
    cx = rand(*dims).requires_grad_(True)
    cw = rand(out, dims[1], 3, 3).requires_grad_(True)
    cot = rand(dims[0], out, dims[2], dims[3])
    conv = torch.nn.functional.conv2d

    def step():
        cx.grad, cw.grad = None, None
        y = conv(cx, cw, padding=1)
        y.backward(cot)
        return y, cx.grad, cw.grad

    def forward():
        with torch.no_grad():
            return conv(cx, cw, padding=1)

    def backward():
        return torch.ops.aten.convolution_backward(
            cot, cx.detach(), cw.detach(), None, [1, 1], [1, 1], [1, 1],
            False, [0, 0], 1, [True, True, False],
        )

    return step, forward, backward


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--iters", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    with torch.inference_mode():
        a, b = rand(1024, 1024), rand(1024, 1024)
        print("matmul", median_ms(args.iters, lambda: a @ b))

        # A transformer step's weight and input gradients (width 256, 2048
        # tokens, a 1024-wide layer): products with a transposed operand.
        x, dy, w = rand(2048, 256), rand(2048, 1024), rand(256, 1024)
        print("matmul_wgrad", median_ms(args.iters, lambda: x.t() @ dy))
        print("matmul_dgrad", median_ms(args.iters, lambda: dy @ w.t()))

        n = 16 << 20
        x, y = rand(n), rand(n)
        print("chain", median_ms(args.iters, lambda: chain(x, y)))

        scores = rand(64, 128, 128)
        print("softmax", median_ms(args.iters, lambda: torch.softmax(scores, dim=-1)))

        m = rand(4096, 4096)
        print("reduce", median_ms(args.iters, lambda: m.sum(dim=-1)))

        sizes = [(784, 512), (512, 512), (512, 10)]
        params = [(rand(i, o), rand(o)) for i, o in sizes]
        xb = rand(256, 784)
        print("mlp", median_ms(args.iters, lambda: mlp(xb, params)))

    # conv2d forward and backward: the output and the gradients of
    # sum(y * cot) with respect to the input and the weight; together
    # (`conv2d`), and each alone (`_fwd`, `_bwd`: PyTorch's own backward
    # kernel), also for the second convolution of the train-step CNN.
    for key, dims, out in (("conv2d", (32, 16, 32, 32), 32), ("cnn_conv2", (64, 32, 14, 14), 64)):
        step, forward, backward = conv_steps(dims, out)
        if key == "conv2d":
            print(key, median_ms(args.iters, step))
        print(f"{key}_fwd", median_ms(args.iters, forward))
        print(f"{key}_bwd", median_ms(args.iters, backward))

    # Causal attention, forward and backward: the output and the gradients
    # of sum(out * cot) with respect to q, k and v; fused (SDPA) and
    # written out. Over one GPT-2 layer's heads ([1, 12, 1024, 64]) and the
    # char-transformer example's small heads ([16, 4, 64, 16], sliced from
    # one projection as the example does).
    for key, dims, sliced in (
        ("attention", (1, 12, 1024, 64), False),
        ("attention_small", (16, 4, 64, 16), True),
    ):
        sdpa_step, unfused_step = attention_steps(dims, sliced)
        print(f"{key}_sdpa", median_ms(args.iters, sdpa_step))
        print(f"{key}_unfused", median_ms(args.iters, unfused_step))
    print("torch", torch.__version__, "threads", torch.get_num_threads())


if __name__ == "__main__":
    main()
