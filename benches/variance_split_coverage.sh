#!/bin/sh
# Simulated coverage and bias of the variance split's 95 % share intervals
# (stats::variance_split: code seed × data seed crossed random effects, generalized
# confidence intervals) over six designs, from 5 code × 3 data seeds × 2 executions to
# 20 × 10 × 3, with components at 0 and dominating. Seeded, so the figures are
# reproducible; docs/statistics.md quotes them.
# Usage: benches/variance_split_coverage.sh [experiments per design, default 2000]
set -eu
cd "$(dirname "$0")/.."
SPLIT_EXPERIMENTS="${1:-2000}" exec cargo test --release --locked --test figures \
    variance_split_coverage_figures -- --exact --nocapture
