#!/usr/bin/env bash
# Runs a SPEC CPU workload with another binary in place of the benchmark's executable.
#
#   spec-invoke.sh run BIN RUNDIR         every invocation of RUNDIR's workload, in RUNDIR
#   spec-invoke.sh check BIN RUNDIR       the same in a scratch copy of RUNDIR, then every
#                                         output comparison of the workload; exit 1 on a
#                                         miscompare
#   spec-invoke.sh check-all OUT RUNDIR   check for every binary layoutrand built into OUT
#
# The invocations are those `specinvoke -n` prints for RUNDIR's speccmds.cmd (the shell
# command of each, with its redirections), the comparisons those it prints for compare.cmd
# (specdiff with the benchmark's tolerances). In each command the benchmark's executable (a
# command word naming an executable file of RUNDIR) is replaced by BIN, and RUNDIR's path by
# the scratch copy's.
set -euo pipefail
mode=${1:-} target=${2:-} rundir=${3:-}
[ -n "$mode" ] && [ -n "$target" ] && [ -d "$rundir" ] || { sed -n '2,8p' "$0" >&2; exit 2; }
rundir=$(cd "$rundir" && pwd)

# The commands of a specinvoke command file, RUNDIR's path replaced by $2 and the
# benchmark's executable by $3 (empty: kept).
commands() {
  local file=$1 dir=$2 bin=$3
  [ -f "$rundir/$file" ] || { echo "spec-invoke.sh: no $file in $rundir (run runcpu --action=setup first)" >&2; exit 2; }
  (cd "$rundir" && specinvoke -n "$file") | grep -v '^#' | grep -v '^[[:space:]]*$' |
    while IFS= read -r line; do
      line=${line//"$rundir"/"$dir"}
      if [ -n "$bin" ]; then
        read -r first rest <<<"$line"
        if [ "$first" != cd ] && [ -f "$dir/$(basename "$first")" ] && [ -x "$dir/$(basename "$first")" ]; then
          line="$(printf '%q' "$bin") $rest"
        fi
      fi
      printf '%s\n' "$line"
    done
}

# Runs the workload with binary $1 in directory $2 (RUNDIR or a copy of it).
workload() {
  local bin=$1 dir=$2 script
  script=$(commands speccmds.cmd "$dir" "$bin")
  [ -n "$script" ] || { echo "spec-invoke.sh: specinvoke printed no command for $rundir/speccmds.cmd" >&2; exit 2; }
  (cd "$dir" && bash -e -c "$script")
}

check() {
  local bin=$1 scratch status=0
  scratch=$(mktemp -d)
  cp -a "$rundir/." "$scratch/"
  if ! workload "$bin" "$scratch" >/dev/null 2>&1; then
    echo "spec-invoke.sh: $bin: an invocation of the workload failed" >&2
    status=1
  elif ! (cd "$scratch" && bash -e -c "$(commands compare.cmd "$scratch" "")") >/dev/null 2>&1; then
    echo "spec-invoke.sh: $bin: its output miscompares (specdiff; files kept in $scratch)" >&2
    return 1
  fi
  rm -rf "$scratch"
  return $status
}

case $mode in
  run) workload "$(readlink -f "$target")" "$rundir" ;;
  check) check "$(readlink -f "$target")" ;;
  check-all)
    failed=() checked=0
    for bin in "$target"/baseline/* "$target"/as-built/* "$target"/seed-*/*; do
      # Programs only: not the soname links nor the libraries beside them.
      [ -f "$bin" ] && [ -x "$bin" ] && [ ! -L "$bin" ] || continue
      case $bin in *.so | *.so.*) continue ;; esac
      checked=$((checked + 1))
      check "$(readlink -f "$bin")" || failed+=("$bin")
    done
    [ $checked -gt 0 ] || { echo "spec-invoke.sh: no binary in $target" >&2; exit 2; }
    if [ ${#failed[@]} -gt 0 ]; then
      echo "spec-invoke.sh: ${#failed[@]} of $checked binaries miscompare: ${failed[*]}" >&2
      exit 1
    fi
    echo "spec-invoke.sh: all $checked binaries of $target validate"
    ;;
  *) sed -n '2,8p' "$0" >&2; exit 2 ;;
esac
