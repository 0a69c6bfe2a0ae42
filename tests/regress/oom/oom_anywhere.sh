#!/bin/bash
# Found by CI on the simulator with its heap on huge pages: out of address
# space, an allocation of the event loop itself (not a rank's) failed; the
# exception left the loop while ranks were suspended, the cluster's
# destructor unwound their stacks, the library's API guard took Boost.Context's
# unwinding for an error ("ucc_context_progress: internal error") and the
# rank went on: a segmentation fault. Now the loop ends the run with
# UCC_ERR_NO_MEMORY and leaves unfinished ranks as crashed ones are
# (Cluster::give_up_out_of_memory). Where the address space runs out moves
# with the limit, so the reproducer runs under a range of limits, with the
# address-space layout fixed (setarch -R: no randomization, the same run every
# time; before the fix 1.35 and 1.4 GB crashed here): every run must end with
# a status (0 or 1), never a signal or an "internal error".
#   oom_anywhere.sh UCC_SIM
set -uo pipefail
sim="$1"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
fixed=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
    fixed=(setarch "$(uname -m)" -R)
fi
runs=0
for limit in $(seq 1000000 50000 1600000); do
    "${fixed[@]}" bash -c "ulimit -v $limit && exec \"\$0\" -np 2 -c allreduce -b 256M -e 256M -i 1 --alg ring" \
        "$sim" >"$out" 2>&1
    rc=$?
    runs=$((runs + 1))
    if [ "$rc" -gt 1 ] || grep -q "internal error\|terminate called" "$out"; then
        echo "oom_anywhere: limit $limit KiB: exit $rc"
        cat "$out"
        exit 1
    fi
done
echo "oom_anywhere: $runs runs out of address space, each ended with a status"
