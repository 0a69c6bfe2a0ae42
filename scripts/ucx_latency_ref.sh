# shellcheck shell=bash disable=SC2154
# The --ref mode of scripts/ucx_latency.sh (sourced by it, after its options
# and helpers: $build, $ref, $rounds, $quick, $np4, say, run_json, json_str,
# $lines). This library, the reference UCC installed at $ref and Open MPI's
# own collectives, alternately, under `mpirun --bind-to core`, MPI as the OOB;
# then the targets as ratios of medians.

src_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for t in mpicxx mpirun; do
    command -v "$t" >/dev/null || { echo "ucx_latency.sh --ref: $t not found" >&2; exit 2; }
done
[[ -f "$ref/include/ucc/api/ucc.h" && -e "$ref/lib/libucc.so" ]] ||
    { echo "ucx_latency.sh --ref: no UCC installed at $ref (include/ucc/api/ucc.h, lib/libucc.so)" >&2; exit 2; }
[[ -x "$build/mpi_latency" ]] || { echo "ucx_latency.sh --ref: $build/mpi_latency not built" >&2; exit 2; }

refdir="$(mktemp -d)"
trap 'rm -rf "$refdir" "$lines"' EXIT
# The same benchmark program, against the reference's headers and library.
mpicxx -std=c++20 -O2 -DNDEBUG -DUCC_MP_WITH_MPI=1 -I"$ref/include" -I"$src_dir" \
    "$src_dir/bench/ucx_latency.cc" -o "$refdir/ucx_latency_ref" \
    -L"$ref/lib" -lucc -Wl,-rpath,"$ref/lib" ||
    { echo "ucx_latency.sh --ref: building bench/ucx_latency.cc against $ref failed" >&2; exit 2; }

ok=1
say "{\"bench\":\"meta\",\"mode\":\"ref\",\"ref\":$(json_str "$ref"),\"nproc\":$(nproc),\"loadavg\":\"$(cut -d' ' -f1-3 /proc/loadavg)\",\"date\":\"$(date -u +%FT%TZ)\",\"commit\":\"$(git -C "$src_dir" rev-parse --short HEAD 2>/dev/null || echo none)\",\"rounds\":$rounds,\"quick\":$quick}"

bench_args=(--no-bind)
if [[ $quick == 1 ]]; then
    bench_args+=(--quick)
fi
nps=(2)
if [[ $np4 == 1 ]]; then
    nps+=(4)
fi
for np in "${nps[@]}"; do
    bind=(--bind-to core)
    if (( np > $(nproc) )); then
        bind=(--bind-to core:overload-allowed --oversubscribe)
    fi
    launch=(env -u LD_LIBRARY_PATH mpirun "${bind[@]}" -np "$np" -x UCX_NET_DEVICES)
    for ((r = 1; r <= rounds; r++)); do
        run_json 1200 "${launch[@]}" "$build/ucx_latency" --oob mpi --label ours \
            "${bench_args[@]}" || ok=0
        run_json 1200 "${launch[@]}" "$refdir/ucx_latency_ref" --oob mpi --label ref \
            "${bench_args[@]}" || ok=0
        run_json 1200 "${launch[@]}" "$build/mpi_latency" "${bench_args[@]:1}" || ok=0
    done
done

python3 - "$lines" <<'EOF' | while IFS= read -r l; do say "$l"; done
import json, statistics, sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
runs = {}  # (source, np, collective, bytes) -> [avg_us]
for r in rows:
    if r["bench"] == "ucc":
        src = r.get("label", "")
    elif r["bench"] == "mpi":
        src = "mpi"
    else:
        continue
    runs.setdefault((src, r["np"], r["collective"], r["bytes"]), []).append(r["avg_us"])
med = {k: statistics.median(v) for k, v in runs.items()}

def out(**kv):
    kv["met"] = bool(kv["met"])
    print(json.dumps({"bench": "target", **kv}))

for np in sorted({k[1] for k in med}):
    colls = list(dict.fromkeys(k[2] for k in med if k[0] == "ours" and k[1] == np))
    for coll in colls:
        ratios, vs_ref, vs_mpi = {}, {}, {}
        for (src, n, c, b), v in med.items():
            if src != "ours" or n != np or c != coll:
                continue
            others = [med[k] for k in (("ref", np, c, b), ("mpi", np, c, b)) if k in med]
            if others:
                ratios[b] = v / min(others)
            if ("ref", np, c, b) in med:
                vs_ref[b] = v / med[("ref", np, c, b)]
            if ("mpi", np, c, b) in med:
                vs_mpi[b] = v / med[("mpi", np, c, b)]
        if not ratios:
            continue
        worst = max(ratios, key=ratios.get)
        # np <= cores: against the better of the two; oversubscribed: Open MPI.
        judged = ratios if np <= 2 else vs_mpi
        out(np=np, name=f"{coll}: ours / better of reference and Open MPI, every size",
            collective=coll, sizes=len(ratios),
            sizes_met=sum(1 for v in judged.values() if v <= 1.0),
            worst_ratio=round(ratios[worst], 3), worst_bytes=worst,
            vs_better={str(b): round(v, 3) for b, v in sorted(ratios.items())},
            vs_ref={str(b): round(v, 3) for b, v in sorted(vs_ref.items())},
            vs_mpi={str(b): round(v, 3) for b, v in sorted(vs_mpi.items())},
            target="<= 1.0 at every size" + (" (against Open MPI)" if np > 2 else ""),
            met=all(v <= 1.0 for v in judged.values()))
        if np == 2 and coll in ("allreduce", "bcast", "barrier"):
            b = 0 if coll == "barrier" else 8
            if b in vs_ref:
                out(np=np, name=f"{coll} {b} B: ours / reference", collective=coll, bytes=b,
                    ours_us=med[("ours", np, coll, b)], ref_us=med[("ref", np, coll, b)],
                    ratio=round(vs_ref[b], 3), target="<= 0.9", met=vs_ref[b] <= 0.9)
EOF

[[ $ok == 1 ]]
