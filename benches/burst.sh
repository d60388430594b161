#!/bin/sh
# Issue 36: how often the report calls layouts layout-sensitive when only load bursts differ,
# and how often it finds a 3 % layout effect despite them. Seeded simulation of the rounds
# schedule as `run` plans it (10 binaries x 3 executions x 5 iterations, 1 % execution noise,
# two +20 % bursts of 1-3 consecutive executions per run), against the same analysis on a
# free schedule and the plain F test the report used before. docs/statistics.md quotes the
# figures. Usage: benches/burst.sh [experiments per figure, default 2000]
set -eu
cd "$(dirname "$0")/.."
BURST_EXPERIMENTS="${1:-2000}" exec cargo test --release --locked \
    --test figures burst_rate_figures -- --exact --nocapture
