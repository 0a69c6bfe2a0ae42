#!/usr/bin/env bash
# Records the sample traces of this directory from real processes over UCX
# (loopback only), with the program beside this script:
#   train_loop_4/  4 processes, 4 steps of traces/samples/train_loop.c
#   desync_4/      the same with --desync 2: rank 2 posts a bcast where the
#                  others post their second gradient bucket at step 2
#   traces/samples/record.sh [BUILD_DIR]     (default: build)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-$here/../../build}" && pwd)"
export UCX_NET_DEVICES=lo
for s in train_loop_4 desync_4; do
    rm -rf "${here:?}/$s"
    mkdir "$here/$s"
done
UCC_TRACE="$here/train_loop_4" "$build/ucc_run" -n 4 "$build/train_loop" --steps 4
# The desynchronised job fails (exit 1) by design.
UCC_TRACE="$here/desync_4" "$build/ucc_run" -n 4 "$build/train_loop" --steps 4 --desync 2 || true
du -sh "$here/train_loop_4" "$here/desync_4"
