#!/usr/bin/env python3
"""Why the run share's interval falls short when machines are a component (issue 35), and
what the alternatives to the generalized pivots do: a seeded simulation of the balanced
crossed design's mean squares, which are independent with `df·MS/E[MS] ~ χ²_df`, so drawing
them is drawing whole experiments (stats/src/variance_split.rs, docs/statistics.md).

For each design it prints, for the run share's 95 % interval, the rate at which the lower
bound lies above the truth and the upper bound below it (2.5 % each when exact), for:

- gpq: the generalized pivots layoutrand uses;
- calibrated: the same pivots with their quantile levels calibrated by a parametric
  bootstrap at the estimated mean squares (Beran 1987 prepivoting; 400 worlds × 250 pivots);
- conservative: the upper bound from the sum of each term's own lower bound (each at
  2.5 %), which cannot exceed the pivots' bound.

And for the total variance alone (a positive combination of the mean squares), the rate at
which its lower bound lies above the truth by the pivots and by Graybill & Wang's modified
large-sample bound (Burdick & Graybill 1992 §3.2).

Usage: benches/variance_split_run_share.py [experiments per design, default 1000]
Needs numpy and scipy; about 4 minutes at 1000.
"""
import sys

import numpy as np
from scipy import stats

Q = 0.025


def expected_mean_squares(comp, a, b, m, r):
    """E[MS] of code, data, code × data, machine and run for components comp."""
    sc, sd, scd, sm, se = (comp[..., k] for k in range(5))
    n = m * r
    return np.stack([se + n * scd + b * n * sc, se + n * scd + a * n * sd, se + n * scd,
                     se + a * b * r * sm, se], -1)


def degrees_of_freedom(a, b, m, r):
    n = m * r
    machines = max(m - 1, 0)
    return np.array([a - 1, b - 1, (a - 1) * (b - 1), machines, a * b * (n - 1) - machines])


def components(ms, a, b, m, r):
    """The ANOVA equations (untruncated), as in variance_split.rs."""
    n = m * r
    c = (ms[..., 0] - ms[..., 2]) / (b * n)
    d = (ms[..., 1] - ms[..., 2]) / (a * n)
    cd = (ms[..., 2] - ms[..., 4]) / n
    mm = (ms[..., 3] - ms[..., 4]) / (a * b * r) if m > 1 else 0 * c
    return np.stack([c, d, cd, mm, ms[..., 4]], -1)


def run_share_pivots(rng, ms, df, draws, shape):
    dfx = np.maximum(df, 1)
    w = rng.chisquare(dfx, size=ms.shape[:-1] + (draws, 5))
    r = np.where(df > 0, dfx * ms[..., None, :] / w, 0.0)
    c = components(r, *shape)
    return np.clip(c[..., 4] / c.sum(-1), 0, 1)


def design(rng, experiments, a, b, m, r, comp):
    shape = (a, b, m, r)
    comp = np.array(comp, float)
    theta = expected_mean_squares(comp, *shape)
    df = degrees_of_freedom(*shape)
    dfx = np.maximum(df, 1)
    n = m * r
    machine = 1 / (a * b * r) if m > 1 else 0.0
    coef = np.array([1 / (b * n), 1 / (a * n), 1 / n - 1 / (b * n) - 1 / (a * n), machine,
                     1 - 1 / n - machine])
    truth = comp[4] / comp.sum()
    total = coef @ theta
    hi_q, lo_q = stats.chi2.ppf(1 - Q, dfx), stats.chi2.ppf(Q, dfx)
    g = 1 - dfx / hi_q
    miss = {k: [0, 0] for k in ("gpq", "calibrated", "conservative")}
    total_miss = {"gpq": 0, "graybill-wang": 0}
    for _ in range(experiments):
        ms = theta * rng.chisquare(dfx) / dfx
        if m <= 1:
            ms[3] = 0
        p = run_share_pivots(rng, ms, df, 1000, shape)
        lo, hi = np.quantile(p, [Q, 1 - Q])
        miss["gpq"][0] += truth < lo
        miss["gpq"][1] += truth > hi
        world = ms[4] / (coef @ ms)
        worlds = ms * rng.chisquare(dfx, size=(400, 5)) / dfx
        if m <= 1:
            worlds[:, 3] = 0
        u = (run_share_pivots(rng, worlds, df, 250, shape) < world).mean(1)
        clo, chi = np.quantile(p, np.quantile(u, [Q, 1 - Q]))
        miss["calibrated"][0] += truth < clo
        miss["calibrated"][1] += truth > chi
        lower, upper = dfx * ms / hi_q, dfx * ms / lo_q
        cons = upper[4] / (upper[4] * coef[4] + coef[:4] @ lower[:4])
        miss["conservative"][0] += truth < lo
        miss["conservative"][1] += truth > max(hi, cons)
        w = rng.chisquare(dfx, size=(1000, 5))
        totals = (np.where(df > 0, dfx * ms / w, 0.0)) @ coef
        total_miss["gpq"] += total < np.quantile(totals, Q)
        estimate = coef @ ms
        total_miss["graybill-wang"] += total < estimate - np.sqrt((((g * coef * ms) ** 2)[df > 0]).sum())
    label = f"{a} code × {b} data × {m} machines × {r}, components {comp.tolist()}"
    print(f"{label}: run share {truth:.3f}")
    for k, (below, above) in miss.items():
        print(f"  {k:12s} coverage {1 - (below + above) / experiments:.3f}"
              f" (lower above truth {below / experiments:.3f}, upper below {above / experiments:.3f})")
    print("  total's lower bound above the truth: "
          + ", ".join(f"{k} {v / experiments:.3f}" for k, v in total_miss.items()))


def main():
    experiments = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = np.random.default_rng(35)
    for d in [(6, 4, 4, 2, [1, 1, 0.5, 1, 1.5]), (6, 4, 2, 2, [1, 1, 0.5, 1, 1.5]),
              (6, 4, 4, 2, [1, 1, 0.5, 0, 1.5]), (5, 3, 1, 2, [1, 2, 0.5, 0, 1.5]),
              (10, 6, 1, 3, [0.2, 0.2, 0.1, 0, 5])]:
        design(rng, experiments, *d)


if __name__ == "__main__":
    main()
