#!/usr/bin/env bash
# Benchmark (not a test) of the shim's overhead on a plain build: the cost `layoutrand build`
# adds to the user's own build while it records it (the issue's target: <= 2 % CPU time).
#
#   benches/shim_overhead.sh        # REPS=6 JOBS=2 CALLS=200 by default
#
# Two measurements, because on a shared 2-core VM the CPU time of one whole build of ninja
# drifts by 10-30 % within minutes, far more than the overhead sought:
#   per call   CALLS compiles of an empty C++ file, direct and through the shim (recording,
#              so the shim classifies the call, logs it and adds -ffunction-sections), in
#              alternating blocks of 20; the difference of the median CPU times is the shim's
#              own cost per call. Times the number of calls the ninja build makes through the
#              shim (its seen.log), divided by the plain build's CPU time: the overhead the
#              shim itself adds.
#   whole      REPS rounds of ninja's build (benches/ninja.mk, no LTO) in ABBA order (plain,
#              shim, shim, plain), so a linear drift cancels within each round; the median and
#              range of the per-round ratios shim/plain of CPU time (user + system). This also
#              holds what -ffunction-sections changes in the compiles and the link.
#
# Measured 2026-11-23 on a 2-core VM (gcc 12), load about 2: two runs gave +2.78 ms and
# +0.40 ms per call; ninja's build makes 30 calls through the shim, so +0.24 % and +0.03 %
# of its 34-35 s of CPU. Whole builds, 6 ABBA rounds: median ratio 1.003 (rounds 0.940 to
# 1.065; the plain build's CPU time ranged 30.4-39.4 s), i.e. no overhead within the noise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
reps=${REPS:-6}
calls=${CALLS:-200}
. "$root/benches/build_common.sh"
ninja_source || exit 3
make_shims

# Per call: CPU seconds of 20 compiles of an empty file, direct or through the shim.
printf 'int f() { return 0; }\n' > "$work/empty.cc"
block() {
  local TIMEFORMAT='%U %S'
  { time (
      for _ in $(seq 20); do
        if [ "$1" = shim ]; then
          PATH="$shims:$PATH" LAYOUTRAND_REAL_PATH="$PATH" LAYOUTRAND_SHIM_DIR="$shims" \
            LAYOUTRAND_RECORD_DIR="$work/call-record" g++ -O2 -c "$work/empty.cc" -o "$work/empty.o"
        else
          g++ -O2 -c "$work/empty.cc" -o "$work/empty.o"
        fi
      done
    ); } 2>&1 | awk '{ print ($1 + $2) / 20 }'
}
mkdir -p "$work/call-record"
: > "$work/direct.call"
: > "$work/shim.call"
for _ in $(seq $((calls / 20))); do
  block direct >> "$work/direct.call"
  block shim >> "$work/shim.call"
done
direct_call=$(median < "$work/direct.call")
shim_call=$(median < "$work/shim.call")
per_call=$(calc "$shim_call - $direct_call")

# Whole builds, ABBA.
run_plain() { make -s -j"$jobs" LTO=0; }
run_shim() { shim_make LTO=0; }
: > "$work/plain.times"; : > "$work/plain.cpus"; : > "$work/shim.times"; : > "$work/shim.cpus"
for _ in $(seq "$reps"); do
  one_run plain run_plain
  one_run shim run_shim
  one_run shim run_shim
  one_run plain run_plain
done
build_calls=$(grep -c . "$work/record/seen.log")
plain_cpu=$(median < "$work/plain.cpus")
paste -d' ' <(paste -d' ' - - < "$work/plain.cpus") <(paste -d' ' - - < "$work/shim.cpus") \
  | awk '{ print ($3 + $4) / ($1 + $2) }' > "$work/ratios"

printf 'ninja %s, make -j%s, load %s\n' \
  "$(sed -n 's/.*kNinjaVersion = "\(.*\)".*/\1/p' src/version.cc)" "$jobs" "$(cut -d' ' -f1 /proc/loadavg)"
printf '  per call (median of %s blocks of 20): direct %.2f ms CPU, through the shim %.2f ms: +%.2f ms\n' \
  "$((calls / 20))" "$(calc "$direct_call * 1000")" "$(calc "$shim_call * 1000")" "$(calc "$per_call * 1000")"
printf '  the build: %s calls through the shim x %.2f ms = %.3f s CPU of %.2f s (plain, median): +%.2f %% (target <= 2 %%)\n' \
  "$build_calls" "$(calc "$per_call * 1000")" "$(calc "$build_calls * $per_call")" "$plain_cpu" \
  "$(calc "100 * $build_calls * $per_call / $plain_cpu")"
printf '  whole builds, %s ABBA rounds: shim/plain CPU ratio median %.3f (rounds %s; plain CPU %s s)\n' \
  "$reps" "$(median < "$work/ratios")" "$(sort -g "$work/ratios" | awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $1 }')" \
  "$(sort -g "$work/plain.cpus" | awk '{ printf "%s%.1f", (NR > 1 ? "/" : ""), $1 }')"
