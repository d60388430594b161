#!/usr/bin/env bash
# Installs layoutrand for the current user: the binary (cargo install, with Cargo.lock's
# tested dependency versions), its man pages and its shell completions, the last two made by
# the binary itself from its command-line definitions (`layoutrand generate`).
#
#   bash scripts/install.sh            # binary in ~/.cargo/bin, the rest under ~/.local
#   PREFIX=/usr/local bash scripts/install.sh   # binary in /usr/local/bin, the rest under /usr/local
#
# Without PREFIX the binary goes where cargo install puts it (CARGO_INSTALL_ROOT, else
# CARGO_HOME, else ~/.cargo), the rest under ~/.local.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${PREFIX:-$HOME/.local}
root=${PREFIX:-${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}}
cargo install --locked --path . --root "$root"
bin="$root/bin/layoutrand"
man_dir="$prefix/share/man/man1"
"$bin" generate man "$man_dir"
mkdir -p "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
  "$prefix/share/fish/vendor_completions.d"
"$bin" generate completions bash >"$prefix/share/bash-completion/completions/layoutrand"
"$bin" generate completions zsh >"$prefix/share/zsh/site-functions/_layoutrand"
"$bin" generate completions fish >"$prefix/share/fish/vendor_completions.d/layoutrand.fish"
echo "install: layoutrand in $bin, man pages in $man_dir (man layoutrand-report), completions for bash, zsh and fish under $prefix/share"
