#!/usr/bin/env bash
# Benchmark: memory and time of the store's readers on a huge valid store and on hostile
# ones (issue 34, attack 11). Peak RSS and wall time of `run --resume` (every execution
# already done, so it only reads the store and prints the closing summary), `report`,
# `export` and `analyze` (of the exported CSV) on:
#   valid      BINARIES × EXECUTIONS × ITERATIONS (default 2000 × 50 × 100: 10^7 measurements,
#              1.7 GB), as the runner writes it;
#   long-line  one line of LONG_MIB MiB (default 2048) after the header;
#   nested     one line of 10^7 '[' (inside an object) after the header;
#   tiny       10^6 execution records without measurements, each of its own binary.
# The stores are written by benches/store_memory.py into a temporary directory (removed at
# the end); the key that signs them for `run --resume --trust` is a temporary one too.
#
# Usage: benches/store_memory.sh [BINARIES EXECUTIONS ITERATIONS LONG_MIB]
#   BIN=/path/to/another/layoutrand measures that binary instead (the before figures);
#   KINDS="long-line tiny" measures only those stores; COMMANDS="resume export" only those
#   commands (of resume, report, export, analyze: report of the valid store takes minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
binaries=${1:-2000}
executions=${2:-50}
iterations=${3:-100}
long_mib=${4:-2048}
if [ -z "${BIN:-}" ]; then
    cargo build --release --locked --quiet
fi
bin=${BIN:-$PWD/target/release/layoutrand}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LAYOUTRAND_KEY=$work/key

measure() { # LABEL CMD...: "LABEL: exit N, wall s, max RSS MB" and the last line of stderr
    local label=$1
    shift
    local rc=0
    /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || rc=$?
    # A failed command's first line says so; the figures are on the last.
    read -r wall rss < <(tail -n 1 "$work/time")
    echo "$label: exit $rc, wall ${wall} s, max RSS $((rss / 1024)) MB"
    echo "    $(grep -v '^Command exited' "$work/stderr" | tail -n 1 | cut -c1-200)"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
commands=${COMMANDS:-resume report export analyze}
wanted() { [[ " $commands " == *" $1 "* ]]; }
for kind in ${KINDS:-valid long-line nested tiny}; do
    d=$work/$kind
    case $kind in
    valid) python3 benches/store_memory.py "$d" valid "$binaries" "$executions" "$iterations" ;;
    long-line) python3 benches/store_memory.py "$d" long-line "$long_mib" ;;
    nested) python3 benches/store_memory.py "$d" nested 10000000 ;;
    tiny) python3 benches/store_memory.py "$d" tiny 1000000 ;;
    esac
    echo "== $kind: $(du -m "$d/results.jsonl" | cut -f1) MB, $(wc -l <"$d/results.jsonl") lines"
    if wanted resume; then measure "run --resume" "$bin" run --resume --trust --out "$d"; fi
    if wanted report; then measure "report" "$bin" report "$d" --format json; fi
    if wanted export; then measure "export" "$bin" export "$d" -o "$work/$kind.csv"; fi
    if wanted analyze && [ -s "$work/$kind.csv" ]; then
        measure "analyze of the export" "$bin" analyze "$work/$kind.csv" \
            --levels binary,execution,iteration --value value
    fi
    rm -rf "$d" "$work/$kind.csv"
done
