#!/usr/bin/env bash
# Benchmark: time `layout::binary::functions` + `layout::fingerprint` (+ `distance::compare`)
# on a large binary, through `layoutrand layout`. This is the verification cost `build` pays
# per seed and program.
#
# Usage: benches/layout_functions.sh [BINARY] [RUNS]
#   BINARY defaults to layoutrand's own release binary (tens of thousands of symbols).
# Prints the binary's function count and the mean / min wall time per call of:
#   layout BINARY      (functions + fingerprint + text output to /dev/null)
#   layout BINARY BINARY (2 × functions + 2 × fingerprint + compare)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
tool=target/release/layoutrand
binary="${1:-$tool}"
runs="${2:-20}"

count=$("$tool" layout "$binary" | awk '/^functions/ {print $2}')
echo "binary: $binary ($(stat -c %s "$binary") bytes, $count functions)"

time_it() { # label, command...
  local label="$1"; shift
  "$@" >/dev/null # warm the page cache
  python3 - "$runs" "$label" "$@" <<'PY'
import subprocess, sys, time
runs, label, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    times.append(time.perf_counter() - t0)
print(f"{label:<28} mean {1000*sum(times)/len(times):8.2f} ms   min {1000*min(times):8.2f} ms   ({runs} runs)")
PY
}

time_it "layout BINARY" "$tool" layout "$binary"
time_it "layout BINARY BINARY" "$tool" layout "$binary" "$binary"
time_it "layoutrand --version" "$tool" --version
