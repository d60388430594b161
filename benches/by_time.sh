#!/usr/bin/env bash
# Benchmark (not a test: it needs hardware that feels the effect) of `layoutrand explain` by
# time (issue 49): fixtures/by_time is a loop whose speed depends on where it starts within a
# 64-byte window, measured by CPU time on the real machine, where no cachegrind model sees it.
#
#   benches/by_time.sh        # SEEDS=20, ITERATIONS=300000000, CPU=1
#
# Builds the fixture with SEEDS seeds and up to 64 bytes of seeded padding before each
# function (so the loop's function starts at 0, 16, 32 or 48 mod 64), runs each binary 3
# times pinned to one CPU, prints each start mod 64 with its mean, then `explain --metric cpu
# --confirm` and whether its first finding names spin_window, whether the relinks confirm it
# and whether the fix was proven; and the wall times of run, explain and explain --confirm.
#
# Measured 2026-12-02 on this project's 2-core AMD EPYC (family 26) KVM machine, 20 seeds
# (the same 20 binaries each time: 7, 3, 4 and 6 of them start the loop at 0, 16, 32 and 48
# mod 64), three runs: the loop at 32 mod 64 is the slow one, 176–207 ms against 126–154 ms
# elsewhere (+35 to +45 %). explain's first finding each time: spin_window in the upper half
# of a 64-byte line (+24.7 %, q = 0.001; it stands for its offset within the line too);
# --confirm: confirmed each time (ratio 1.34 to 1.47; 95 % CI of the last +23 % to +47 %);
# the fix (aligned to 64 bytes) proven on 10 seeds (7 relinked to it, 3 as built) in two of
# three runs: in the other the confirmation ran about 10 % slower than the run and the proof
# compared it with the run's levels as they were; the levels are now scaled by the seeds as
# built, measured in both (`drift`), and it holds (last run: 1.00). Costs: run 9.3–11.9 s,
# explain 10.7–12.4 s (1.03–1.18 of the run: the cachegrind profile of 2.4 billion
# instructions), explain --confirm 22.9–25.9 s (1.97–2.46).
# On another processor the slow start may differ or not exist: then the verdict is
# not_detected, which is the right answer there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=${SEEDS:-20}
iterations=${ITERATIONS:-300000000}
cpu=${CPU:-1}
(cd "$root" && cargo build --release --locked --quiet)
bin="$root/target/release/layoutrand"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
timed() { # timed LABEL COMMAND...: runs COMMAND; its wall time in $elapsed
  local label=$1 t0
  shift
  t0=$(now)
  "$@" >"$work/$label.out" 2>"$work/$label.err" || { cat "$work/$label.err" >&2; return 1; }
  elapsed=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
  printf '  %-8s %6s s\n' "$label" "$elapsed"
}

cp -r "$root/fixtures/by_time" "$work/src"
cd "$work/src"
"$bin" build -q --seeds "$seeds" --pad 64 --out "$work/out" -- make -s >/dev/null
echo "by_time ($seeds seeds, load $(cut -d' ' -f1 /proc/loadavg)):"
timed run "$bin" run --out "$work/out" --metric cpu --executions 3 --env-pad 0 \
  --cpus "$cpu" --schedule-seed 1 -- '{bin}' "$iterations"
run_s=$elapsed
timed explain "$bin" explain "$work/out" --metric cpu --format json -o "$work/screen.json"
explain_s=$elapsed
timed confirm "$bin" explain "$work/out" --metric cpu --confirm --format json \
  -o "$work/confirm.json"
awk -v e="$explain_s" -v c="$elapsed" -v r="$run_s" \
  'BEGIN { printf "  explain / run = %.2f, explain --confirm / run = %.2f\n", e / r, c / r }'
"$bin" export --format csv --metric cpu "$work/out" >"$work/values.csv"
python3 - "$work" "$seeds" <<'PY'
import csv, json, statistics, subprocess, sys
work, seeds = sys.argv[1], int(sys.argv[2])
by_binary = {}
for row in csv.DictReader(open(f"{work}/values.csv")):
    if row["binary"].startswith("seed-"):
        by_binary.setdefault(row["binary"], []).append(float(row["value"]))
starts = {}
for s in range(1, seeds + 1):
    nm = subprocess.run(["nm", f"{work}/out/seed-{s}/window"], capture_output=True, text=True)
    for line in nm.stdout.splitlines():
        if line.endswith(" spin_window"):
            starts.setdefault(int(line.split()[0], 16) % 64, []).append(f"seed-{s}")
print("  start mod 64: binaries, mean cpu (ms)")
for start in sorted(starts):
    means = [statistics.mean(by_binary[b]) / 1e6 for b in starts[start] if b in by_binary]
    print(f"    {start:2d}: {len(means):2d} binaries, {statistics.mean(means):7.1f} ms"
          f" ({min(means):.1f} to {max(means):.1f})")
for name in ("screen", "confirm"):
    a = json.load(open(f"{work}/{name}.json"))
    first = a["findings"][0] if a["findings"] else None
    lead = a["culprits"][first["members"][0]] if first else None
    print(f"  {name}: verdict {a['verdict']}, first finding "
          f"{(lead['function'] + ' ' + lead['feature']) if lead else '-'}")
    for c in a["culprits"]:
        k = c.get("confirmation")
        if k:
            proof = k.get("fix_proof") or {}
            print(f"    {c['function']}: confirmed {k['confirmed']}, ratio {k['ratio']:.3f}, "
                  f"fix proven {proof.get('holds')} (pads {proof.get('pads')})")
PY
