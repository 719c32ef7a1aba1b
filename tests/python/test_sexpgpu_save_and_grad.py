"""SexpGPU's results checked from outside: arrays NumPy writes go through a
`.sx` program (loaded, computed on at once outside any graph, differentiated
with `value-and-grad`) and come back with `save-npz`; NumPy reads them and
PyTorch computes the same values and gradients.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from binaries import sexpgpu_binary

PROGRAM = """
(require nn)
(def d (load-npz "in.npz"))
(defn loss [p x y]
  (nn/cross-entropy (nn/linear (tanh (matmul x (:w1 p))) (:w2 p) :bias (:b p)) y))
(let [[value grads] (value-and-grad loss {:w1 (:w1 d) :w2 (:w2 d) :b (:b d)} (:x d) (:y d))]
  (save-npz "out.npz" {:value value :w1 (:w1 grads) :w2 (:w2 grads) :b (:b grads)
                       :scaled (* 2.0 (slice (:x d) 0 0 3))
                       :ids (+ (:y d) 1)}))
"""


@pytest.fixture(scope="session")
def sexpgpu() -> str:
    return sexpgpu_binary()


def test_value_and_grad_and_save_npz_match_pytorch(sexpgpu, tmp_path: Path):
    rng = np.random.default_rng(7)
    arrays = {
        "x": rng.standard_normal((6, 5)).astype(np.float32),
        "y": rng.integers(0, 3, size=6).astype(np.int64),
        "w1": rng.standard_normal((5, 4)).astype(np.float32),
        "w2": rng.standard_normal((4, 3)).astype(np.float32),
        "b": rng.standard_normal(3).astype(np.float32),
    }
    np.savez(tmp_path / "in.npz", **arrays)
    (tmp_path / "grad.sx").write_text(PROGRAM)
    run = subprocess.run(
        [sexpgpu, "run", "grad.sx"], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""

    out = np.load(tmp_path / "out.npz")
    assert sorted(out.files) == ["b", "ids", "scaled", "value", "w1", "w2"]

    params = {k: torch.tensor(arrays[k], requires_grad=True) for k in ("w1", "w2", "b")}
    x, y = torch.tensor(arrays["x"]), torch.tensor(arrays["y"])
    logits = torch.tanh(x @ params["w1"]) @ params["w2"] + params["b"]
    value = torch.nn.functional.cross_entropy(logits, y)
    value.backward()

    assert out["value"].shape == () and out["value"].dtype == np.float32
    np.testing.assert_allclose(out["value"], value.item(), rtol=1e-5)
    for k in ("w1", "w2", "b"):
        assert out[k].dtype == np.float32 and out[k].shape == arrays[k].shape
        np.testing.assert_allclose(out[k], params[k].grad.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(out["scaled"], 2.0 * arrays["x"][:3])
    assert out["ids"].dtype == np.int64
    np.testing.assert_array_equal(out["ids"], arrays["y"] + 1)
