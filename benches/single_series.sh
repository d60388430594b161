#!/usr/bin/env bash
# Simulated size of the single-series verdicts (docs/statistics.md, "A single program over
# layouts"): a default layout that is one more random layout (its effect drawn like the
# seeds'), no drift; layout effect 2 %, executions 1 %, iterations 0.5 %, 3 executions × 2
# iterations per binary. Prints, per number of binaries, how often the default layout is
# called unusual (prediction interval), how often the shift from the mean over layouts is
# detected (true of any single layout), and how often drift is claimed.
# Usage: bash benches/single_series.sh [runs] [binaries...]   (default: 4000 runs; 5 10 20)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-4000}
shift || true
binaries=${*:-5 10 20}
for b in $binaries; do
  LAYOUTRAND_SIM_RUNS=$runs LAYOUTRAND_SIM_BINARIES=$b \
    cargo test --release --quiet --test report \
      analysis::an_ordinary_default_layout_is_called_unusual -- --nocapture 2>&1 |
    grep '^ordinary default'
done
