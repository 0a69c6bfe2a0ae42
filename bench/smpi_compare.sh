#!/usr/bin/env bash
# Our simulator against SimGrid's SMPI on this machine: the same program
# (every rank: init, one barrier, one 8 B allreduce, finalize; bench/smpi/),
# the same algorithms (dissemination barrier = SMPI's ompi_bruck, recursive
# doubling allreduce = SMPI's rdb), a platform shaped like our `hdr` network
# (8 ranks per node; 300 ns / 40 GB/s inside a node, 1.3 us / 24 GB/s
# between nodes). Each side's whole process is timed, the two alternating,
# REPS times per scale; one JSON line per scale with both medians and the
# ratio (SMPI's wall time over ours).
#
#   bench/smpi_compare.sh [BUILD_DIR] [RANKS ...]     (default: build 1024 4096)
#   REPS=5 bench/smpi_compare.sh build 1024
#
# Needs smpicc and smpirun (Debian: simgrid, libsimgrid-dev); without them it
# prints {"skipped": "..."} and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
shift || true
scales=("$@")
[ ${#scales[@]} -gt 0 ] || scales=(1024 4096)
reps="${REPS:-3}"

for tool in smpicc smpirun; do
    if ! command -v "$tool" > /dev/null; then
        echo "{\"skipped\": \"$tool not found: install Debian's simgrid and libsimgrid-dev\"}"
        exit 0
    fi
done
[ -x "$build/ucc_sim" ] || { echo "smpi_compare: $build/ucc_sim not built" >&2; exit 2; }

work="$(mktemp -d /tmp/smpi_compare.XXXXXX)"
trap 'rm -rf "$work"' EXIT
cc -std=c99 -O2 -shared -fPIC -I include -I "$build/include" \
    bench/smpi/ucc_barrier_allreduce.c -o "$work/ucc_program.so"
smpicc -O2 bench/smpi/mpi_barrier_allreduce.c -o "$work/mpi_program" > /dev/null

# Seconds of wall time of one command (its output kept in $work/last.out).
wall() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > "$work/last.out" 2>&1 || { cat "$work/last.out" >&2; return 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

for n in "${scales[@]}"; do
    nodes=$(( (n + 7) / 8 ))
    cat > "$work/platform.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="hdr" prefix="node-" suffix="" radical="0-$((nodes - 1))" core="8" speed="1Gf"
           bw="24GBps" lat="1.3us" loopback_bw="40GBps" loopback_lat="0.3us"
           bb_bw="1000GBps" bb_lat="0us"/>
</platform>
XML
    : > "$work/hostfile"
    for ((h = 0; h < nodes; ++h)); do
        for ((c = 0; c < 8; ++c)); do echo "node-$h" >> "$work/hostfile"; done
    done
    ours=()
    theirs=()
    for ((i = 0; i < reps; ++i)); do
        ours+=("$(UCC_BARRIER_ALG=dissemination UCC_BARRIER_DISSEMINATION_RADIX=2 \
            UCC_ALLREDUCE_ALG=recursive_doubling \
            wall "$build/ucc_sim" -np "$n" --program "$work/ucc_program.so")")
        grep -q "ucc: .*Success" "$work/last.out" || { cat "$work/last.out" >&2; exit 1; }
        theirs+=("$(wall smpirun -np "$n" -platform "$work/platform.xml" \
            -hostfile "$work/hostfile" -no-privatize --cfg=smpi/allreduce:rdb \
            --cfg=smpi/barrier:ompi_bruck --log=root.thres:critical "$work/mpi_program")")
        grep -q "smpi: .*ok" "$work/last.out" || { cat "$work/last.out" >&2; exit 1; }
    done
    u=$(median "${ours[@]}")
    s=$(median "${theirs[@]}")
    printf '{"ranks": %d, "reps": %d, "ucc_sim_wall_s": %.3f, "smpi_wall_s": %.3f, "ratio": %.2f}\n' \
        "$n" "$reps" "$u" "$s" "$(awk -v a="$s" -v b="$u" 'BEGIN { print a / b }')"
done
