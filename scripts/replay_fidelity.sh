#!/usr/bin/env bash
# How well a replay predicts a real run: records traces/samples/train_loop.c
# over UCX with NP processes on this host (UCC_TRACE), fits a network model to
# this host (scripts/fit_network.sh, FIT_NETWORK_TRACED=1: the library's time
# per call as a recording sees it; pulls of clean and of just-written
# data), replays the trace (ucc_replay's default --inputs written: train_loop
# writes its buffers before each call, so every pull is of just-written data) at its
# own size on that model, and prints per collective type the recorded and
# predicted average time and their ratio (JSON lines; the goal is within
# 25 %). Each rank's first step is left out of the times (ucc_replay
# --warmup 1): its first calls pay for first touches of the program's memory.
#   scripts/replay_fidelity.sh [BUILD_DIR] [NP] [STEPS]   (default: build 2 20)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
np="${2:-2}"
steps="${3:-20}"
export UCX_NET_DEVICES=lo
work="$(mktemp -d /tmp/ucc_fidelity.XXXXXX)"
trap 'rm -rf "$work"' EXIT
FIT_NETWORK_TRACED=1 "$here/fit_network.sh" "$build" "$work/host.net"
sed 's/^/# /' "$work/host.net" | grep -v '^# #' >&2 || true
mkdir "$work/trace"
UCC_TRACE="$work/trace" "$build/ucc_run" -n "$np" "$build/train_loop" --steps "$steps" >/dev/null
"$build/ucc_replay" "$work/trace" --network "$work/host.net" --timing-only --warmup 1 --json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    print(json.dumps({"bench": "replay_fidelity", "collective": r["collective"], "calls": r["calls"],
                      "ranks": r["ranks"], "bytes_avg": r["bytes_avg"],
                      "recorded_us": r["recorded_us_avg"], "predicted_us": r["predicted_us_avg"],
                      "ratio": r["ratio"]}))
'
