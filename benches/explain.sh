#!/usr/bin/env bash
# Benchmark (not a test) of `layoutrand explain` against the run that made its store, on the
# bundled demo (an interpreter with 192 opcode handlers: about 50 hot functions, so the
# screening's full load of tests) and on fixtures/explain (3 hot functions).
#
#   benches/explain.sh          # SEEDS=10 by default
#
# Each program is built with SEEDS seeds (demo: module granularity, as its experiment.toml;
# fixture: --granularity none --pad 64), run as its experiment runs it, then explained with
# and without --confirm; the wall times of `run`, `explain` and `explain --confirm` and their
# ratios to the run are printed.
#
# Measured 2026-11-25 on a 2-core VM shared with four builds and test runs (load 10-12):
#   SEEDS=20: demo (by time, 3 executions x 10 live iterations): run 30.93 s, explain 16.43 s
#   (0.53 of the run; 50 hot functions, 309 pairs, verdict not_detected, so --confirm had
#   nothing to relink: 20.00 s, 0.65); fixture: run 0.23 s, explain 0.62 s, explain
#   --confirm 2.29 s (9.96 x the run, which is one execution per binary of a 20 ms
#   program: the cachegrind profile, 10 relinks and 20 executions dominate), 1 culprit
#   confirmed.
#   Again after the HTML, the stored answer and the plots' data (load 9-10), SEEDS=20: demo
#   run 19.55 s, explain 13.66 s, --confirm 12.78 s; fixture run 0.19 s, explain 0.59 s,
#   --confirm 1.71 s, 1 culprit confirmed: no cost of its own within the machine's noise.
#   SEEDS=10: both verdicts undetermined (too few binaries for 287 and 14 tests), demo
#   explain 0.78 of the run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=${SEEDS:-10}
(cd "$root" && cargo build --release --quiet)
bin="$root/target/release/layoutrand"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }

# timed LABEL COMMAND...: runs COMMAND, prints and returns (in $elapsed) its wall time.
timed() {
  local label=$1 t0
  shift
  t0=$(now)
  "$@" >"$work/$label.out" 2>"$work/$label.err"
  elapsed=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
  printf '  %-8s %6s s\n' "$label" "$elapsed"
}

bench() {
  local name=$1 src=$2
  shift 2
  cp -r "$src" "$work/$name"
  cd "$work/$name"
  make -s clean >/dev/null 2>&1 || true
  "$bin" build -q --seeds "$seeds" "${build_args[@]}" --out out -- make -s >/dev/null
  echo "$name ($seeds seeds, load $(cut -d' ' -f1 /proc/loadavg)):"
  timed run "$bin" run --out out "$@"
  local run_s=$elapsed
  timed explain "$bin" explain out
  awk -v e="$elapsed" -v r="$run_s" 'BEGIN { printf "  explain / run = %.3f\n", e / r }'
  cp "$work/explain.out" "$work/screen.out"
  timed confirm "$bin" explain --confirm out
  awk -v e="$elapsed" -v r="$run_s" 'BEGIN { printf "  explain --confirm / run = %.3f\n", e / r }'
  grep -c '^   confirmed by' "$work/confirm.out" | sed 's/^/  confirmed culprits: /' || true
  sed -n 's/^\(hot functions: [0-9]*\).*/  \1/p; s/^\(screened: [0-9]* (function, feature) pairs\).*/  \1/p; s/^verdict: \([a-z_]*\).*/  verdict \1/p' "$work/screen.out"
}

build_args=(--granularity module)
bench demo "$root/fixtures/demo" --executions 3 --iterations 11 --warmup 1 \
  --metric 'regex:iter \d+: (?P<value>[0-9.]+) (?P<unit>ms)' -- '{bin}' 11
build_args=(--granularity none --pad 64)
bench fixture "$root/fixtures/explain" --executions 1 --env-pad 0 --schedule-seed 1 \
  --metric 'regex:work (\d+)' -- '{bin}'
