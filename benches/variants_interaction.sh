#!/usr/bin/env bash
# The seeded simulations of issue 21 at full size (tests/stats/variants_interaction.rs): the
# variant × layout interaction's size (constant 2× speedup, with and without shared block
# drift) and power against an oracle that knows the drift, and the family-wise rate of
# "faster"/"slower" claims and gate trips with three identical variants over 2 000
# experiments (tests/figures, outside the test suite: each experiment computes a Tukey family).
# Prints the counts each test reports.
#
#   bash benches/variants_interaction.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --locked --test figures -- variants_interaction:: \
  three_identical_variants_family_wise_error_at_scale --nocapture \
  --test-threads 1 2>&1 | grep -E "experiments|power|detected|test result"
