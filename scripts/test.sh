#!/usr/bin/env bash
# The test command: set up the machine, then run the whole test suite.
#
# Tests that need the network (Debian's archive, for the real-program recipes) or root (a
# tmpfs mount) are #[ignore]d by default, each with its reason. The rate-establishing
# simulations (minutes each) are not tests of the suite: tests/figures, run by benches/.
# They run when the machine can run them: as root with the archive reachable (checked
# here), or when LAYOUTRAND_TEST_ALL=1 asks for them (.ci/run sets it: CI has both; they then
# fail, rather than pass silently, where the machine lacks what they need).
# LAYOUTRAND_TEST_ALL=0 leaves them out whatever the machine can do.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
all=${LAYOUTRAND_TEST_ALL:-}
if [ -z "$all" ]; then
  probe_dir=$(mktemp -d)
  if [ "$(id -u)" != 0 ]; then
    echo "test.sh: not root: the root and network tests stay ignored (LAYOUTRAND_TEST_ALL=1 runs them)" >&2
    all=0
  elif ! bash recipes/debian-source.sh --probe "$probe_dir" 2>/dev/null; then
    echo "test.sh: Debian's archive is not reachable: the root and network tests stay ignored" >&2
    all=0
  else
    echo "test.sh: root with Debian's archive reachable: the ignored tests run too" >&2
    all=1
  fi
  rm -rf "$probe_dir"
fi
cargo_test=(cargo test --release --locked --workspace --no-fail-fast)
harness=()
[ "$all" = 1 ] && harness=(--include-ignored)
if [ $# -gt 0 ]; then
  # A chosen part of the suite (e.g. `--test report`): as asked, in one cargo run.
  exec "${cargo_test[@]}" "$@" -- "${harness[@]}"
fi
# The whole suite. Build every test once, then run tests/build (real programs built with
# make -j2, the longest crate) beside all the others: each crate alone leaves a core idle
# for part of its run (a long test at its end), and on a 2-core machine the two streams
# fill those gaps. Its output follows the others', whole.
"${cargo_test[@]}" --no-run
mkdir -p target
build_log=target/test-build-crate.txt
"${cargo_test[@]}" --test build -- "${harness[@]}" >"$build_log" 2>&1 &
build_crate=$!
others=(--lib --bins)
for crate in tests/*/main.rs; do
  name=$(basename "$(dirname "$crate")")
  # tests/figures has `test = false` (benches/ runs it); tests/build runs beside.
  case $name in build | figures) continue ;; esac
  others+=(--test "$name")
done
status=0
"${cargo_test[@]}" "${others[@]}" -- "${harness[@]}" || status=$?
"${cargo_test[@]}" --doc || status=$?
wait "$build_crate" || status=$?
cat "$build_log"
exit "$status"
