#!/bin/sh
# Calibration of the sequential rules (analysis::sequential: repeated t intervals over a
# horizon fixed in advance, and Lai's t-mixture confidence sequence) by seeded simulation of
# the three-level design: coverage at every look against peeking at fixed t intervals,
# A == A, a true 3 % speedup, and the mean stopping point for a ± 1.5 % target against fixed
# designs; coverage under skewed and heavier layout shapes; Lai's mixture tuned to the store's
# size against 20 binaries, and stores sized by peeking. Seeded, so the figures are
# reproducible; docs/sequential.md quotes them.
# Usage: benches/sequential.sh [experiments per figure, default 4000]
set -eu
cd "$(dirname "$0")/.."
SEQUENTIAL_EXPERIMENTS="${1:-4000}" exec cargo test --release --locked \
    --test figures sequential_figures -- --exact --nocapture
