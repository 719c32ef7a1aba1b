"""SexpGPU training runs checked from outside: `sexpgpu run` with `--metrics`
and `--checkpoint`, against PyTorch given the same initial weights and the same
batches.

Weights travel one way: the run writes its initial parameters to
`DIR/<run>-init.safetensors` (`--checkpoint DIR`), and the PyTorch side loads
them. Batches are the rows of an `.npz` file this test writes, taken in order
(`nn/batches` without `:shuffle`), so both sides see the same data.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from binaries import sexpgpu_binary

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def sexpgpu() -> str:
    return sexpgpu_binary()


def load_safetensors(path: Path) -> dict[str, np.ndarray]:
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + n])
    dtypes = {"F32": np.float32, "I32": np.int32, "I64": np.int64}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        data = np.frombuffer(raw[8 + n + start : 8 + n + end], dtype=dtypes[info["dtype"]])
        out[name] = data.reshape(info["shape"]).copy()
    return out


def run(sexpgpu: str, sx: Path, *args: str) -> list[dict]:
    metrics = sx.parent / f"metrics-{len(list(sx.parent.glob('metrics-*')))}.jsonl"
    result = subprocess.run(
        [sexpgpu, "run", str(sx), "--metrics", str(metrics), *args],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    return [json.loads(line) for line in metrics.read_text().splitlines()]


def without_wall(lines: list[dict]) -> list[dict]:
    return [{k: v for k, v in line.items() if k != "wall"} for line in lines]


def torch_adamw(params: dict[str, torch.Tensor], lr: float, weight_decay: float):
    return torch.optim.AdamW(list(params.values()), lr=lr, weight_decay=weight_decay)


def follow(losses: list[float], metrics: list[dict]) -> None:
    ours = [m["loss"] for m in metrics if not m.get("eval")]
    assert len(ours) == len(losses)
    for step, (a, b) in enumerate(zip(ours, losses), start=1):
        assert abs(a - b) <= 1e-4 * abs(b), f"step {step}: sexpgpu {a}, torch {b}"


MLP = """
(require nn)
(defmodel mlp [i h o]
  {:w1 (normal [i h] :std 0.3) :b1 (uniform [h] :low -0.1 :high 0.1)
   :w2 (normal [h o] :std 0.3) :b2 (zeros [o])})
(def d (load-npz "data.npz"))
(defrun mlp-run
  :seed 7
  :model (mlp 12 32 5)
  :data (nn/batches d :size 16)
  :loss (fn (p batch)
          (let [h (nn/gelu (nn/linear (:x batch) (:w1 p) :bias (:b1 p)) :approximate :tanh)]
            (nn/cross-entropy (nn/linear h (:w2 p) :bias (:b2 p)) (:y batch))))
  :optimizer (nn/adamw :lr 1e-2 :weight-decay 0.05)
  :steps 50
  :log-every 1)
"""


def write_mlp_data(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """64 rows of 12 features and a class of 5, as `MLP` reads them from
    `folder/data.npz`; returns them."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(64, 12)).astype(np.float32)
    y = rng.integers(0, 5, size=64).astype(np.int32)
    np.savez(folder / "data.npz", x=x, y=y)
    return x, y


def test_mlp_follows_pytorch_for_50_steps(sexpgpu, tmp_path):
    x, y = write_mlp_data(tmp_path)
    sx = tmp_path / "mlp.sx"
    sx.write_text(MLP)
    metrics = run(sexpgpu, sx, "--checkpoint", str(tmp_path / "ck"))
    init = load_safetensors(tmp_path / "ck" / "mlp-run-init.safetensors")
    p = {k.removeprefix("param/"): torch.tensor(v, requires_grad=True) for k, v in init.items()}
    opt = torch_adamw(p, 1e-2, 0.05)
    losses = []
    for step in range(50):
        i = (step % 4) * 16
        xb, yb = torch.tensor(x[i : i + 16]), torch.tensor(y[i : i + 16]).long()
        h = F.gelu(xb @ p["w1"] + p["b1"], approximate="tanh")
        loss = F.cross_entropy(h @ p["w2"] + p["b2"], yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    follow(losses, metrics)
    assert losses[-1] < 0.5 * losses[0]


GPT = """
(require nn)
(defmodel gpt [vocab d t hidden]
  {:tok (normal [vocab d] :std 0.5) :pos (normal [t d] :std 0.5)
   :ln1-w (ones [d]) :ln1-b (zeros [d])
   :wq (normal [d d] :std 0.3) :wk (normal [d d] :std 0.3)
   :wv (normal [d d] :std 0.3) :wo (normal [d d] :std 0.3)
   :ln2-w (ones [d]) :ln2-b (zeros [d])
   :w1 (normal [d hidden] :std 0.3) :b1 (zeros [hidden])
   :w2 (normal [hidden d] :std 0.3) :b2 (zeros [d])
   :lnf-w (ones [d]) :lnf-b (zeros [d])
   :head (normal [d vocab] :std 0.3)})

(defn heads (x n)
  (let [[b t d] (shape x)]
    (transpose (reshape x [b t n (quot d n)]) [0 2 1 3])))

(defn merge-heads (x)
  (let [[b n t h] (shape x)]
    (reshape (transpose x [0 2 1 3]) [b t (* n h)])))

(defn forward (p ids)
  (let [x (+ (nn/embedding (:tok p) ids) (:pos p))
        h (nn/layer-norm x :weight (:ln1-w p) :bias (:ln1-b p))
        q (heads (nn/linear h (:wq p)) 2)
        k (heads (nn/linear h (:wk p)) 2)
        v (heads (nn/linear h (:wv p)) 2)
        x (+ x (nn/linear (merge-heads (nn/attention q k v :causal true)) (:wo p)))
        h (nn/layer-norm x :weight (:ln2-w p) :bias (:ln2-b p))
        x (+ x (nn/linear (nn/gelu (nn/linear h (:w1 p) :bias (:b1 p)) :approximate :tanh) (:w2 p) :bias (:b2 p)))]
    (nn/linear (nn/layer-norm x :weight (:lnf-w p) :bias (:lnf-b p)) (:head p))))

(def d (load-npz "tokens.npz"))
(defrun gpt-run
  :seed 3
  :model (gpt 11 16 8 32)
  :data (nn/batches d :size 4)
  :loss (fn (p batch) (nn/cross-entropy (forward p (:x batch)) (:y batch)))
  :optimizer (nn/adamw :lr 3e-3 :clip-norm 1.0)
  :steps 50
  :log-every 1)
"""


def torch_gpt(p, ids):
    def heads(x):
        b, t, d = x.shape
        return x.reshape(b, t, 2, d // 2).permute(0, 2, 1, 3)

    def ln(x, w, b):
        return F.layer_norm(x, (x.shape[-1],), w, b, eps=1e-5)

    x = p["tok"][ids] + p["pos"]
    h = ln(x, p["ln1-w"], p["ln1-b"])
    q, k, v = heads(h @ p["wq"]), heads(h @ p["wk"]), heads(h @ p["wv"])
    scores = q @ k.transpose(-1, -2) / (q.shape[-1] ** 0.5)
    t = ids.shape[1]
    causal = torch.arange(t)[:, None] >= torch.arange(t)[None, :]
    scores = torch.where(causal, scores, torch.tensor(-1e30))
    a = (torch.softmax(scores, -1) @ v).permute(0, 2, 1, 3).reshape(x.shape)
    x = x + a @ p["wo"]
    h = ln(x, p["ln2-w"], p["ln2-b"])
    x = x + F.gelu(h @ p["w1"] + p["b1"], approximate="tanh") @ p["w2"] + p["b2"]
    return ln(x, p["lnf-w"], p["lnf-b"]) @ p["head"]


def test_small_transformer_follows_pytorch_for_50_steps(sexpgpu, tmp_path):
    rng = np.random.default_rng(2)
    # A learnable sequence: each token is the previous one plus one, mod 11.
    starts = rng.integers(0, 11, size=(32, 1))
    seq = (starts + np.arange(9)[None, :]) % 11
    x, y = seq[:, :8].astype(np.int32), seq[:, 1:].astype(np.int32)
    np.savez(tmp_path / "tokens.npz", x=x, y=y)
    sx = tmp_path / "gpt.sx"
    sx.write_text(GPT)
    metrics = run(sexpgpu, sx, "--checkpoint", str(tmp_path / "ck"))
    init = load_safetensors(tmp_path / "ck" / "gpt-run-init.safetensors")
    p = {k.removeprefix("param/"): torch.tensor(v, requires_grad=True) for k, v in init.items()}
    opt = torch.optim.AdamW(list(p.values()), lr=3e-3, weight_decay=0.01)
    losses = []
    for step in range(50):
        i = (step % 8) * 4
        ids, target = torch.tensor(x[i : i + 4]).long(), torch.tensor(y[i : i + 4]).long()
        logits = torch_gpt(p, ids)
        loss = F.cross_entropy(logits.reshape(-1, 11), target.reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(p.values()), 1.0)
        opt.step()
        losses.append(loss.item())
    follow(losses, metrics)
    assert losses[-1] < losses[0]


def test_same_seed_gives_identical_metrics(sexpgpu, tmp_path):
    write_mlp_data(tmp_path)
    sx = tmp_path / "mlp.sx"
    sx.write_text(MLP.replace("(nn/batches d :size 16)", "(nn/batches d :size 16 :shuffle true)"))
    first = without_wall(run(sexpgpu, sx, "--steps", "20"))
    second = without_wall(run(sexpgpu, sx, "--steps", "20"))
    other = without_wall(run(sexpgpu, sx, "--steps", "20", "--seed", "8"))
    assert first == second
    assert first != other


def test_resume_continues_bit_for_bit(sexpgpu, tmp_path):
    write_mlp_data(tmp_path)
    sx = tmp_path / "mlp.sx"
    sx.write_text(
        MLP.replace("(nn/batches d :size 16)", "(nn/batches d :size 16 :shuffle true)")
        .replace("(nn/linear h", "(nn/linear (nn/dropout h 0.2)")
    )
    straight = run(sexpgpu, sx, "--steps", "100", "--checkpoint", str(tmp_path / "a"))
    first = run(sexpgpu, sx, "--steps", "50", "--checkpoint", str(tmp_path / "b"))
    rest = run(sexpgpu, sx, "--steps", "100", "--resume", str(tmp_path / "b"), "--checkpoint", str(tmp_path / "c"))
    assert without_wall(first + rest) == without_wall(straight)
    a = load_safetensors(tmp_path / "a" / "mlp-run.safetensors")
    c = load_safetensors(tmp_path / "c" / "mlp-run.safetensors")
    assert sorted(a) == sorted(c) and any(k.startswith("opt/") for k in a)
    for name in a:
        assert a[name].tobytes() == c[name].tobytes(), name
    assert not list((tmp_path / "c").glob(".*.tmp"))
