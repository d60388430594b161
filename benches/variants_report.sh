#!/usr/bin/env bash
# Benchmark of the variant analysis (issue 11): `layoutrand report --format json` of an
# experiment of 2 variants × (30 seeds + baseline) × 10 executions × 10 iterations
# (6 200 values per metric), against a reference measured in the same run: the same report
# of one program without variants, 30 seeds + baseline × 10 × 10 (3 100 values). Both stores
# are made by the real `build` (the fixture fixtures/build/archive at -O1 and -O2) and the
# real runner, on a trivial benchmark that prints ten `iter I: V` lines (a `regex:` metric),
# so each store holds that metric and the runner's wall and cpu times.
# Prints, best of RUNS, the wall and CPU (user + sys) time of each report and their ratio.
#
#   bash benches/variants_report.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
cargo build --release --quiet
BIN=$PWD/target/release/layoutrand
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# A benchmark costing one shell start: ten iterations with a seeded pseudo-random value.
BENCH='i=0; v=$(od -An -N2 -tu2 /dev/urandom); while [ $i -lt 10 ]; do echo "iter $i: $((1000 + (v + i * 7) % 50))"; i=$((i + 1)); done'
METRIC='regex:iter \d+: (?P<value>\d+)'

for exp in variants single; do
  cp -r fixtures/build/archive "$WORK/$exp"
done
(
  cd "$WORK/variants"
  for v in O1 O2; do
    make clean >/dev/null
    if [ "$v" = O1 ]; then seeds=(--seeds 30); else seeds=(); fi
    "$BIN" build --out out --variant "$v" "${seeds[@]}" -q -- make "CFLAGS=-$v" >/dev/null
  done
  "$BIN" run --out out --executions 10 --iterations 10 --metric "$METRIC" \
    -- sh -c "$BENCH" '{bin}' >/dev/null 2>&1
)
(
  cd "$WORK/single"
  "$BIN" build --out out --seeds 30 -q -- make CFLAGS=-O1 >/dev/null
  "$BIN" run --out out --executions 10 --iterations 10 --metric "$METRIC" \
    -- sh -c "$BENCH" '{bin}' >/dev/null 2>&1
)

TIMEFORMAT='%R %U %S'
best() { # best wall and CPU time of RUNS reports of $1
  local dir=$1 best_wall="" best_cpu=""
  for _ in $(seq "$RUNS"); do
    { time "$BIN" report "$dir" --format json > "$WORK/report.json"; } 2> "$WORK/time"
    read -r real user sys < "$WORK/time"
    cpu=$(echo "$user + $sys" | bc)
    if [ -z "$best_wall" ] || [ "$(echo "$real < $best_wall" | bc)" = 1 ]; then best_wall=$real; fi
    if [ -z "$best_cpu" ] || [ "$(echo "$cpu < $best_cpu" | bc)" = 1 ]; then best_cpu=$cpu; fi
  done
  echo "$best_wall $best_cpu"
}
read -r vw vc <<< "$(best "$WORK/variants/out")"
comparisons=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["comparisons"]), len(r["series"]))' "$WORK/report.json")
read -r sw sc <<< "$(best "$WORK/single/out")"
values=$(grep -c '"metric":"reported"' "$WORK/variants/out/results.jsonl" || true)
echo "variants: 2 × 31 binaries × 10 × 10 ($values reported values): report --format json best of $RUNS: wall ${vw} s, cpu ${vc} s; comparisons, series: $comparisons"
echo "reference (no variants, 31 × 10 × 10): wall ${sw} s, cpu ${sc} s"
echo "ratio variants / reference: wall $(echo "scale=2; $vw / $sw" | bc), cpu $(echo "scale=2; $vc / $sc" | bc)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
