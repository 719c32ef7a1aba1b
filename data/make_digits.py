"""Writes data/digits.npz: scikit-learn's copy of the UCI "Optical Recognition
of Handwritten Digits" test set (1,797 8x8 images, classes 0-9; UCI, CC BY 4.0;
shipped by scikit-learn, BSD-3-Clause), split 1,497 train / 300 test with a
fixed permutation. Arrays: x, y (train), test_x, test_y; x is float32 in
[0, 1] (pixel / 16), y is int32. Run with any Python that has scikit-learn:

    python3 -m venv /tmp/sk && /tmp/sk/bin/pip install scikit-learn
    /tmp/sk/bin/python data/make_digits.py
"""

from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits

digits = load_digits()
x = (digits.data / 16.0).astype(np.float32)
y = digits.target.astype(np.int32)
order = np.random.default_rng(0).permutation(len(x))
x, y = x[order], y[order]
out = Path(__file__).with_name("digits.npz")
# Stored members; SexpGPU reads savez_compressed files as well.
np.savez(out, x=x[:1497], y=y[:1497], test_x=x[1497:], test_y=y[1497:])
print(out, x.shape, y.shape)
