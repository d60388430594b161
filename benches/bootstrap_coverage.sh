#!/bin/sh
# Simulated coverage of the studentized bootstrap's 95 % intervals (stats::bootstrap) at
# 3, 4, 5, 10 and 20 binaries: the mean of one series and the ratio of a matched pair under
# normal effects, and the mean under lognormal binary effects next to eq. 4's t interval.
# Seeded, so the figures are reproducible; docs/statistics.md quotes them.
# Usage: benches/bootstrap_coverage.sh [experiments per size, default 10000]
set -eu
cd "$(dirname "$0")/.."
BOOTSTRAP_EXPERIMENTS="${1:-10000}" exec cargo test --release --locked --test figures \
    studentized_bootstrap_coverage_at_5_10_20_binaries -- --exact --nocapture
