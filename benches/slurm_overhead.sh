#!/usr/bin/env bash
# Benchmark: the Slurm path against the local runner, on a two-node Slurm cluster emulated
# on this machine (root; Debian's slurm-wlm and munge, see docs/slurm.md).
#
# 1. Submission-to-first-execution latency: from just before `layoutrand run --slurm` starts
#    to the start of the first execution recorded in any shard store (start_unix), against
#    the same for a local `layoutrand run` (start-up, pre-flight checks, header).
# 2. Per-execution overhead: (start of the last execution − start of the first) / (N − 1)
#    inside one task (--shards 1), against the same in a local run: the runner's cost per
#    execution on each path (staging, environment, fork/exec/wait, one fsynced commit).
# The benchmark binary is /bin/true, so both measure the harness, not the program. Each
# figure is the median of REPEATS tries.
#
# Usage: benches/slurm_overhead.sh [N REPEATS]   (default 200 5)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
repeats=${2:-5}
[ "$(id -u)" -eq 0 ] || { echo "needs root (the emulated cluster runs as root)" >&2; exit 1; }
cargo build --release --quiet
bin=$PWD/target/release/layoutrand
work=$(mktemp -d /tmp/lr-slurm-bench.XXXXXX)
chmod 755 "$work"
host=$(cat /proc/sys/kernel/hostname)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
export SLURM_CONF=$work/slurm.conf
daemons=()
cleanup() {
    timeout 10 scontrol shutdown >/dev/null 2>&1 || true
    sleep 1
    for p in "${daemons[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -f "$work/munge/pid" ] && kill "$(cat "$work/munge/pid")" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work"/{munge,state,spool/n1,spool/n2,log,run}
chmod 755 "$work/munge"
head -c 1024 /dev/urandom >"$work/munge/key"
chmod 600 "$work/munge/key"
munged --key-file="$work/munge/key" --socket="$work/munge/sock" --pid-file="$work/munge/pid" \
    --log-file="$work/munge/log" --seed-file="$work/munge/seed" --force
cat >"$SLURM_CONF" <<CONF
ClusterName=lrbench
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(port)
SlurmdPort=$(port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd-%n.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd-%n.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$(port) CPUs=1 State=UNKNOWN
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$(port) CPUs=1 State=UNKNOWN
PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -i -f "$SLURM_CONF" >"$work/log/ctld.out" 2>&1 & daemons+=($!)
slurmd -D -N n1 -f "$SLURM_CONF" >"$work/log/n1.out" 2>&1 & daemons+=($!)
slurmd -D -N n2 -f "$SLURM_CONF" >"$work/log/n2.out" 2>&1 & daemons+=($!)
for _ in $(seq 150); do
    [ "$(timeout 5 sinfo --noheader --Node --format=%T 2>/dev/null | grep -c idle)" = 2 ] && break
    sleep 0.2
done

# shellcheck source=benches/bench_experiment.sh
. benches/bench_experiment.sh

# STORE...: "first_start last_start count" over the execution records of the stores.
starts() { cat "$@" | python3 -c '
import sys, json
s = sorted(r["start_unix"] for r in map(json.loads, sys.stdin) if r.get("record") == "execution")
print(s[0], s[-1], len(s))'; }

one() { # MODE: "latency_ms per_execution_us"
    local dir="$work/e$RANDOM$RANDOM" t0
    make_experiment "$dir"
    t0=$(date +%s.%N)
    if [ "$1" = slurm ]; then
        "$bin" run --out "$dir" --executions "$n" --schedule-seed 1 --slurm --shards 1 \
            --node-dir "$work/node" --wait -- '{bin}' >/dev/null 2>&1
        set -- "$dir"/shards/*/results.jsonl
    else
        "$bin" run --out "$dir" --executions "$n" --schedule-seed 1 -- '{bin}' >/dev/null 2>&1
        set -- "$dir/results.jsonl"
    fi
    read -r first last count < <(starts "$@")
    [ "$count" = "$n" ] || { echo "only $count of $n executions stored" >&2; exit 1; }
    python3 -c "print(round(($first - $t0) * 1e3, 1), round(($last - $first) / ($n - 1) * 1e6, 1))"
    rm -rf "$dir"
}

for mode in local slurm; do
    rows=$(for _ in $(seq "$repeats"); do one "$mode"; done)
    lat=$(awk '{print $1}' <<<"$rows" | median)
    per=$(awk '{print $2}' <<<"$rows" | median)
    printf '%-6s submission-to-first-execution %8.1f ms   per execution %8.1f µs\n' "$mode" "$lat" "$per"
    eval "${mode}_lat=$lat ${mode}_per=$per"
done
python3 -c "print('slurm/local: latency x%.1f, per-execution x%.2f' % ($slurm_lat / $local_lat, $slurm_per / $local_per))"
