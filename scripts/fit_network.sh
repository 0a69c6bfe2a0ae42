#!/usr/bin/env bash
# Writes a network file for ucc_sim / ucc_replay (--network FILE) from this
# host's own figures, so that a replay of a trace recorded here predicts for
# this host: processes on one node over UCX shared memory.
#
#   scripts/fit_network.sh [BUILD_DIR] [OUT]      (default: build, stdout)
#
# Measured (loopback and shared memory only, as every test here):
#   ucx_perftest tag_lat 8 B        one-way latency of a small message
#   ucx_perftest tag_bw 8 B         message rate: each side's per-message cost
#   ucx_perftest tag_bw 4 MiB       bandwidth
#   memcpy_bw, memcpy_bw --reduce   copy and float32-sum bandwidth (4 MiB)
#   ucc_perftest, recorded          the library's own time per collective as
#                                   a recording sees it: post to done of a
#                                   4-byte allreduce on a team of one (median)
# Fitted: o_send = o_recv = the time per message at the message rate (the
# sender posts back to back: what one side spends per message);
# lat_intra = the one-way latency minus o_send and o_recv (at least 0);
# bw_intra = the bandwidth; o_call = the library's time per call; g = 0 and
# jitter = 0; every rank on one node.
set -euo pipefail
build="$(cd "${1:-build}" && pwd)"
out="${2:-/dev/stdout}"
export UCX_NET_DEVICES=lo
command -v ucx_perftest >/dev/null || { echo "fit_network: ucx_perftest (ucx-utils) is missing" >&2; exit 2; }
port=$((20000 + RANDOM % 20000))
# shellcheck source=scripts/ucx_perftest_final.sh
source "$(dirname "$0")/ucx_perftest_final.sh"
perftest() {
    local final
    final="$(ucx_perftest_final "$port" "$@")" ||
        { echo "fit_network: ucx_perftest $* gave no result" >&2; exit 1; }
    port=$((port + 1))
    echo "$final"
}
# Final: iterations p50 average overall bw_average bw_overall rate_average rate_overall
lat="$(perftest -t tag_lat -s 8 -n 100000 -w 10000 | awk '{print $3}')"          # us, p50
rate="$(perftest -t tag_bw -s 8 -n 200000 -w 20000 | awk '{print $9}')"          # msg/s overall
bw="$(perftest -t tag_bw -s 4194304 -n 200 -w 20 | awk '{print $7}')"             # MiB/s overall
copy="$("$build/memcpy_bw" --min-bytes 4M --max-bytes 4M | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["GBps"])')"
reduce="$("$build/memcpy_bw" --min-bytes 4M --max-bytes 4M --reduce | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["GBps"])')"
calls="$(mktemp -d /tmp/fit_network.XXXXXX)"
UCC_TRACE="$calls" "$build/ucc_perftest" -c allreduce -b 1 -e 1 -n 20000 -w 2000 --no-check \
    --no-progress >/dev/null
call_ns="$(python3 - "$calls/rank0.jsonl" <<'PY'
import json, statistics, sys
post = {}
spans = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["ev"] == "post":
        post[r["req"]] = r["t"]
    elif r["ev"] == "done" and r["req"] in post:
        spans.append(r["t"] - post.pop(r["req"]))
print(statistics.median(spans) if spans else 0)
PY
)"
rm -rf "$calls"
python3 - "$lat" "$rate" "$bw" "$copy" "$reduce" "$(nproc)" "$call_ns" >"$out" <<'PY'
import sys
lat_us, rate, bw_mib, copy, reduce, nproc, call_ns = (float(x) for x in sys.argv[1:])
o_ns = 1e9 / rate                        # what one side spends per message
l_ns = max(lat_us * 1e3 - 2 * o_ns, 0.0)
bw = bw_mib * 1048576 / 1e9
print(f"# this host over UCX shared memory (scripts/fit_network.sh):")
print(f"#   one-way 8 B {lat_us} us, {rate:.0f} msg/s, {bw:.3f} GB/s, copy {copy} GB/s, "
      f"reduce {reduce} GB/s, {call_ns:.0f} ns per call, {int(nproc)} CPUs")
print("preset = hdr")
print("nodes = 1x1024")
print(f"lat_intra = {l_ns:.0f}ns")
print(f"o_send = {o_ns:.0f}ns")
print(f"o_recv = {o_ns:.0f}ns")
print(f"o_call = {call_ns:.0f}ns")
print("g = 0")
print(f"bw_intra = {bw:.3f}GB/s")
print(f"copy = {copy:.3f}GB/s")
print(f"reduce = {reduce:.3f}GB/s")
print("jitter = 0")
PY
