#!/usr/bin/env bash
# The demo: builds the bundled program (fixtures/demo) with 10 randomised layouts, runs the
# three-level experiment and prints the report. Everything lands in target/demo/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup.sh
cargo build --release --locked --quiet
work="$root/target/demo"
rm -rf "$work"
mkdir -p "$work/src"
cp fixtures/demo/Makefile fixtures/demo/*.c fixtures/demo/*.h "$work/src/"
cd "$work/src"
"$root/target/release/layoutrand" experiment "$root/fixtures/demo/experiment.toml" --out "$work/out" "$@"
echo
echo "demo: HTML report at $work/out/report.html"
