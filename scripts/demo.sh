#!/usr/bin/env bash
# Quick start (a): install what is missing, build, and run a simulated
# 1,024-rank UCC program (allreduce + bcast, verified; prints the virtual time
# and the trace hash). Extra arguments go to the demo (e.g. --ranks 64 --seed 7).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DUCC_BUILD_TESTS=OFF >/dev/null
cmake --build build-release -j"$(nproc)" --target ucc_sim_demo
./build-release/ucc_sim_demo "$@"
