#!/usr/bin/env bash
# Issue 55: how often the same binaries, run again on a loaded host, get another verdict.
# Builds the bundled demo with SEEDS seeds once, then REPEATS times runs the same binaries
# (`run --metric cpu --executions 3 --data-seeds 3`, a new schedule seed each time, as a user
# repeating the experiment would) beside LOAD bursty busy loops, and reads `report --format
# json`'s code-layout answer (`sensitivity`) and data-layout answer (`data_sensitivity`).
# Prints each repeat's verdicts and, per question, the count of each verdict, the share that
# agrees with the most frequent definite verdict or says "cannot tell" (the target: at least
# 90 %), and whether two definite verdicts contradict each other (detected and not_detected).
#
#   benches/flip_rate.sh          # SEEDS=12 REPEATS=20 LOAD=1 ARG=3
#
# docs/report.md ("Repeating an experiment on a loaded host") quotes the figures.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=${SEEDS:-12}
repeats=${REPEATS:-20}
load=${LOAD:-1}
arg=${ARG:-3}
(cd "$root" && cargo build --release --locked --quiet)
bin="$root/target/release/layoutrand"
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cp -r "$root/fixtures/demo" "$work/src"
(cd "$work/src" && make -s clean >/dev/null 2>&1 || true)
(cd "$work/src" && "$bin" build -q --seeds "$seeds" --out "$work/out" -- make -s >/dev/null)
# The load: busy loops in bursts (0.5 s busy, 0.3 s idle), as other jobs on a shared host.
for _ in $(seq 1 "$load"); do
  (while :; do timeout 0.5 sh -c 'while :; do :; done' || true; sleep 0.3; done) &
  pids+=($!)
done
echo "flip rate: demo, $seeds seeds, $repeats repeats, load $load (loadavg $(cut -d' ' -f1 /proc/loadavg))"
for i in $(seq 1 "$repeats"); do
  cp -a "$work/out" "$work/run-$i"
  (cd "$work/src" && "$bin" run --out "$work/run-$i" --metric cpu --executions 3 \
    --data-seeds 3 --schedule-seed "$i" -- '{bin}' "$arg" >/dev/null 2>&1)
  "$bin" report --format json "$work/run-$i" >"$work/report-$i.json"
  rm -rf "$work/run-$i"
done
python3 - "$work" "$repeats" <<'PY'
import collections, json, sys
work, repeats = sys.argv[1], int(sys.argv[2])
answers = {"code": [], "data": []}
for i in range(1, repeats + 1):
    report = json.load(open(f"{work}/report-{i}.json"))
    s = next(s for s in report["series"] if s["metric"] == "cpu")
    code = s["sensitivity"]["verdict"]
    data = (s.get("data_sensitivity") or {}).get("verdict", "-")
    answers["code"].append(code)
    answers["data"].append(data)
    print(f"  repeat {i:2d}: code {code:13s} data {data}")
for question, verdicts in answers.items():
    counts = collections.Counter(verdicts)
    definite = [v for v in verdicts if v != "undetermined"]
    modal = collections.Counter(definite).most_common(1)[0][0] if definite else None
    agree = sum(1 for v in verdicts if v in (modal, "undetermined"))
    contradiction = "detected" in counts and "not_detected" in counts
    print(f"  {question}: {dict(counts)}; agree with {modal} or cannot tell: "
          f"{agree}/{repeats} ({100 * agree / repeats:.0f} %); "
          f"{'contradicting verdicts' if contradiction else 'no contradiction'}")
PY
