#!/bin/bash
# Found by hand: `ucc_sim -np 1024 -c alltoall -b 1M -e 1M` (1 MiB per peer,
# 2 TiB of buffers on 1,024 ranks) started, spent half a minute in the
# kernel and was killed by the out-of-memory killer. The ranks' buffers all
# live in the one process, so a payload run whose largest size cannot fit is
# now refused before it starts: exit 2 and one line naming -e, the size
# needed and the memory available. The same sweep timing-only still runs,
# and so does a payload run that fits.
#   buffers_beyond_memory.sh UCC_SIM
set -uo pipefail
sim="$1"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
fail() {
    echo "buffers_beyond_memory: $*"
    cat "$out"
    exit 1
}
# 256 ranks x 256 peers x 1 GiB, twice: 128 TiB on any machine.
timeout 60 "$sim" -np 256 -c alltoall -b 1G -e 1G -i 1 >"$out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "a run beyond memory exited $rc, not 2"
grep -q "^ucc_sim: -e 1073741824: the buffers of alltoall on 256 ranks take 128.0 TiB" "$out" ||
    fail "no line naming -e and the size"
grep -q "Wall time" "$out" && fail "the refused run started"
timeout 120 "$sim" -np 256 -c alltoall -b 1G -e 1G -i 1 --timing-only --no-progress >"$out" 2>&1 ||
    fail "the same sweep timing-only failed"
timeout 60 "$sim" -np 16 -c alltoall -b 1K -e 4K -i 1 --check --no-progress >"$out" 2>&1 ||
    fail "a payload run that fits failed"
echo "buffers_beyond_memory: refused with exit 2; timing-only and a fitting run pass"
