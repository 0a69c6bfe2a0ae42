#!/usr/bin/env bash
# Multi-process tests of the bootstrap (ucc_boot.h) and ucc_run, on loopback:
#
#   boot_mp_test.sh run N     UCC_RUN BOOT_HELLO   ucc_run -n N: every rank's lines, prefixed
#   boot_mp_test.sh kill      UCC_RUN BOOT_HELLO   a rank SIGKILLs itself: ucc_run names it
#   boot_mp_test.sh exit      UCC_RUN BOOT_HELLO   a rank exits 3: ucc_run names it, exits 3
#   boot_mp_test.sh signal    UCC_RUN BOOT_HELLO   SIGINT to ucc_run reaches the ranks
#   boot_mp_test.sh torchrun  UCC_RUN BOOT_HELLO   RANK/WORLD_SIZE/MASTER_*: rank 0 hosts the store
#   boot_mp_test.sh mpirun    UCC_RUN BOOT_HELLO   mpirun -np 2 (exit 77: skipped, no mpirun)
#
# Every process runs under `timeout`; ctest adds its own TIMEOUT.
set -uo pipefail

mode=$1
shift
n=2
if [ "$mode" = run ]; then
  n=$1
  shift
fi
ucc_run=$1
hello=$2

source "$(dirname "$0")/mp_common.sh"
trap 'rm -rf "$tmp"' EXIT

# A port in 20000..59999 for a store hosted by rank 0. A port someone else
# holds makes rank 0 fail with "cannot listen"; callers retry with another.
random_port() { echo $((20000 + (RANDOM * 32768 + RANDOM) % 40000)); }

case "$mode" in
run)
  timeout 60 "${clean_env[@]}" "$ucc_run" -n "$n" --timeout 50 -- "$hello" --rounds 2 \
    >"$out" 2>"$err"
  rc=$?
  [ "$rc" -eq 0 ] || fail "ucc_run exited with $rc"
  for ((r = 0; r < n; r++)); do
    has_line "$out" "[$r] rank $r of $n: ok (local $r of $n)"
    has_line "$out" "[$r] bye"  # the partial last line, completed
    has_line "$err" "[$r] rank $r: a line on stderr"
  done
  ;;
kill)
  timeout 60 "${clean_env[@]}" "$ucc_run" -n 4 --grace 2 -- "$hello" --kill-rank 2 \
    >"$out" 2>"$err"
  rc=$?
  [ "$rc" -eq 137 ] || fail "ucc_run exited with $rc, not 137 (128 + SIGKILL)"
  has_line "$err" "ucc_run: rank 2 killed by signal 9 (SIGKILL)"
  ;;
exit)
  timeout 60 "${clean_env[@]}" "$ucc_run" -n 3 --grace 2 -- "$hello" --exit-rank 1 \
    --exit-code 3 >"$out" 2>"$err"
  rc=$?
  [ "$rc" -eq 3 ] || fail "ucc_run exited with $rc, not 3"
  has_line "$err" "ucc_run: rank 1 exited with code 3"
  ;;
signal)
  # Ranks that would sleep for a minute; SIGINT to ucc_run must end them now.
  "${clean_env[@]}" timeout 60 "$ucc_run" -n 2 --grace 2 -- sleep 50 >"$out" 2>"$err" &
  pid=$!
  # timeout(1) runs ucc_run as its child: signal that, once both ranks run.
  runner=""
  for ((i = 0; i < 200; i++)); do
    runner=$(pgrep -P "$pid" -x ucc_run || true)
    if [ -n "$runner" ] && [ "$(pgrep -c -P "$runner" -x sleep)" = 2 ]; then
      break
    fi
    sleep 0.05
  done
  [ -n "$runner" ] || fail "ucc_run did not start"
  kill -INT "$runner"
  wait "$pid"
  rc=$?
  [ "$rc" -eq 130 ] || fail "ucc_run exited with $rc, not 130 (128 + SIGINT)"
  has_text "$err" "ucc_run: got SIGINT; forwarding it to 2 running ranks"
  ;;
torchrun)
  # Two processes started by hand with torchrun's variables; rank 0 hosts
  # the store at MASTER_ADDR:MASTER_PORT, rank 1 connects (retrying).
  for attempt in 1 2 3 4 5; do
    port=$(random_port)
    : >"$out"
    : >"$err"
    pids=()
    for r in 0 1; do
      "${clean_env[@]}" RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 \
        MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" timeout 60 "$hello" --rounds 2 \
        >"$tmp/out$r" 2>"$tmp/err$r" &
      pids+=($!)
    done
    rcs=()
    for p in "${pids[@]}"; do
      wait "$p"
      rcs+=($?)
    done
    cat "$tmp/out0" "$tmp/out1" >"$out"
    cat "$tmp/err0" "$tmp/err1" >"$err"
    if grep -q "cannot listen" "$err"; then
      echo "port $port is taken (attempt $attempt); trying another"
      continue
    fi
    [ "${rcs[0]}" -eq 0 ] && [ "${rcs[1]}" -eq 0 ] || fail "ranks exited with ${rcs[*]}"
    has_text "$tmp/out0" "rank 0 of 2: ok (local 0 of 2)"
    has_text "$tmp/out1" "rank 1 of 2: ok (local 1 of 2)"
    exit 0
  done
  fail "no free port found in 5 attempts"
  ;;
mpirun)
  if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: mpirun not found (install openmpi-bin)"
    exit 77
  fi
  for attempt in 1 2 3 4 5; do
    port=$(random_port)
    "${clean_env[@]}" OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo \
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      timeout 60 mpirun --oversubscribe -np 2 -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT="$port" \
      "$hello" >"$out" 2>"$err"
    rc=$?
    if grep -q "cannot listen" "$err"; then
      echo "port $port is taken (attempt $attempt); trying another"
      continue
    fi
    [ "$rc" -eq 0 ] || fail "mpirun exited with $rc"
    has_text "$out" "rank 0 of 2: ok (local 0 of 2)"
    has_text "$out" "rank 1 of 2: ok (local 1 of 2)"
    exit 0
  done
  fail "no free port found in 5 attempts"
  ;;
*)
  echo "unknown mode '$mode'"
  exit 2
  ;;
esac
echo "PASS ($mode)"
