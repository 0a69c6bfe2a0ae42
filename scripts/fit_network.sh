#!/usr/bin/env bash
# Writes a network file for ucc_sim / ucc_replay (--network FILE) from this
# host's own figures, so that a replay of a trace recorded here predicts for
# this host: processes on one node over UCX shared memory.
#
#   scripts/fit_network.sh [BUILD_DIR] [OUT] [PULLS]   (default: build, stdout, both)
#
# PULLS says what the receivers' pulls (rendezvous copies out of the
# sender's memory) are fitted to. `clean`: ucx_perftest's ping-pong, whose
# send buffer is never written again, so after the first pull it sits in
# both CPUs' caches, as a benchmark's input does. `written`:
# bench/ucx_exchange's forwarding ping-pong, each side sending back what it
# has just received, so each pull reads lines the other CPU has just
# written, as every step that forwards a partial sum or a received block
# does. On the development machine the second costs 2-3x the first from
# 16 KiB to 1 MiB. `both`: the first as cma, o_cma and cma_mem, the second
# as cma_written, o_cma_written and cma_mem_written; the simulator charges a
# pull of a caller's unchanged input the first and every other pull the
# second (ucc_sim --inputs, ucc_replay --inputs).
#
# Measured (loopback and shared memory only, as every test here):
#   ucx_perftest tag_lat 8 B .. 4 MiB  one-way latency by size (p50)
#   ucx_perftest tag_bw 8 B            message rate: each side's per-message cost
#   ucx_exchange 8 B .. 4 MiB          (PULLS written, both) one-way latency when each
#                                      side sends back what it has just received
#   ucx_info -d                        shared memory's inline limit (am_short)
#   memcpy_bw, memcpy_bw --reduce      copy and float32-sum bandwidth (the library's
#                                      kernel), within the cache (256 KiB) and beyond
#                                      it (4 MiB)
#   yield_pingpong                     the switch between two processes on one
#                                      CPU (what a rank waiting off its core pays)
#   nproc                              the cores
#   ucc_perftest -p                    the library's own time per collective
#                                      (o_call): a persistent 4-byte allreduce on
#                                      a team of one, post to completion (median
#                                      of 5 runs); with FIT_NETWORK_TRACED=1, as
#                                      a recording sees it (UCC_TRACE on: post
#                                      to done in the trace, the median call),
#                                      for a replay of a trace recorded here
#   ucc_run -n 2 ucc_perftest          the library's time to initialise and
#                                      finalize a collective (o_init): a 4-byte
#                                      allreduce timed from init to finalize less
#                                      the same persistent (median of 5 pairs)
# Fitted by scripts/fit_network.py (see there); every rank on one node.
set -euo pipefail
build="$(cd "${1:-build}" && pwd)"
out="${2:-/dev/stdout}"
pulls="${3:-both}"
[[ "$pulls" == clean || "$pulls" == written || "$pulls" == both ]] ||
    { echo "fit_network: PULLS is clean, written or both, not '$pulls'" >&2; exit 2; }
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
lats=""
for ((bytes = 8; bytes <= 4194304; bytes *= 2)); do
    n=20000
    ((bytes > 65536)) && n=2000
    ((bytes > 1048576)) && n=300
    lats+="$bytes:$(perftest -t tag_lat -s "$bytes" -n "$n" -w $((n / 10)) | awk '{print $3}') "
done
written=""
if [[ "$pulls" != clean ]]; then
    written="$("$build/ucx_exchange" --min-bytes 8 --max-bytes 4M | python3 -c '
import json, sys
print(" ".join("%d:%s" % (r["bytes"], r["forward_one_way_us"]) for r in map(json.loads, sys.stdin)))')"
fi
rate="$(perftest -t tag_bw -s 8 -n 200000 -w 20000 | awk '{print $9}')"          # msg/s overall
am_short="$( (ucx_info -d 2>/dev/null || true) |
    awk '/Transport: (posix|sysv)/ {t = 1} t && /am_short/ && v == "" {v = $4} END {print v}')"
gbps() { python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["GBps"])'; }
copy="$("$build/memcpy_bw" --min-bytes 256K --max-bytes 256K | gbps)"
copy_mem="$("$build/memcpy_bw" --min-bytes 4M --max-bytes 4M | gbps)"
reduce="$("$build/memcpy_bw" --min-bytes 256K --max-bytes 256K --reduce | gbps)"
reduce_mem="$("$build/memcpy_bw" --min-bytes 4M --max-bytes 4M --reduce | gbps)"
yields="$("$build/yield_pingpong" | python3 -c 'import json,sys; print(" ".join(str(json.loads(l)["one_way_us"]) for l in sys.stdin))')"
calls="$(mktemp -d /tmp/fit_network.XXXXXX)"
if [[ "${FIT_NETWORK_TRACED:-0}" == 1 ]]; then
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
else
    for i in 1 2 3 4 5; do
        "$build/ucc_perftest" -c allreduce -b 1 -e 1 -n 20000 -w 2000 --no-check --no-progress -p \
            --json "$calls/call.$i.json" >/dev/null
    done
    call_ns="$(python3 - "$calls" <<'PY'
import glob, json, os, statistics, sys
print(statistics.median(json.loads(open(f).readline())["avg_us"] * 1e3
                        for f in glob.glob(os.path.join(sys.argv[1], "call.*.json"))))
PY
)"
fi
# The library's time to initialise and finalize a collective: two processes'
# 4-byte allreduce timed by ucc_perftest from init to finalize, less the
# same persistent (post to completion, init outside); the median of five
# pairs.
for i in 1 2 3 4 5; do
    for p in "" -p; do
        "$build/ucc_run" -n 2 "$build/ucc_perftest" -c allreduce -b 1 -e 1 -n 20000 -w 2000 \
            --no-check --no-progress $p --json "$calls/iteration$p.$i.json" >/dev/null
    done
done
init_ns="$(python3 - "$calls" <<'PY'
import glob, json, os, statistics, sys
us = lambda f: json.loads(open(f).readline())["avg_us"]
pairs = [us(f) - us(f.replace("iteration.", "iteration-p."))
         for f in sorted(glob.glob(os.path.join(sys.argv[1], "iteration.*.json")))]
print(max(statistics.median(pairs), 0) * 1e3 if pairs else 0)
PY
)"
rm -rf "$calls"
python3 "$(dirname "$0")/fit_network.py" --lat "$lats" ${written:+--lat-written "$written"} \
    ${written:+$([[ "$pulls" == both ]] && echo --written-keys)} --rate "$rate" --am-short "${am_short:-0}" \
    --copy "$copy" --copy-mem "$copy_mem" --reduce "$reduce" --reduce-mem "$reduce_mem" --yield "$yields" --cores "$(nproc)" --call-ns "$call_ns" \
    --init-ns "$init_ns" >"$out"
