#!/usr/bin/env python3
"""Fits a network file (lib/net/network_model.h) to this host's figures,
measured by scripts/fit_network.sh; prints it.

Every rank is on one node, talking through UCX's shared memory, where no
wire moves a message: CPUs copy it. So bw_intra is inf and the per-byte
costs are the copies of UCX's protocols by size, fitted to the one-way
latency t(b) that ucx_perftest measured at sizes 8 B .. 4 MiB:

  o_send = o_recv = o   1 / the 8-byte message rate (what one side spends
                        per message when it sends back to back)
  lat_intra = L         t(8) - 2 o (at least 0)
  short_intra           UCX's inline limit (am_short of posix or sysv, less
                        the 8-byte tag): t = 2 o + L
  zcopy_intra = Z       up to Z each side copies through UCX's buffers:
                        t = 2 o + L + 2 (o_bcopy + b / bcopy)
  rndv_intra = Z        above Z the receiver pulls the payload out of the
                        sender's memory (CMA) after a round trip:
                        t = 2 o + 3 L + o_cma + b / cma up to a size C;
                        beyond, b / cma_mem (the copy no longer fits the
                        caches): `cache` is 2 C, the working set of a
                        ping-pong (a buffer on each side)
Z (1 KiB .. 256 KiB) and C (above Z) are the measured sizes whose
splits give the least squared relative error over all sizes; o_bcopy,
bcopy, o_cma, cma and cma_mem are least squares (relative error) on their
pieces.

The pulls' o_cma, cma and cma_mem are then fitted again, at the same Z and
C, to --lat-written where given (bench/ucx_exchange's
forwarding ping-pong: each side sends back what it has just received), not
to ucx_perftest's: a collective sends what its CPU has just written (a
partial sum, a block it received), and pulling lines out of another CPU's
cache costs more than pulling a buffer that, never written again, sits in
both caches after the first pull (2-3x from 16 KiB to 1 MiB on the
development machine). With --written-keys that second fit becomes
o_cma_written, cma_written and cma_mem_written, beside the first: the
simulator then charges a pull of a caller's unchanged input the one and
every other pull the other.

  cores                 the CPUs (nproc)
  wake                  the one-way time of a ping-pong of two processes on
                        one CPU less that on two (yield_pingpong): the
                        switch a rank waiting off its core pays
  copy, copy_mem        memcpy_bw at 256 KiB and at 4 MiB
  reduce, reduce_mem    memcpy_bw --reduce (the library's kernel) at 256 KiB
                        and at 4 MiB
  o_call                the library's own time per collective (a persistent
                        one on a team of one; recorded, FIT_NETWORK_TRACED=1)
  o_init                its time to initialise and finalize one (measured:
                        two processes' ucc_perftest iteration, init to
                        finalize, less a persistent one's)
"""
import argparse


def least_squares(rows):
    """Minimizes sum((a . x - y)^2) over x for rows (a, y), a of 1 or 2 terms."""
    if len(rows[0][0]) == 1:
        den = sum(a[0] * a[0] for a, _ in rows)
        return [sum(a[0] * y for a, y in rows) / den if den > 0 else 0.0]
    s11 = sum(a[0] * a[0] for a, _ in rows)
    s12 = sum(a[0] * a[1] for a, _ in rows)
    s22 = sum(a[1] * a[1] for a, _ in rows)
    r1 = sum(a[0] * y for a, y in rows)
    r2 = sum(a[1] * y for a, y in rows)
    det = s11 * s22 - s12 * s12
    if abs(det) < 1e-30:
        return [0.0, r2 / s22 if s22 > 0 else 0.0]
    return [(r1 * s22 - r2 * s12) / det, (s11 * r2 - s12 * r1) / det]


def fit_line(rows):
    """Least squares of t - base = c + k b (relative error): c, k >= 0."""
    c, k = least_squares([((1 / t, b / t), (t - base) / t) for b, t, base in rows])
    if c < 0 or k < 0:
        c = 0.0
        k = max(least_squares([((b / t,), (t - base) / t) for b, t, base in rows])[0], 0.0)
    return c, k


def fit(lat, o, L, short):
    """The least-error Params (see model()) and its squared relative error."""
    best = None
    sizes = [b for b, _ in lat]
    for z in [b for b in sizes if 1024 <= b <= 262144]:
        buffered = [(b, t, 2 * o + L) for b, t in lat if short < b <= z]
        ob2, kb = fit_line(buffered) if buffered else (0.0, 0.0)
        for cache in [b for b in sizes if b > z] + [0]:
            p = dict(o=o, L=L, short=short, z=z, ob=ob2 / 2, kb=kb, cache=cache)
            if not fit_pulls(lat, p):
                continue
            err = squared_error(lat, p)
            if best is None or err < best[1]:
                best = (p, err)
    return best


def squared_error(points, p):
    """Sum of squared relative errors of model() at the measured (b, t)."""
    return sum(((model(b, p) - t) / t) ** 2 for b, t in points)


def fit_pulls(lat, p):
    """Sets p's o_cma, cma and cma_mem (oc, kc, km) from lat's sizes above Z,
    for p's Z and cache; False when too few sizes are within the cache."""
    o, L, z, cache = p["o"], p["L"], p["z"], p["cache"]
    within = [(b, t, 2 * o + 3 * L) for b, t in lat if b > z and (cache == 0 or b <= cache)]
    beyond = [(b, t) for b, t in lat if cache != 0 and b > cache]
    if len(within) < 2:
        return False
    p["oc"], p["kc"] = fit_line(within)
    p["km"] = 0.0
    if beyond:
        p["km"] = max(least_squares([((b / t,), (t - 2 * o - 3 * L - p["oc"]) / t)
                                     for b, t in beyond])[0], 0.0)
    return True


def model(b, p):
    """One-way time (us) of b bytes: inline, buffered, pulled within the
    cache, pulled beyond it."""
    if b <= p["short"]:
        return 2 * p["o"] + p["L"]
    if b <= p["z"]:
        return 2 * p["o"] + p["L"] + 2 * p["ob"] + p["kb"] * b
    k = p["km"] if p["cache"] and b > p["cache"] else p["kc"]
    return 2 * p["o"] + 3 * p["L"] + p["oc"] + k * b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lat", required=True, help="BYTES:US ... (one-way, p50)")
    ap.add_argument("--lat-written", default="",
                    help="BYTES:US ... (one-way, sending what was just received)")
    ap.add_argument("--written-keys", action="store_true",
                    help="the --lat-written fit as the *_written keys, beside ucx_perftest's")
    ap.add_argument("--rate", type=float, required=True, help="8-byte messages per second")
    ap.add_argument("--am-short", type=int, default=0)
    ap.add_argument("--copy", type=float, required=True, help="GB/s within the cache")
    ap.add_argument("--copy-mem", type=float, default=0, help="GB/s beyond it")
    ap.add_argument("--reduce", type=float, required=True, help="GB/s within the cache")
    ap.add_argument("--reduce-mem", type=float, default=0, help="GB/s beyond it")
    ap.add_argument("--yield", dest="yields", default="", help="one-way us on 1 CPU, on 2")
    ap.add_argument("--cores", type=int, required=True)
    ap.add_argument("--call-ns", type=float, default=0)
    ap.add_argument("--init-ns", type=float, default=0)
    a = ap.parse_args()
    curve = lambda text: sorted((int(b), float(t)) for b, t in (x.split(":") for x in text.split()))
    lat = curve(a.lat)
    written = curve(a.lat_written) if a.lat_written else lat
    o = 1e6 / a.rate  # us
    L = max(lat[0][1] - 2 * o, 0.0)
    short = max(a.am_short - 8, 0)
    p, err = fit(lat, o, L, short)
    pw = p
    if written is not lat:
        pw = dict(p)
        fit_pulls(written, pw)  # the split sizes stay ucx_perftest's
        err_w = squared_error([x for x in lat if x[0] <= p["z"]] +
                              [x for x in written if x[0] > p["z"]], pw)
        if a.written_keys:
            err = (err + err_w) / 2
        else:
            p, err = pw, err_w
    ys = [float(x) for x in a.yields.split()]
    wake = max(ys[0] - ys[1], 0.0) if len(ys) == 2 else 0.0
    gbps = lambda k: f"{1e-3 / k:.3f}GB/s" if k > 0 else "inf"  # k: us per byte
    print("# this host over UCX shared memory (scripts/fit_network.sh, scripts/fit_network.py):")
    print(f"#   one-way 8 B {lat[0][1]} us, {a.rate:.0f} msg/s, inline up to {short} B, "
          f"copy {a.copy} / {a.copy_mem} GB/s, reduce {a.reduce} / {a.reduce_mem} GB/s, "
          f"{a.call_ns:.0f} ns per "
          f"call, {a.cores} CPUs, switch {wake * 1e3:.0f} ns")
    print("#   one-way latency by size, measured / fitted (us): " +
          ", ".join(f"{b}: {t:g} / {model(b, p):.3g}" for b, t in lat))
    if a.lat_written:
        print("#   one-way latency sending what was just received, measured / fitted (us): " +
              ", ".join(f"{b}: {t:g} / {model(b, pw):.3g}" for b, t in written))
    print(f"#   rms relative error {(err / len(lat)) ** 0.5:.3f}")
    print("preset = hdr")
    print("nodes = 1x1024")
    print(f"lat_intra = {L * 1e3:.0f}ns")
    print(f"o_send = {o * 1e3:.0f}ns")
    print(f"o_recv = {o * 1e3:.0f}ns")
    print(f"o_call = {a.call_ns:.0f}ns")
    print(f"o_init = {a.init_ns:.0f}ns")
    print("g = 0")
    print("bw_intra = inf")
    print(f"short_intra = {short}")
    print(f"zcopy_intra = {p['z']}")
    print(f"rndv_intra = {p['z']}")
    print(f"o_bcopy = {p['ob'] * 1e3:.0f}ns")
    print(f"bcopy_intra = {gbps(p['kb'] / 2)}")
    print(f"o_cma = {p['oc'] * 1e3:.0f}ns")
    print(f"cma = {gbps(p['kc'])}")
    if p["cache"]:
        print(f"cache = {2 * p['cache']}")  # a buffer on each side
        print(f"cma_mem = {gbps(p['km'])}")
        if a.copy_mem > 0:
            print(f"copy_mem = {a.copy_mem:.3f}GB/s")
        if a.reduce_mem > 0:
            print(f"reduce_mem = {a.reduce_mem:.3f}GB/s")
    if a.lat_written and a.written_keys:
        print(f"o_cma_written = {pw['oc'] * 1e3:.0f}ns  # pulls of just-written data")
        print(f"cma_written = {gbps(pw['kc'])}")
        if p["cache"]:
            print(f"cma_mem_written = {gbps(pw['km'])}")
    print(f"copy = {a.copy:.3f}GB/s")
    print(f"reduce = {a.reduce:.3f}GB/s")
    print(f"cores = {a.cores}")
    print(f"wake = {wake * 1e3:.0f}ns")
    print("jitter = 0")


if __name__ == "__main__":
    main()
