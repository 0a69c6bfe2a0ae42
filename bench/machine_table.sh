#!/usr/bin/env bash
# This machine's collectives, measured beside predicted: every collective of
# 2, 3 and 4 processes over UCX (ucc_run + ucc_perftest, shared memory,
# float32, 8 B to 4 MiB per rank) and ucc_sim's prediction of the same on the
# network scripts/fit_network.sh fits here (or NETWORK_FILE). Both sides
# select by cost on that network (UCC_NETWORK over UCX), so each cell
# compares one algorithm; a cell where they chose differently says so.
# One JSON line per cell on stdout (measured and predicted microseconds,
# their ratio, the algorithms); on stderr, per process count, how many cells
# are within 25 % and the worst ten, in Markdown.
#
#   bench/machine_table.sh [BUILD_DIR] [NETWORK]
# NETWORK: a file, preset or spec instead of fitting one. MACHINE_TABLE_NP and
# MACHINE_TABLE_COLLS narrow the process counts and collectives (ctest's
# smoke run); MACHINE_TABLE_RUNS sets how many times each is measured
# (default 3: a cell is the median run's).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
export UCX_NET_DEVICES=lo
work="$(mktemp -d /tmp/machine_table.XXXXXX)"
trap 'rm -rf "$work"' EXIT
net="${2:-}"
if [[ -z "$net" ]]; then
    net="$work/this_machine.net"
    scripts/fit_network.sh "$build" "$net" >&2
fi
if [[ -f "$net" ]]; then
    net="$(cd "$(dirname "$net")" && pwd)/$(basename "$net")"
fi
colls="${MACHINE_TABLE_COLLS:-allreduce bcast reduce barrier allgather allgatherv alltoall
  alltoallv gather gatherv scatter scatterv reduce_scatter reduce_scatterv fanin fanout}"
runs="${MACHINE_TABLE_RUNS:-3}"
nps="${MACHINE_TABLE_NP:-2 3 4}"
for np in $nps; do
    for c in $colls; do
        "$build/ucc_sim" -np "$np" --network "$net" -c "$c" -b 8 -e 4M -i 10 -w 2 --timing-only \
            --json 2>/dev/null >"$work/p_${np}_$c.json" ||
            echo "machine_table: ucc_sim -c $c -np $np failed" >&2
    done
done
# Measured several times, each pass over every collective (the machine's
# noise comes and goes); a cell takes the median of its runs.
for ((run = 0; run < runs; run++)); do
    for np in $nps; do
        for c in $colls; do
            # ucc_perftest counts elements: 2 .. 1M float32 are 8 B .. 4 MiB.
            UCC_NETWORK="$net" timeout 600 "$build/ucc_run" -n "$np" "$build/ucc_perftest" \
                -c "$c" -b 2 -e 1048576 --json "$work/m_${np}_$c.json.$run" >/dev/null 2>&1 ||
                echo "machine_table: ucc_perftest -c $c on $np processes failed" >&2
        done
    done
done
python3 - "$work" <<'PY'
import glob, json, os, sys
work = sys.argv[1]
cells = []
runs = {}
for path in sorted(glob.glob(os.path.join(work, "m_*.json.*"))):
    key = os.path.basename(path)[2:].split(".json.")[0]
    for r in map(json.loads, open(path)):
        runs.setdefault(key, {}).setdefault(r["bytes"], []).append(r)
for key in sorted(runs):
    np_, coll = key.split("_", 1)
    measured = {}
    for b, rs in runs[key].items():
        rs = sorted(rs, key=lambda r: r["avg_us"])
        measured[b] = rs[len(rs) // 2]  # the median run's
    ppath = os.path.join(work, f"p_{np_}_{coll}.json")
    predicted = {r["bytes"]: r for r in map(json.loads, open(ppath))} if os.path.exists(ppath) else {}
    for b, m in sorted(measured.items()):
        p = predicted.get(b)
        if p is None or m["avg_us"] <= 0:
            continue
        cell = {"bench": "machine_table", "ranks": int(np_), "collective": coll, "bytes": b,
                "measured_us": m["avg_us"], "predicted_us": p["avg_us"],
                "ratio": round(p["avg_us"] / m["avg_us"], 3),
                "measured_alg": m["algorithm"], "predicted_alg": p["algorithm"]}
        cells.append(cell)
        print(json.dumps(cell))
out = sys.stderr
for np_ in sorted({c["ranks"] for c in cells}):
    mine = [c for c in cells if c["ranks"] == np_]
    near = sum(0.75 <= c["ratio"] <= 1.25 for c in mine)
    same = sum(c["measured_alg"] == c["predicted_alg"] for c in mine)
    out.write(f"\n{np_} processes: {near} of {len(mine)} cells within 25 % "
              f"({same} with the same algorithm)\n\n")
    out.write("| collective | bytes | measured us | predicted us | ratio | algorithm |\n")
    out.write("|---|---|---|---|---|---|\n")
    for c in sorted(mine, key=lambda c: -max(c["ratio"], 1 / c["ratio"]))[:10]:
        alg = c["measured_alg"] if c["measured_alg"] == c["predicted_alg"] else \
            f'{c["measured_alg"]} / {c["predicted_alg"]}'
        out.write(f'| {c["collective"]} | {c["bytes"]} | {c["measured_us"]:.2f} | '
                  f'{c["predicted_us"]:.2f} | {c["ratio"]:.2f} | {alg} |\n')
PY
