#!/usr/bin/env python3
"""Certify the CI gate (issue 51): the false-alert rate and the power of
`layoutrand compare BASE NEW --fail-if-slower PCT`, measured by running the real binary on
simulated CSV files, with exact Clopper-Pearson 95 % intervals.

Each simulated comparison is one base and one head experiment of S seeds (binaries `seed-1`..)
x E executions per seed, run as one interleaved schedule: S*E blocks in random order, a block
being one base and one head execution of the same seed back to back, in random order. The time
of an execution (1 s nominal) is the product of
  - the seed's layout effect, SHARED by base and head of that seed (the builds are
    byte-identical, same seeds, same layouts): lumpy, 85 % of seeds N(0, 0.5 %), 15 % of
    seeds 10-30 % off (either sign);
  - per-execution noise, lognormal with sigma 3 %;
  - a bimodal slow mode: each execution with probability 0.1 is 8 % slower;
  - bursts: from any position of the schedule a burst starts with probability 0.02, lasts a
    geometric number of executions (mean 4) and slows whatever runs then (base or head) by
    5-20 %; a burst is short next to the schedule, so it hits one side's executions more
    than the other's;
  - drift: a linear trend of 1 % (random sign) from the first execution of the schedule to
    the last;
  - for the power rows only, the head is 2 % slower in every seed.
The A/A rows are the same with no slowdown: differences come only from run noise.

For every design and replicate the same data serve all thresholds (common random numbers).
The gate is the binary's exit status (1 = failed, 0 = passed, anything else is an error
and stops the script), checked against the JSON's `slower_beyond_threshold` and `basis`
(which must be `paired`: both sides have the same seeds). The confirmation round: when the
first comparison fails, a second independent comparison (fresh executions, fresh noise, the
same seeds and so the same layout effects) is run, and the gate fails only if both fail.

Seeded (numpy Generator, --seed), so the figures are reproducible.

Usage: python3 benches/gate_certification.py [--layoutrand PATH] [--aa N] [--power N]
           [--explore N] [--full SxE,...] [--designs SxE,...] [--seed S]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy import stats

THRESHOLDS = [0.0, 0.005, 0.01]
SLOWDOWN = 0.02
NOISE_SIGMA = 0.03
BIMODAL_P, BIMODAL_SLOW = 0.10, 0.08
BURST_START_P, BURST_MEAN_LEN, BURST_SLOW = 0.02, 4.0, (0.05, 0.20)
DRIFT = 0.01
LAYOUT_SMALL_SD, LAYOUT_BIG_P, LAYOUT_BIG = 0.005, 0.15, (0.10, 0.30)


def layout_effects(rng, seeds):
    """Per-seed multiplicative layout effect, shared by base and head."""
    small = rng.normal(0.0, LAYOUT_SMALL_SD, seeds)
    big = rng.uniform(*LAYOUT_BIG, seeds) * rng.choice([-1.0, 1.0], seeds)
    return 1.0 + np.where(rng.random(seeds) < LAYOUT_BIG_P, big, small)


def run_noise(rng, seeds, execs):
    """One interleaved schedule's times (before the layout effect and any slowdown):
    returns (base, head) arrays of shape (seeds, execs)."""
    blocks = [(s, e) for s in range(seeds) for e in range(execs)]
    order = rng.permutation(len(blocks))
    n = 2 * len(blocks)
    # The schedule: position -> (side, seed, execution).
    side = np.empty(n, dtype=int)
    seed = np.empty(n, dtype=int)
    ex = np.empty(n, dtype=int)
    head_first = rng.random(len(blocks)) < 0.5
    for i, b in enumerate(order):
        s, e = blocks[b]
        first, second = (1, 0) if head_first[i] else (0, 1)
        side[2 * i], side[2 * i + 1] = first, second
        seed[2 * i] = seed[2 * i + 1] = s
        ex[2 * i] = ex[2 * i + 1] = e
    factor = np.exp(rng.normal(0.0, NOISE_SIGMA, n))
    factor *= 1.0 + BIMODAL_SLOW * (rng.random(n) < BIMODAL_P)
    burst = np.ones(n)
    starts = np.flatnonzero(rng.random(n) < BURST_START_P)
    for st in starts:
        length = rng.geometric(1.0 / BURST_MEAN_LEN)
        burst[st:st + length] *= 1.0 + rng.uniform(*BURST_SLOW)
    factor *= burst
    sign = rng.choice([-1.0, 1.0])
    factor *= 1.0 + sign * DRIFT * np.arange(n) / max(n - 1, 1)
    out = np.empty((2, seeds, execs))
    out[side, seed, ex] = factor
    return out[0], out[1]


def write_csv(path, times):
    seeds, execs = times.shape
    with open(path, "w") as f:
        f.write("binary,execution,time\n")
        for s in range(seeds):
            for e in range(execs):
                f.write(f"seed-{s + 1},{e + 1},{times[s, e]:.9f}\n")


class Gate:
    def __init__(self, binary, tmp):
        self.binary, self.tmp, self.calls, self.seconds = binary, tmp, 0, 0.0
        self.base = os.path.join(tmp, "base.csv")
        self.new = os.path.join(tmp, "new.csv")

    def load(self, base, head):
        write_csv(self.base, base)
        write_csv(self.new, head)

    def fails(self, threshold):
        """Runs the gate on the loaded files: True when it failed (exit 1)."""
        cmd = [self.binary, "compare", self.base, self.new, "--levels", "binary,execution",
               "--value", "time", "--fail-if-slower", repr(threshold), "--format", "json"]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        if p.returncode not in (0, 1):
            sys.exit(f"layoutrand exited {p.returncode}: {' '.join(cmd)}\n{p.stderr}")
        j = json.loads(p.stdout)
        failed = p.returncode == 1
        lower = (j["effect"]["ci"] or {}).get("lower")
        expected = lower is not None and lower > 1.0 + threshold
        if j["basis"] != "paired" or j["slower_beyond_threshold"] != failed or expected != failed:
            sys.exit(f"inconsistent gate: exit {p.returncode}, basis {j['basis']}, "
                     f"slower_beyond_threshold {j['slower_beyond_threshold']}, "
                     f"effect ci lower {lower}, threshold {threshold}")
        return failed


def cp(k, n, level=0.95):
    a = (1 - level) / 2
    lo = 0.0 if k == 0 else stats.beta.ppf(a, k, n - k + 1)
    hi = 1.0 if k == n else stats.beta.ppf(1 - a, k + 1, n - k)
    return lo, hi


def simulate(gate, rng, seeds, execs, replicates, slowdown):
    """Counts of failures per threshold, without and with the confirmation round."""
    single = {t: 0 for t in THRESHOLDS}
    confirmed = {t: 0 for t in THRESHOLDS}
    for _ in range(replicates):
        layout = layout_effects(rng, seeds)[:, None]
        rounds = []
        for _ in range(2):  # both rounds drawn always, so the stream never depends on outcomes
            b, h = run_noise(rng, seeds, execs)
            rounds.append((layout * b, layout * h * (1.0 + slowdown)))
        gate.load(*rounds[0])
        first = {t: gate.fails(t) for t in THRESHOLDS}
        for t in THRESHOLDS:
            single[t] += first[t]
        if any(first.values()):
            gate.load(*rounds[1])
            for t in THRESHOLDS:
                if first[t] and gate.fails(t):
                    confirmed[t] += 1
    return single, confirmed


def pct(x):
    return f"{100 * x:.2f} %"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layoutrand", default="target/release/layoutrand")
    ap.add_argument("--aa", type=int, default=1000, help="A/A comparisons of the full designs")
    ap.add_argument("--power", type=int, default=1000, help="2 %% comparisons, full designs")
    ap.add_argument("--explore", type=int, default=300,
                    help="A/A and 2 %% comparisons of each exploratory design")
    ap.add_argument("--full", default="10x3,20x3,10x10,20x5,30x5,20x10,30x10",
                    help="designs run with --aa / --power comparisons")
    ap.add_argument("--designs", default="10x3,20x3,10x10,20x5,30x5,20x10,30x10")
    ap.add_argument("--seed", type=int, default=51)
    a = ap.parse_args()
    binary = os.path.abspath(a.layoutrand)
    designs = [tuple(int(x) for x in d.split("x")) for d in a.designs.split(",")]
    full = {tuple(int(x) for x in d.split("x")) for d in a.full.split(",") if d}
    t0 = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="gate_certification.") as tmp:
        gate = Gate(binary, tmp)
        for i, (s, e) in enumerate(designs):
            n_aa, n_pw = (a.aa, a.power) if (s, e) in full else (a.explore, a.explore)
            rng = np.random.default_rng([a.seed, s, e])
            aa = simulate(gate, rng, s, e, n_aa, 0.0)
            pw = simulate(gate, rng, s, e, n_pw, SLOWDOWN)
            for t in THRESHOLDS:
                for c, conf in enumerate(("no", "yes")):
                    # Executions per side an A/A comparison costs on average: the second
                    # round runs only after a first-round alert.
                    cost = s * e * (1 + (aa[0][t] / n_aa if conf == "yes" else 0))
                    rows.append(((s, e), t, conf, cost, n_aa, aa[c][t], n_pw, pw[c][t]))
            print(f"# {s}x{e}: {n_aa} A/A + {n_pw} at 2 %, "
                  f"{time.perf_counter() - t0:.0f} s so far", file=sys.stderr)
        calls, call_s = gate.calls, gate.seconds
    total = time.perf_counter() - t0
    print("| design (seeds x executions) | threshold | confirmation | executions per side "
          "(A/A mean) | A/A comparisons | false alerts | false-alert rate (95 % CP) "
          "| 2 % comparisons | power at 2 % (95 % CP) | meets target |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    meets = []
    for (s, e), t, conf, cost, n_aa, k_aa, n_pw, k_pw in rows:
        lo, hi = cp(k_aa, n_aa)
        plo, phi = cp(k_pw, n_pw)
        fa, pw = k_aa / n_aa, k_pw / n_pw
        ok = fa <= 0.01 and hi <= 0.015 and pw >= 0.80
        if ok and n_aa >= 1000:
            meets.append((cost, -pw, f"{s}x{e} at {100 * t:g} %"
                          f"{' with confirmation' if conf == 'yes' else ''} ({cost:.1f} "
                          f"executions per side, power {pct(pw)}, its CP lower bound "
                          f"{pct(plo)})"))
        tag = "" if (s, e) in full else " (exploratory)"
        print(f"| {s}x{e}{tag} | {100 * t:g} % | {conf} | {cost:.1f} | {n_aa} | {k_aa} | {pct(fa)} "
              f"({pct(lo)} to {pct(hi)}) | {n_pw} | {pct(pw)} ({pct(plo)} to {pct(phi)}) "
              f"| {'yes' if ok else 'no'} |")
    print("\nMeeting the target with >= 1000 A/A comparisons, cheapest first (executions "
          "per side of an A/A comparison):")
    for m in sorted(meets):
        print(f"- {m[2]}")
    if not meets:
        print("- none")
    print(f"\nTarget: false-alert rate <= 1 % with its 95 % CP upper bound <= 1.5 %, power "
          f">= 80 % at a 2 % slowdown. Seed {a.seed}. {calls} layoutrand compare calls, "
          f"{1000 * call_s / max(calls, 1):.1f} ms each on average; {total:.0f} s in all.")


if __name__ == "__main__":
    main()
