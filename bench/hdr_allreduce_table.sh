#!/usr/bin/env bash
# The UCC overview's hierarchical-allreduce table (32 nodes x 40 ranks, HDR
# InfiniBand, ucc_perftest -c allreduce -b 1 -e 512: float32, 4 B to 2 KiB),
# predicted by the simulator on networks/hdr-32x40.net beside the measured
# figures. The three columns run what the reference ran, with the same
# network for all three:
#   CL/BASIC    a flat team: tl/ucp's allreduce below 4 KiB, knomial radix 4;
#   HIER        UCC_CLS=basic,hier: rab (its levels take the same rule);
#   HIER+SHARP  the same with UCC_CL_HIER_NODE_LEADERS_SBGP_TLS=ucp,sharp: the
#               node leaders reduce in the switches.
# Every column selects by the built-in rules (UCC_SELECT=rules), as the
# reference's scores do: selection by cost would pick between flat and
# hierarchical itself, and the table is about what the reference ran.
# One JSON line per (column, size): predicted and measured microseconds and
# their ratio; then the table in Markdown on stderr.
#
#   bench/hdr_allreduce_table.sh [BUILD_DIR] [NETWORK_FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
net="${2:-networks/hdr-32x40.net}"
[ -x "$build/ucc_sim" ] || { echo "hdr_allreduce_table: $build/ucc_sim not built" >&2; exit 2; }

column() {  # prints the avg column of ucc_sim's table: one figure per size
    env UCC_SELECT=rules UCC_TL_UCP_TUNE=allreduce:0-4k:@knomial "$@" "$build/ucc_sim" -np 1280 --network "$net" \
        -c allreduce -b 4 -e 2048 -d float32 --timing-only 2>/dev/null |
        awk '/^ +[0-9]+ +[0-9]+ /{printf "%s ", $4}'
}
flat="$(column UCC_CLS=basic UCC_CL_BASIC_TLS=ucp)"
hier="$(column UCC_CLS=basic,hier UCC_CL_HIER_NODE_LEADERS_SBGP_TLS=ucp)"
sharp="$(column UCC_CLS=basic,hier UCC_CL_HIER_NODE_LEADERS_SBGP_TLS=ucp,sharp)"

python3 - "$flat" "$hier" "$sharp" <<'PY'
import json, sys
sizes = [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]
measured = {
    "CL/BASIC": [15.38, 15.26, 15.24, 16.47, 18.63, 23.75, 25.77, 32.07, 60.35, 82.8],
    "HIER": [13.48, 14.9, 14.72, 17.65, 16.34, 21.55, 27.92, 34.42, 33.06, 37.01],
    "HIER+SHARP": [11.03, 12.03, 11.72, 13.21, 14.32, 18.19, 22.88, 23.81, 28.49, 31.88],
}
predicted = dict(zip(measured, ([float(x) for x in col.split()] for col in sys.argv[1:])))
for name, pred in predicted.items():
    if len(pred) != len(sizes):
        sys.exit(f"hdr_allreduce_table: {name}: {len(pred)} figures from ucc_sim, not {len(sizes)}")
rows = []
for name in measured:
    for size, p, m in zip(sizes, predicted[name], measured[name]):
        print(json.dumps({"column": name, "bytes": size, "predicted_us": p, "measured_us": m,
                          "ratio": round(p / m, 3)}))
out = sys.stderr
out.write("| bytes | " + " | ".join(f"{n} sim / seed" for n in measured) + " |\n")
out.write("|---|" + "---|" * len(measured) + "\n")
for i, size in enumerate(sizes):
    cells = [f"{predicted[n][i]:.2f} / {measured[n][i]} ({predicted[n][i] / measured[n][i]:.2f})"
             for n in measured]
    out.write(f"| {size} | " + " | ".join(cells) + " |\n")
worst = max(abs(predicted[n][i] / measured[n][i] - 1) for n in measured for i in range(len(sizes)))
within = sum(abs(predicted[n][i] / measured[n][i] - 1) <= 0.2 for n in measured
             for i in range(len(sizes)))
out.write(f"\n{within} of {len(sizes) * len(measured)} cells within 20 %; worst {worst:.0%} off\n")
PY
