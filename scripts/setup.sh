#!/usr/bin/env bash
# Installs what layoutrand's tests and demo need on a Debian machine, if missing:
# compilers and linkers (gcc, gfortran, clang, bfd, gold, lld, mold), valgrind (the cachegrind metric),
# dpkg-dev (apt-get source, for the real-program recipes), cmake (the libjpeg-turbo test), chromium (HTML report test),
# slurm-wlm and munge (the emulated Slurm cluster of tests/run/slurm_cluster.rs), libbenchmark-dev
# (Google Benchmark, the suite fixture).
# Idempotent; needs root (or sudo) only when something is missing.
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have gcc        || need+=(gcc)
have g++        || need+=(g++)
have make       || need+=(make)
have ld.bfd     || need+=(binutils)
have ld.gold    || need+=(binutils-gold)
have ld.lld     || need+=(lld)
have mold       || need+=(mold)
have clang      || need+=(clang)
# The Fortran fixture of tests/build/languages.rs.
have gfortran   || need+=(gfortran)
have valgrind   || need+=(valgrind)
have dpkg-source || need+=(dpkg-dev)
# tests/build/real_libjpeg_turbo.rs configures libjpeg-turbo with CMake.
have cmake      || need+=(cmake)
have chromium   || need+=(chromium)
# The Slurm test (tests/run/slurm_cluster.rs) starts a two-node cluster of these as root.
have slurmctld  || need+=(slurm-wlm)
have munged     || need+=(munge)
# The Google Benchmark suite of tests/run/suite.rs (fixtures/suite/gbench.cc).
[ -e /usr/include/benchmark/benchmark.h ] || need+=(libbenchmark-dev)

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
