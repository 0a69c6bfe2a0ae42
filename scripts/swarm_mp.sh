#!/usr/bin/env bash
# The real-process swarm: many short jobs of tests/mp/ucx_swarm.cc over UCX,
# each with one fault drawn from its seed (see that file), on this host's
# loopback and shared memory.
#
#   scripts/swarm_mp.sh [--jobs N | --minutes M] [--seed S] [--fault KIND]
#                       [--ucc-run PATH] [--program PATH]
#
# Job j runs with seed S + j on 2 + (S + j) % 5 processes (2-6) under
# `ucc_run --keep-going`. A job passes when every rank but a killed victim
# prints "swarm: rank R ok", no rank prints FAIL, and no rank dies of a
# signal other than the victim's SIGKILL (an abort is a failure). Every
# failure prints the command that replays its job. Defaults: 200 jobs, seed
# from the commit under test (or 1), build/ucc_run and build/mp_ucx_swarm.
# --minutes runs jobs until that much time has passed (the knob for hours).
# Exit status: 0 when every job passed.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
jobs=200
minutes=0
seed=""
fault=""
ucc_run=$root/build/ucc_run
program=$root/build/mp_ucx_swarm
while [ $# -gt 0 ]; do
  case "$1" in
  --jobs) jobs=$2; shift 2 ;;
  --minutes) minutes=$2; jobs=0; shift 2 ;;
  --seed) seed=$2; shift 2 ;;
  --fault) fault=$2; shift 2 ;;
  --ucc-run) ucc_run=$2; shift 2 ;;
  --program) program=$2; shift 2 ;;
  *) echo "swarm_mp.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$seed" ]; then
  rev=$(git -C "$root" rev-parse --short=8 HEAD 2>/dev/null || true)
  if [ -n "$rev" ]; then seed=$((16#$rev % 1000000)); else seed=1; fi
fi
for f in "$ucc_run" "$program"; do
  [ -x "$f" ] || { echo "swarm_mp.sh: $f is not built" >&2; exit 2; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Loopback and shared memory only; no launcher variables from outside.
export UCX_NET_DEVICES=lo
unset UCC_RANK UCC_WORLD_SIZE UCC_LOCAL_RANK UCC_LOCAL_SIZE UCC_STORE RANK WORLD_SIZE \
  MASTER_ADDR MASTER_PORT OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE SLURM_PROCID SLURM_NTASKS \
  UCC_CHECK_ASYMMETRIC_DT UCC_DESYNC_CHECK

echo "swarm_mp: seed $seed, $( [ "$jobs" -gt 0 ] && echo "$jobs jobs" || echo "$minutes minutes")"
start=$(date +%s)
passed=0
failed=0
declare -A by_fault
j=0
while :; do
  if [ "$jobs" -gt 0 ]; then
    [ "$j" -lt "$jobs" ] || break
  elif [ $(( $(date +%s) - start )) -ge $(( minutes * 60 )) ]; then
    break
  fi
  s=$((seed + j))
  np=$((2 + s % 5))
  args=(--seed "$s")
  [ -n "$fault" ] && args+=(--fault "$fault")
  replay="$ucc_run --keep-going -n $np -- $program ${args[*]}"
  timeout 100 "$ucc_run" --keep-going -n "$np" --timeout 90 -- "$program" "${args[@]}" \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  desc=$(grep -m1 -oE "swarm: seed .*" "$tmp/out")
  kind=$(sed -nE 's/.* fault ([a-z]+) .*/\1/p' <<<"$desc")
  victim=$(sed -nE 's/.* victim ([0-9]+) .*/\1/p' <<<"$desc")
  why=""
  [ -n "$desc" ] || why="no job line (rc $rc)"
  [ "$rc" -eq 124 ] && why="the job outlasted 100 s"
  grep -q "FAIL" "$tmp/out" && why=$(grep -m1 "FAIL" "$tmp/out")
  for ((r = 0; r < np; r++)); do
    [ -z "$why" ] || break
    if grep -qE "^\[$r\] swarm: rank $r ok" "$tmp/out"; then
      continue
    fi
    if [ "$kind" = kill ] && [ "$r" = "$victim" ] &&
      grep -q "ucc_run: rank $r killed by signal 9" "$tmp/err"; then
      continue
    fi
    why="rank $r did not finish: $(grep -E "ucc_run: rank $r " "$tmp/err" | head -1)"
  done
  if [ -z "$why" ] && grep -E "ucc_run: rank [0-9]+ killed by signal" "$tmp/err" |
    grep -vq "rank $victim killed by signal 9"; then
    why=$(grep -E "killed by signal" "$tmp/err" | grep -v "rank $victim killed by signal 9" | head -1)
  fi
  if [ -n "$why" ]; then
    failed=$((failed + 1))
    echo "swarm_mp: job $j FAILED: $why"
    echo "  $desc"
    echo "  replay: $replay"
    sed 's/^/  | /' "$tmp/out" | tail -20
    sed 's/^/  ! /' "$tmp/err" | grep -v "^  ! \[.*\] \[.*UCX  \(WARN\|DIAG\)" | tail -40
  else
    passed=$((passed + 1))
    by_fault[$kind]=$(( ${by_fault[$kind]:-0} + 1 ))
  fi
  j=$((j + 1))
done
summary=""
for k in "${!by_fault[@]}"; do summary+=" $k=${by_fault[$k]}"; done
echo "swarm_mp: $j jobs, $passed passed, $failed failed in $(( $(date +%s) - start )) s (passed by fault:$summary)"
[ "$failed" -eq 0 ]
