#!/usr/bin/env bash
# Benchmark (not a test) of `layoutrand build` on a real program of Lua's size.
#
#   benches/build_lua.sh            # REPS=3 JOBS=2 SEEDS=30 by default
#
# Lua 5.4 comes from Debian's source package (recipes/debian-source.sh). Debian's own
# Makefile needs libtool and builds everything twice (C and C++), so the bench builds the
# same 33 C files with a plain, upstream-style Makefile: liblua.a (ar) + lua + luac.
#
# It prints the median wall time of, each after `make clean`:
#   plain      make -jJOBS
#   shim       make -jJOBS with the shim first on PATH, recording (no relinks)
#   seeds0     layoutrand build --seeds 0  (recording + baseline relink + verification)
#   seedsN     layoutrand build --seeds N  (the default granularity, module)
#   padded     layoutrand build --seeds N --pad PAD  (PAD=256 by default; PAD=0 skips it)
# and the ratios the issue sets targets for: seedsN / plain <= 1.5, shim / plain <= 1.05.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
reps=${REPS:-3}
jobs=${JOBS:-2}
seeds=${SEEDS:-30}
pad=${PAD:-256}
. "$root/benches/build_common.sh"
src=$(debian_source lua5.4) || exit 3
lua="$work/lua"
mkdir -p "$lua"
cp "$src"/src/*.c "$src"/src/*.h "$lua"/
cd "$lua"
# Debian's patched luaconf.h includes a header its debian/rules generates.
echo "#define DEB_HOST_MULTIARCH \"$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)\"" \
  > lua5.4-deb-multiarch.h
cat > Makefile <<'MK'
CFLAGS ?= -O2 -Wall -DLUA_COMPAT_5_3 -DLUA_USE_LINUX
CORE = lapi.o lcode.o lctype.o ldebug.o ldo.o ldump.o lfunc.o lgc.o llex.o lmem.o lobject.o \
       lopcodes.o lparser.o lstate.o lstring.o ltable.o ltm.o lundump.o lvm.o lzio.o
LIB = lauxlib.o lbaselib.o lcorolib.o ldblib.o liolib.o lmathlib.o loadlib.o loslib.o \
      lstrlib.o ltablib.o lutf8lib.o linit.o
all: lua luac
liblua.a: $(CORE) $(LIB)
	ar rcs $@ $^
lua: lua.o liblua.a
	$(CC) $(CFLAGS) -o $@ lua.o liblua.a -lm -ldl -Wl,-E
luac: luac.o liblua.a
	$(CC) $(CFLAGS) -o $@ luac.o liblua.a -lm -ldl
%.o: %.c
	$(CC) $(CFLAGS) -c $< -o $@
clean:
	rm -f lua luac liblua.a *.o
MK

make_shims

plain=$(measure plain make -s -j"$jobs")
shim=$(measure shim shim_make)
zero=$(measure seeds0 "$bin" build -q --seeds 0 --out "$work/out0" -- make -s -j"$jobs")
many=$(measure seedsN "$bin" build -q --seeds "$seeds" --out "$work/outN" -- make -s -j"$jobs")
test -x "$work/outN/seed-$seeds/lua"
if [ "$pad" != 0 ]; then
  padded=$(measure padded "$bin" build -q --seeds "$seeds" --pad "$pad" --out "$work/outP" -- make -s -j"$jobs")
  test -x "$work/outP/seed-$seeds/lua"
fi
# The relinks alone (baseline + seeds, wall), from the manifests of the last runs.

printf 'lua 5.4 (%s objects, 2 programs), make -j%s, median of %s runs\n' \
  "$(ls "$lua"/*.o 2>/dev/null | wc -l)" "$jobs" "$reps"
printf '  plain build                  %8.2f s\n' "$plain"
printf '  under the shim (recording)   %8.2f s   overhead %+.1f %%\n' "$shim" "$(calc "100*($shim/$plain-1)")"
printf '  build --seeds 0              %8.2f s   ratio %.2f\n' "$zero" "$(calc "$zero/$plain")"
printf '  build --seeds %-3s            %8.2f s   ratio %.2f (target <= 1.5)\n' "$seeds" "$many" "$(calc "$many/$plain")"
if [ "$pad" != 0 ]; then
  printf '  build --seeds %-3s --pad %-4s %8.2f s   ratio %.2f\n' "$seeds" "$pad" "$padded" "$(calc "$padded/$plain")"
  rn=$(relink_seconds "$work/outN"); rp=$(relink_seconds "$work/outP")
  printf '  relinks (last run): %.2f s without --pad, %.2f s with --pad %s (ratio %.2f)\n' "$rn" "$rp" "$pad" "$(calc "$rp/$rn")"
fi
