#!/usr/bin/env bash
# Benchmark: the runner's memory and time on large inputs, each against a small reference
# measured in the same run.
#
# 1. Benchmark output: a program printing SIZE_MB of stdout (and one `value` line) under
#    `--metric regex:`, versus one printing a single line. Peak RSS of `layoutrand run`.
#    The regex metric reads the output line by line and the failure tail reads only the
#    last 4 KiB, so the peak must not grow with the output (before: 200 MB -> 212 MB RSS).
# 2. Resume: `layoutrand run --resume` on a finished store of STORE_MB (synthetic executions
#    of 1000 iterations each, same records as the runner writes), versus on a 2-execution
#    store, and versus `cat` of the big store (the I/O floor). Resume and the closing summary
#    stream the store, so RSS must stay flat (before: 150 MB -> 7.6 s and 634 MB).
# 3. Report and export of the same stores: both read the store streaming (export in two
#    passes writing rows as they are read; report keeps only the values, ~50 bytes each, not
#    the records). With BEFORE=/path/to/older/layoutrand the big store is also measured with
#    that binary, for the before/after figures.
#
# Usage: benches/run_memory.sh [SIZE_MB STORE_MB]   (default 200 150)
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-200}
store_mb=${2:-150}
cargo build --release --quiet
bin=$PWD/target/release/layoutrand
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=benches/bench_experiment.sh
. benches/bench_experiment.sh

measure() { # LABEL CMD...: "LABEL: wall s, CPU s, max RSS MB" (CPU time does not depend on load)
    local label=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || {
        cat "$work/stderr" >&2
        exit 1
    }
    read -r wall user sys rss <"$work/time"
    echo "$label: wall ${wall} s, CPU $(echo "$user + $sys" | bc) s, max RSS $((rss / 1024)) MB"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo "== benchmark output streamed (run --metric regex:)"
python3 -c 'import sys; line = b"filler line of benchmark output, not a value ......................\n"
sys.stdout.buffer.write(line * (int(sys.argv[1]) * 1024 * 1024 // len(line)))' "$size_mb" >"$work/big-output"
for case in small big; do
    d=$work/out-$case
    make_experiment "$d" /bin/sh
    if [ "$case" = big ]; then script="cat $work/big-output; echo 'value 42'"; else script="echo 'value 42'"; fi
    measure "stdout of $( [ "$case" = big ] && echo "$size_mb MB" || echo "1 line")" \
        "$bin" run --out "$d" --executions 1 --metric 'regex:value (\d+)' -- '{bin}' -c "$script"
done

echo "== resume reads the store streaming"
for case in small big; do
    d=$work/store-$case
    make_experiment "$d" /bin/sh
    "$bin" run --out "$d" --executions 2 --iterations 1000 --metric 'regex:value (\d+)' \
        --schedule-seed 1 -- '{bin}' -c 'i=0; while [ $i -lt 1000 ]; do echo "value $i"; i=$((i+1)); done' \
        >/dev/null 2>&1
    if [ "$case" = big ]; then
        python3 - "$d/results.jsonl" "$store_mb" <<'PY'
import json, sys
path, target_mb = sys.argv[1], int(sys.argv[2])
lines = open(path).read().splitlines()
header = json.loads(lines[0])
# A copy of the runner's records for one execution, re-numbered for each new execution.
meas = [json.loads(l) for l in lines if '"record":"measurement"' in l]
execs = [json.loads(l) for l in lines if '"record":"execution"' in l]
one = [m for m in meas if m["execution"] == 0]
size_of_one = sum(len(json.dumps(m, separators=(",", ":"))) + 1 for m in one)
n = max(2, target_mb * 1024 * 1024 // size_of_one)
header["executions"] = n
with open(path, "w") as f:
    f.write(json.dumps(header, separators=(",", ":")) + "\n")
    for e in range(n):
        for m in one:
            m["execution"] = e
            f.write(json.dumps(m, separators=(",", ":")) + "\n")
        x = dict(execs[0], execution=e, schedule_index=e)
        f.write(json.dumps(x, separators=(",", ":")) + "\n")
PY
    fi
    echo "store: $(du -m "$d/results.jsonl" | cut -f1) MB, $(wc -l <"$d/results.jsonl") lines"
    measure "resume of the $case store" "$bin" run --resume --out "$d"
done
measure "cat of the big store (I/O floor)" cat "$work/store-big/results.jsonl"
echo "== report and export read the store streaming"
for case in small big; do
    d=$work/store-$case
    measure "export of the $case store" "$bin" export "$d" -o "$work/export-$case.csv"
    measure "report of the $case store" "$bin" report "$d" --format json
done
if [ -n "${BEFORE:-}" ]; then
    measure "export of the big store, $BEFORE" "$BEFORE" export "$work/store-big" -o "$work/export-before.csv"
    measure "report of the big store, $BEFORE" "$BEFORE" report "$work/store-big" --format json
fi
