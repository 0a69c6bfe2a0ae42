#!/usr/bin/env bash
# ucc_replay end to end (docs/record-replay.md): a sweep recorded with
# UCC_TRACE replays cleanly as recorded, at 4x the ranks, on another network
# and as JSON; a trace with a rank cut short exits 1 and says which rank and
# where; malformed or foreign traces exit 2 naming file and line; the samples
# recorded over UCX replay on the simulator and over UCX (4 processes under
# ucc_run, loopback only).
#   replay_test.sh BUILD_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
export UCX_NET_DEVICES=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
work="$(mktemp -d /tmp/ucc_replay_test.XXXXXX)"
trap 'rm -rf "$work"' EXIT
fail() { echo "replay_test: FAIL: $*" >&2; exit 1; }
mkdir "$work/t"
UCC_TRACE="$work/t" "$build/ucc_sim" -np 4 -c allgatherv -b 8 -e 4K -i 2 >/dev/null 2>&1 ||
    fail "recording"
[[ -f "$work/t/rank0.jsonl" && -f "$work/t/rank3.jsonl" ]] || fail "no trace files"
"$build/ucc_replay" "$work/t" >"$work/out" 2>&1 || { cat "$work/out"; fail "replay as recorded"; }
grep -q "^  allgatherv  *80 " "$work/out" || { cat "$work/out"; fail "allgatherv row"; }
grep -q " 1.000  ring -> ring" "$work/out" || { cat "$work/out"; fail "ratio 1 as recorded"; }
grep -q "checked against the model" "$work/out" || fail "no model check"
# Contexts without an OOB (the team over it), with fibers and without, and
# contexts over the OOB without fibers: the files are named by the team's
# ranks, and the replay takes as long as the run did (a rank without a fiber
# records no time of its own: its waits are the simulator's passes).
i=0
for setup in "--team-oob" "--fiberless --team-oob" "--fiberless"; do
    i=$((i + 1))
    mkdir "$work/t$i"
    UCC_TRACE="$work/t$i" "$build/ucc_sim" -np 4 -c allreduce -b 8 -e 64 -i 2 $setup \
        >/dev/null 2>&1 || fail "recording $setup"
    [[ -f "$work/t$i/rank3.jsonl" ]] || fail "no rank3.jsonl $setup"
    "$build/ucc_replay" "$work/t$i" >"$work/out" 2>&1 || { cat "$work/out"; fail "replay $setup"; }
    grep -Eq "^  allreduce  *32 .* (0\.99[5-9]|1\.00[0-5])  ([a-z_]+) -> \2\$" "$work/out" ||
        { cat "$work/out"; fail "ratio 1 as recorded $setup"; }
done
grep -q "^Simulated time: " "$work/out" || fail "no closing lines"
"$build/ucc_replay" "$work/t" --ranks 16 --network eth100 --timing-only >"$work/out" 2>&1 ||
    { cat "$work/out"; fail "replay at 16 ranks"; }
grep -q "ranks=16 network=eth100" "$work/out" || fail "16 ranks on eth100"
"$build/ucc_replay" "$work/t" --json >"$work/json" 2>/dev/null || fail "--json"
python3 -c "import json,sys; rows=[json.loads(l) for l in open(sys.argv[1])]; assert {r['collective'] for r in rows} == {'allgatherv','barrier'} and all(r['ratio'] > 0.99 for r in rows)" "$work/json" ||
    fail "json rows"
# --warmup N: each rank's first N calls per collective and size keep no
# times (2 iterations per size were recorded: 1 leaves half, 2 leaves none).
"$build/ucc_replay" "$work/t" --by-size --json --warmup 1 >"$work/json" 2>/dev/null || fail "--warmup 1"
python3 -c "import json,sys; rows=[json.loads(l) for l in open(sys.argv[1]) if 'allgatherv' in l]; assert len(rows) == 10 and all(r['recorded_us_avg'] > 0 and r['ratio'] > 0.99 for r in rows)" "$work/json" ||
    fail "--warmup 1 rows"
"$build/ucc_replay" "$work/t" --by-size --json --warmup 2 >"$work/json" 2>/dev/null || fail "--warmup 2"
python3 -c "import json,sys; rows=[json.loads(l) for l in open(sys.argv[1]) if 'allgatherv' in l]; assert len(rows) == 10 and all(r['calls'] == 8 and r['recorded_us_avg'] == 0 for r in rows)" "$work/json" ||
    fail "--warmup 2 rows"
set +e
"$build/ucc_replay" "$work/t" --warmup x >/dev/null 2>&1; rc=$?
set -e
[[ $rc == 2 ]] || fail "--warmup x exits $rc, not 2"
# Rank 2 killed after a few records, in the middle of one (a cut by bytes
# alone sometimes fell on a line's end, which reads as a rank that stopped
# cleanly there): exit 1, the report names it.
{ head -n 7 "$work/t/rank2.jsonl" && sed -n 8p "$work/t/rank2.jsonl" | head -c 20; } >"$work/cut"
cp "$work/cut" "$work/t/rank2.jsonl"
set +e
"$build/ucc_replay" "$work/t" >"$work/out" 2>&1; rc=$?
set -e
[[ $rc == 1 ]] || { cat "$work/out"; fail "a cut-short trace exits $rc, not 1"; }
grep -q "rank 2 never did (.*rank2.jsonl ends at line [0-9]*, cut short" "$work/out" ||
    { cat "$work/out"; fail "no report of rank 2"; }
grep -q "deadlock: " "$work/out" || fail "no deadlock report"
# Malformed and foreign traces: exit 2, file:line.
echo '{"ev":"team","t":1}' >>"$work/t/rank1.jsonl"
set +e
"$build/ucc_replay" "$work/t" >"$work/out" 2>&1; rc=$?
set -e
[[ $rc == 2 ]] || fail "a malformed trace exits $rc, not 2"
grep -q "rank1.jsonl:[0-9]*: " "$work/out" || { cat "$work/out"; fail "no file:line"; }
mkdir "$work/v2"
echo '{"ev":"header","t":0,"format":"ucc-trace","version":9,"rank":0,"size":1,"clock":"virtual"}' \
    >"$work/v2/rank0.jsonl"
set +e
"$build/ucc_replay" "$work/v2" >"$work/out" 2>&1; rc=$?
set -e
[[ $rc == 2 ]] && grep -q "version 9" "$work/out" || { cat "$work/out"; fail "version mismatch"; }
set +e
"$build/ucc_replay" "$work/nonexistent" >/dev/null 2>&1; rc=$?
set -e
[[ $rc == 2 ]] || fail "a missing directory exits $rc"
# The samples, recorded over UCX (traces/samples/record.sh): the training loop
# replays cleanly; the desynchronised job is reported.
samples="$(cd "$(dirname "$0")/../../traces/samples" && pwd)"
"$build/ucc_replay" "$samples/train_loop_4" >"$work/out" 2>&1 || { cat "$work/out"; fail "train_loop_4"; }
grep -q "recorded over ucx" "$work/out" || fail "train_loop_4 was not recorded over UCX"
grep -q "22 collectives checked against the model" "$work/out" || { cat "$work/out"; fail "train_loop_4 checks"; }
"$build/ucc_replay" "$samples/train_loop_4" --ranks 32 --timing-only >"$work/out" 2>&1 ||
    { cat "$work/out"; fail "train_loop_4 at 32 ranks"; }
set +e
"$build/ucc_replay" "$samples/desync_4" >"$work/out" 2>&1; rc=$?
set -e
[[ $rc == 1 ]] || { cat "$work/out"; fail "desync_4 exits $rc, not 1"; }
grep -q "desync: team of ranks 0,1,2,3, sequence 12: ranks 0,1,3 ran allreduce of 65536 float32 sum (.*desync_4/rank0.jsonl:52); rank 2 ran bcast of 16 float32 root 0 (.*desync_4/rank2.jsonl:52)" \
    "$work/out" || { cat "$work/out"; fail "desync_4 report"; }
# Over UCX: one process per rank under ucc_run.
"$build/ucc_run" -n 4 --timeout 120 "$build/ucc_replay" "$samples/train_loop_4" --transport ucx \
    >"$work/out" 2>&1 || { cat "$work/out"; fail "train_loop_4 over UCX"; }
grep -q "^\[0\]   allreduce  *52 " "$work/out" || { cat "$work/out"; fail "UCX replay table"; }
set +e
"$build/ucc_run" -n 4 --timeout 120 "$build/ucc_replay" "$samples/desync_4" --transport ucx \
    --timeout 1 >"$work/out" 2>&1; rc=$?
set -e
[[ $rc != 0 ]] || { cat "$work/out"; fail "desync_4 over UCX exits 0"; }
grep -q "desync: team of ranks 0,1,2,3, sequence 12" "$work/out" || { cat "$work/out"; fail "desync_4 over UCX"; }
set +e
"$build/ucc_replay" "$samples/train_loop_4" --transport ucx >"$work/out" 2>&1; rc=$?
set -e
[[ $rc == 2 ]] && grep -q "run it under a launcher" "$work/out" || fail "--transport ucx without a launcher"
echo "replay_test: PASS"
