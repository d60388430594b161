#!/usr/bin/env bash
# One SPEC CPU 2017 benchmark under layoutrand, start to finish: build the randomised binaries,
# set up the reference run directory, validate every binary's output with SPEC's own
# comparison, then measure every binary on every invocation of the workload.
#
#   recipes/spec-cpu/spec-cpu.sh BENCHMARK CONFIG OUT [SEEDS [EXECUTIONS]]
#   e.g. recipes/spec-cpu/spec-cpu.sh 505.mcf_r mine $SPEC/lr/505.mcf_r 30 3
#
# Run it from the SPEC tree with shrc sourced (runcpu, specinvoke and specdiff on PATH;
# $SPEC set). SIZE (default ref) picks the workload, TUNE (default base) the tuning,
# LAYOUTRAND (default: layoutrand on PATH) the binary. Tested against a stand-in suite laid
# out as SPEC's (tests/build/spec_cpu.rs), not against SPEC itself.
#
# Each step and why:
#  1. `layoutrand build -- runcpu --action=build --rebuild`: runcpu skips a benchmark already
#     built, which would link nothing for the shim to record; --rebuild builds it again.
#  2. `runcpu --action=setup --size=SIZE`: the run directory (inputs, speccmds.cmd with every
#     invocation of the workload, compare.cmd with the output comparisons and their
#     tolerances) without running anything.
#  3. `spec-invoke.sh check-all OUT RUNDIR`: every binary of OUT (baseline, as built, seeds)
#     runs every invocation in a scratch copy of the run directory and its outputs go
#     through compare.cmd's specdiff commands; any miscompare stops here, naming the binary.
#  4. `layoutrand run -- spec-invoke.sh run {bin} RUNDIR`: one execution is every invocation
#     of the workload (perlbench, gcc, x264, xz have several) with the binary in place of
#     the benchmark's executable, in the run directory.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
bench=$1 config=$2 out=$3 seeds=${4:-30} executions=${5:-3}
size=${SIZE:-ref} tune=${TUNE:-base}
lr=${LAYOUTRAND:-layoutrand}
here=$(cd "$(dirname "$0")" && pwd)
: "${SPEC:?set SPEC (source the shrc of the SPEC tree first)}"

"$lr" build -q --seeds "$seeds" --out "$out" -- \
  runcpu --config="$config" --action=build --rebuild --tune="$tune" "$bench"
runcpu --config="$config" --action=setup --size="$size" --tune="$tune" --noreportable "$bench"
# The newest run directory of this tuning and size (runcpu numbers them .0000, .0001, ...).
rundir=$(ls -d "$SPEC/benchspec/CPU/$bench/run/run_${tune}_${size}"*"$config"* | sort | tail -n 1)
echo "run directory: $rundir"
"$here/spec-invoke.sh" check-all "$out" "$rundir"
"$lr" run --out "$out" --executions "$executions" --timeout 7200 -- \
  "$here/spec-invoke.sh" run {bin} "$rundir"
"$lr" report "$out"
