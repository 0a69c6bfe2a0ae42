#!/usr/bin/env python3
"""Plot ucc_sim sweeps: latency and bus bandwidth against message size.

Reads the --csv output of one or more `ucc_sim` runs (files, or - for stdin)
and draws two panels into one PNG: average latency (virtual us, log-log) and
bus bandwidth (GB/s, nccl-tests definition) against the message size in bytes,
one curve per (collective, algorithm[, ranks][, mode]) found in the input.

    build/ucc_sim -np 64 -c allreduce -b 8 -e 4M --alg ring --csv > ring.csv
    build/ucc_sim -np 64 -c allreduce -b 8 -e 4M --alg rabenseifner --csv > rab.csv
    scripts/plot_sim.py ring.csv rab.csv -o docs/ucc_sim_allreduce.png

Lines that are not rows of the CSV (such as a merged stderr) are ignored, so
`ucc_sim ... --csv 2>&1 | scripts/plot_sim.py - -o out.png` works too.
Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""

import argparse
import csv
import os
import sys

REQUIRED = ("ranks", "collective", "algorithm", "bytes", "avg_us", "busbw_gbps")


def import_pyplot():
    """matplotlib.pyplot with the Agg backend, or a clear way to get it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        return plt
    except ImportError:
        pass
    # Debian's python3-matplotlib belongs to /usr/bin/python3; another python3
    # (a virtualenv, pyenv) first on PATH does not see it: retry with Debian's.
    system = "/usr/bin/python3"
    if (
        os.path.exists(system)
        and os.path.realpath(sys.executable) != os.path.realpath(system)
        and not os.environ.get("UCC_PLOT_SIM_REEXEC")
    ):
        os.environ["UCC_PLOT_SIM_REEXEC"] = "1"
        os.execv(system, [system, os.path.abspath(__file__)] + sys.argv[1:])
    sys.stderr.write(
        "plot_sim.py: matplotlib is not installed.\n"
        "  Debian/Ubuntu: sudo apt-get install python3-matplotlib\n"
        "  (then run this script with /usr/bin/python3)\n"
        "  elsewhere:     python3 -m pip install matplotlib\n"
    )
    sys.exit(2)


def read_rows(paths):
    """Rows of every input as dicts; the header may appear in each file."""
    rows = []
    for path in paths:
        handle = sys.stdin if path == "-" else open(path, newline="")
        with handle:
            header = None
            for fields in csv.reader(handle):
                if not fields:
                    continue
                if all(key in fields for key in REQUIRED):
                    header = fields
                    continue
                if header is None or len(fields) != len(header):
                    continue  # not a row of the sweep (e.g. a closing line)
                row = dict(zip(header, fields))
                try:
                    row["bytes"] = int(row["bytes"])
                    row["avg_us"] = float(row["avg_us"])
                    row["busbw_gbps"] = float(row["busbw_gbps"])
                except ValueError:
                    continue
                rows.append(row)
    return rows


def curve_label(key, varying):
    collective, algorithm, ranks, mode = key
    parts = [algorithm]
    if "collective" in varying:
        parts.insert(0, collective)
    if "ranks" in varying:
        parts.append(f"{ranks} ranks")
    if "mode" in varying:
        parts.append(mode)
    return ", ".join(parts)


def human_bytes(n):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+", help="ucc_sim --csv output files ('-' for stdin)")
    ap.add_argument("-o", "--output", help="PNG to write (default: ucc_sim_<collective>.png)")
    ap.add_argument("--title", help="figure title (default: from the data)")
    args = ap.parse_args()

    rows = read_rows(args.csv)
    if not rows:
        sys.stderr.write("plot_sim.py: no ucc_sim --csv rows in the input\n")
        return 1
    plt = import_pyplot()

    curves = {}
    for row in rows:
        key = (row["collective"], row["algorithm"], row["ranks"], row.get("mode", ""))
        curves.setdefault(key, []).append(row)
    varying = {
        name
        for i, name in enumerate(("collective", "algorithm", "ranks", "mode"))
        if len({k[i] for k in curves}) > 1
    }
    collectives = sorted({k[0] for k in curves})
    ranks = sorted({k[2] for k in curves}, key=int)
    title = args.title or (
        f"ucc_sim: {', '.join(collectives)} on {', '.join(ranks)} simulated ranks"
    )
    output = args.output or f"ucc_sim_{'_'.join(collectives)}.png"

    fig, (lat_ax, bw_ax) = plt.subplots(1, 2, figsize=(12, 4.8))
    for key in sorted(curves):
        pts = sorted(curves[key], key=lambda r: r["bytes"])
        xs = [r["bytes"] for r in pts]
        label = curve_label(key, varying)
        lat_ax.plot(xs, [r["avg_us"] for r in pts], marker="o", markersize=3, label=label)
        bw_ax.plot(xs, [r["busbw_gbps"] for r in pts], marker="o", markersize=3, label=label)
    sizes = sorted({r["bytes"] for r in rows})
    ticks = sizes[:: max(1, len(sizes) // 8)]
    if ticks[-1] != sizes[-1]:
        ticks.append(sizes[-1])
    for ax in (lat_ax, bw_ax):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks)
        ax.set_xticklabels([human_bytes(t) for t in ticks], rotation=30, ha="right")
        ax.set_xlabel("message size (bytes per rank)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8)
    lat_ax.set_yscale("log")
    lat_ax.set_ylabel("average latency (virtual us)")
    lat_ax.set_title("latency")
    bw_ax.set_ylabel("bus bandwidth (GB/s)")
    bw_ax.set_title("bus bandwidth (nccl-tests busbw)")
    fig.suptitle(title)
    fig.tight_layout()
    if os.path.dirname(output):
        os.makedirs(os.path.dirname(output), exist_ok=True)
    fig.savefig(output, dpi=110)
    print(f"plot_sim.py: wrote {output} ({len(curves)} curves, {len(rows)} points)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
