"""SexpGPU batch norm with running statistics (`nn/batch-norm`, the model's
buffers: docs/sexpgpu/models.md#buffers) against `torch.nn.BatchNorm2d` and
`BatchNorm1d`, given the same initial weights and the same batches.

The run writes its initial parameters and buffers to
`DIR/<run>-init.safetensors` and its last ones to `DIR/<run>.safetensors`
(`--checkpoint DIR`); the PyTorch side starts from the first and is compared
with the second. Batches are the rows of an `.npz` file taken in order.
"""

from __future__ import annotations

import subprocess

import numpy as np
import torch
import torch.nn.functional as F

from test_sexpgpu_training import follow, load_safetensors, run, sexpgpu, without_wall  # noqa: F401

CONV_BN = """
(require nn)
(defmodel net [inputs c classes]
  (merge {:conv (normal [c inputs 3 3] :std 0.4)
          :head (normal [c classes] :std 0.5)}
         (nn/batch-norm-params :bn c)))
(def d (load-npz "data.npz"))
(defn forward (p x)
  (-> x
      (nn/conv2d (:conv p) :padding 1)
      (nn/batch-norm-layer p :bn)
      (nn/relu)
      (nn/mean :axes [2 3])
      (nn/linear (:head p))))
(defrun bn-run
  :seed 3
  :model (net 2 4 3)
  :data (nn/batches {:x (:x d) :y (:y d)} :size 8)
  :loss (fn (p batch) (nn/cross-entropy (forward p (:x batch)) (:y batch)))
  :optimizer OPTIMIZER
  :steps 20
  :log-every 1
  :eval (fn (p batch) {:test-loss (nn/cross-entropy (forward p (:x batch)) (:y batch))})
  :eval-data {:x (:tx d) :y (:ty d)}
  :eval-every 10)
"""

BATCH, STEPS = 8, 20


def write_data(tmp_path, optimizer: str = "(nn/adamw :lr 2e-2 :weight-decay 0.01)"):
    rng = np.random.default_rng(5)
    data = {
        "x": (rng.normal(size=(32, 2, 5, 5)) * 2 + 0.5).astype(np.float32),
        "y": rng.integers(0, 3, size=32).astype(np.int32),
        "tx": rng.normal(size=(16, 2, 5, 5)).astype(np.float32),
        "ty": rng.integers(0, 3, size=16).astype(np.int32),
    }
    np.savez(tmp_path / "data.npz", **data)
    sx = tmp_path / "bn.sx"
    sx.write_text(CONV_BN.replace("OPTIMIZER", optimizer))
    return sx, data


class TorchNet(torch.nn.Module):
    """The same network in PyTorch, from the run's initial checkpoint."""

    def __init__(self, init: dict[str, np.ndarray]):
        super().__init__()
        self.conv = torch.nn.Parameter(torch.tensor(init["param/conv"]))
        self.head = torch.nn.Parameter(torch.tensor(init["param/head"]))
        self.bn = torch.nn.BatchNorm2d(self.conv.shape[0])  # momentum 0.1, eps 1e-5
        with torch.no_grad():
            self.bn.weight.copy_(torch.tensor(init["param/bn.weight"]))
            self.bn.bias.copy_(torch.tensor(init["param/bn.bias"]))
            self.bn.running_mean.copy_(torch.tensor(init["buffer/bn.running-mean"]))
            self.bn.running_var.copy_(torch.tensor(init["buffer/bn.running-var"]))

    def forward(self, x):
        h = F.relu(self.bn(F.conv2d(x, self.conv, padding=1)))
        return h.mean(dim=(2, 3)) @ self.head


def batch(data, step: int):
    i = (step % (len(data["x"]) // BATCH)) * BATCH
    return torch.tensor(data["x"][i : i + BATCH]), torch.tensor(data["y"][i : i + BATCH]).long()


def test_training_follows_batchnorm2d_and_running_stats_match(sexpgpu, tmp_path):
    sx, data = write_data(tmp_path)
    metrics = run(sexpgpu, sx, "--checkpoint", str(tmp_path / "ck"))
    init = load_safetensors(tmp_path / "ck" / "bn-run-init.safetensors")
    assert init["buffer/bn.running-mean"].tolist() == [0.0] * 4
    assert init["buffer/bn.running-var"].tolist() == [1.0] * 4
    net = TorchNet(init)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-2, weight_decay=0.01)
    losses, evals = [], []
    for step in range(STEPS):
        net.train()
        x, y = batch(data, step)
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if (step + 1) % 10 == 0:
            net.eval()
            with torch.no_grad():
                tx, ty = torch.tensor(data["tx"]), torch.tensor(data["ty"]).long()
                evals.append(F.cross_entropy(net(tx), ty).item())
    follow(losses, metrics)
    ours = [m["test-loss"] for m in metrics if m.get("eval")]
    assert len(ours) == 2
    for a, b in zip(ours, evals):
        assert abs(a - b) <= 1e-4 * abs(b), f"eval: sexpgpu {a}, torch {b}"
    final = load_safetensors(tmp_path / "ck" / "bn-run.safetensors")
    # After 20 training forward passes the running statistics are PyTorch's.
    np.testing.assert_allclose(final["buffer/bn.running-mean"], net.bn.running_mean.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(final["buffer/bn.running-var"], net.bn.running_var.numpy(), rtol=1e-4, atol=1e-6)
    assert not np.allclose(final["buffer/bn.running-var"], 1.0)
    # The optimizer never touched them: no AdamW state for buffers.
    assert not [k for k in final if k.startswith("opt/") and "running" in k]
    np.testing.assert_allclose(final["param/bn.weight"], net.bn.weight.detach().numpy(), rtol=1e-3, atol=1e-5)


def test_gradients_equal_batchnorm2d(sexpgpu, tmp_path):
    # One plain SGD step with lr 1: the parameters move by exactly the gradient.
    sx, data = write_data(tmp_path, "(nn/sgd :lr 1.0)")
    run(sexpgpu, sx, "--steps", "1", "--checkpoint", str(tmp_path / "ck"))
    init = load_safetensors(tmp_path / "ck" / "bn-run-init.safetensors")
    after = load_safetensors(tmp_path / "ck" / "bn-run.safetensors")
    net = TorchNet(init)
    x, y = batch(data, 0)
    out = net(x)
    F.cross_entropy(out, y).backward()
    torch_grads = {
        "param/conv": net.conv.grad,
        "param/head": net.head.grad,
        "param/bn.weight": net.bn.weight.grad,
        "param/bn.bias": net.bn.bias.grad,
    }
    for name, g in torch_grads.items():
        ours = init[name] - after[name]
        np.testing.assert_allclose(ours, g.numpy(), rtol=1e-3, atol=2e-6, err_msg=name)
    np.testing.assert_allclose(after["buffer/bn.running-mean"], net.bn.running_mean.numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(after["buffer/bn.running-var"], net.bn.running_var.numpy(), rtol=1e-5, atol=1e-7)


def test_resume_restores_running_stats_bit_for_bit(sexpgpu, tmp_path):
    sx, _ = write_data(tmp_path)
    straight = run(sexpgpu, sx, "--steps", "20", "--checkpoint", str(tmp_path / "a"))
    first = run(sexpgpu, sx, "--steps", "10", "--checkpoint", str(tmp_path / "b"))
    half = load_safetensors(tmp_path / "b" / "bn-run.safetensors")
    rest = run(sexpgpu, sx, "--steps", "20", "--resume", str(tmp_path / "b"), "--checkpoint", str(tmp_path / "c"))
    assert without_wall(first + rest) == without_wall(straight)
    a = load_safetensors(tmp_path / "a" / "bn-run.safetensors")
    c = load_safetensors(tmp_path / "c" / "bn-run.safetensors")
    assert sorted(a) == sorted(c)
    assert {"buffer/bn.running-mean", "buffer/bn.running-var"} <= set(a)
    for name in a:
        assert a[name].tobytes() == c[name].tobytes(), name
    # The running statistics moved between step 10 and step 20.
    assert half["buffer/bn.running-mean"].tobytes() != a["buffer/bn.running-mean"].tobytes()


def test_resume_without_a_buffer_is_e_run_007(sexpgpu, tmp_path):
    sx, _ = write_data(tmp_path)
    run(sexpgpu, sx, "--steps", "2", "--checkpoint", str(tmp_path / "ck"))
    sx.write_text(sx.read_text().replace("(nn/batch-norm-params :bn c)", "(nn/batch-norm-params :bn c) {:seen (buffer (zeros [1]))}"))
    result = subprocess.run([sexpgpu, "run", str(sx), "--resume", str(tmp_path / "ck")], capture_output=True, text=True)
    assert result.returncode != 0
    assert "E-RUN-007" in result.stderr and "buffer/seen" in result.stderr, result.stderr


BN1D = """
(require nn)
(defmodel net [i c]
  (merge {:w (normal [i c] :std 0.5)} (nn/batch-norm-params :bn c)))
(def d (load-npz "data.npz"))
(defrun bn1d
  :seed 1
  :model (net 6 5)
  :data (nn/batches d :size 10)
  :loss (fn (p batch)
          (let [h (nn/batch-norm-layer (nn/linear (:x batch) (:w p)) p :bn :momentum 0.3 :eps 1e-3)]
            (nn/mean (* h h (:s batch)))))
  :optimizer (nn/sgd :lr 1.0)
  :steps 3
  :log-every 1)
"""


def test_batchnorm1d_with_momentum_and_eps(sexpgpu, tmp_path):
    rng = np.random.default_rng(2)
    x = (rng.normal(size=(30, 6)) * 3 - 1).astype(np.float32)
    scale = rng.normal(size=(30, 5)).astype(np.float32)
    np.savez(tmp_path / "data.npz", x=x, s=scale)
    sx = tmp_path / "bn1d.sx"
    sx.write_text(BN1D)
    metrics = run(sexpgpu, sx, "--checkpoint", str(tmp_path / "ck"))
    init = load_safetensors(tmp_path / "ck" / "bn1d-init.safetensors")
    final = load_safetensors(tmp_path / "ck" / "bn1d.safetensors")
    w = torch.tensor(init["param/w"], requires_grad=True)
    bn = torch.nn.BatchNorm1d(5, momentum=0.3, eps=1e-3)
    opt = torch.optim.SGD([w, *bn.parameters()], lr=1.0)
    losses = []
    for step in range(3):
        i = step * 10
        h = bn(torch.tensor(x[i : i + 10]) @ w)
        loss = (h * h * torch.tensor(scale[i : i + 10])).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    follow(losses, metrics)
    np.testing.assert_allclose(final["param/w"], w.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(final["param/bn.weight"], bn.weight.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(final["buffer/bn.running-mean"], bn.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(final["buffer/bn.running-var"], bn.running_var.numpy(), rtol=1e-5, atol=1e-6)
