"""GPT-2 small training steps: SexpGPU against PyTorch on one device, in one run.

    .venv/bin/python benches/sexpgpu/gpt2/run.py [--device cuda] [--scale small]
        [--dtype f32|bf16] [--batch 8] [--steps 12] [--rounds 1] [--no-compile]
        [--profile] [--profile-steps 4] [--cost-gpu h200] [--no-unfused]
        [--sexpgpu target/release/sexpgpu]

The workload is gpt2.sx: the transformer of the CPU benchmark
(benches/sexpgpu/train_steps) scaled to GPT-2 small (width 768, 12 layers,
12 heads, context 1024, vocabulary 50304, tied output layer: 124M
parameters), AdamW, the same random batch of `--batch` rows every step.
`--scale tiny` (width 64, 2 layers, context 32) checks the script itself on
any machine, the CPU included.

Systems, each timed per step (median, after warm-up; every step reads its
loss back to the host, which waits for the device, on every side):

- sexpgpu: `sexpgpu run gpt2.sx --device D`; per-step times from its
  `--metrics` file, the first window (compilation) dropped. With `--dtype
  bf16` its parameters are bf16 with f32 master weights. Its attention is
  `nn/attention`, one fused node.
- sexpgpu-unfused: the same with attention written out as `nn/attention`
  wrote it before it was fused (scores, causal mask, softmax, product), so
  the fused kernels are measured against the plan they replace
  (`--no-unfused` skips it).
- torch: the same model in PyTorch eager, attention written as nn/attention
  writes it (scores, causal mask, softmax, product); with `--dtype bf16`
  under `torch.autocast(bfloat16)`.
- torch-sdpa: the same, attention by `F.scaled_dot_product_attention`
  (PyTorch's fused flash attention).
- compiled: the torch model under `torch.compile` (skipped with
  `--no-compile` or where inductor fails).

`--profile` then runs SexpGPU once more for `--profile-steps` steps (4) with
`--profile --profile-warmup 2` (not timed: every launch is bracketed by
events; the first two steps, with the kernels' loading and cuBLAS's first
calls, are left out of the sums) and prints where its step's
time went, by kernel kind and costliest launches: each kind's bytes, FLOPs
and achieved GB/s and TFLOPS, and on a GPU of the cost model's table
(docs/sexpgpu/cuda.md, "The cost model") its modelled lower bound beside
the measured time. Then the cost model of the same step on that GPU
(`sexpgpu ir --cost --gpu`; the GPU named by `--cost-gpu`, else the
device's name), by kind and in total.

Prints tokens per second for each system, its step time over SexpGPU's
(above 1: slower than SexpGPU), and its loss after `--steps` steps (SexpGPU:
its last logged window's mean), a check that each side trains.
Figures and their machine go in BENCHMARKS.md.
"""

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent / "train_steps"))
from run import Gpt, sexpgpu_step_ms  # noqa: E402  (the CPU benchmark's model)

SCALES = {
    "small": dict(width=768, layers=12, heads=12, context=1024, vocab=50304),
    "tiny": dict(width=64, layers=2, heads=4, context=32, vocab=128),
}


# Attention as `nn/attention` wrote it before it was one fused node.
UNFUSED_ATTENTION = """
(defn unfused-attention (q k v & {:keys [causal] :or {causal false}})
  (let [scores (/ (matmul q (nn/swap-last-axes k)) (sqrt (float (dim q -1))))
        t (dim q -2)
        s (dim k -2)
        scores (if causal
                 (where (>= (iota [t s] :axis 0) (iota [t s] :axis 1)) scores -1e30)
                 scores)]
    (matmul (nn/softmax scores) v)))
"""


def sized_source(scale, dtype, unfused=False):
    """gpt2.sx with the scale's sizes and the parameters' dtype; with
    `unfused`, its attention written out instead of `nn/attention`."""
    text = (HERE / "gpt2.sx").read_text()
    if unfused:
        call = "(nn/attention q kk v :causal true)"
        assert text.count(call) == 1, "gpt2.sx calls nn/attention once"
        text = text.replace(call, "(unfused-attention q kk v :causal true)")
        text = text.replace("(defn block ", UNFUSED_ATTENTION + "\n(defn block ", 1)
    for name, value in SCALES[scale].items():
        text, n = re.subn(rf"^\(def {name} \d+\)$", f"(def {name} {value})", text, flags=re.M)
        assert n == 1, f"gpt2.sx defines {name} once"
    text, n = re.subn(r"^\(def dtype :\w+\)$", f"(def dtype :{dtype})", text, flags=re.M)
    assert n == 1, "gpt2.sx defines dtype once"
    return text


def batch_data(scale, batch):
    """One random batch of token windows: (npz columns, torch tensors)."""
    sizes = SCALES[scale]
    ids = np.random.default_rng(0).integers(0, sizes["vocab"], (batch, sizes["context"] + 1))
    x, y = ids[:, :-1], ids[:, 1:]
    columns = {"x": x.astype(np.int32), "y": y.astype(np.int32)}
    return columns, (torch.from_numpy(x.copy()), torch.from_numpy(y.copy()))


def sexpgpu_ms(args, workdir, unfused=False):
    """SexpGPU's median step in milliseconds, and its last logged loss."""
    sx = workdir / "gpt2.sx"
    sx.write_text(sized_source(args.scale, args.dtype, unfused))
    metrics = workdir / "metrics.jsonl"
    command = [args.sexpgpu, "run", str(sx), "--device", args.device]
    command += ["--steps", str(args.steps), "--metrics", str(metrics)]
    subprocess.run(command, check=True, cwd=workdir, stdout=subprocess.DEVNULL)
    if args.profile and not unfused:
        profiled = [args.sexpgpu, "run", str(sx), "--device", args.device, "--steps", str(args.profile_steps), "--profile", "--profile-warmup", "2"]
        report = subprocess.run(profiled, check=True, cwd=workdir, capture_output=True, text=True)
        print(report.stderr, file=sys.stderr)
        modelled(args, sx, workdir)
    lines = [json.loads(line) for line in metrics.read_text().splitlines()]
    return sexpgpu_step_ms(lines), lines[-1]["loss"]


def modelled(args, sx, workdir):
    """The cost model's lower bound of the same step, by kind and in total
    (`sexpgpu ir --cost`), to read beside the profile's measured times; on
    the device's GPU, or the one `--cost-gpu` names."""
    gpu = args.cost_gpu or (device_name(args.device) if args.device == "cuda" else None)
    if gpu is None:
        return
    command = [args.sexpgpu, "ir", str(sx), "--graph", "bench/step", "--cost", "--gpu", gpu]
    result = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"no cost model for {gpu}: {result.stderr.strip()}", file=sys.stderr)
        return
    lines = result.stdout.splitlines()
    print("\n".join([lines[0], *lines[lines.index("by kind:"):]]), file=sys.stderr)


def init_as_gpt2_sx(model):
    """gpt2.sx's initial distributions: weight matrices, the embedding and
    the positions normal with std 0.02, biases zero, layer norms' scales one."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias"):
                p.zero_()
            elif "ln" in name:
                p.fill_(1.0)
            else:
                p.normal_(0.0, 0.02)


def torch_ms(args, batch, sdpa, compiled):
    """PyTorch's median step in milliseconds, and its last loss."""
    sizes = SCALES[args.scale]
    device = torch.device(args.device)
    torch.manual_seed(0)
    model = Gpt(
        sizes["vocab"], sizes["width"], sizes["context"], sizes["layers"],
        heads=sizes["heads"], sdpa=sdpa, tied=True,
    )
    init_as_gpt2_sx(model)
    model = model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
    forward = torch.compile(model) if compiled else model
    x, y = (t.to(device) for t in batch)
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.dtype == "bf16")

    def step():
        opt.zero_grad(set_to_none=True)
        with autocast:
            loss = forward(x, y)
        loss.backward()
        opt.step()
        return loss.item()

    # As many steps as SexpGPU runs, the first three untimed (warm-up).
    for _ in range(3):
        step()
    times, loss = [], None
    for _ in range(args.steps - 3):
        start = time.perf_counter()
        loss = step()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), loss


def device_name(device):
    if device == "cuda":
        return torch.cuda.get_device_name(0)
    return open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(" :\t")


def measured(row, system, value):
    """Records one system's (ms per step, last loss) and prints it at once,
    so that a run cut short by a time limit still shows what it measured."""
    row[system] = value
    print(f"  {system}: {value[0]:.2f} ms/step, last loss {value[1]:.4f}", file=sys.stderr, flush=True)


def one_round(args, compile_ok):
    """{system: (ms per step, last loss)} for one round; SexpGPU is missing
    from it when its run failed (the error is printed; PyTorch still runs)."""
    columns, batch = batch_data(args.scale, args.batch)
    row = {}
    with tempfile.TemporaryDirectory() as tmp:
        np.savez(Path(tmp) / "data.npz", **columns)
        try:
            measured(row, "sexpgpu", sexpgpu_ms(args, Path(tmp)))
        except subprocess.CalledProcessError as error:
            print(f"  sexpgpu failed: {error}", file=sys.stderr, flush=True)
        if not args.no_unfused:
            try:
                measured(row, "sexpgpu-unfused", sexpgpu_ms(args, Path(tmp), unfused=True))
            except subprocess.CalledProcessError as error:
                print(f"  sexpgpu-unfused failed: {error}", file=sys.stderr, flush=True)
    measured(row, "torch", torch_ms(args, batch, sdpa=False, compiled=False))
    measured(row, "torch-sdpa", torch_ms(args, batch, sdpa=True, compiled=False))
    if compile_ok:
        try:
            measured(row, "compiled", torch_ms(args, batch, sdpa=False, compiled=True))
        except Exception as error:  # no working inductor toolchain here
            print(f"  torch.compile failed: {type(error).__name__}", file=sys.stderr)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    parser.add_argument("--scale", default="small", choices=sorted(SCALES))
    parser.add_argument("--dtype", default="bf16", choices=["f32", "bf16"])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--no-unfused", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--profile-steps", type=int, default=4)
    parser.add_argument("--cost-gpu", help="with --profile: the cost model's GPU (h100, h200, a100, l4); default: the device's")
    parser.add_argument("--sexpgpu", default=str(ROOT / "target" / "release" / "sexpgpu"))
    args = parser.parse_args()
    # SexpGPU runs in a scratch folder, so a relative path is made absolute.
    args.sexpgpu = str(Path(args.sexpgpu).resolve())
    assert args.steps >= 6, "6 steps or more: two timed windows of 2 steps after the first"
    assert not args.profile or args.profile_steps > 2, "--profile-steps: more than the 2 warm-up steps"
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("PyTorch sees no CUDA device")
    tokens = args.batch * SCALES[args.scale]["context"]
    print(f"device: {device_name(args.device)}; torch {torch.__version__}")
    print(f"gpt2 {args.scale}, {args.dtype}, batch {args.batch} x {tokens // args.batch} tokens, {args.steps} steps")
    results = {}
    for r in range(args.rounds):
        row = one_round(args, not args.no_compile)
        for system, value in row.items():
            results.setdefault(system, []).append(value)
        print(f"round {r + 1}: {row}", file=sys.stderr)
    # Ratios are to SexpGPU's step; where it failed every run, to none.
    ours = statistics.median(ms for ms, _ in results["sexpgpu"]) if "sexpgpu" in results else None
    print(f"{'system':<12} {'ms/step':>9} {'tokens/s':>10} {'last loss':>10} {'time/ours':>10}")
    for system, runs in results.items():
        ms = statistics.median(m for m, _ in runs)
        loss = runs[-1][1]
        ratio = f"{ms / ours:10.2f}" if ours else f"{'-':>10}"
        print(f"{system:<12} {ms:9.2f} {tokens / ms * 1e3:10.0f} {loss:10.4f} {ratio}")
    if len(results.get("sexpgpu", [])) < args.rounds:
        sys.exit("sexpgpu failed (its error is above)")

if __name__ == "__main__":
    main()
