#!/usr/bin/env python3
"""The truth of one corpus case, from per-function counts (issue 49).

    truth.py --out DIR --program P --cache-sim I1=4096,2,64 [--k 3] [--cwd D]
             --dest TRUTH.json -- COMMAND... ({bin} is the binary)

Reads the case's store (`layoutrand export DIR --metric I1_misses`), takes the K binaries
with the fewest and the K with the most I1 misses (the binary's mean over its executions),
runs each once more under

    valgrind --tool=cachegrind --cache-sim=yes --I1=SIZE,ASSOC,LINE --trace-children=yes

with the same command, and sums each function's own I1mr over the `fn=` blocks of its
cachegrind file (every object: the program's and the shared libraries' functions). A
function's move is its mean I1mr over the slow binaries minus its mean over the fast ones.

Truth rule: order the functions by |move|, largest first; the truth is the shortest prefix
whose |move|s add up to at least 80 % of the sum of every function's |move| (so a function
losing misses counts as much as one gaining them), at most 5 functions. Code cachegrind
cannot name ("???": PLT stubs, unnamed loader code) is left out of the rule (its move is
recorded as `unnamed_move`). A case is a flip when
the slowest binary's store mean is at least 5 % above the fastest's, else a null (its truth
is still written, for reference, and not scored as a flip).
"""
import argparse
import collections
import csv
import io
import json
import os
import subprocess
import sys

FLIP_RATIO = 1.05
SHARE = 0.80
CAP = 5


def store_means(layoutrand, out, program):
    text = subprocess.run([layoutrand, "export", out, "--metric", "I1_misses"],
                          check=True, capture_output=True, text=True).stdout
    vals = collections.defaultdict(list)
    for row in csv.DictReader(io.StringIO(text)):
        if row["program"] != program:
            continue
        vals[row["binary"]].append(float(row["value"]))
    return {b: sum(v) / len(v) for b, v in vals.items()}


def parse_cachegrind(path):
    """Per-function sums of every event of a cachegrind out file: {fn: {event: count}}."""
    events = None
    per_fn = collections.defaultdict(lambda: collections.Counter())
    obj = ""
    fn = None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("fl="):
                obj = line[3:].strip()
            elif line.startswith("fn="):
                fn = line[3:].strip()
            elif fn is not None and line[:1].isdigit():
                nums = line.split()
                # first number is the line; then one count per event (trailing zeros may be left out)
                for ev, n in zip(events, nums[1:]):
                    per_fn[fn][ev] += int(n)
    return per_fn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--cache-sim", required=True, help="I1=SIZE,ASSOC,LINE")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--cwd", default=None)
    ap.add_argument("--dest", required=True)
    ap.add_argument("--layoutrand", default=os.environ.get("LAYOUTRAND", "layoutrand"))
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    i1 = a.cache_sim.split("I1=", 1)[1].split(",D1")[0].split(",LL")[0]

    means = store_means(a.layoutrand, a.out, a.program)
    ranked = sorted(means, key=lambda b: (means[b], b))
    k = min(a.k, len(ranked) // 2)
    fast, slow = ranked[:k], ranked[-k:][::-1]
    fastest, slowest = means[ranked[0]], means[ranked[-1]]
    flip = slowest >= FLIP_RATIO * fastest

    cgdir = os.path.join(os.path.dirname(os.path.abspath(a.dest)), "cg")
    os.makedirs(cgdir, exist_ok=True)
    profiles = {}
    totals = {}
    for b in fast + slow:
        binary = os.path.abspath(os.path.join(a.out, b, a.program))
        outf = os.path.join(cgdir, f"{b}.cg")
        argv = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--I1={i1}",
                "--trace-children=yes", f"--cachegrind-out-file={outf}", "-q"]
        argv += [binary if x == "{bin}" else x.replace("{bin}", binary) for x in cmd]
        subprocess.run(argv, check=True, cwd=a.cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        profiles[b] = parse_cachegrind(outf)
        totals[b] = sum(c["I1mr"] for c in profiles[b].values())

    fns = set()
    for p in profiles.values():
        fns |= set(p)

    def mean_of(group, f):
        return sum(profiles[b].get(f, {}).get("I1mr", 0) for b in group) / len(group)

    moves = {f: mean_of(slow, f) - mean_of(fast, f) for f in fns}
    # cachegrind's "???" is code without a symbol (PLT stubs, the loader's unnamed parts):
    # not a function anyone could name; its move is kept apart and out of the rule.
    unnamed = moves.pop("???", 0.0)
    fns.discard("???")
    order = sorted(fns, key=lambda f: (-abs(moves[f]), f))
    total_abs = sum(abs(m) for m in moves.values())
    truth, acc = [], 0.0
    for f in order:
        if len(truth) >= CAP or (total_abs > 0 and acc >= SHARE * total_abs):
            break
        if moves[f] == 0:
            break
        truth.append(f)
        acc += abs(moves[f])
    fast_profile = profiles[fast[0]]
    own_hot = sorted((f for f in fast_profile if f != "???"),
                     key=lambda f: (-fast_profile[f]["I1mr"], f))[:5]
    slow_profile = profiles[slow[0]]
    slow_hot = sorted((f for f in slow_profile if f != "???"),
                      key=lambda f: (-slow_profile[f]["I1mr"], f))[:5]
    rec = {
        "program": a.program,
        "i1": i1,
        "binaries": len(means),
        "fastest": {"binary": ranked[0], "i1_misses": fastest},
        "slowest": {"binary": ranked[-1], "i1_misses": slowest},
        "ratio": slowest / fastest if fastest else None,
        "flip": flip,
        "fast": fast,
        "slow": slow,
        "profile_totals": totals,
        "truth": truth,
        "truth_share": acc / total_abs if total_abs else None,
        "unnamed_move": unnamed,
        "moves": [{"function": f, "move": moves[f], "fast": mean_of(fast, f),
                   "slow": mean_of(slow, f)} for f in order[:15]],
        "most_misses_fastest": [{"function": f, "i1_misses": fast_profile[f]["I1mr"]}
                                for f in own_hot],
        "most_misses_slowest": [{"function": f, "i1_misses": slow_profile[f]["I1mr"]}
                                for f in slow_hot],
        "rule": f"shortest prefix by |move| reaching {SHARE:.0%} of sum |move|, at most {CAP}; "
                f"flip when slowest >= {FLIP_RATIO} x fastest (store means)",
    }
    with open(a.dest, "w") as f:
        json.dump(rec, f, indent=1)
    print(f"{a.program}: fastest {fastest:.0f} slowest {slowest:.0f} "
          f"({'flip' if flip else 'null'}); truth {truth}")


if __name__ == "__main__":
    sys.exit(main())
