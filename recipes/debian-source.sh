#!/usr/bin/env bash
# Fetches a Debian source package into DEST without touching the system's apt setup:
# the machine's own deb822 sources are copied to a private directory with `Types: deb-src`,
# and apt is pointed there (docs/design.md, "Real programs").
#
#   recipes/debian-source.sh [--skip-patches] PACKAGE DEST
#   recipes/debian-source.sh --probe DEST
#
# --probe only checks that the archive's source index can be fetched (exit 0, or 3 when it
# cannot be reached); scripts/test.sh uses it to decide whether the network tests can run.
#
# --skip-patches unpacks the upstream source without Debian's patches (whose build-system
# changes, e.g. libtool or shared-library links, are not what a benchmark wants).
# Prints the unpacked source directory on stdout. Exit 3 when the package archive cannot be
# reached (the tests that need it then fail: they are ignored unless asked for).
set -euo pipefail
usage="usage: debian-source.sh [--skip-patches] PACKAGE DEST | debian-source.sh --probe DEST"
case "${1:-}" in
  -h | --help)
    echo "$usage"
    echo "  --skip-patches  unpack the upstream source without Debian's patches"
    echo "  --probe         only check that the source index can be fetched (exit 0, or 3)"
    echo "Prints the unpacked source directory on stdout."
    exit 0
    ;;
esac
unpack_opts=()
probe=0
if [ "${1:-}" = "--probe" ]; then probe=1; shift; set -- probe "${1:-}"; fi
if [ "${1:-}" = "--skip-patches" ]; then unpack_opts+=(--skip-patches); shift; fi
pkg=${1:?$usage}
dest=${2:?$usage}
command -v dpkg-source >/dev/null || { echo "debian-source.sh: dpkg-source missing (apt-get install dpkg-dev)" >&2; exit 2; }

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
aptdir="$dest/.apt"
mkdir -p "$aptdir/sources" "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
shopt -s nullglob
n=0
for f in /etc/apt/sources.list.d/*.sources; do
  sed 's/^Types:.*/Types: deb-src/' "$f" > "$aptdir/sources/$(basename "$f")"
  n=$((n + 1))
done
if [ -f /etc/apt/sources.list ]; then
  grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > "$aptdir/sources/from-list.list" || true
  [ -s "$aptdir/sources/from-list.list" ] && n=$((n + 1))
fi
[ "$n" -gt 0 ] || { echo "debian-source.sh: no apt sources found under /etc/apt" >&2; exit 2; }

apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$aptdir/sources"
          -o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache"
          -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
if ! apt-get "${apt_opts[@]}" update -qq >"$aptdir/update.log" 2>&1; then
  echo "debian-source.sh: cannot reach the Debian archive (see $aptdir/update.log)" >&2
  exit 3
fi
[ "$probe" = 1 ] && exit 0
cd "$dest"
# download VERSION_SPEC: fetches the source (PACKAGE or PACKAGE=VERSION) into $dest.
download() { apt-get "${apt_opts[@]}" source -qq --download-only "$1" >"$aptdir/source.log" 2>&1; }
if ! download "$pkg"; then
  if grep -qiE 'unable to (find|locate)' "$aptdir/source.log"; then
    cat "$aptdir/source.log" >&2; exit 2
  fi
  # The newest version may live in a pool the mirror does not serve (a security update
  # listed by the index but answered 404): the older versions the index lists are tried.
  fetched=0
  for version in $(apt-cache "${apt_opts[@]}" showsrc "$pkg" 2>/dev/null \
                     | awk '/^Version:/ { print $2 }' | sort -u -r -V | tail -n +2); do
    rm -f "$dest"/*.dsc
    if download "$pkg=$version"; then
      echo "debian-source.sh: the newest $pkg could not be downloaded; using $version" >&2
      fetched=1; break
    fi
  done
  if [ "$fetched" = 0 ]; then
    echo "debian-source.sh: download of $pkg failed (see $aptdir/source.log)" >&2
    exit 3
  fi
fi
dsc=$(ls -1 "$dest"/*.dsc 2>/dev/null | head -n 1)
[ -n "$dsc" ] || { echo "debian-source.sh: no .dsc downloaded for $pkg" >&2; exit 3; }
rm -rf "$dest/src"
dpkg-source --no-check "${unpack_opts[@]}" -x "$dsc" "$dest/src" >/dev/null
echo "$dest/src"
