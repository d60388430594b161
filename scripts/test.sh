#!/usr/bin/env bash
# The test command: set up the machine, then run the whole test suite.
#
# Tests that need the network (Debian's archive, for the real-program recipes) or root (a
# tmpfs mount) are #[ignore]d by default, each with its reason, and fail when run without
# what they need. LAYOUTRAND_TEST_ALL=1 opts in to them (.ci/run sets it: CI has both).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "${LAYOUTRAND_TEST_ALL:-}" = 1 ]; then
  cargo test --release --locked --no-fail-fast "$@" -- --include-ignored
else
  cargo test --release --locked --no-fail-fast "$@"
fi
