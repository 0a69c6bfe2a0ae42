#!/usr/bin/env bash
# UCC collectives over UCX next to their floor and next to Open MPI, in one run.
# Builds nothing: give it a build directory holding ucc_run, ucx_latency,
# memcpy_bw and (where MPI was found) mpi_latency.
#
#   scripts/ucx_latency.sh BUILD_DIR [--quick] [--no-np4] [--port P] [--out FILE]
#   scripts/ucx_latency.sh BUILD_DIR --ref PREFIX [--quick] [--no-np4] [--rounds R] [--out FILE]
#
# Steps, each printed as JSON lines with the command that produced them ("cmd"):
#   1. the floor: ucx_perftest tag_lat at 8 B (its latency is half the round
#      trip: one-way) and tag_bw at 4..64 MiB between two local processes
#      (server in the background, client to 127.0.0.1 on a fixed port), and
#      single-threaded memcpy bandwidth at the same sizes;
#   2. ucc_run -n 2 ucx_latency: every collective from 8 B to 64 MiB, once with
#      the library's defaults ("label":"default": shared memory within the
#      host) and once with UCC_UCX_ERR_HANDLING=peer ("label":"ucx_err_peer":
#      UCX's peer error handling, which keeps UCX 1.13 on TCP loopback);
#   3. mpirun -np 2 mpi_latency: the same collectives through Open MPI with its
#      default components;
#   4. np = 4 of both (unless --no-np4), marked with a note when there are
#      fewer cores than processes: busy-polling processes then measure the
#      scheduler;
#   5. a summary: {"bench":"target",...} lines with the ratios to the floor and
#      to MPI that the targets name, "target" and "met": true/false.
# --quick: a smoke run (tiny sizes, few iterations, np = 2 only). Loopback and
# shared memory only. Every step is bounded by `timeout`.
#
# --ref PREFIX: against a reference UCC installed at PREFIX (built by hand,
# outside this repository). The same program, bench/ucx_latency.cc, is built
# with mpicxx against PREFIX's headers and libucc (into a temporary
# directory), and at np = 2 and 4 three programs run R times (default 3)
# alternately under `mpirun --bind-to core` (np 4 on fewer cores:
# core:overload-allowed), MPI as their OOB: this library ("label":"ours"), the
# reference ("label":"ref") and Open MPI's own collectives (mpi_latency). The
# summary compares medians: every collective at every size against the better
# of the reference and Open MPI (target <= 1.0), and 8 B allreduce, bcast and
# barrier against the reference (target <= 0.9).
set -euo pipefail

usage() {
    echo "usage: scripts/ucx_latency.sh BUILD_DIR [--quick] [--no-np4] [--port P] [--out FILE]" >&2
    echo "       scripts/ucx_latency.sh BUILD_DIR --ref PREFIX [--quick] [--no-np4] [--rounds R] [--out FILE]" >&2
    exit 2
}

[[ $# -ge 1 ]] || usage
build="$(cd "$1" && pwd)"
shift
quick=0
np4=1
port=13401
out=""
ref=""
rounds=3
while [[ $# -gt 0 ]]; do
    case "$1" in
        --quick) quick=1 ;;
        --no-np4) np4=0 ;;
        --port) port="$2"; shift ;;
        --out) out="$2"; shift ;;
        --ref) ref="$2"; shift ;;
        --rounds) rounds="$2"; shift ;;
        *) usage ;;
    esac
    shift
done
if [[ $quick == 1 ]]; then
    np4=0
fi

export UCX_NET_DEVICES=lo
export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

for f in ucc_run ucx_latency memcpy_bw; do
    [[ -x "$build/$f" ]] || { echo "ucx_latency.sh: $build/$f not built" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "ucx_latency.sh: python3 is needed for the summary" >&2; exit 2; }

lines="$(mktemp)"
trap 'rm -f "$lines"' EXIT

# Prints a JSON line and keeps it for the summary.
say() {
    printf '%s\n' "$1" | tee -a "$lines"
    if [[ -n "$out" ]]; then printf '%s\n' "$1" >>"$out"; fi
}

json_str() {  # a shell string as a JSON string
    python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"
}

# Runs a command (bounded by `timeout`), keeps the JSON lines it prints (ucc_run's
# "[rank] " prefix removed) and adds to each the command and the load average
# before and after it (other work on the machine shows there).
run_json() {
    local tmo="$1"
    shift
    local cmd
    cmd="$(json_str "$*")"
    local rc=0
    local text load0 load1
    load0="$(cut -d' ' -f1 /proc/loadavg)"
    text="$(timeout "$tmo" "$@")" || rc=$?
    load1="$(cut -d' ' -f1 /proc/loadavg)"
    while IFS= read -r l; do
        l="${l#\[*\] }"
        if [[ "$l" == "{"*"}" ]]; then
            say "${l%\}},\"load\":\"$load0 $load1\",\"cmd\":$cmd}"
        fi
    done <<<"$text"
    if [[ $rc != 0 ]]; then
        say "{\"bench\":\"error\",\"rc\":$rc,\"cmd\":$cmd}"
        return 1
    fi
}

if [[ -n "$ref" ]]; then
    # shellcheck source=scripts/ucx_latency_ref.sh
    source "$(dirname "$0")/ucx_latency_ref.sh"
    exit $?
fi

ok=1
load="$(cut -d' ' -f1-3 /proc/loadavg)"
say "{\"bench\":\"meta\",\"nproc\":$(nproc),\"loadavg\":\"$load\",\"date\":\"$(date -u +%FT%TZ)\",\"ucx\":$(json_str "$(ucx_info -v 2>/dev/null | sed -n 's/^# Version //p' | head -1)"),\"commit\":\"$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo none)\",\"quick\":$quick}"

# ---- 1. the floor
# One ucx_perftest test (scripts/ucx_perftest_final.sh), as a JSON line.
# Server and client are pinned to CPUs of their own where there are two (-c),
# as ucx_latency pins its ranks and mpirun binds at np = 2.
# shellcheck source=scripts/ucx_perftest_final.sh
source "$(dirname "$0")/ucx_perftest_final.sh"
perftest() {
    local test="$1" bytes="$2" iters="$3" warm="$4"
    local cmd
    cmd="$(json_str "ucx_perftest -p $port & ucx_perftest 127.0.0.1 -p $port -t $test -s $bytes -n $iters -w $warm")"
    local final
    final="$(ucx_perftest_final "$port" -t "$test" -s "$bytes" -n "$iters" -w "$warm" || true)"
    if [[ -z "$final" ]]; then
        say "{\"bench\":\"error\",\"what\":\"ucx_perftest $test $bytes gave no Final line\",\"cmd\":$cmd}"
        return 1
    fi
    local load
    load="$(cut -d' ' -f1 /proc/loadavg)"
    # shellcheck disable=SC2086
    set -- $final
    local n="$2" p50="$3" overall="$5" bw_overall="$7"
    if [[ "$test" == tag_lat ]]; then
        say "{\"bench\":\"ucx_perftest\",\"test\":\"tag_lat\",\"bytes\":$bytes,\"iters\":$n,\"one_way_avg_us\":$overall,\"one_way_p50_us\":$p50,\"load\":\"$load\",\"cmd\":$cmd}"
    else
        local gbps
        gbps="$(python3 -c "print(f'{$bw_overall * 1048576 / 1e9:.4f}')")"
        say "{\"bench\":\"ucx_perftest\",\"test\":\"$test\",\"bytes\":$bytes,\"iters\":$n,\"GBps\":$gbps,\"MiBps\":$bw_overall,\"load\":\"$load\",\"cmd\":$cmd}"
    fi
}

if command -v ucx_perftest >/dev/null; then
    if [[ $quick == 1 ]]; then
        perftest tag_lat 8 2000 200 || ok=0
        perftest tag_bw $((4 << 20)) 5 1 || ok=0
    else
        perftest tag_lat 8 200000 20000 || ok=0
        for mib in 4 8 16 32 64; do
            perftest tag_bw $((mib << 20)) $((800 / mib)) $((80 / mib + 1)) || ok=0
        done
    fi
else
    say "{\"bench\":\"error\",\"what\":\"ucx_perftest not installed: no floor\"}"
    ok=0
fi
if [[ $quick == 1 ]]; then
    run_json 60 "$build/memcpy_bw" --quick || ok=0
else
    run_json 120 "$build/memcpy_bw" --min-bytes 4M --max-bytes 64M || ok=0
fi

# ---- 2-4. UCC (two configurations) and MPI, at np = 2 (and 4)
bench_args=()
if [[ $quick == 1 ]]; then
    bench_args=(--quick)
fi
nps=(2)
if [[ $np4 == 1 ]]; then
    nps+=(4)
fi
for np in "${nps[@]}"; do
    if (( np > $(nproc) )); then
        say "{\"bench\":\"note\",\"np\":$np,\"text\":\"$np busy-polling processes on $(nproc) cores: these figures measure the scheduler\"}"
    fi
    run_json 1200 "$build/ucc_run" -n "$np" --timeout 1100 "$build/ucx_latency" \
        --label default "${bench_args[@]}" || ok=0
    run_json 1200 env UCC_UCX_ERR_HANDLING=peer "$build/ucc_run" -n "$np" --timeout 1100 \
        "$build/ucx_latency" --label ucx_err_peer "${bench_args[@]}" || ok=0
    if [[ -x "$build/mpi_latency" ]] && command -v mpirun >/dev/null; then
        over=()
        if (( np > $(nproc) )); then
            over=(--oversubscribe)
        fi
        run_json 1200 mpirun "${over[@]}" -np "$np" "$build/mpi_latency" "${bench_args[@]}" || ok=0
    else
        say "{\"bench\":\"error\",\"what\":\"mpi_latency or mpirun missing: no MPI comparison\"}"
        ok=0
    fi
done

# ---- 5. the summary
python3 - "$lines" <<'EOF' | while IFS= read -r l; do say "$l"; done
import json, sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
# The floor's average is the statistic compared (ours are averages too); its
# median is given beside it, being far less sensitive to preemption.
lat_row = next((r for r in rows if r["bench"] == "ucx_perftest" and r["test"] == "tag_lat"), None)
lat = lat_row["one_way_avg_us"] if lat_row else None
lat_p50 = lat_row["one_way_p50_us"] if lat_row else None
bw = {r["bytes"]: r["GBps"] for r in rows
      if r["bench"] == "ucx_perftest" and r["test"] == "tag_bw"}
ucc = [r for r in rows if r["bench"] == "ucc" and r["np"] == 2]
mpi = {(r["collective"], r["bytes"]): r for r in rows if r["bench"] == "mpi" and r["np"] == 2}
labels = sorted({r.get("label", "") for r in ucc})

def out(**kv):
    kv["met"] = bool(kv["met"])
    print(json.dumps({"bench": "target", "np": 2, **kv}))

for label in labels:
    mine = {(r["collective"], r["bytes"]): r for r in ucc if r.get("label", "") == label}
    # Latency at 8 B (barrier: no bytes) against UCX's one-way tag latency.
    for coll, nbytes, limit in (("allreduce", 8, 2.0), ("bcast", 8, 1.2), ("barrier", 0, 1.8)):
        r = mine.get((coll, nbytes))
        if r is None or lat is None:
            continue
        ratio = r["avg_us"] / lat
        out(label=label, name=f"{coll} {nbytes} B latency / UCX one-way tag latency",
            collective=coll, bytes=nbytes, value_us=r["avg_us"], floor_us=lat,
            ratio=round(ratio, 3), floor_p50_us=lat_p50,
            ratio_to_p50=round(r["avg_us"] / lat_p50, 3) if lat_p50 else None,
            target=f"<= {limit}", met=ratio <= limit)
    # Bus bandwidth at 4 MiB and above against UCX tag bandwidth.
    for coll in ("allreduce", "bcast", "allgather"):
        for nbytes in sorted(bw):
            r = mine.get((coll, nbytes))
            if r is None:
                continue
            ratio = r["busbw_GBps"] / bw[nbytes]
            out(label=label, name=f"{coll} bus bandwidth / UCX tag bandwidth",
                collective=coll, bytes=nbytes, value_GBps=r["busbw_GBps"],
                floor_GBps=bw[nbytes], ratio=round(ratio, 3), target=">= 0.9",
                met=ratio >= 0.9)
    # No slower than Open MPI at any size: one line per collective.
    for coll in dict.fromkeys(k[0] for k in mine):
        ratios = {b: mine[(c, b)]["avg_us"] / mpi[(c, b)]["avg_us"]
                  for (c, b) in mine if c == coll and (c, b) in mpi}
        if not ratios:
            continue
        worst = max(ratios, key=ratios.get)
        out(label=label, name=f"{coll} time / Open MPI time, every size",
            collective=coll, sizes=len(ratios),
            sizes_met=sum(1 for v in ratios.values() if v <= 1.0),
            worst_ratio=round(ratios[worst], 3), worst_bytes=worst,
            ratio_by_bytes={str(b): round(v, 3) for b, v in sorted(ratios.items())},
            target="<= 1.0 at every size", met=all(v <= 1.0 for v in ratios.values()))
EOF

[[ $ok == 1 ]]
