#!/usr/bin/env bash
# Benchmark of `layoutrand report`, `dimension` and `compare` on a large synthetic
# experiment: SEEDS randomised binaries + baseline × EXECUTIONS × ITERATIONS wall-time
# measurements (default 30 × 10 × 100 = 31 000 values), written as a real manifest and
# results store. Prints the wall time of each command (best of 3).
#
#   bash benches/report_bench.sh [SEEDS] [EXECUTIONS] [ITERATIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${1:-30}
EXECUTIONS=${2:-10}
ITERATIONS=${3:-100}
cargo build --release --quiet
BIN=target/release/layoutrand
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 - "$WORK/exp" "$SEEDS" "$EXECUTIONS" "$ITERATIONS" <<'PY'
import json, os, random, sys
d, seeds, execs, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
os.makedirs(d)
version = "0.1.0"
def binary(label):
    return {"name": "demo", "path": f"{label}/demo", "sha256": "00", "fingerprint": label,
            "functions": 100, "link_seconds": 0.02}
def binary(seed):
    label = "baseline" if seed is None else f"seed-{seed}"
    return {"seed": seed, "status": "ok", "binaries": [binary(label)]}
manifest = {"schema": 1, "tool_version": version, "toolchain": {}, "build_command": ["make"],
            "build_dir": "/tmp", "mode": "relink", "granularity": "module", "linker": "bfd",
            "mechanism": "synthetic", "recorded_build_seconds": 1.0, "relink_seconds": 0.6,
            "baseline": binary(None), "seeds": [binary(s) for s in range(1, seeds + 1)]}
json.dump(manifest, open(os.path.join(d, "manifest.json"), "w"))
rng = random.Random(1)
binaries = [None] + list(range(1, seeds + 1))
effect = {s: (-0.03 if s is None else rng.gauss(0, 0.02)) for s in binaries}
with open(os.path.join(d, "results.jsonl"), "w") as f:
    header = {"record": "header", "schema": 2, "tool_version": version, "command": ["{bin}"],
              "programs": ["demo"], "binaries": ["baseline" if s is None else f"seed-{s}" for s in binaries],
              "metric": "wall", "executions": execs, "iterations": iters + 2, "warmup": 2,
              "env_pad_max": 4096, "schedule_seed": 1, "timeout_seconds": None,
              "aslr_disabled": True, "host": {}, "started_unix": 0.0}
    f.write(json.dumps(header) + "\n")
    k = 0
    for e in range(execs):
        for s in binaries:
            label = "baseline" if s is None else f"seed-{s}"
            ex = rng.gauss(0, 0.003)
            for i in range(iters + 2):
                v = 1e6 * (1 + effect[s] + ex + rng.gauss(0, 0.005)) * (1.3 if i < 2 else 1.0)
                f.write(json.dumps({"record": "measurement", "program": "demo", "binary": label,
                                    "seed": s, "execution": e, "iteration": i, "warmup": i < 2,
                                    "metric": "wall", "value": v, "unit": "ns"}) + "\n")
            f.write(json.dumps({"record": "execution", "program": "demo", "binary": label, "seed": s,
                                "execution": e, "schedule_index": k, "env_pad": 16, "start_unix": k,
                                "wall_ns": int(1e6 * (iters + 2) + 2e6), "status": "ok",
                                "exit_code": 0, "signal": None}) + "\n")
            k += 1
PY
cp -r "$WORK/exp" "$WORK/exp2"
echo "store: $(wc -l < "$WORK/exp/results.jsonl") lines, $(du -h "$WORK/exp/results.jsonl" | cut -f1)"

best_of_3() {
    local best=999999
    for _ in 1 2 3; do
        local t0 t1 ms
        t0=$(date +%s%N)
        "$@" > /dev/null
        t1=$(date +%s%N)
        ms=$(( (t1 - t0) / 1000000 ))
        (( ms < best )) && best=$ms
    done
    echo "$best ms"
}
printf '%-28s %s\n' "report (text)"   "$(best_of_3 $BIN report "$WORK/exp")"
printf '%-28s %s\n' "report --format json" "$(best_of_3 $BIN report --format json "$WORK/exp")"
printf '%-28s %s\n' "report --format html" "$(best_of_3 $BIN report --format html "$WORK/exp")"
printf '%-28s %s\n' "dimension"       "$(best_of_3 $BIN dimension "$WORK/exp")"
printf '%-28s %s\n' "compare (dirs)"  "$(best_of_3 $BIN compare "$WORK/exp" "$WORK/exp2")"
printf '%-28s %s\n' "html size" "$($BIN report --format html "$WORK/exp" | wc -c) bytes"
