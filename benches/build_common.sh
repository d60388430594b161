# Sourced by the build benches: timing helpers and the shim set-up, so that every build
# bench measures the same way. Needs $bin (the layoutrand executable), $work, $reps, $jobs.
now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# measure LABEL COMMAND...: runs `make -s clean` then COMMAND, $reps times; prints the median
# wall time and leaves the median CPU time (user + system of all children) in $work/LABEL.cpu.
measure() {
  local label=$1; shift
  : > "$work/$label.times"
  : > "$work/$label.cpus"
  for _ in $(seq "$reps"); do
    make -s clean >/dev/null
    local t0; t0=$(now)
    # bash's `time` (not /usr/bin/time): it also times shell functions such as shim_make.
    local TIMEFORMAT='%U %S'
    { time "$@" >/dev/null 2>"$work/$label.err"; } 2>"$work/$label.time1" \
      || { cat "$work/$label.err" >&2; exit 1; }
    awk -v a="$(now)" -v b="$t0" 'BEGIN { print a - b }' >> "$work/$label.times"
    awk '{ print $1 + $2 }' "$work/$label.time1" >> "$work/$label.cpus"
  done
  median < "$work/$label.cpus" > "$work/$label.cpu"
  median < "$work/$label.times"
}
# The shim directory: every wrapped tool name linked to layoutrand.
make_shims() {
  shims="$work/shims"
  mkdir -p "$shims"
  for n in cc gcc g++ c++ clang clang++ ld ld.bfd ld.gold ld.lld ld.mold ar; do ln -sf "$bin" "$shims/$n"; done
}
# shim_make ARGS...: make under the shim, recording (no relinks).
shim_make() {
  rm -rf "$work/record"
  PATH="$shims:$PATH" LAYOUTRAND_REAL_PATH="$PATH" LAYOUTRAND_SHIM_DIR="$shims" \
    LAYOUTRAND_RECORD_DIR="$work/record" make -s -j"$jobs" "$@"
}
