#!/usr/bin/env bash
# The demo: builds the bundled program (fixtures/demo) with 10 randomised layouts and measures
# them twice: by time (fixtures/demo/experiment.toml: 3 executions × 11 iterations per binary)
# and under cachegrind (fixtures/demo/cachegrind.toml: valgrind's simulated caches, executions
# in parallel). Prints both reports, then the two layout verdicts side by side: time answers
# on a quiet machine, the deterministic metric on any. Everything lands in target/demo/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup.sh
echo "demo: compiling layoutrand (cargo build --release; the first build on a fresh clone takes several minutes, later ones seconds)"
build_start=$SECONDS
cargo build --release --locked --quiet
echo "demo: layoutrand compiled in $((SECONDS - build_start)) s"
layoutrand="$root/target/release/layoutrand"
work="$root/target/demo"
rm -rf "$work"
# Each experiment records its own build, so each gets its own clean copy of the source.
for src in src src-cachegrind; do
  mkdir -p "$work/$src"
  cp fixtures/demo/Makefile fixtures/demo/*.c fixtures/demo/*.h "$work/$src/"
done
start=$SECONDS
echo "== By time: $(cat /proc/loadavg | cut -d' ' -f1-3) load average on $(nproc) core(s) =="
(cd "$work/src" && "$layoutrand" experiment "$root/fixtures/demo/experiment.toml" --out "$work/out" "$@") |
  tee "$work/time-report.txt"
echo
echo "== Under cachegrind (deterministic; executions in parallel) =="
(cd "$work/src-cachegrind" &&
  "$layoutrand" experiment "$root/fixtures/demo/cachegrind.toml" --out "$work/out-cachegrind" "$@") |
  tee "$work/cachegrind-report.txt"
echo
echo "demo: HTML reports at $work/out/report.html and $work/out-cachegrind/report.html"
echo "demo: both experiments took $((SECONDS - start)) s; load average now $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "== The layout verdict =="
echo "By time (ms per iteration, which other tasks on the host disturb):"
grep '^In short:' "$work/time-report.txt" | sed 's/^/  /'
echo "Which of cachegrind's counters says what (the one answer across them):"
"$layoutrand" report "$work/out-cachegrind" | grep '^Across metrics:' | sed 's/^Across metrics: /  /'
echo "By cachegrind's estimated cycles (simulated caches: deterministic, immune to the host's load):"
grep '^In short:' "$work/cachegrind-report.txt" | sed 's/^/  /'
echo "By cachegrind's instruction-cache misses (where the layout acts):"
"$layoutrand" report "$work/out-cachegrind" --metric I1_misses | grep '^In short:' | sed 's/^/  /'
