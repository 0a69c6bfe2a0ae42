#!/usr/bin/env bash
# sim_workload --fiberless runs the same lifecycle without a fiber per rank:
# the same trace hash, virtual time and events as with fibers, every workload
# at 64 ranks (payload runs included) and the timing-only ones at 1,024, in
# the default setup (the context over the OOB, which a rank without a fiber
# joins in its later passes) and with --team-oob; and no switch to a rank
# stack (resumes 0).
#   sim_workload_fiberless_test.sh BUILD_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
fail() { echo "sim_workload_fiberless_test: FAIL: $*" >&2; exit 1; }
# Which run each JSON line was: workload, mode, hash, virtual time, events.
runs_of() {
    python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    assert r["status"] == "ok", r
    assert sys.argv[1] != "callbacks" or r["resumes"] == 0, r
    print(r["workload"], r["mode"], r["trace_hash"], r["virtual_s"], r["events"])
' "$1"
}
for setup in "" "--team-oob"; do
    for ranks in 64 1024; do
        args="--quick --only $ranks $setup"
        with="$("$build/sim_workload" $args | runs_of fibers)" || fail "$args"
        without="$("$build/sim_workload" $args --fiberless | runs_of callbacks)" ||
            fail "$args --fiberless"
        [[ -n "$with" && "$with" == "$without" ]] ||
            fail "$args: with fibers:"$'\n'"$with"$'\n'"without:"$'\n'"$without"
        echo "${setup:-default} $ranks: $(echo "$with" | wc -l) runs alike"
    done
done
