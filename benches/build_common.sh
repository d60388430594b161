# Sourced by the build benches after setting $root: sets their common parameters, builds
# layoutrand ($bin), makes a scratch directory ($work, removed on exit) and defines the
# sources, timing helpers and shim set-up, so that every build bench measures the same way.
# Parameters: REPS rounds (3, or the $reps a bench set before), JOBS (2), SEEDS (30);
# CARGO_TARGET_DIR, when set, is where cargo builds (and $bin is found), as for cargo itself.
reps=${reps:-${REPS:-3}}
jobs=${JOBS:-2}
seeds=${SEEDS:-30}
(cd "$root" && cargo build --release --quiet)
target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir="$root/$target_dir" ;; esac
bin="$target_dir/release/layoutrand"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# debian_source [--skip-patches] PACKAGE: recipes/debian-source.sh into $work/fetch; prints
# the source directory, or says why not and fails with 3 (no network).
debian_source() {
  bash "$root/recipes/debian-source.sh" "$@" "$work/fetch" \
    || { echo "$(basename "$0"): cannot fetch ${*: -1} (offline?)" >&2; return 3; }
}
# ninja_source: Debian's ninja-build with benches/ninja.mk as its Makefile; changes into it.
ninja_source() {
  local src
  src=$(debian_source --skip-patches ninja-build) || return 3
  cd "$src"
  cp "$root/benches/ninja.mk" Makefile
}
now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# one_run LABEL COMMAND...: `make -s clean`, then COMMAND once; appends its wall time to
# $work/LABEL.times and its CPU time (user + system of all children) to $work/LABEL.cpus.
one_run() {
  local label=$1; shift
  make -s clean >/dev/null
  local t0; t0=$(now)
  # bash's `time` (not /usr/bin/time): it also times shell functions such as shim_make.
  local TIMEFORMAT='%U %S'
  { time "$@" >/dev/null 2>"$work/$label.err"; } 2>"$work/$label.time1" \
    || { cat "$work/$label.err" >&2; exit 1; }
  awk -v a="$(now)" -v b="$t0" 'BEGIN { print a - b }' >> "$work/$label.times"
  awk '{ print $1 + $2 }' "$work/$label.time1" >> "$work/$label.cpus"
}
# interleave LABEL...: $reps rounds, each running the shell function run_LABEL of every
# label in turn, so that a load that drifts during the bench hits every label alike (the
# labels' runs alternate instead of following each other). Leaves the median wall time in
# $work/LABEL.wall and the median CPU time in $work/LABEL.cpu.
interleave() {
  local label
  for label in "$@"; do : > "$work/$label.times"; : > "$work/$label.cpus"; done
  for _ in $(seq "$reps"); do
    for label in "$@"; do one_run "$label" "run_$label"; done
  done
  for label in "$@"; do
    median < "$work/$label.times" > "$work/$label.wall"
    median < "$work/$label.cpus" > "$work/$label.cpu"
  done
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
# relink_seconds OUT: the relinks' wall time (baseline + seeds) from OUT's manifest.
relink_seconds() {
  python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["relink_seconds"], 2))' "$1/manifest.json"
}
# time_line OUT: the last build's time line from OUT's manifest: whole build, recorded build,
# relinks, and the other steps (the rest).
time_line() {
  python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
t, r, l = m.get("total_seconds"), m["recorded_build_seconds"], m["relink_seconds"]
print("whole %s s = recorded build %.2f s + relinks %.2f s + other steps %s s" % (
    "?" if t is None else "%.2f" % t, r, l, "?" if t is None else "%.2f" % (t - r - l)))' "$1/manifest.json"
}
# round_ratio LABEL BASE KIND: the median over the rounds of LABEL's time over BASE's in the
# same round (KIND times: wall, cpus: CPU). Paired by round, it cancels a load that drifts
# between rounds, which the ratio of the two medians does not.
round_ratio() {
  paste "$work/$1.$3" "$work/$2.$3" | awk '{ print $1 / $2 }' | median
}
# row LABEL BASE TARGET TEXT: the median wall and CPU time of LABEL and, unless LABEL is BASE,
# their ratios to BASE's: of the medians, and per round (round_ratio), with "(target <=
# TARGET)" when TARGET is not empty.
row() {
  printf '  %-42s %7.2f s wall %7.2f s CPU' "$4" "$(cat "$work/$1.wall")" "$(cat "$work/$1.cpu")"
  if [ "$1" != "$2" ]; then
    printf '   ratio %.3f wall %.3f CPU' "$(calc "$(cat "$work/$1.wall")/$(cat "$work/$2.wall")")" \
      "$(calc "$(cat "$work/$1.cpu")/$(cat "$work/$2.cpu")")"
    printf ', per round %.3f / %.3f' "$(round_ratio "$1" "$2" times)" "$(round_ratio "$1" "$2" cpus)"
    [ -n "$3" ] && printf ' (target <= %s)' "$3"
  fi
  printf '\n'
}
