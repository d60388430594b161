#!/usr/bin/env python3
"""Candidate designs for repeated t intervals robust to skewed layouts (docs/sequential.md,
"Skewed layouts"), measured by seeded numpy simulation of binaries' log means: layout effect
+ per-binary noise N(0, 0.0063) (3 executions x 5 iterations at 1 % each), looks 5..40.

Shapes: normal 3 %; skewed: 2 % + 15 % of layouts 8 % slower; heavier: 3 % + 5 % of layouts
20 % slower. Designs: the normal repeated t intervals, Lai's t-mixture (tuned at 20), a switch
from repeated t to Lai's from the first look whose sample skewness exceeds its normal-theory
critical value, a per-look level calibrated on the worst shape (widening), and (with
--bootstrap, slow) a per-look, per-side level calibrated on paths resampled from the
observed centred binaries.

Issue 36.6, second round (--designs): (a) a later first look (5, 8, 10, 12, 15) with the
per-look level calibrated on the worst shape; (b, with --hall, slow: about 9 minutes) the
skewness-corrected t of Hall 1992 ("On the removal of skewness by transformation", J. R.
Statist. Soc. B 54; the first-order term is Johnson 1978's) per look, its level calibrated on
the normal shape and on the worst shape; (c) Lai's t-mixture tuned to the horizon, with the
Ville level alpha' calibrated on the worst shape (the 95 % quantile of each path's largest
log mixture martingale at the true mean, alpha' = min(0.05, exp(-worst quantile))).

Usage: python3 benches/sequential_skew_designs.py [--bootstrap] [--designs] [--hall]
"""
import sys

import numpy as np
from scipy import stats

FIRST, N, NOISE = 5, 40, 0.0063
SHAPES = {
    "normal": (0.03, 0.0, 0.0),
    "skewed": (0.02, 0.15, 0.08),
    "heavier": (0.03, 0.05, 0.20),
}


def draw(rng, shape, experiments, n):
    spread, slow, slower = SHAPES[shape]
    x = spread * rng.standard_normal((experiments, n))
    x += np.log1p(slower) * (rng.random((experiments, n)) < slow)
    return x + NOISE * rng.standard_normal((experiments, n)), slow * np.log1p(slower)


def running(x):
    ns = np.arange(FIRST, x.shape[1] + 1)
    cs, cq = np.cumsum(x, 1)[:, ns - 1], np.cumsum(x * x, 1)[:, ns - 1]
    m, q = cs / ns, cq - cs * cs / ns
    return ns, m, q, np.sqrt(q / (ns - 1))


def lai_half_width(ns, q, planned=20, alpha=0.05):
    la = -2 * np.log(alpha)
    rho = planned / (la + np.log(1 + la))
    t = ns.astype(float)
    k = -np.expm1(2 / t * (np.log(alpha) + 0.5 * np.log(rho / (t + rho)))) * (t + rho)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(t > k, np.sqrt(k * q / (t * (t - k))), np.inf)


def level(shapes, n, paths=20000):
    """The per-look level at which the worst of `shapes` misses at some look in 5 %."""
    return level_from(shapes, FIRST, n, paths)


def skewness(x, ns):
    out = []
    for n in ns:
        d = x[:, :n] - x[:, :n].mean(1, keepdims=True)
        out.append((d**3).mean(1) / (d**2).mean(1) ** 1.5)
    return np.abs(np.array(out).T)


def mean_stop(h, cap):
    met = np.sinh(h) <= 0.01
    return np.where(met.any(1), met.argmax(1) + FIRST, cap).mean()


def main():
    normal_level, worst = level(["normal"], N), level(list(SHAPES), N)
    print(f"per-look level, looks 5..{N}: normal {normal_level:.5f}, worst shape {worst:.5f}")
    ns = np.arange(FIRST, N + 1)
    null = skewness(np.random.default_rng(3).standard_normal((20000, N)), ns)
    rng = np.random.default_rng(5)
    for shape in SHAPES:
        x, truth = draw(rng, shape, 8000, N)
        ns, m, q, sd = running(x)
        miss = lambda h: (np.abs(m - truth) > h).any(1).mean()
        rt = stats.t.ppf(1 - normal_level / 2, ns - 1) * sd / np.sqrt(ns)
        wide = stats.t.ppf(1 - worst / 2, ns - 1) * sd / np.sqrt(ns)
        lai = lai_half_width(ns, q)
        line = f"{shape}: coverage at every look (8000): repeated t {1 - miss(rt):.4f}, Lai {1 - miss(lai):.4f}, widened {1 - miss(wide):.4f}"
        g = skewness(x, ns)
        for test_level in (0.2, 0.05):
            rejected = np.maximum.accumulate(g > np.quantile(null, 1 - test_level, axis=0), axis=1)
            union = 1 - miss(np.where(rejected, lai, rt))
            line += f"; switch at skewness level {test_level}: {union:.4f} (switched by {N}: {rejected[:, -1].mean():.3f})"
        print(line)
    cap = 120
    x, _ = draw(rng, "normal", 3000, cap)
    ns, m, q, sd = running(x)
    normal120, worst120 = level(["normal"], cap), level(list(SHAPES), cap)
    stop = lambda a: mean_stop(stats.t.ppf(1 - a / 2, ns - 1) * sd / np.sqrt(ns), cap)
    print(
        f"± 1 % target, normal 3 %, cap {cap} (3000): mean stop repeated t {stop(normal120):.1f} "
        f"(level {normal120:.5f}), widened {stop(worst120):.1f} (level {worst120:.5f}), "
        f"Lai tuned at 20 {mean_stop(lai_half_width(ns, q), cap):.1f}"
    )
    if "--bootstrap" in sys.argv:
        bootstrap(normal_level)


def bootstrap(normal_level, experiments=400, paths=400):
    """Per look, per side: the level at which paths resampled from the centred binaries
    seen miss on that side at some look in 2.5 % (bootstrap-t for each side)."""
    grid = np.geomspace(0.0002, 0.05, 60)
    ns = np.arange(FIRST, N + 1)
    crit = stats.t.ppf(1 - grid[None, :], (ns - 1)[:, None])

    def side_level(t):
        first_miss = np.min(
            [np.searchsorted(-crit[j], -t[:, j], side="right") for j in range(t.shape[1])], 0
        )
        rates = np.array([(first_miss <= g).mean() for g in range(len(grid))])
        ok = np.nonzero(rates <= 0.025)[0]
        return grid[ok[-1]] if len(ok) else grid[0]

    rng, brng = np.random.default_rng(11), np.random.default_rng(99)
    x, truth = draw(rng, "skewed", experiments, N)
    missed = 0
    for e in range(experiments):
        miss = False
        for n in ns:
            s = x[e, :n]
            m, se = s.mean(), s.std(ddof=1) / np.sqrt(n)
            p = (s - m)[brng.integers(0, n, (paths, N))]
            cs, cq = np.cumsum(p, 1)[:, ns - 1], np.cumsum(p * p, 1)[:, ns - 1]
            with np.errstate(divide="ignore", invalid="ignore"):
                t = (cs / ns) / np.sqrt(np.maximum(cq - cs * cs / ns, 0) / (ns - 1) / ns)
            t = np.clip(np.nan_to_num(t, nan=0.0), -1e300, 1e300)
            upper = stats.t.ppf(1 - side_level(-t), n - 1)
            lower = stats.t.ppf(1 - side_level(t), n - 1)
            miss |= not (m - lower * se < truth < m + upper * se)
        missed += miss
    print(f"skewed, bootstrap-calibrated per look ({experiments} experiments x {paths} paths): coverage {1 - missed / experiments:.4f}")


def level_from(shapes, first, n, paths=20000, seed=1989):
    """`level` with looks from `first`."""
    rng = np.random.default_rng(seed)
    tstats = []
    for shape in shapes:
        x, truth = draw(rng, shape, paths, n)
        ns, m, _, sd = running_from(x, first)
        tstats.append(np.abs(m - truth) / (sd / np.sqrt(ns)))
    lo, hi = 0.05 / (n - first + 1) / 20, 0.05
    for _ in range(30):
        mid = (lo + hi) / 2
        crit = stats.t.ppf(1 - mid / 2, ns - 1)
        if max((t > crit).any(1).mean() for t in tstats) > 0.05:
            hi = mid
        else:
            lo = mid
    return lo


def running_from(x, first):
    ns = np.arange(first, x.shape[1] + 1)
    cs, cq = np.cumsum(x, 1)[:, ns - 1], np.cumsum(x * x, 1)[:, ns - 1]
    m, q = cs / ns, cq - cs * cs / ns
    return ns, m, q, np.sqrt(np.maximum(q, 0) / (ns - 1))


def stop_at(h, first, cap, target=0.01):
    met = np.sinh(h) <= target
    return np.where(met.any(1), met.argmax(1) + first, cap).mean()


def later_first_look():
    """(a) No stop before `first` binaries, the per-look level calibrated on the worst shape."""
    for first in (5, 8, 10, 12, 15):
        worst, worst120 = level_from(list(SHAPES), first, N), level_from(list(SHAPES), first, 120)
        normal120 = level_from(["normal"], first, 120)
        rng, cov = np.random.default_rng(5), {}
        for shape in SHAPES:
            x, truth = draw(rng, shape, 8000, N)
            ns, m, q, sd = running_from(x, first)
            h = stats.t.ppf(1 - worst / 2, ns - 1) * sd / np.sqrt(ns)
            cov[shape] = 1 - (np.abs(m - truth) > h).any(1).mean()
        x, _ = draw(rng, "normal", 3000, 120)
        ns, m, q, sd = running_from(x, first)
        stop = lambda a: stop_at(stats.t.ppf(1 - a / 2, ns - 1) * sd / np.sqrt(ns), first, 120)
        print(
            f"(a) first look {first}: worst-shape level {worst:.5f} (5..{N}), {worst120:.5f} (..120); "
            f"coverage (8000) " + ", ".join(f"{k} {v:.4f}" for k, v in cov.items())
            + f"; ± 1 % cap 120 (3000): mean stop {stop(worst120):.1f} (normal level: {stop(normal120):.1f})"
        )


def skewness_from(x, first):
    out = []
    for k in range(first, x.shape[1] + 1):
        d = x[:, :k] - x[:, :k].mean(1, keepdims=True)
        out.append((d**3).mean(1) / np.maximum((d**2).mean(1), 1e-300) ** 1.5)
    return np.array(out).T


def hall_bounds(m, sd, ns, g, c):
    """Inverts Hall's g(T) = T + g T^2/(3 sqrt n) + g^2 T^3/(27 n) + g/(6 sqrt n), monotone,
    for T = (mean - mu)/(sd/sqrt n): mu in mean - se g^-1([-c, c])."""
    se, rn = sd / np.sqrt(ns), np.sqrt(ns)
    gg = np.where(np.abs(g) < 1e-9, 1e-9, g)
    inverse = lambda y: 3 * rn / gg * (np.cbrt(1 + gg / rn * (y - gg / (6 * rn))) - 1)
    return m - se * inverse(c), m - se * inverse(-c)


def calibrated(miss_rate, lo=1e-5, hi=0.05):
    for _ in range(25):
        mid = np.sqrt(lo * hi)
        if miss_rate(mid) > 0.05:
            hi = mid
        else:
            lo = mid
    return lo


def hall():
    """(b) Hall's skewness-corrected t at every look (looks 5..40 and 5..120)."""
    first = FIRST
    for n, experiments in ((N, 8000), (120, 4000)):
        rng = np.random.default_rng(1989)
        data = {s: draw(rng, s, experiments, n) for s in SHAPES}
        prepared = {}
        for s, (x, truth) in data.items():
            ns, m, _, sd = running_from(x, first)
            prepared[s] = (ns, m, sd, skewness_from(x, first), truth)

        def miss(s, a):
            ns, m, sd, g, truth = prepared[s]
            lo, hi = hall_bounds(m, sd, ns, g, stats.t.ppf(1 - a / 2, ns - 1))
            return ((lo > truth) | (hi < truth)).any(1).mean()

        worst = calibrated(lambda a: max(miss(s, a) for s in SHAPES))
        normal = calibrated(lambda a: miss("normal", a))
        cov = ", ".join(f"{s} {1 - miss(s, normal):.4f}" for s in SHAPES)
        line = f"(b) Hall's t, looks 5..{n}: worst-shape level {worst:.5f}; at the normal level {normal:.5f}: coverage {cov}"
        if n == 120:
            x, _ = draw(np.random.default_rng(5), "normal", 3000, 120)
            ns, m, _, sd = running_from(x, first)
            lo, hi = hall_bounds(m, sd, ns, skewness_from(x, first), stats.t.ppf(1 - worst / 2, ns - 1))
            line += f"; ± 1 % cap 120 (3000) at the worst-shape level: mean stop {stop_at((hi - lo) / 2, first, 120):.1f}"
        print(line)


def max_log_mixture(x, truth, first, rho):
    """Each path's largest log M_t(truth) of Lai's t-mixture over looks first..n."""
    y = x - truth
    t = np.arange(1, x.shape[1] + 1, dtype=float)
    s, v = np.cumsum(y, 1), np.cumsum(y * y, 1)
    log_m = 0.5 * np.log(rho / (t + rho)) - t / 2 * np.log1p(-s * s / ((t + rho) * v))
    return log_m[:, first - 1 :].max(1)


def lai_calibrated():
    """(c) Lai's t-mixture tuned to `planned`, at the Ville level calibrated on the worst shape."""
    la = -2 * np.log(0.05)
    for last, planned in ((N, N), (120, 120), (1000, 120)):
        rho = planned / (la + np.log(1 + la))
        rng, paths = np.random.default_rng(1989), 20000 if last < 1000 else 4000
        quantiles = [np.quantile(max_log_mixture(*draw(rng, s, paths, last), FIRST, rho), 0.95) for s in SHAPES]
        a = min(0.05, np.exp(-max(quantiles)))
        rng, cov, n = np.random.default_rng(5), {}, min(last, 120)
        for shape in SHAPES:
            x, truth = draw(rng, shape, 8000, n)
            ns, m, q, _ = running_from(x, FIRST)
            cov[shape] = 1 - (np.abs(m - truth) > lai_half_width_rho(ns, q, rho, a)).any(1).mean()
        line = f"(c) Lai calibrated, looks 5..{last}, tuned at {planned}: level {a:.5f}; coverage to {n} (8000) " + ", ".join(f"{k} {v:.4f}" for k, v in cov.items())
        if n == 120:
            x, _ = draw(rng, "normal", 3000, 120)
            ns, m, q, _ = running_from(x, FIRST)
            for target in (0.01, 0.015):
                line += f"; ± {target:.1%} cap 120 (3000): mean stop {stop_at(lai_half_width_rho(ns, q, rho, a), FIRST, 120, target):.1f} (uncalibrated {stop_at(lai_half_width_rho(ns, q, rho, 0.05), FIRST, 120, target):.1f})"
        print(line)


def lai_half_width_rho(ns, q, rho, alpha):
    t = ns.astype(float)
    k = -np.expm1(2 / t * (np.log(alpha) + 0.5 * np.log(rho / (t + rho)))) * (t + rho)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(t > k, np.sqrt(k * q / (t * (t - k))), np.inf)


if __name__ == "__main__":
    if "--designs" in sys.argv or "--hall" in sys.argv:
        if "--designs" in sys.argv:
            later_first_look()
            lai_calibrated()
        if "--hall" in sys.argv:
            hall()
    else:
        main()
