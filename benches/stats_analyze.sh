#!/usr/bin/env bash
# Benchmark: `layoutrand analyze` on 10^6 measurements in 3 levels
# (100 binaries × 100 executions × 100 iterations), CSV parsing included.
# Target: under 1 s on a 2-core machine. Usage: bash benches/stats_analyze.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cargo build --release --quiet
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
csv="$dir/million.csv"
# Deterministic values (no RNG, same on every awk): a binary effect, an execution effect
# and iteration noise built from sines.
awk 'BEGIN {
  print "binary,execution,iteration,time";
  for (b = 1; b <= 100; b++) for (e = 1; e <= 100; e++) for (i = 1; i <= 100; i++)
    printf "seed-%d,%d,%d,%.6f\n", b, e, i,
      10 + 0.3 * sin(b * 1.7) + 0.15 * sin(b * 31 + e * 1.3) + 0.1 * sin(b * 7 + e * 17 + i * 0.77);
}' > "$csv"
echo "input: $(wc -l < "$csv") lines, $(du -h "$csv" | cut -f1)"
# Wall time depends on what else runs on the machine; CPU time (user + sys) does not,
# so both are shown. bash's `time` keyword reports them.
TIMEFORMAT='%R %U %S'
for run in $(seq "$runs"); do
  { time ./target/release/layoutrand analyze "$csv" --levels binary,execution,iteration \
      --value time --costs binary=30,execution=1,iteration=0.01 --format json > "$dir/out.json" ; } 2> "$dir/time"
  read -r real user sys < "$dir/time"
  echo "run $run: wall ${real} s, cpu $(echo "$user + $sys" | bc) s (user ${user}, sys ${sys})"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); target: under 1 s for 10^6 measurements"
grep -E '"(n|mean)"' "$dir/out.json" | head -2
