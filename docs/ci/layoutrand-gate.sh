#!/usr/bin/env bash
# The pull-request check of docs/ci.md: is HEAD slower than BASE, whatever the code layout?
#
#   layoutrand-gate.sh BASE_REF HEAD_REF OUT 'BUILD COMMAND' 'RUN COMMAND'
#
# Builds BASE_REF and HEAD_REF of the git repository in the current directory, each in a
# worktree of its own, as two variants of one experiment in OUT with the same seeds (so each
# seed's base and head share their random layout), runs both in one interleaved schedule, and
# gates with `layoutrand report OUT --fail-if-slower`. A failed first round is confirmed by a
# second, independent one (the same builds, new executions, another schedule seed) before the
# check fails: docs/gate.md measures the false-alert rate and power of this procedure.
# The commands are shell strings: BUILD runs in each worktree (e.g. 'make -j2'), RUN in the
# head's, with {bin} (or {bin:NAME}) for the binary under test (e.g. '{bin} --bench 1').
#
# Environment (defaults are the configuration docs/gate.md recommends):
#   LAYOUTRAND       the layoutrand binary (layoutrand)
#   GATE_SEEDS       random layouts per side (30)
#   GATE_EXECUTIONS  executions per binary (5)
#   GATE_THRESHOLD   --fail-if-slower (0)
#   GATE_RUN_FLAGS   more flags for `layoutrand run`, e.g. '--metric cachegrind' (none)
#   GATE_BUILD_FLAGS more flags for `layoutrand build`, e.g. '--pin pin.json' (none)
# Exit: 0 pass (or a first-round failure the confirmation did not repeat), 1 confirmed
# slower, 2 an error or an incomplete store (never gated).
set -euo pipefail
if [ $# -ne 5 ]; then
  echo "usage: layoutrand-gate.sh BASE_REF HEAD_REF OUT 'BUILD COMMAND' 'RUN COMMAND'" >&2
  exit 2
fi
base_ref=$1 head_ref=$2 out=$3 build=$4 run=$5
lr=${LAYOUTRAND:-layoutrand}
seeds=${GATE_SEEDS:-30} executions=${GATE_EXECUTIONS:-5} threshold=${GATE_THRESHOLD:-0}
read -r -a run_flags <<< "${GATE_RUN_FLAGS:-}"
read -r -a build_flags <<< "${GATE_BUILD_FLAGS:-}"
if [ -e "$out" ]; then
  echo "layoutrand-gate: $out exists; give a new directory" >&2
  exit 2
fi
out=$(mkdir -p "$out" && cd "$out" && pwd)
rmdir "$out"
trees=$(mktemp -d)
cleanup() {
  git worktree remove --force "$trees/base" 2>/dev/null || true
  git worktree remove --force "$trees/head" 2>/dev/null || true
  rm -rf "$trees"
}
trap cleanup EXIT
git worktree add --quiet --detach "$trees/base" "$base_ref"
git worktree add --quiet --detach "$trees/head" "$head_ref"

# Both variants in one experiment: the second takes the first's seeds from the manifest.
(cd "$trees/base" && "$lr" build --seeds "$seeds" "${build_flags[@]}" --variant base --out "$out" -- sh -c "$build") || exit 2
(cd "$trees/head" && "$lr" build "${build_flags[@]}" --variant head --out "$out" -- sh -c "$build") || exit 2
# The confirmation round runs the same builds afresh: a copy made before any execution.
cp -a "$out" "$out.confirm"

# round N DIR: run DIR's schedule with seed N and gate it; returns report's exit status.
round() {
  local n=$1 dir=$2 rc=0
  (cd "$trees/head" && "$lr" run --out "$dir" --executions "$executions" --schedule-seed "$n" \
    "${run_flags[@]}" -- sh -c "$run") || return 2
  "$lr" report "$dir" --fail-if-slower "$threshold" > "$dir/report.txt" || rc=$?
  return "$rc"
}
rc=0
round 1 "$out" || rc=$?
case $rc in
  0) echo "layoutrand-gate: pass (report: $out/report.txt)"; exit 0 ;;
  1) ;;
  *) echo "layoutrand-gate: not judged (exit $rc): see the messages above" >&2; exit 2 ;;
esac
echo "layoutrand-gate: the first round failed; confirming with a second round in $out.confirm" >&2
rc=0
round 2 "$out.confirm" || rc=$?
case $rc in
  0) echo "layoutrand-gate: pass: the first round's failure was not confirmed (reports: $out/report.txt, $out.confirm/report.txt)"; exit 0 ;;
  1) echo "layoutrand-gate: FAIL: both rounds say head is slower (reports: $out/report.txt, $out.confirm/report.txt)" >&2; exit 1 ;;
  *) echo "layoutrand-gate: not judged (exit $rc) in the confirmation round" >&2; exit 2 ;;
esac
