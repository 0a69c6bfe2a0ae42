#!/usr/bin/env bash
# ucc_info end to end (docs/tools.md), and the configuration it shows:
# the reference's options, --explain under TUNE strings, a config file named
# by UCC_CONFIG_FILE, the warning for an unknown UCC_* variable, and the
# configuration tables of docs/configuration.md, which must equal
# `ucc_info --markdown`.
#   info_test.sh BUILD_DIR docs/configuration.md
set -euo pipefail
build="$(cd "$1" && pwd)"
doc="$2"
info="$build/ucc_info"
work="$(mktemp -d /tmp/ucc_info_test.XXXXXX)"
trap 'rm -rf "$work"' EXIT
fail() { echo "info_test: FAIL: $*" >&2; exit 1; }
# A clean environment for what ucc_info reads.
for v in $(env | grep -o '^UCC_[A-Z0-9_]*' || true); do unset "$v"; done
export UCC_CONFIG_FILE=

"$info" -v | grep -c "^# UCC version=[0-9.]* revision " >/dev/null || fail "-v"
"$info" -b | grep -c "^#define UCC_WITH_UCX" >/dev/null || fail "-b"
"$info" -c | grep -c "^UCC_LOG_LEVEL=WARN$" >/dev/null || fail "-c"
"$info" -c | grep -c "^UCC_KNOMIAL_RADIX=auto$" >/dev/null || fail "-c (context)"
"$info" -c -f | grep -c "^# syntax:  auto or integer 2..64$" >/dev/null || fail "-c -f"
"$info" -c -a | grep -c "^# UCC_TL_UCP_TUNE: alias of UCC_TUNE$" >/dev/null || fail "-c -a"
"$info" -A >"$work/algs"
for c in Allreduce Bcast Reduce_scatterv Fanout; do
    grep -q "^  $c$" "$work/algs" || fail "-A lacks $c"
done
grep -q "^    1 :      sra_knomial : runs sra_knomial$" "$work/algs" || fail "-A reference names"
grep -q "^    0 :              rab : two levels" "$work/algs" || fail "-A cl/hier algorithms"
"$info" -s | grep -c "recursive_doubling : bytes < ALLREDUCE_LARGE_MSG" >/dev/null || fail "-s"
# One column, as wide as the longest name; a forced algorithm names its
# variable as it is spelled (it said UCC_allreduce_ALG).
"$info" -s | grep -q "^                   rab : UCC_CLS has hier" || fail "-s column"
UCC_ALLREDUCE_ALG=ring "$info" -s | grep -q "^                  ring : forced by UCC_ALLREDUCE_ALG$" ||
    fail "-s forced"
set +e
"$info" >/dev/null 2>&1; rc=$?
set -e
[[ $rc == 2 ]] || fail "no option: exit $rc, not 2"

# --explain: the cheapest predicted (UCC_SELECT=cost), the built-in rule
# (UCC_SELECT=rules), then a site's tl/ucp tuning string.
"$info" -s | grep -q "UCC_SELECT=cost: where the transport knows its network" || fail "-s select"
cheapest() {  # the chosen algorithm is the one predicted cheapest of those that run
    awk '/^    [a-z_0-9]+ +[0-9.]+ us/ && !/cannot run|UCC_CLS/ { if (min == "" || $2 < min) { min = $2; alg = $1 } }
         /<- chosen/ { chosen = $1 } END { if (alg != chosen) { print "cheapest " alg ", chosen " chosen; exit 1 } }'
}
for args in "allreduce 1M 16" "allreduce 8 1280 -p 40" "bcast 64k 100" "alltoall 128 64 -n slow" \
    "reduce_scatter 4k 7 -n eth100" "allgather 1 2"; do
    out="$("$info" --explain $args)"
    grep -q "why: the cheapest predicted: [a-z_]*, [0-9.]* us (next: " <<<"$out" || fail "--explain $args: $out"
    cheapest <<<"$out" || fail "--explain $args: not the cheapest: $out"
    grep -Eq "^    \(lower bound\) +[0-9.]+ us$" <<<"$out" || fail "--explain $args: bound: $out"
done
# Per-rank counts: the built-in rules, whatever UCC_SELECT says.
"$info" --explain alltoallv 1M 16 | grep -q "why: built-in rule" || fail "--explain v"
UCC_SELECT=rules "$info" --explain allreduce 1M 16 | grep -c ": rabenseifner$" >/dev/null ||
    fail "--explain built-in"
UCC_SELECT=rules "$info" --explain allreduce 1M 16 | grep -q "why: built-in rule: otherwise" ||
    fail "--explain built-in why"
UCC_SELECT=nosuch "$info" --explain allreduce 1M 16 >/dev/null 2>&1 && fail "UCC_SELECT=nosuch"
out="$(UCC_TL_UCP_TUNE='allreduce:0-4k:@0#allreduce:4k-inf:@sliding_window' "$info" --explain allreduce 64k 16)"
grep -q ": ring$" <<<"$out" || fail "--explain TUNE: $out"
grep -q "TUNE token 'allreduce:4k-inf:@sliding_window' (UCC_TL_UCP_TUNE)" <<<"$out" || fail "--explain why: $out"
out="$(UCC_TUNE='bcast:[8-inf]:0' "$info" --explain bcast 8 16 || true)"
grep -q "disabled by TUNE token 'bcast:\[8-inf\]:0'" <<<"$out" || fail "--explain score 0: $out"
UCC_SELECT=rules UCC_TUNE='bcast:[8-inf]:0' "$info" --explain bcast 8 4 | grep -c ": knomial$" >/dev/null ||
    fail "team range"
# The radix a k-nomial choice runs with, and the variable that sets it.
# Both auto (the default): the cheapest predicted, the radix the costs show.
out="$("$info" --explain bcast 1k 64)"
k="$(sed -n 's/^  radix: \([0-9]*\) (UCC_BCAST_KN_RADIX and UCC_KNOMIAL_RADIX are auto: the cheapest predicted)$/\1/p' <<<"$out")"
[ -n "$k" ] || fail "--explain radix by cost: $out"
grep -Eq "^    knomial +[0-9.]+ us  \(radix $k\)" <<<"$out" || fail "--explain radix of the costs: $out"
UCC_SELECT=rules "$info" --explain bcast 1k 64 |
    grep -q "^  radix: 4 (UCC_BCAST_KN_RADIX and UCC_KNOMIAL_RADIX are auto: the default without a network)$" ||
    fail "--explain radix without a network"
UCC_KNOMIAL_RADIX=4 "$info" --explain bcast 1k 64 | grep -q "^  radix: 4 (UCC_BCAST_KN_RADIX is auto: UCC_KNOMIAL_RADIX)$" ||
    fail "--explain radix auto"
UCC_TL_UCP_BCAST_KN_RADIX=8 "$info" --explain bcast 1k 64 | grep -q "^  radix: 8 (UCC_BCAST_KN_RADIX)$" ||
    fail "--explain radix set"
# The predicted time of every flat algorithm on a network, the chosen one marked.
out="$("$info" --explain allreduce 1M 16 -n slow -p 2)"
grep -q "predicted on slow, 2 ranks per node" <<<"$out" || fail "--explain costs: $out"
grep -Eq "^    [a-z_]+ +[0-9]+\.[0-9]+ us(  \(radix [0-9]+\))?  <- chosen$" <<<"$out" || fail "--explain chosen cost: $out"
grep -Eq "^    rab +[0-9.]+ us  \(with UCC_CLS=basic,hier\)$" <<<"$out" || fail "--explain levels: $out"
"$info" --explain allreduce 1M 16 -n nosuch >/dev/null 2>&1 && fail "--explain bad network"
# A string that does not parse is reported and left out.
out="$(UCC_SELECT=rules UCC_TUNE='allreduce:@nosuch' "$info" --explain allreduce 8 4 2>&1)"
grep -q "failed to parse token 'allreduce:@nosuch'" <<<"$out" || fail "bad TUNE: $out"
grep -q ": recursive_doubling$" <<<"$out" || fail "bad TUNE falls back: $out"

# A config file; the environment wins over it.
cat >"$work/ucc.conf" <<'CONF'
# a site's file
UCC_ALLREDUCE_ALG = ring
UCC_BCAST_ALG: knomial   ; inline comment
[vendor=amd team_size=28]
UCC_TL_UCP_TUNE=allreduce:@0
CONF
UCC_CONFIG_FILE="$work/ucc.conf" "$info" --explain allreduce 8 4 | grep -c "UCC_ALLREDUCE_ALG=ring forces it" >/dev/null ||
    fail "config file"
UCC_CONFIG_FILE="$work/ucc.conf" UCC_ALLREDUCE_ALG=rabenseifner "$info" --explain allreduce 8 4 |
    grep -q ": rabenseifner$" || fail "environment over file"
printf 'UCC_LOG_LEVEL=WARN\nno equals sign\n' >"$work/bad.conf"
set +e
UCC_CONFIG_FILE="$work/bad.conf" "$info" -c >/dev/null 2>"$work/err"; rc=$?
set -e
[[ $rc != 0 ]] && grep -q "bad.conf:2: expected NAME=VALUE" "$work/err" || fail "bad config file ($rc)"

# An unknown UCC_* variable: one warning with the closest name.
UCC_ALLREDUCE_ALGO=ring "$build/ucc_perftest" --sim 2 -n 1 -w 0 >/dev/null 2>"$work/err"
grep -q "UCC_ALLREDUCE_ALGO is not a UCC variable here and is ignored (closest: UCC_ALLREDUCE_ALG)" \
    "$work/err" || { cat "$work/err"; fail "unknown variable warning"; }

# The configuration chapter's tables are ucc_info's.
sed -n '/<!-- ucc_info --markdown: begin -->/,/<!-- ucc_info --markdown: end -->/p' "$doc" |
    sed '1d;$d' >"$work/doc_tables"
"$info" --markdown >"$work/tables"
diff -u "$work/tables" "$work/doc_tables" ||
    fail "the tables of $doc differ from 'ucc_info --markdown' (scripts/config_tables.sh updates them)"
echo "info_test: PASS"
