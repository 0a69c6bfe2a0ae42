#!/usr/bin/env bash
# Selection by cost over UCX (docs/algorithms.md#selection-by-cost): with
# UCC_NETWORK naming a network (preset, spec or file) four real processes
# run the algorithm ucc_info --explain predicts cheapest on it, which is not
# what the built-in rules run; without it, or with UCC_SELECT=rules, the
# rules; a name that is none of the three fails context creation, naming it.
#   network_select_test.sh BUILD_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
export UCX_NET_DEVICES=lo
work="$(mktemp -d /tmp/ucc_network_select.XXXXXX)"
trap 'rm -rf "$work"' EXIT
fail() { echo "network_select_test: FAIL: $*" >&2; exit 1; }

# The algorithm rank 0 ran for the 16 KiB allreduce (4,096 float32).
ran() {
    env "$@" UCC_COLL_TRACE=info timeout 120 "$build/ucc_run" -n 4 "$build/ucc_perftest" \
        -c allreduce -b 4k -e 4k -n 1 -w 0 >"$work/out" 2>&1 || { cat "$work/out"; fail "$*"; }
    sed -n 's/^\[0\].*allreduce .* count 4096 dt float32 alg \([a-z_]*\).*/\1/p' "$work/out" |
        head -1
}
predicted() {
    "$build/ucc_info" --explain allreduce 16k 4 -n "$1" | sed -n '1s/.*: \([a-z_]*\)$/\1/p'
}

rules="$(UCC_SELECT=rules "$build/ucc_info" --explain allreduce 16k 4 | sed -n '1s/.*: \([a-z_]*\)$/\1/p')"
cheapest="$(predicted hdr)"
[[ -n "$rules" && -n "$cheapest" ]] || fail "ucc_info --explain printed no algorithm"
[[ "$rules" != "$cheapest" ]] || fail "the rules and the cost agree on $rules: the test shows nothing"

got="$(ran UCC_NETWORK=)"
[[ "$got" == "$rules" ]] || fail "without UCC_NETWORK: $got, the rules say $rules"
got="$(ran UCC_NETWORK=hdr)"
[[ "$got" == "$cheapest" ]] || fail "UCC_NETWORK=hdr: $got, predicted $cheapest"
got="$(ran UCC_NETWORK=hdr UCC_SELECT=rules)"
[[ "$got" == "$rules" ]] || fail "UCC_SELECT=rules: $got, the rules say $rules"

# A network file, as ucc_sim takes it.
printf '# a test machine\npreset = hdr\nlat_intra = 300ns\n' >"$work/net.conf"
got="$(ran UCC_NETWORK="$work/net.conf")"
[[ "$got" == "$(predicted "$work/net.conf")" ]] || fail "network file: $got"

# None of the three: the context is not created, and the log says why.
set +e
UCC_NETWORK=/nonexistent/net.conf timeout 120 "$build/ucc_run" -n 2 "$build/ucc_perftest" \
    -c allreduce -b 8 -e 8 -n 1 -w 0 >"$work/out" 2>&1
rc=$?
set -e
[[ $rc != 0 ]] || fail "a missing network file was accepted"
grep -q "UCC_NETWORK=/nonexistent/net.conf: .*not a readable file" "$work/out" ||
    { cat "$work/out"; fail "no line naming UCC_NETWORK"; }
echo "network_select_test: ok (rules $rules, hdr $cheapest)"
