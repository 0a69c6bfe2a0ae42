#!/usr/bin/env python3
"""Selection by cost, checked on the simulator: for every collective, message
size (8 B to 16 MiB, doubling), team size and network, the algorithm the
library chooses (UCC_SELECT=cost, the default) is run beside every flat
two-sided algorithm of the catalogue (ucc_sim --alg, timing-only, one
iteration after one untimed, started on every rank at one instant
(--aligned): the slowest rank's time), and its time is compared with the best
of them and with the LogGP lower bound (lib/cost/bounds.cc, printed by
ucc_info --explain). Aligned, the times are the collectives' own, what the
formulas predict; after a plain barrier, a rank the barrier lets go late
makes the others wait, by as much as the collective takes at 16 ranks.

One JSON line per cell on stdout; on stderr the summary (cells within 1.1x
of the best and within 1.5x of the bound) and the worst ten cells of each
ratio, in Markdown.

  bench/select_sweep.py [--build DIR] [--full] [--jobs N] [--colls a,b] [--sizes N,N]
                        [--networks a,b] [--prune F]

The default grid runs in about a minute on two cores; --full adds the
team sizes up to 4,096, where a ring alone makes 17 M messages per size:
--prune F runs each candidate only at the sizes where the formulas predict
it within F times the cheapest ("the best" is then the best of those).
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

NETWORKS = {  # name: ucc_sim network spec
    "flat": "hdr,ppn=1",
    "ppn8": "hdr,ppn=8",
    "ppn40": "hdr,ppn=40",
}
COLLS = ["allreduce", "bcast", "reduce", "allgather", "alltoall", "reduce_scatter", "gather",
         "scatter", "barrier", "fanin", "fanout"]
SIZES_QUICK = [2, 3, 7, 16, 61, 64, 256]
SIZES_FULL = SIZES_QUICK + [509, 1024, 4093, 4096]
MIN_BYTES, MAX_BYTES = 8, 16 << 20
SYNC = {"barrier", "fanin", "fanout"}  # no payload: one size


def explain(build, coll, nbytes, n, net, predictions=None):
    """(candidate algorithms, chosen name, lower bound in us) from ucc_info;
    `predictions`, when given, gets each candidate's predicted us."""
    out = subprocess.run([os.path.join(build, "ucc_info"), "--explain", coll, str(nbytes), str(n),
                          "-n", net], capture_output=True, text=True, check=True).stdout
    algs, bound = [], None
    chosen = out.splitlines()[0].rsplit(" ", 1)[-1]
    for line in out.splitlines():
        m = re.match(r"\s{4}(\S+)\s+([0-9.]+) us", line)
        if line.strip().startswith("(lower bound)"):
            bound = float(line.split()[2])
        elif "UCC_CLS" in line:
            continue  # hierarchical: not what a flat team can run
        elif m or re.match(r"\s{4}\S+\s+\(none\)", line):
            algs.append(line.split()[0])
            if m and predictions is not None and "cannot run" not in line:
                predictions[m.group(1)] = float(m.group(2))
    return algs, chosen, bound


def sizes_of(coll):
    hi = MIN_BYTES if coll in SYNC else MAX_BYTES
    out, b = [], MIN_BYTES
    while b <= hi:
        out.append(b)
        b *= 2
    return out


def ranges_within(build, coll, n, net, algs, factor):
    """{alg: (lo, hi)}: the sizes at which each candidate is predicted within
    `factor` of the cheapest (the first to the last such size); candidates
    never within it are left out."""
    ranges = {}
    for nbytes in sizes_of(coll):
        pred = {}
        explain(build, coll, nbytes, n, net, pred)
        if not pred:
            return {alg: (MIN_BYTES, sizes_of(coll)[-1]) for alg in algs}
        cheapest = min(pred.values())
        for alg in algs:
            if alg not in pred or pred[alg] <= factor * cheapest:
                lo, _ = ranges.get(alg, (nbytes, nbytes))
                ranges[alg] = (lo, nbytes)
    return ranges


def simulate(build, coll, n, net, alg, lo=None, hi=None):
    """{bytes: (algorithm, slowest rank's us)} from one ucc_sim sweep."""
    lo = lo or MIN_BYTES
    hi = hi or (MIN_BYTES if coll in SYNC else MAX_BYTES)
    cmd = [os.path.join(build, "ucc_sim"), "-np", str(n), "--network", net, "-c", coll,
           "-b", str(lo), "-e", str(hi), "-w", "1", "-i", "1", "--aligned", "--timing-only", "--json",
           "--no-progress"]
    if alg is not None:
        cmd += ["--alg", alg]
    res = subprocess.run(cmd, capture_output=True, text=True)
    rows = {}
    for line in res.stdout.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            rows[r["bytes"]] = (r["algorithm"], r["max_us"])
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--colls", default=",".join(COLLS))
    ap.add_argument("--sizes", default="")
    ap.add_argument("--networks", default=",".join(NETWORKS),
                    help="names of NETWORKS, or ucc_sim network specs or files")
    ap.add_argument("--prune", type=float, default=0,
                    help="run a candidate only at the sizes where it is predicted within this "
                         "factor of the cheapest (0: everywhere; big teams need it)")
    args = ap.parse_args()
    teams = ([int(x) for x in args.sizes.split(",")] if args.sizes
             else SIZES_FULL if args.full else SIZES_QUICK)
    colls = args.colls.split(",")
    nets = args.networks.split(",")

    # Every (network, team, collective): its candidates, then one ucc_sim run
    # per candidate and one for the library's own choice.
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for net in nets:
            for n in teams:
                for coll in colls:
                    algs, _, _ = explain(args.build, coll, MIN_BYTES, n, NETWORKS.get(net, net))
                    ranges = {alg: (None, None) for alg in algs}
                    if args.prune > 0:
                        ranges = ranges_within(args.build, coll, n, NETWORKS.get(net, net), algs,
                                               args.prune)
                    for alg in list(ranges) + [None]:
                        lo, hi = ranges.get(alg, (None, None))
                        jobs[(net, n, coll, alg)] = pool.submit(simulate, args.build, coll, n,
                                                                NETWORKS.get(net, net), alg, lo, hi)
        cells = []
        for net in nets:
            for n in teams:
                for coll in colls:
                    auto = jobs[(net, n, coll, None)].result()
                    runs = {alg: jobs[k].result() for k in jobs
                            for alg in [k[3]] if k[:3] == (net, n, coll) and alg is not None}
                    for nbytes, (chosen, chosen_us) in sorted(auto.items()):
                        timed = {alg: r[nbytes][1] for alg, r in runs.items() if nbytes in r}
                        if not timed:
                            continue
                        best = min(timed, key=lambda a: (timed[a], a))
                        _, predicted, bound = explain(args.build, coll, nbytes, n, NETWORKS.get(net, net))
                        cell = {"network": net, "ranks": n, "collective": coll, "bytes": nbytes,
                                "chosen": chosen, "chosen_us": chosen_us, "best": best,
                                "best_us": timed[best],
                                "vs_best": round(chosen_us / timed[best], 3),
                                "lower_bound_us": bound,
                                "vs_bound": round(chosen_us / bound, 3) if bound else None}
                        if predicted != chosen:
                            cell["explain_says"] = predicted
                        print(json.dumps(cell), flush=True)
                        cells.append(cell)
    summarize(cells)


def summarize(cells):
    out = sys.stderr
    near = sum(c["vs_best"] <= 1.1 for c in cells)
    bounded = [c for c in cells if c["vs_bound"] is not None]
    under = sum(c["vs_bound"] <= 1.5 for c in bounded)
    out.write(f"{len(cells)} cells: {near} within 1.1x of the best algorithm, "
              f"{under} of {len(bounded)} within 1.5x of the lower bound\n\n")
    for key, title in (("vs_best", "best algorithm"), ("vs_bound", "lower bound")):
        out.write(f"Worst ten against the {title}:\n\n| network | ranks | collective | bytes | "
                  "chosen | us | best | us | bound us | ratio |\n|---|---|---|---|---|---|---|---|"
                  "---|---|\n")
        worst = sorted((c for c in cells if c[key] is not None), key=lambda c: -c[key])[:10]
        for c in worst:
            out.write(f"| {c['network']} | {c['ranks']} | {c['collective']} | {c['bytes']} | "
                      f"{c['chosen']} | {c['chosen_us']:.2f} | {c['best']} | {c['best_us']:.2f} | "
                      f"{c['lower_bound_us']:.2f} | {c[key]:.2f} |\n")
        out.write("\n")


if __name__ == "__main__":
    main()
