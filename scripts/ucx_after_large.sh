#!/usr/bin/env bash
# Small collectives right after large ones, with and without a CPU hog beside
# them: the reproducer of a load-dependent slowdown (8 B barrier, allgather
# and alltoall at 4-11 us after a 1 MiB collective on a busy machine, while
# the reference stayed at 0.4 us). Two ranks under `mpirun --bind-to core`
# (what an MPI user gets) run allgather from 8 B to 1 MiB, then alltoall the
# same, then barrier; alternately without and with a busy loop running
# beside them (on whatever CPU the scheduler gives it), R rounds.
#
#   scripts/ucx_after_large.sh BUILD_DIR [--ref PREFIX] [--rounds R]
#
# --ref PREFIX: the same program built against a reference UCC installed at
# PREFIX runs after ours in each round (as scripts/ucx_latency.sh --ref).
# Prints ucx_latency's JSON lines for the 8 B points and the barrier, each
# with "hog" (0/1), "lib" ("ours"/"ref") and "round" added.
set -euo pipefail

usage() {
    echo "usage: scripts/ucx_after_large.sh BUILD_DIR [--ref PREFIX] [--rounds R]" >&2
    exit 2
}
[[ $# -ge 1 ]] || usage
build="$(cd "$1" && pwd)"
shift
ref=""
rounds=3
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ref) ref="$2"; shift ;;
        --rounds) rounds="$2"; shift ;;
        *) usage ;;
    esac
    shift
done
command -v mpirun >/dev/null || { echo "ucx_after_large.sh: mpirun not found" >&2; exit 2; }
[[ -x "$build/ucx_latency" ]] || { echo "ucx_after_large.sh: $build/ucx_latency not built" >&2; exit 2; }

export UCX_NET_DEVICES=lo
export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

tmp="$(mktemp -d)"
hog=""
cleanup() {
    if [[ -n "$hog" ]]; then kill "$hog" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

libs=(ours)
progs=("$build/ucx_latency")
if [[ -n "$ref" ]]; then
    src_dir="$(cd "$(dirname "$0")/.." && pwd)"
    mpicxx -std=c++20 -O2 -DNDEBUG -DUCC_MP_WITH_MPI=1 -I"$ref/include" -I"$src_dir" \
        "$src_dir/bench/ucx_latency.cc" -o "$tmp/ucx_latency_ref" \
        -L"$ref/lib" -lucc -Wl,-rpath,"$ref/lib" ||
        { echo "ucx_after_large.sh: building against $ref failed" >&2; exit 2; }
    libs+=(ref)
    progs+=("$tmp/ucx_latency_ref")
fi

for ((r = 1; r <= rounds; r++)); do
    for h in 0 1; do
        if [[ $h == 1 ]]; then
            (while :; do :; done) &
            hog=$!
        fi
        for i in "${!libs[@]}"; do
            timeout 300 env -u LD_LIBRARY_PATH mpirun --bind-to core -np 2 -x UCX_NET_DEVICES \
                "${progs[$i]}" --oob mpi --no-bind --colls allgather,alltoall,barrier \
                --min-bytes 8 --max-bytes 1M --time 0.3 --mode persistent 2>/dev/null |
                grep -E '"bytes":(8|0),' |
                sed "s/}\$/,\"hog\":$h,\"lib\":\"${libs[$i]}\",\"round\":$r}/"
        done
        if [[ -n "$hog" ]]; then
            kill "$hog"
            wait "$hog" 2>/dev/null || true
            hog=""
        fi
    done
done
