#!/usr/bin/env bash
# Multi-process tests over UCX, on loopback and shared memory (or in network
# namespaces this script creates):
#
#   ucx_mp_test.sh colls N UCC_RUN PROG [ARGS]  ucc_run -n N PROG: every rank reports 0 failures
#   ucx_mp_test.sh stop    UCC_RUN FAULTS       a rank stops (SIGSTOP): the others' timed
#                                               allreduce returns UCC_ERR_TIMED_OUT
#   ucx_mp_test.sh kill    UCC_RUN FAULTS       a rank is killed: the others' allreduce fails
#                                               (no hang), ucc_run exits 137 naming the rank
#   ucx_mp_test.sh netns   PROG                 two "hosts" in network namespaces joined by a
#                                               veth pair, UCX_TLS=tcp, torchrun-style
#                                               variables (exit 77: skipped, no `ip netns`)
#
# Every process runs under `timeout`; ctest adds its own TIMEOUT.
set -uo pipefail

mode=$1
shift
source "$(dirname "$0")/mp_common.sh"

case "$mode" in
colls)
  n=$1
  ucc_run=$2
  prog=$3
  shift 3
  timeout 600 "${clean_env[@]}" "$ucc_run" -n "$n" --timeout 590 -- "$prog" "$@" >"$out" 2>"$err"
  rc=$?
  [ "$rc" -eq 0 ] || fail "ucc_run exited with $rc"
  for ((r = 0; r < n; r++)); do
    grep -qE "^\[$r\] rank $r: [0-9]+ cases, 0 failures$" "$out" || fail "rank $r did not pass"
  done
  ;;
stop)
  ucc_run=$1
  faults=$2
  timeout 120 "${clean_env[@]}" "$ucc_run" -n 3 --timeout 110 -- "$faults" --stop >"$out" 2>"$err"
  rc=$?
  [ "$rc" -eq 0 ] || fail "ucc_run exited with $rc"
  for r in 0 1; do
    has_text "$out" "[$r] rank $r: allreduce returned Timeout expired"
    has_text "$out" "[$r] rank $r: ok"
  done
  has_text "$out" "[2] rank 2: continued"
  ;;
kill)
  ucc_run=$1
  faults=$2
  timeout 120 "${clean_env[@]}" "$ucc_run" --keep-going -n 3 --timeout 110 -- "$faults" --kill \
    >"$out" 2>"$err"
  rc=$?
  [ "$rc" -eq 137 ] || fail "ucc_run exited with $rc, not 137 (128 + SIGKILL)"
  has_text "$err" "ucc_run: rank 2 killed by signal 9 (SIGKILL)"
  for r in 0 1; do
    has_text "$out" "[$r] rank $r: allreduce returned"
    has_text "$out" "[$r] rank $r: ok"
  done
  ;;
netns)
  prog=$1
  shift
  ns_a=ucc_mp_a_$$
  ns_b=ucc_mp_b_$$
  cleanup() {
    ip netns del "$ns_a" 2>/dev/null
    ip netns del "$ns_b" 2>/dev/null
    rm -rf "$tmp"
  }
  trap cleanup EXIT
  if ! ip netns add "$ns_a" 2>"$err"; then
    echo "SKIP: cannot create network namespaces here ($(cat "$err"))"
    exit 77
  fi
  ip netns add "$ns_b" || fail "ip netns add"
  ip link add veth_ucc_a netns "$ns_a" type veth peer name veth_ucc_b netns "$ns_b" ||
    fail "cannot create a veth pair"
  ip -n "$ns_a" addr add 10.231.7.1/24 dev veth_ucc_a
  ip -n "$ns_b" addr add 10.231.7.2/24 dev veth_ucc_b
  for ns in "$ns_a" "$ns_b"; do
    ip -n "$ns" link set lo up
  done
  ip -n "$ns_a" link set veth_ucc_a up
  ip -n "$ns_b" link set veth_ucc_b up
  # UCX lists only links that are up with a carrier: wait (bounded) for both.
  for ((i = 0; i < 50; i++)); do
    if ip -n "$ns_a" link show veth_ucc_a | grep -q LOWER_UP &&
      ip -n "$ns_b" link show veth_ucc_b | grep -q LOWER_UP; then
      break
    fi
    sleep 0.1
  done
  port=29517
  # Rank 0 ("host" a) hosts the store at MASTER_ADDR:MASTER_PORT; rank 1
  # ("host" b) reaches it over the veth pair. UCX uses TCP on the veth only.
  run_rank() {
    local ns=$1 rank=$2 dev=$3
    shift 3
    timeout 300 ip netns exec "$ns" "${clean_env[@]}" RANK="$rank" WORLD_SIZE=2 LOCAL_RANK=0 \
      LOCAL_WORLD_SIZE=1 MASTER_ADDR=10.231.7.1 MASTER_PORT=$port UCX_TLS=tcp \
      UCX_NET_DEVICES="$dev" "$prog" "$@"
  }
  run_rank "$ns_a" 0 veth_ucc_a "$@" >"$out.0" 2>"$err.0" &
  pid0=$!
  run_rank "$ns_b" 1 veth_ucc_b "$@" >"$out.1" 2>"$err.1" &
  pid1=$!
  wait $pid0
  rc0=$?
  wait $pid1
  rc1=$?
  cat "$out.0" "$out.1" >"$out"
  cat "$err.0" "$err.1" >"$err"
  [ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] || fail "rank exit codes $rc0 and $rc1"
  grep -qE "^rank 0: [0-9]+ cases, 0 failures$" "$out" || fail "rank 0 did not pass"
  grep -qE "^rank 1: [0-9]+ cases, 0 failures$" "$out" || fail "rank 1 did not pass"
  cat "$out"
  ;;
*)
  echo "usage: ucx_mp_test.sh colls|stop|kill|netns ..."
  exit 2
  ;;
esac
rm -rf "$tmp"
echo "PASS ($mode)"
