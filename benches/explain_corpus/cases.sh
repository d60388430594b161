#!/usr/bin/env bash
# The explain corpus (issue 49): real layout flips of Debian programs under cachegrind with a
# small simulated I1, their truth from per-function counts, and explain's answer on each.
# A bench script, not a test: it fetches sources from Debian's archive and takes long.
#
#   benches/explain_corpus/cases.sh --list          # the cases
#   benches/explain_corpus/cases.sh [CASE...]       # run these cases (all when none)
#   python3 benches/explain_corpus/score.py RESULTS # the score table
#
# Environment: WORK (work directory, default /tmp/explain-corpus: sources, builds, stores),
# RESULTS (truth, answers and timings per case, default $WORK/results), SEEDS (20),
# JOBS (run --jobs, default 2), CONFIRM=1 (also `explain --confirm`), LAYOUTRAND (default:
# this checkout's target/release/layoutrand, built when missing), REBUILD=1 (build again),
# STAGES (default "run truth explain confirm"; e.g. STAGES="truth" recomputes the truth of
# cases already run, STAGES="explain confirm" explains them again with another layoutrand).
#
# Per program (once): fetch the pinned Debian source (recipes/debian-source.sh
# --skip-patches), configure, `layoutrand build --seeds $SEEDS` of the recorded make, and the
# input: the first 300 KiB of the package's own C sources, concatenated (plus its compressed
# form for decompression cases). Per case: a copy of the program's build directory, one
# `layoutrand run --executions 1 --env-pad 0 --metric cachegrind --cache-sim MODEL`, the truth
# (truth.py: the 3 fastest and 3 slowest binaries rerun under valgrind, per-function I1mr),
# `layoutrand explain --metric I1_misses --format json` (and with --confirm when asked),
# and the wall times of run and explain (timing.json).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
WORK=${WORK:-/tmp/explain-corpus}
RESULTS=${RESULTS:-$WORK/results}
SEEDS=${SEEDS:-20}
JOBS=${JOBS:-2}
CONFIRM=${CONFIRM:-0}
if [ -z "${LAYOUTRAND:-}" ]; then
  LAYOUTRAND=$root/target/release/layoutrand
  [ -x "$LAYOUTRAND" ] || (cd "$root" && cargo build --release --locked --quiet)
fi
export LAYOUTRAND
L=$LAYOUTRAND
mkdir -p "$WORK" "$RESULTS"
now() { date +%s.%N; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# Debian 12 (bookworm) versions, pinned: the security archive's newer ones are not always
# fetchable through the private apt setup, and the corpus must stay the same programs.
declare -A VERSION=(
  [gzip]=1.12-1 [bzip2]=1.0.8-5 [xz-utils]=5.4.1-1+deb12u2 [libzstd]=1.5.4+dfsg2-5
  [brotli]=1.0.9-2 [lua5.4]=5.4.4-3+deb12u1 [sqlite3]=3.40.1-2+deb12u2
)
declare -A PKG=([gzip]=gzip [bzip2]=bzip2 [xz]=xz-utils [zstd]=libzstd [brotli]=brotli [lua]=lua5.4 [sqlite3]=sqlite3)

fetch() { # fetch PROG: the unpacked source in $WORK/src/PROG/src
  local prog=$1 pkg=${PKG[$1]}
  local dest=$WORK/src/$prog
  [ -d "$dest/src" ] && return 0
  log "fetching $pkg=${VERSION[$pkg]}"
  "$root/recipes/debian-source.sh" --skip-patches "$pkg=${VERSION[$pkg]}" "$dest" >/dev/null \
    || "$root/recipes/debian-source.sh" --skip-patches "$pkg" "$dest" >/dev/null
}

configure() { # configure PROG: what precedes the recorded build
  local prog=$1 src=$WORK/src/$1/src
  case $prog in
    gzip) (cd "$src" && ./configure -q >/dev/null) ;;
    xz) (cd "$src" && ./configure -q --disable-shared --disable-nls --disable-doc \
          --disable-scripts --disable-xzdec --disable-lzmadec --disable-lzmainfo \
          --disable-lzma-links >/dev/null) ;;
    # the amalgamation (generated with tclsh and lemon) is made before the recorded build,
    # which then compiles and links shell.c and sqlite3.c only
    sqlite3) (cd "$src" && ./configure -q --disable-shared --disable-tcl --disable-readline \
          --disable-editline >/dev/null && make -j2 sqlite3.c >/dev/null) ;;
    *) ;;
  esac
}

build_cmd() { # the recorded build's command line, as the recipes (docs/build.md)
  case $1 in
    gzip) echo "make -j2" ;;
    bzip2) echo "make -j2 libbz2.a bzip2" ;;
    xz) echo "make -j2" ;;
    zstd) echo "make -j2 -C programs zstd-release" ;;
    brotli) echo "make -j2 brotli" ;;
    lua) echo "make -j2 linux" ;;
    sqlite3) echo "make -j2 sqlite3" ;;
  esac
}

prepare() { # prepare PROG: source, build with $SEEDS seeds, inputs
  local prog=$1 dir=$WORK/$1
  if [ -f "$dir/out/manifest.json" ] && [ "${REBUILD:-0}" != 1 ]; then return 0; fi
  fetch "$prog"
  local src=$WORK/src/$prog/src
  mkdir -p "$dir"
  rm -rf "$dir/out"
  (cd "$src" && { make clean >/dev/null 2>&1 || true; })
  configure "$prog"
  log "building $prog with $SEEDS seeds: $(build_cmd "$prog")"
  local t0; t0=$(now)
  # shellcheck disable=SC2046
  (cd "$src" && "$L" build -q --seeds "$SEEDS" --out "$dir/out" -- $(build_cmd "$prog")) \
    >"$dir/build.log" 2>&1 || { tail -n 20 "$dir/build.log" >&2; return 1; }
  awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f\n", b - a }' >"$dir/build.seconds"
  (cd "$src" && find . -name '*.[ch]' -not -path './debian/*' | LC_ALL=C sort | xargs cat) \
    2>/dev/null | head -c 307200 >"$dir/input.txt" || true
  local b=$dir/out/baseline
  case $prog in
    gzip) "$b/gzip" -c -6 "$dir/input.txt" >"$dir/input.txt.gz" ;;
    bzip2) "$b/bzip2" -c -9 "$dir/input.txt" >"$dir/input.txt.bz2" ;;
    xz) "$b/xz" -c -6 "$dir/input.txt" >"$dir/input.txt.xz" ;;
    zstd) "$b/zstd" -q -c -9 "$dir/input.txt" >"$dir/input.txt.zst" ;;
    brotli) "$b/brotli" -c -q 9 "$dir/input.txt" >"$dir/input.txt.br" ;;
    lua) cp "$root/recipes/lua/bench.lua" "$here/strings.lua" "$dir/" ;;
    sqlite3) cp "$here/work.sql" "$dir/" ;;
  esac
}

# The cases: NAME PROGRAM I1-MODEL ARGS... ({in} is the program's input.txt, {dir} its folder).
# The 4 KiB 2-way I1 makes layouts flip; the 64 KiB 8-way cases are the explicit nulls.
CASES=(
  "gzip-6|gzip|I1=4096,2,64|-c -6 {in}"
  "gzip-9|gzip|I1=4096,2,64|-c -9 {in}"
  "gzip-1|gzip|I1=4096,2,64|-c -1 {in}"
  "gzip-6-8k|gzip|I1=8192,2,64|-c -6 {in}"
  "gzip-d|gzip|I1=4096,2,64|-d -c {in}.gz"
  "bzip2-9|bzip2|I1=4096,2,64|-c -9 {in}"
  "bzip2-1|bzip2|I1=4096,2,64|-c -1 {in}"
  "bzip2-9-8k|bzip2|I1=8192,2,64|-c -9 {in}"
  "bzip2-d|bzip2|I1=4096,2,64|-d -c {in}.bz2"
  "xz-6|xz|I1=4096,2,64|-c -T1 -6 {in}"
  "xz-1|xz|I1=4096,2,64|-c -T1 -1 {in}"
  "xz-6-8k|xz|I1=8192,2,64|-c -T1 -6 {in}"
  "xz-d|xz|I1=4096,2,64|-d -c {in}.xz"
  "zstd-3|zstd|I1=4096,2,64|-q --single-thread -c -3 {in}"
  "zstd-9|zstd|I1=4096,2,64|-q --single-thread -c -9 {in}"
  "zstd-6|zstd|I1=4096,2,64|-q --single-thread -c -6 {in}"
  "zstd-1|zstd|I1=4096,2,64|-q --single-thread -c -1 {in}"
  "zstd-d|zstd|I1=4096,2,64|-q -d -c {in}.zst"
  "brotli-5|brotli|I1=4096,2,64|-c -q 5 {in}"
  "brotli-7|brotli|I1=4096,2,64|-c -q 7 {in}"
  "brotli-9|brotli|I1=4096,2,64|-c -q 9 {in}"
  "brotli-d|brotli|I1=4096,2,64|-d -c {in}.br"
  "lua-bench|lua|I1=4096,2,64|{dir}/bench.lua 1 2"
  "lua-bench-8k|lua|I1=8192,2,64|{dir}/bench.lua 1 2"
  "lua-strings|lua|I1=4096,2,64|{dir}/strings.lua"
  "sqlite3-work|sqlite3|I1=4096,2,64|-batch -init {dir}/work.sql :memory:"
  "sqlite3-work-8k|sqlite3|I1=8192,2,64|-batch -init {dir}/work.sql :memory:"
  "null-gzip-6|gzip|I1=65536,8,64|-c -6 {in}"
  "null-bzip2-9|bzip2|I1=65536,8,64|-c -9 {in}"
  "null-zstd-3|zstd|I1=65536,8,64|-q --single-thread -c -3 {in}"
  "null-lua-bench|lua|I1=65536,8,64|{dir}/bench.lua 1 2"
  "null-gzip-d|gzip|I1=65536,8,64|-d -c {in}.gz"
  "null-bzip2-d|bzip2|I1=65536,8,64|-d -c {in}.bz2"
  "null-xz-6|xz|I1=65536,8,64|-c -T1 -6 {in}"
  "null-brotli-7|brotli|I1=65536,8,64|-c -q 7 {in}"
  "null-lua-strings|lua|I1=65536,8,64|{dir}/strings.lua"
  "null-sqlite3-work|sqlite3|I1=65536,8,64|-batch -init {dir}/work.sql :memory:"
)

STAGES=${STAGES:-run truth explain confirm}
has_stage() { case " $STAGES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
old_timing() { # old_timing RES KEY: KEY of RES/timing.json ("null" when missing)
  python3 -c 'import json,sys
try: v = json.load(open(sys.argv[1] + "/timing.json")).get(sys.argv[2])
except Exception: v = None
print("null" if v is None else v)' "$1" "$2"
}

run_case() { # run_case "NAME|PROG|MODEL|ARGS"
  local name prog model args
  IFS='|' read -r name prog model args <<<"$1"
  prepare "$prog"
  local dir=$WORK/$prog res=$RESULTS/$name cdir=$WORK/cases/$name
  args=${args//\{in\}/$dir/input.txt}
  args=${args//\{dir\}/$dir}
  # shellcheck disable=SC2206
  local argv=($args)
  local t0 run_s=null explain_s=null confirm_s=null
  if has_stage run; then
    rm -rf "$cdir" "$res"
    mkdir -p "$cdir" "$res"
    cp -a "$dir/out" "$cdir/out"
    log "$name: run ($prog ${argv[*]}, $model)"
    t0=$(now)
    (cd "$dir" && "$L" run --out "$cdir/out" --executions 1 --env-pad 0 --jobs "$JOBS" \
       --schedule-seed 1 --metric cachegrind --cache-sim "$model" --timeout 600 \
       -- "{bin:$prog}" "${argv[@]}") >"$cdir/run.log" 2>&1 \
       || { tail -n 20 "$cdir/run.log" >&2; return 1; }
    run_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
  else
    [ -f "$cdir/out/results.jsonl" ] || { log "$name: no run in $cdir (STAGES has no run)"; return 1; }
    mkdir -p "$res"
    run_s=$(old_timing "$res" run_s)
  fi
  if has_stage truth; then
    log "$name: truth"
    (cd "$dir" && python3 "$here/truth.py" --layoutrand "$L" --out "$cdir/out" --program "$prog" \
       --cache-sim "$model" --dest "$res/truth.json" -- "{bin}" "${argv[@]}") >&2
    rm -rf "$res/cg"
  fi
  if has_stage explain; then
    log "$name: explain"
    t0=$(now)
    "$L" explain "$cdir/out" --metric I1_misses --format json -o "$res/answer.json" \
      >"$cdir/explain.log" 2>&1 || { tail -n 20 "$cdir/explain.log" >&2; return 1; }
    explain_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
  else
    explain_s=$(old_timing "$res" explain_s)
  fi
  if [ "$CONFIRM" = 1 ] && has_stage confirm; then
    log "$name: explain --confirm"
    t0=$(now)
    "$L" explain "$cdir/out" --metric I1_misses --confirm --format json \
      -o "$res/answer-confirm.json" >"$cdir/confirm.log" 2>&1 \
      || { tail -n 20 "$cdir/confirm.log" >&2; return 1; }
    confirm_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
  else
    confirm_s=$(old_timing "$res" confirm_s)
  fi
  python3 - "$res/timing.json" "$name" "$prog" "$model" "$run_s" "$explain_s" "$confirm_s" \
    "$(cut -d' ' -f1 /proc/loadavg)" "${argv[@]}" <<'EOF'
import json, sys
dest, name, prog, model, run_s, explain_s, confirm_s, load, *argv = sys.argv[1:]
num = lambda x: None if x in ("null", "None", "") else float(x)
json.dump({"case": name, "program": prog, "model": model, "command": [prog] + argv,
           "run_s": num(run_s), "explain_s": num(explain_s), "confirm_s": num(confirm_s),
           "load_after": float(load)}, open(dest, "w"), indent=1)
EOF
  log "$name: run ${run_s}s, explain ${explain_s}s, confirm ${confirm_s}"
}

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${CASES[@]}" | tr '|' '\t'
  exit 0
fi
selected=("$@")
failed=0
for c in "${CASES[@]}"; do
  name=${c%%|*}
  if [ ${#selected[@]} -gt 0 ]; then
    hit=0
    for s in "${selected[@]}"; do [ "$s" = "$name" ] && hit=1; done
    [ $hit = 1 ] || continue
  fi
  run_case "$c" || { log "$name: FAILED"; failed=$((failed + 1)); }
done
[ $failed = 0 ] || { log "$failed case(s) failed"; exit 1; }
