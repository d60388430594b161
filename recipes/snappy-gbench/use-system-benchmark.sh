#!/usr/bin/env bash
# Make snappy 1.1.9's CMakeLists.txt use the system's Google Benchmark (libbenchmark-dev)
# instead of the git submodule third_party/benchmark, which is empty in the Debian tarball.
#   use-system-benchmark.sh SNAPPY_SOURCE_DIR
# Changes 3 things in the SNAPPY_BUILD_BENCHMARKS block:
#   1. link benchmark::benchmark_main (the imported target) instead of benchmark_main
#   2. drop the two set(BENCHMARK_ENABLE_...) cache lines
#   3. replace add_subdirectory("third_party/benchmark") with find_package(benchmark REQUIRED)
set -euo pipefail
f=${1:?usage: use-system-benchmark.sh SNAPPY_SOURCE_DIR}/CMakeLists.txt
grep -q 'add_subdirectory("third_party/benchmark")' "$f" || { echo "$f: already patched or not snappy 1.1.9" >&2; exit 1; }
cp "$f" "$f.orig"
sed -i \
  -e 's/^\(  target_link_libraries(snappy_benchmark snappy_test_support \)benchmark_main)$/\1benchmark::benchmark_main)/' \
  -e '/^  set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)$/d' \
  -e '/^  set(BENCHMARK_ENABLE_EXCEPTIONS OFF CACHE BOOL "" FORCE)$/d' \
  -e 's|^  add_subdirectory("third_party/benchmark")$|  find_package(benchmark REQUIRED)|' \
  "$f"
grep -q 'find_package(benchmark REQUIRED)' "$f" && grep -q 'benchmark::benchmark_main' "$f" \
  || { echo "$f: the edit did not apply; compare with $f.orig" >&2; exit 1; }
echo "patched $f (original kept as $f.orig)"
