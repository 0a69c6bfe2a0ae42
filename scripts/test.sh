#!/usr/bin/env bash
# Quick start (b): build and run every test — unit, integration, property tests,
# the C99 header test and the symbol check — then the same under ASan+UBSan.
# UCC_PROPTEST_SCALE=10 runs ten times as many property-test cases.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
jobs="$(nproc)"
echo "== build (RelWithDebInfo) =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUCC_BUILD_TESTS=ON >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure)
echo "== build (ASan+UBSan) =="
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DUCC_SANITIZE=ON -DUCC_BUILD_TESTS=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure)
