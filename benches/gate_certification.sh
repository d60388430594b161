#!/bin/sh
# Certification of the CI gate (`compare --fail-if-slower`, issue 51): its false-alert rate
# over simulated A/A comparisons of byte-identical builds (same seeds, same layouts; run noise
# with bursts, drift, a bimodal slow mode and lumpy layout effects) and its power at a true
# 2 % slowdown, at thresholds 0, 0.5 and 1 % and several designs (seeds x executions), with
# and without a confirmation round, each with exact Clopper-Pearson 95 % intervals. Runs the
# release binary on seeded simulated CSV files, so the figures are reproducible; about 7
# minutes on 2 cores. Needs python3 with numpy and scipy.
# Usage: benches/gate_certification.sh [options of benches/gate_certification.py, e.g. --aa 1000]
#   e.g. benches/gate_certification.sh --designs 30x5 --full 30x5 --aa 3000 --power 2000
#   (one design with more comparisons, about 2.5 minutes)
set -eu
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
target="${CARGO_TARGET_DIR:-target}"
exec python3 benches/gate_certification.py --layoutrand "$target/release/layoutrand" "$@"
