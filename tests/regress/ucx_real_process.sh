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
#   ucx_real_process.sh late UCC_RUN FAULTS     a receiver stopped past the root's timeout
#       completed a 4 MiB bcast from the root's memory after the root had reused it (UCC_OK,
#       wrong data): now it gets the data as sent (a collective with a timeout sends from a copy)
#   ucx_real_process.sh cause UCC_RUN           a rank that failed, and one that failed
#       after it (because of it), reaped together: ucc_run named the second (waitpid
#       returns the older child first); now it names the first to end and exits with its code
#   ucx_real_process.sh teardown UCC_RUN SWARM  a survivor of a rank killed mid-flight
#       aborted in ucp_worker_destroy (UCX 1.13's assertion that a shared-memory endpoint
#       holds no queued copy: the discard of the dead peer's transports was still under
#       way; CI's swarm job 72, 1 in 5 runs of its seed): now the worker is flushed first
#   ucx_real_process.sh polling UCC_RUN COLLS   two ranks bound to a core each (mpirun
#       --bind-to core) counted one CPU each and called themselves oversubscribed: every idle
#       poll yielded (small messages 1.6-2.3x slower). Now the decision counts the CPUs all
#       local ranks may run on together: bound ranks with a core each busy-poll; ranks that
#       share fewer CPUs than they are yield. Decisions read from the debug log.
set -uo pipefail
mode=$1
shift
source "$(dirname "$0")/../mp/mp_common.sh"
swarm_script=$(dirname "$0")/../../scripts/swarm_mp.sh

# polling: the decision each rank logged ("busy polling" or "idle polls yield") is $1 on
# every line, and there are lines from $2 ranks.
expect_polling() {
  local n
  n=$(grep -a "ucx: polling:" "$err" | grep -c -- "$1")
  grep -a "ucx: polling:" "$err" | grep -v -- "$1" >/dev/null && fail "a rank decided otherwise than '$1'"
  [ "$n" -ge "$2" ] || fail "$n lines say '$1', expected at least $2"
}

case "$mode" in
polling)
  cpus=$(nproc --all)
  run() { # run LAUNCH...: the quick collectives with the debug log on stderr
    : >"$err"
    "${clean_env[@]}" UCX_NET_DEVICES=lo UCC_LOG_LEVEL=debug timeout 120 "$@" >"$out" 2>"$err" ||
      fail "$* exited $?"
  }
  # Two ranks on one CPU: yield.
  run taskset -c 0 "$1" -n 2 -- "$2" --quick
  expect_polling "idle polls yield" 2
  if [ "$cpus" -ge 2 ]; then
    # Two ranks on two CPUs: busy polling; four on two: yield.
    run taskset -c 0,1 "$1" -n 2 -- "$2" --quick
    expect_polling "busy polling" 2
    run taskset -c 0,1 "$1" -n 4 -- "$2" --quick
    expect_polling "idle polls yield" 4
    if command -v mpirun >/dev/null 2>&1; then
      # Bound to a core each (what every MPI user gets): busy polling.
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
      # (Open MPI's own allocations outlive MPI_Finalize: no leak check there.)
      run env ASAN_OPTIONS=detect_leaks=0 mpirun --bind-to core -np 2 -x UCX_NET_DEVICES \
        -x UCC_LOG_LEVEL -x ASAN_OPTIONS "$2" --oob mpi --quick
      expect_polling "busy polling" 2
      grep -a "ucx: polling:" "$err" | grep -q "2 processes of the job on this host, 2 CPUs" ||
        fail "the bound ranks did not count two CPUs"
    fi
  fi
  ;;
mismatch)
  for f in count type op root dtype init; do
    bash "$swarm_script" --jobs 4 --seed 100 --fault "$f" --ucc-run "$1" --program "$2" \
      >>"$out" 2>>"$err" || fail "fault $f"
  done
  # Swarm seed 749905 on 2 processes: a 4 MiB allreduce ring (8 B elements)
  # against one of 6 MiB. Its blocks went in 64 KiB chunks, all of one
  # length, and the rank of the shorter blocks met the first of the longer
  # ones' chunks (UCC_OK, wrong data); the last chunk now tells them apart.
  "${clean_env[@]}" UCX_NET_DEVICES=lo timeout 100 "$1" --keep-going -n 2 --timeout 90 -- \
    "$2" --seed 749905 >"$out" 2>"$err" || fail "seed 749905: ucc_run exited $?"
  grep -q "FAIL" "$out" && fail "seed 749905"
  grep -q "DESYNC" "$err" || fail "seed 749905: no DESYNC line (the test lost its case)"
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
teardown)
  # Swarm seed 557726: rank 0 is killed at the 6th of 8 collectives, during
  # rendezvous-sized reduces and allgathers (CMA reads from its memory).
  for i in $(seq 20); do
    "${clean_env[@]}" UCX_NET_DEVICES=lo timeout 100 "$1" --keep-going -n 3 --timeout 90 -- \
      "$2" --seed 557726 >"$out" 2>"$err"
    grep -qE "killed by signal 6|Assertion" "$err" && fail "a survivor aborted (run $i)"
    for r in 1 2; do
      grep -qE "^\[$r\] swarm: rank $r ok" "$out" || fail "rank $r did not finish (run $i)"
    done
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
late)
  "${clean_env[@]}" UCX_NET_DEVICES=lo timeout 100 "$1" -n 2 --timeout 90 -- "$2" --late \
    >"$out" 2>"$err" || fail "ucc_run exited $?"
  grep -q "^\[1\] rank 1: late bcast returned" "$out" || fail "rank 1 did not report"
  grep -q "FAIL" "$out" "$err" && fail "a rank failed"
  ;;
cause)
  # Rank 1 exits 3; then rank 0, once rank 1 is a zombie, exits 1; ucc_run is
  # stopped meanwhile, so both have ended when it wakes, and waitpid(-1)
  # would hand back rank 0 (the older child) first.
  go=$tmp/go
  pids=$tmp/pids
  "${clean_env[@]}" "$1" -n 2 --grace 2 --timeout 60 -- sh -c "echo \$UCC_RANK \$\$ >> $pids
    for i in \$(seq 400); do [ -f $go ] && break; sleep 0.05; done
    [ \$UCC_RANK = 1 ] && exit 3
    p1=\$(awk '\$1 == 1 {print \$2}' $pids)
    for i in \$(seq 400); do
      [ \"\$(awk '{print \$3}' /proc/\$p1/stat)\" = Z ] && break; sleep 0.05
    done
    exit 1" >"$out" 2>"$err" &
  runner=$!
  for _ in $(seq 100); do
    [ -f "$pids" ] && [ "$(wc -l <"$pids")" -ge 2 ] && break
    sleep 0.1
  done
  [ "$(wc -l <"$pids")" -ge 2 ] || fail "the ranks did not start"
  kill -STOP "$runner"
  touch "$go"
  for _ in $(seq 100); do
    zombies=0
    while read -r _ pid; do
      [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && zombies=$((zombies + 1))
    done <"$pids"
    [ "$zombies" -ge 2 ] && break
    sleep 0.05
  done
  kill -CONT "$runner"
  wait "$runner"
  rc=$?
  [ "$rc" -eq 3 ] || fail "ucc_run exited with $rc, not 3 (rank 1's code)"
  grep -q "ucc_run: rank 1 exited with code 3" "$err" || fail "rank 1's exit not named"
  grep -q "ucc_run: rank 0 exited" "$err" && fail "the rank that failed second was named"
  ;;
*)
  echo "usage: ucx_real_process.sh mismatch|abort|teardown|giveup|orphans|late|cause|polling UCC_RUN [SWARM]" >&2
  exit 2
  ;;
esac
echo "PASS ($mode)"
