"""The GPU benchmark's script (benches/sexpgpu/gpt2/run.py) at its tiny scale
on the CPU, so that the script `scripts/gpu-check` runs on a GPU is known to
work before one is lent: every system is timed and each side trains."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

from binaries import sexpgpu_binary

ROOT = Path(__file__).resolve().parents[2]


def test_the_gpt2_benchmark_runs_at_tiny_scale_on_the_cpu():
    sexpgpu = sexpgpu_binary()
    result = subprocess.run(
        [sys.executable, str(ROOT / "benches/sexpgpu/gpt2/run.py"), "--device", "cpu",
         "--scale", "tiny", "--dtype", "f32", "--steps", "8", "--no-compile", "--profile",
         "--sexpgpu", sexpgpu],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )
    rows = {}
    for line in result.stdout.splitlines():
        fields = line.split()
        if fields and fields[0] in ("sexpgpu", "torch", "torch-sdpa"):
            rows[fields[0]] = [float(f) for f in fields[1:]]
    assert set(rows) == {"sexpgpu", "torch", "torch-sdpa"}, result.stdout
    for system, (ms, tokens, loss, ratio) in rows.items():
        assert ms > 0 and tokens > 0, (system, result.stdout)
        # From ln(128) = 4.85 at the start, both sides learn the one batch.
        assert loss < math.log(128), (system, result.stdout)
    assert rows["sexpgpu"][3] == 1.0
    # --profile's report of SexpGPU's step, by kernel kind.
    assert "profile bench/step: " in result.stderr and "matmul" in result.stderr, result.stderr
