#!/usr/bin/env bash
# ucc_sim --tune (docs/ucc_sim.md): every algorithm timed at each size, the
# fastest per size (or the previous size's within 5 %) written as a
# UCC_TL_UCP_TUNE line that the library reads back and follows.
#   sim_tune_test.sh BUILD_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
work="$(mktemp -d /tmp/ucc_sim_tune_test.XXXXXX)"
trap 'rm -rf "$work"' EXIT
fail() { echo "sim_tune_test: FAIL: $*" >&2; exit 1; }
unset UCC_TL_UCP_TUNE UCC_TUNE UCC_CONFIG_FILE

"$build/ucc_sim" -np 16 --network hdr,ppn=8 --tune -c allreduce -b 8 -e 1M >"$work/out" 2>"$work/err" ||
    fail "exit $?: $(cat "$work/err")"
tune="$(sed -n 's/^UCC_TL_UCP_TUNE=//p' "$work/out")"
[[ "$tune" == allreduce:\[16\]:0-*:@*#*-inf:@* ]] || fail "the line: $(cat "$work/out")"
rows=$(grep -c "^  allreduce " "$work/err")
[[ $rows == 18 ]] || fail "$rows sizes timed, not 18: $(cat "$work/err")"
# Each size's pick is the fastest, or within 5 % of it.
awk '/^  allreduce / {
        pick = $4; min = -1; t = -1
        for (i = 5; i <= NF; ++i) { split($i, kv, "="); v = kv[2] + 0
            if (min < 0 || v < min) min = v; if (kv[1] == pick) t = v }
        if (t < 0 || t > 1.05 * min) { print "size " $2 ": " pick " " t " against " min; exit 1 } }' \
    "$work/err" || fail "a pick is not the fastest"
# The library reads the line back and runs what it names, at every size.
while read -r _ bytes _ pick _; do
    got="$(UCC_TL_UCP_TUNE="$tune" "$build/ucc_info" --explain allreduce "$bytes" 16 2>&1 | head -1)"
    [[ "$got" == *": $pick" ]] || fail "at $bytes B the tuned library runs ${got##*: }, not $pick"
done < <(grep "^  allreduce " "$work/err")

# Every collective with equal counts, by default.
"$build/ucc_sim" -np 8 --tune -e 4K >"$work/all" 2>/dev/null || fail "every collective"
for c in allreduce bcast reduce barrier allgather alltoall gather scatter reduce_scatter fanin fanout; do
    grep -q "[=#]$c:\[8\]" "$work/all" || fail "no $c in $(cat "$work/all")"
done
grep -q "allgatherv\|alltoallv\|gatherv\|scatterv\|reduce_scatterv" "$work/all" && fail "a v collective"

# --tune times every algorithm: --alg makes no sense with it.
set +e
"$build/ucc_sim" -np 4 --tune --alg ring >/dev/null 2>&1; rc=$?
set -e
[[ $rc == 2 ]] || fail "--tune --alg: exit $rc, not 2"
echo "sim_tune_test: PASS"
