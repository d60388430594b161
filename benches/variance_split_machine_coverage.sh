#!/bin/sh
# Simulated coverage and bias of the variance split's 95 % share intervals with the machine
# as a component (stats::variance_split_by_machine: code seed × data seed crossed, machine
# additive, generalized confidence intervals): 6 code × 4 data seeds × 4 machines × 2
# executions, the same with 2 machines, and with no machine effect. Seeded, so the figures
# are reproducible; docs/statistics.md quotes them.
# Usage: benches/variance_split_machine_coverage.sh [experiments per design, default 2000]
set -eu
cd "$(dirname "$0")/.."
SPLIT_EXPERIMENTS="${1:-2000}" exec cargo test --release --locked --test figures \
    variance_split_machine_coverage_figures -- --exact --nocapture
