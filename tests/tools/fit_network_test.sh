#!/usr/bin/env bash
# scripts/fit_network.py recovers a known model from its own curve, and
# scripts/fit_network.sh writes a file that ucc_sim runs.
#   fit_network_test.sh BUILD_DIR
set -euo pipefail
build="$1"
here="$(cd "$(dirname "$0")/../.." && pwd)"
fail() { echo "FAIL: $*" >&2; exit 1; }

# A curve from o = 0.2us, L = 0.1us, inline up to 92 B, buffered up to 16 KiB
# (o_bcopy 0.3us, bcopy 20 GB/s a side), then pulled (o_cma 1.5us) at
# 16 GB/s up to 512 KiB (a working set of 1 MiB), at 8 GB/s beyond.
curve() {  # o_cma, cma and cma_mem of the pulls (us, bytes per us)
    python3 - "$@" <<'PY'
import sys
o, L, z, ob, bc = 0.2, 0.1, 16384, 0.3, 20e3  # us; bytes per us
oc, cma, mem = (float(x) for x in sys.argv[1:])
cache = 512 << 10
out = []
b = 8
while b <= 4 << 20:
    if b <= 92:
        t = 2 * o + L
    elif b <= z:
        t = 2 * o + L + 2 * (ob + b / bc)
    else:
        t = 2 * o + 3 * L + oc + b / (cma if b <= cache else mem)
    out.append(f"{b}:{t:.6f}")
    b *= 2
print(" ".join(out))
PY
}
lats="$(curve 1.5 16e3 8e3)"
net="$(python3 "$here/scripts/fit_network.py" --lat "$lats" --rate 5e6 --am-short 100 \
    --copy 30 --copy-mem 10 --reduce 15 --reduce-mem 9 --yield "1.2 0.2" --cores 2 --call-ns 500 --init-ns 300)"
want() { grep -qx "$1" <<<"$net" || fail "expected \"$1\" in the fit:"$'\n'"$net"; }
want "lat_intra = 100ns"
want "o_send = 200ns"
want "short_intra = 92"
want "zcopy_intra = 16384"
want "rndv_intra = 16384"
want "o_bcopy = 300ns"
want "bcopy_intra = 20.000GB/s"
want "o_cma = 1500ns"
want "cma = 16.000GB/s"
want "cache = 1048576"
want "cma_mem = 8.000GB/s"
want "copy = 30.000GB/s"
want "copy_mem = 10.000GB/s"
want "reduce = 15.000GB/s"
want "reduce_mem = 9.000GB/s"
want "cores = 2"
want "wake = 1000ns"
want "o_call = 500ns"
want "o_init = 300ns"
grep -q "rms relative error 0.000" <<<"$net" || fail "the fit is not exact on its own curve"

# Pulls of just-written data (ucx_exchange's forwarding ping-pong) slower
# than ucx_perftest's: the split sizes stay the clean curve's, the pulls
# are the written curve's.
written="$(curve 2.5 8e3 6e3)"
net="$(python3 "$here/scripts/fit_network.py" --lat "$lats" --lat-written "$written" --rate 5e6 \
    --am-short 100 --copy 30 --reduce 15 --yield "1.2 0.2" --cores 2)"
want "zcopy_intra = 16384"
want "cache = 1048576"
want "o_bcopy = 300ns"
want "o_cma = 2500ns"
want "cma = 8.000GB/s"
want "cma_mem = 6.000GB/s"
grep -q "rms relative error 0.000" <<<"$net" || fail "the fit is not exact on the two curves"
# Both: the clean curve's pulls as cma, the written curve's as cma_written.
net="$(python3 "$here/scripts/fit_network.py" --lat "$lats" --lat-written "$written" --written-keys \
    --rate 5e6 --am-short 100 --copy 30 --reduce 15 --yield "1.2 0.2" --cores 2)"
want "o_cma = 1500ns"
want "cma = 16.000GB/s"
want "cma_mem = 8.000GB/s"
want "o_cma_written = 2500ns  # pulls of just-written data"
want "cma_written = 8.000GB/s"
want "cma_mem_written = 6.000GB/s"
grep -q "rms relative error 0.000" <<<"$net" || fail "the fit is not exact on both curves"

# This host: a file the simulator takes.
if command -v ucx_perftest >/dev/null; then
    file="$(mktemp /tmp/fit_network_test.XXXXXX)"
    trap 'rm -f "$file"' EXIT
    # Both curves (the default): ucx_perftest's and bench/ucx_exchange's.
    bash "$here/scripts/fit_network.sh" "$build" "$file"
    for key in cma o_cma cma_written o_cma_written cores wake zcopy_intra o_call o_init; do
        grep -q "^$key = " "$file" || fail "no $key in the fitted file"
    done
    grep -q "one-way latency sending what was just received" "$file" ||
        fail "no written curve in the fitted file"
    for inputs in clean written; do
        "$build/ucc_sim" -np 4 --network "$file" -c allgather -b 8 -e 1M --timing-only \
            --inputs "$inputs" >/dev/null || fail "ucc_sim refused the fitted file"
    done
    # ucx_perftest's alone.
    bash "$here/scripts/fit_network.sh" "$build" "$file" clean
    ! grep -q "written" "$file" || fail "PULLS=clean wrote a written curve"
    "$build/ucc_sim" -np 2 --network "$file" -c allreduce -b 8 -e 1M --timing-only >/dev/null ||
        fail "ucc_sim refused the file fitted to clean pulls"
    if bash "$here/scripts/fit_network.sh" "$build" "$file" dirty 2>/dev/null; then
        fail "PULLS=dirty accepted"
    fi
fi
echo "fit_network_test: OK"
