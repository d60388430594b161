#!/usr/bin/env python3
"""Independent reference for stats/src/repeated_t.rs: the per-look level alpha' of Pocock's
repeated t intervals for looks FIRST..LAST at 95 %, by numpy simulation (200 000 standard
normal paths, seed 7) and bisection, the figure the Rust unit test is checked against.
Usage: python3 benches/repeated_t_reference.py FIRST LAST"""
import sys

import numpy as np
from scipy import stats

first, last = int(sys.argv[1]), int(sys.argv[2])
paths, alpha = 200_000, 0.05
rng = np.random.default_rng(7)
looks = np.arange(first, last + 1)
hit = np.zeros((paths, len(looks)))
for start in range(0, paths, 20_000):
    x = rng.standard_normal((20_000, last))
    n = np.arange(1, last + 1)
    s, q = np.cumsum(x, 1), np.cumsum(x * x, 1)
    m = s / n
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.sqrt(np.maximum(q - n * m * m, 0) / (n - 1))
        t = np.abs(m) / (sd / np.sqrt(n))
    hit[start:start + 20_000] = t[:, looks - 1]
lo, hi = alpha / len(looks), alpha
for _ in range(40):
    mid = (lo + hi) / 2
    crit = stats.t.ppf(1 - mid / 2, looks - 1)
    if (hit > crit).any(1).mean() > alpha:
        hi = mid
    else:
        lo = mid
print(f"{lo:.5f}")
