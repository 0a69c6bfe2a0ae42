#!/usr/bin/env bash
# Regressions of real processes over UCX (issue: real processes keep the
# simulator's promises), each a class of defect once seen:
#
#   ucx_real_process.sh mismatch UCC_RUN SWARM  ranks that disagree (count, collective type,
#       op, root, datatype, a failed init) got UCC_OK with wrong data: now an error or
#       exactly their own model's data, on every rank (swarm jobs with that fault forced)
#   ucx_real_process.sh abort UCC_RUN SWARM     a rank killed during 1 MiB bcasts made
#       survivors abort (CMA rendezvous from a dead process): now they fail cleanly
#   ucx_real_process.sh giveup UCC_RUN SWARM    a collective stuck without a timeout could
#       not be torn down: now team/context destroy cancel it and finalize succeeds
#   ucx_real_process.sh orphans UCC_RUN         ranks ran on after ucc_run was killed with
#       SIGKILL: now they die with it
#   ucx_real_process.sh cause UCC_RUN           a rank killed, and a survivor that failed
#       fast because of it, reaped together: ucc_run named the survivor (waitpid returns
#       the older child first) and exited 1; now it names the killed rank and exits 137
set -uo pipefail
mode=$1
shift
source "$(dirname "$0")/../mp/mp_common.sh"
swarm_script=$(dirname "$0")/../../scripts/swarm_mp.sh

case "$mode" in
mismatch)
  for f in count type op root dtype init; do
    bash "$swarm_script" --jobs 4 --seed 100 --fault "$f" --ucc-run "$1" --program "$2" \
      >>"$out" 2>>"$err" || fail "fault $f"
  done
  ;;
abort)
  for s in 1 2 3 4 5; do
    "${clean_env[@]}" UCX_NET_DEVICES=lo timeout 100 "$1" --keep-going -n 4 --timeout 90 -- \
      "$2" --seed "$s" --bcast-loop >"$out" 2>"$err"
    grep -q "killed by signal 6" "$err" && fail "a survivor aborted (seed $s)"
    for r in 0 2 3; do
      grep -qE "^\[$r\] swarm: rank $r ok" "$out" || fail "rank $r did not finish (seed $s)"
    done
    grep -q "ucc_run: rank 1 killed by signal 9" "$err" || fail "the victim did not die (seed $s)"
  done
  ;;
giveup)
  # A type mismatch without timeouts: the peers wait on messages never sent,
  # give up after 3 s, and tear down.
  for s in 7 8 9 10 11 12; do
    "${clean_env[@]}" UCX_NET_DEVICES=lo timeout 100 "$1" --keep-going -n 3 --timeout 90 -- \
      "$2" --seed "$s" --fault type >"$out" 2>"$err" || fail "seed $s: ucc_run exited $?"
    grep -q "FAIL" "$out" && fail "seed $s"
    grep -q "gave up" "$out" && exit 0
  done
  fail "no job gave up: the test lost its case"
  ;;
orphans)
  marker=$tmp/pids
  "${clean_env[@]}" "$1" -n 3 -- sh -c "echo \$\$ >> $marker; exec sleep 60" >"$out" 2>"$err" &
  runner=$!
  for _ in $(seq 100); do
    [ -f "$marker" ] && [ "$(wc -l <"$marker")" -ge 3 ] && break
    sleep 0.1
  done
  [ "$(wc -l <"$marker")" -ge 3 ] || fail "the ranks did not start"
  kill -9 "$runner"
  wait "$runner" 2>/dev/null
  sleep 1
  # (A zombie is dead: where PID 1 does not reap, it stays until then.)
  while read -r pid; do
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)
    [ -n "$state" ] && [ "$state" != Z ] && fail "rank process $pid ($state) outlived ucc_run"
  done <"$marker"
  ;;
cause)
  # Rank 0 exits 1 and rank 1 SIGKILLs itself while ucc_run is stopped, so
  # both are zombies when it wakes: the order of reaping says nothing.
  go=$tmp/go
  "${clean_env[@]}" "$1" -n 2 --grace 2 --timeout 60 -- sh -c "echo \$\$ >> $tmp/pids
    for i in \$(seq 400); do [ -f $go ] && break; sleep 0.05; done
    if [ \$UCC_RANK = 1 ]; then kill -9 \$\$; else exit 1; fi" >"$out" 2>"$err" &
  runner=$!
  for _ in $(seq 100); do
    [ -f "$tmp/pids" ] && [ "$(wc -l <"$tmp/pids")" -ge 2 ] && break
    sleep 0.1
  done
  [ "$(wc -l <"$tmp/pids")" -ge 2 ] || fail "the ranks did not start"
  kill -STOP "$runner"
  touch "$go"
  for _ in $(seq 100); do
    zombies=0
    while read -r pid; do
      [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && zombies=$((zombies + 1))
    done <"$tmp/pids"
    [ "$zombies" -ge 2 ] && break
    sleep 0.05
  done
  kill -CONT "$runner"
  wait "$runner"
  rc=$?
  [ "$rc" -eq 137 ] || fail "ucc_run exited with $rc, not 137 (128 + SIGKILL)"
  grep -q "ucc_run: rank 1 killed by signal 9" "$err" || fail "rank 1's death not named"
  grep -q "ucc_run: rank 0 exited" "$err" && fail "the survivor was named as the cause"
  ;;
*)
  echo "usage: ucx_real_process.sh mismatch|abort|giveup|orphans|cause UCC_RUN [SWARM]" >&2
  exit 2
  ;;
esac
echo "PASS ($mode)"
