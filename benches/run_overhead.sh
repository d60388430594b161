#!/usr/bin/env bash
# Benchmark: the runner's own cost per execution, versus a bare fork/exec/wait of /bin/true.
#
# Both are measured as the slope between a short and a long series (so start-up costs —
# loading the manifest, the ASLR probe, the header — cancel out), each the median of
# REPEATS tries. The runner's per-execution work is: stage the binary at its fixed path
# (hard link), check its sha256 against the manifest (hashed again only when the file changed),
# build the environment, start the leader with clone(CLONE_VM|CLONE_VFORK) (setpgid,
# pdeathsig, the watchdog's announcement, personality before execve: src/run/spawn.rs), wait4,
# look for orphans, one write + fsync of the execution's records. The fsync is the price of
# the store's durability, so the store is measured both on DIR's disk and on tmpfs.
#
# Usage: benches/run_overhead.sh [SHORT LONG REPEATS]   (default 50 550 5)
set -euo pipefail
cd "$(dirname "$0")/.."
short=${1:-50}
long=${2:-550}
repeats=${3:-5}
cargo build --release --quiet
bin=$PWD/target/release/layoutrand
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/bare" benches/run_overhead_bare.c

# shellcheck source=benches/bench_experiment.sh
. benches/bench_experiment.sh

runner_ns() { # BASE N: "elapsed_ns child_wall_sum_ns" of `layoutrand run` with N executions
    local dir="$1/e$RANDOM$RANDOM"
    make_experiment "$dir"
    local t0 t1 inside
    t0=$(date +%s%N)
    "$bin" run --out "$dir" --executions "$2" --schedule-seed 1 -- '{bin}' >/dev/null 2>&1
    t1=$(date +%s%N)
    # The recorded wall time of each execution is the fork/exec/wait as the runner saw it.
    # The column is found by its header name, so a new export column cannot shift it.
    inside=$("$bin" export "$dir" --metric wall |
        awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "value") v = i; next}
                 {s += $v} END {printf "%.0f", s}')
    rm -rf "$dir"
    echo "$((t1 - t0)) $inside"
}


slopes() { # CMD...: per column of CMD's output, (median at long - median at short) /
    # (long - short), in µs; each column's medians come from the same runs
    local a b
    a=$(for _ in $(seq "$repeats"); do "$@" "$short"; done)
    b=$(for _ in $(seq "$repeats"); do "$@" "$long"; done)
    local cols
    cols=$(head -1 <<<"$a" | wc -w)
    for c in $(seq "$cols"); do
        local ma mb
        ma=$(awk -v c="$c" '{print $c}' <<<"$a" | median)
        mb=$(awk -v c="$c" '{print $c}' <<<"$b" | median)
        awk -v x="$ma" -v y="$mb" -v n=$((long - short)) 'BEGIN {printf "%.1f ", (y - x) / n / 1000}'
    done
}

bare() { "$work/bare" "$1" /bin/true; }
bare_no_aslr() { setarch -R "$work/bare" "$1" /bin/true; }
shm=$(mktemp -d /dev/shm/layoutrand-bench.XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT
# "elapsed recorded bookkeeping": bookkeeping = elapsed minus the executions' recorded wall.
runner() { runner_ns "$1" "$2" | awk '{print $1, $2, $1 - $2}'; }
runner_disk() { runner "$work" "$1"; }
runner_tmpfs() { runner "$shm" "$1"; }

fs=$(df --output=fstype "$work" | tail -1)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; series of $short and $long executions, median of $repeats"
echo "bare fork/exec/wait of /bin/true:           $(slopes bare)µs per execution"
echo "bare fork/exec/wait of /bin/true, ASLR off: $(slopes bare_no_aslr)µs per execution"
for where in tmpfs disk; do
    label=$([ "$where" = disk ] && echo "$fs, fsync" || echo tmpfs)
    read -r total inside own <<<"$(slopes "runner_$where")"
    echo "layoutrand run, store on $label: $total µs per execution: $inside µs spawn+wait as recorded, $own µs bookkeeping (staging, files, records, fsync)"
done
