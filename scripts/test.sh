#!/usr/bin/env bash
# The test command: set up the machine, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --release --locked "$@"
