"""Training steps: SexpGPU against PyTorch on the CPU, in one run.

    .venv/bin/python benches/sexpgpu/train_steps/run.py [--threads 2]
        [--rounds 3] [--only mlp,transformer,cnn,char] [--no-compile]
        [--sexpgpu target/release/sexpgpu]

Workloads (the same model, sizes, optimizer and thread count on each side):

- mlp: 784-1024-1024-10 with ReLU, batch 256, AdamW; per-step median.
- transformer: a GPT of 4 pre-norm blocks, width 256, 4 heads, context 128,
  vocabulary 65, batch 16, AdamW, no dropout; per-step median.
- cnn: MNIST-sized images, batch 64 of 1 x 28 x 28: conv 3x3 to 32
  channels, ReLU, max-pool 2, conv 3x3 to 64, ReLU, max-pool 2, linear to
  10 classes, AdamW; per-step median. (Its convolutions alone, forward and
  backward, are in the CPU kernel benchmark, `--only conv2d`.)
- char: examples/sexpgpu/char-transformer.sx as shipped (800 steps, two
  evaluations) against a PyTorch port of it; seconds to the end of step 800
  (the sample drawn afterwards is not timed).

Rounds interleave the systems (SexpGPU, PyTorch eager, PyTorch with
`torch.compile`), so background load hits them alike; each figure printed
is the median over rounds of each round's median. SexpGPU's per-step times
come from its `--metrics` file (`wall` at each logged step; the first
window, which includes compilation, is dropped). Build the binary first:
`cargo build --release -p sexpgpu`. Figures and their machine go in
BENCHMARKS.md.
"""

import argparse
import json
import math
import os
import shutil
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


# --- the models, as nn.sx writes them ------------------------------------------


class Mlp(torch.nn.Module):
    def __init__(self, inputs=784, hidden=1024, classes=10):
        super().__init__()
        self.l1 = torch.nn.Linear(inputs, hidden)
        self.l2 = torch.nn.Linear(hidden, hidden)
        self.l3 = torch.nn.Linear(hidden, classes)

    def forward(self, x, y):
        h = F.relu(self.l1(x))
        h = F.relu(self.l2(h))
        return F.cross_entropy(self.l3(h), y)


class Cnn(torch.nn.Module):
    def __init__(self, c1=32, c2=64, classes=10):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, c1, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(c1, c2, 3, padding=1)
        self.head = torch.nn.Linear(c2 * 7 * 7, classes)

    def forward(self, x, y):
        h = F.max_pool2d(F.relu(self.conv1(x)), 2)
        h = F.max_pool2d(F.relu(self.conv2(h)), 2)
        return F.cross_entropy(self.head(h.flatten(1)), y)


class Block(torch.nn.Module):
    def __init__(self, width, heads, dropout, sdpa=False):
        super().__init__()
        self.heads, self.dropout, self.sdpa = heads, dropout, sdpa
        self.ln1 = torch.nn.LayerNorm(width)
        self.qkv = torch.nn.Linear(width, 3 * width, bias=False)
        self.proj = torch.nn.Linear(width, width, bias=False)
        self.ln2 = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        split = lambda z: z.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        if self.sdpa:  # PyTorch's fused (flash) attention
            a = F.scaled_dot_product_attention(split(q), split(k), split(v), is_causal=True)
        else:  # the same operations as nn/attention
            scores = split(q) @ split(k).transpose(-1, -2) / math.sqrt(d // self.heads)
            visible = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
            scores = scores.masked_fill(~visible, -1e30)
            a = scores.softmax(-1) @ split(v)
        a = a.transpose(1, 2).reshape(b, t, d)
        x = x + F.dropout(self.proj(a), self.dropout, self.training)
        m = self.down(F.gelu(self.up(self.ln2(x)), approximate="tanh"))
        return x + F.dropout(m, self.dropout, self.training)


class Gpt(torch.nn.Module):
    def __init__(self, vocab, width, context, layers, heads=4, dropout=0.0, sdpa=False, tied=False):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, width)
        self.pos = torch.nn.Parameter(torch.randn(context, width) * 0.02)
        self.blocks = torch.nn.ModuleList(
            Block(width, heads, dropout, sdpa) for _ in range(layers)
        )
        self.lnf = torch.nn.LayerNorm(width)
        self.head = torch.nn.Linear(width, vocab, bias=False)
        if tied:  # GPT-2's output layer is its token embedding
            self.head.weight = self.tok.weight

    def forward(self, ids, targets):
        x = self.tok(ids) + self.pos[: ids.shape[-1]]
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.lnf(x))
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


# --- timing --------------------------------------------------------------------


def torch_step_ms(model, batch, steps, compiled):
    """Median milliseconds of one AdamW training step after warm-up."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    forward = torch.compile(model) if compiled else model

    def update():
        opt.step()

    update = torch.compile(update) if compiled else update

    def step():
        opt.zero_grad(set_to_none=True)
        forward(*batch).backward()
        update()

    for _ in range(3):
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def sexpgpu_run(binary, sx, workdir, threads, extra=()):
    """Runs one .sx file; returns (metrics lines, process seconds)."""
    metrics = workdir / "metrics.jsonl"
    env = dict(os.environ, SEXPGPU_THREADS=str(threads))
    start = time.perf_counter()
    subprocess.run(
        [binary, "run", str(sx), "--metrics", str(metrics), *extra],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - start
    lines = [json.loads(line) for line in metrics.read_text().splitlines()]
    return lines, seconds


def sexpgpu_step_ms(lines):
    """Median per-step milliseconds over logged windows, the first dropped."""
    logged = [line for line in lines if not line.get("eval")]
    per_step = [
        (b["wall"] - a["wall"]) * 1e3 / (b["step"] - a["step"])
        for a, b in zip(logged, logged[1:])
    ]
    return statistics.median(per_step)


# --- the workloads --------------------------------------------------------------


def mlp_data(rng):
    x = rng.standard_normal((256, 784), dtype=np.float32)
    y = rng.integers(0, 10, 256).astype(np.int64)
    return {"x": x, "y": y.astype(np.int32)}, (torch.from_numpy(x), torch.from_numpy(y))


def transformer_data(rng):
    ids = rng.integers(0, 65, (16, 129))
    x, y = ids[:, :-1], ids[:, 1:]
    sx = {"x": x.astype(np.int32), "y": y.astype(np.int32)}
    return sx, (torch.from_numpy(x.copy()), torch.from_numpy(y.copy()))


def cnn_data(rng):
    x = rng.standard_normal((64, 1, 28, 28), dtype=np.float32)
    y = rng.integers(0, 10, 64).astype(np.int64)
    return {"x": x, "y": y.astype(np.int32)}, (torch.from_numpy(x), torch.from_numpy(y))


STEP_WORKLOADS = {
    "mlp": ("mlp.sx", mlp_data, lambda: Mlp(), 30),
    "transformer": ("transformer.sx", transformer_data, lambda: Gpt(65, 256, 128, 4), 8),
    "cnn": ("cnn.sx", cnn_data, lambda: Cnn(), 30),
}


def measure_steps(name, args, workdir, compile_ok):
    """One round of a per-step workload: {system: milliseconds}."""
    sx_name, make_data, make_model, torch_steps = STEP_WORKLOADS[name]
    data, batch = make_data(np.random.default_rng(0))
    np.savez(workdir / "data.npz", **data)
    shutil.copy(HERE / sx_name, workdir / sx_name)
    lines, _ = sexpgpu_run(args.sexpgpu, workdir / sx_name, workdir, args.threads)
    row = {"sexpgpu": sexpgpu_step_ms(lines)}
    torch.manual_seed(0)
    row["torch"] = torch_step_ms(make_model(), batch, torch_steps, compiled=False)
    if compile_ok:
        torch.manual_seed(0)
        try:
            row["compiled"] = torch_step_ms(make_model(), batch, torch_steps, compiled=True)
        except Exception as error:  # a CPU without a working inductor toolchain
            print(f"  torch.compile failed on {name}: {type(error).__name__}", file=sys.stderr)
    return row


def char_torch_seconds():
    """The PyTorch port of char-transformer.sx: seconds to the end of step 800."""
    text = (ROOT / "data" / "kjv-genesis-exodus.txt").read_text()
    vocab = sorted(set(text))
    lookup = {c: i for i, c in enumerate(vocab)}
    ids = torch.tensor([lookup[c] for c in text])
    split, context = len(text) * 9 // 10, 64
    train, valid = ids[:split], ids[split:]
    torch.manual_seed(0)
    model = Gpt(len(vocab), 64, context, 2, heads=4, dropout=0.1)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    schedule = lambda s: (
        3e-3 * s / 50
        if s < 50
        else 3e-4 + (3e-3 - 3e-4) * 0.5 * (1 + math.cos(math.pi * (s - 50) / 750))
    )

    def windows(source, size):
        starts = torch.randint(0, len(source) - context - 1, (size,))
        rows = torch.stack([source[s : s + context + 1] for s in starts])
        return rows[:, :-1], rows[:, 1:]

    start = time.perf_counter()
    for step in range(1, 801):
        for group in opt.param_groups:
            group["lr"] = schedule(step)
        model.train()
        loss = model(*windows(train, 16))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 400 == 0:
            model.eval()
            with torch.no_grad():
                for _ in range(8):
                    model(*windows(valid, 32))
    return time.perf_counter() - start


def measure_char(args, workdir):
    """One round of the char-transformer run: {system: seconds}."""
    example = ROOT / "examples" / "sexpgpu" / "char-transformer.sx"
    lines, _ = sexpgpu_run(args.sexpgpu, example, workdir, args.threads)
    trained = max(line["wall"] for line in lines if line["step"] == 800)
    return {"sexpgpu": trained, "torch": char_torch_seconds()}


# --- the report -----------------------------------------------------------------


def cpu_flags():
    try:
        flags = open("/proc/cpuinfo").read().split("flags")[1].split("\n")[0].split()
    except (OSError, IndexError):
        return "unknown"
    wanted = [f for f in flags if f.startswith("avx") or f in ("fma", "amx_bf16", "amx_tile")]
    return " ".join(sorted(set(wanted)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="mlp,transformer,cnn,char")
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--sexpgpu", default=str(ROOT / "target" / "release" / "sexpgpu"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model_name = open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(" :\t")
    print(f"cpu: {model_name}; {os.cpu_count()} cores; flags: {cpu_flags()}")
    print(f"threads: {args.threads}; torch {torch.__version__}; load {os.getloadavg()[0]:.2f}")
    results = {}
    for round_index in range(args.rounds):
        for name in args.only.split(","):
            with tempfile.TemporaryDirectory() as tmp:
                if name == "char":
                    row = measure_char(args, Path(tmp))
                else:
                    row = measure_steps(name, args, Path(tmp), not args.no_compile)
            for system, value in row.items():
                results.setdefault(name, {}).setdefault(system, []).append(value)
            print(f"round {round_index + 1} {name}: {row}", file=sys.stderr)
    print(f"{'workload':<12} {'unit':<8} {'sexpgpu':>9} {'torch':>9} {'compiled':>9} {'ours/torch':>11} {'ours/compiled':>14}")
    for name, systems in results.items():
        median = {s: statistics.median(v) for s, v in systems.items()}
        unit = "s/run" if name == "char" else "ms/step"
        compiled = median.get("compiled")
        print(
            f"{name:<12} {unit:<8} {median['sexpgpu']:9.2f} {median['torch']:9.2f} "
            f"{compiled if compiled is not None else float('nan'):9.2f} "
            f"{median['sexpgpu'] / median['torch']:11.2f} "
            f"{median['sexpgpu'] / compiled if compiled else float('nan'):14.2f}"
        )
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
