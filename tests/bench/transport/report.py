#!/usr/bin/python3
"""Turns bench.py run files into docs/bench/results.md and PNG plots.

Usage: report.py --md docs/bench/results.md --png-dir docs/bench RUN.json...

Every figure is the median over all rounds of all runs given; [a–b] is the
min–max over those rounds. A per-run table shows the spread between runs.
"""
import argparse
import json
import os
import statistics
import sys

ORDER = ["floor", "shm", "shm-copy", "unixfd", "dm-latest", "dm-lossless",
         "dm-copy", "dm-spin"]
LABEL = {
    "floor": "floor (src → sink, 1 process)",
    "shm": "shmsink → shmsrc (zero-copy producer)",
    "shm-copy": "shmsink → shmsrc (producer in system memory)",
    "dm-latest": "doradma latest (zero-copy)",
    "dm-lossless": "doradma lossless (zero-copy)",
    "dm-copy": "doradma lossless, doradmasrc copy=true",
    "dm-spin": "doradma lossless (zero-copy), doradmasrc spin-time (polls "
               "instead of sleeping), producer and consumer pinned to "
               "different cores",
    "unixfd": "unixfdsink → unixfdsrc (GStreamer ≥ 1.24, memfd, zero-copy)",
}
SIZES = [(640, 480), (1920, 1080), (3840, 2160), (7680, 4320)]
# a paced frame's latency, stage by stage (benchplugin.c): they sum to it
STAGES = ["push", "publish", "wake", "deliver", "render"]
STAGE_LABEL = {
    "push": "stamp → push (basesrc after fill)",
    "publish": "push → publish (basesink, doradmasink render)",
    "wake": "publish → doradmasrc's read returns (the ring: wake or poll, "
            "record check, lease)",
    "deliver": "read → buffer built (doradmasrc: caps, timing, lease "
               "memory, metas)",
    "render": "buffer built → consumer sink render (the push, basesink)",
}
SNAME = {(640, 480): "480p", (1920, 1080): "1080p", (3840, 2160): "4K",
         (7680, 4320): "8K"}


def parse_stats(s):
    """'name, a=(guint64)1, b=(uint)2;' -> {a: 1, b: 2} (numbers only)."""
    out = {}
    if not s:
        return out
    body = s.split(",", 1)[1] if "," in s else ""
    for part in body.rstrip(";").split(","):
        if "=" not in part:
            continue
        k, v = part.split("=", 1)
        v = v.split(")", 1)[-1].strip().rstrip(";")
        try:
            out[k.strip()] = float(v)
        except ValueError:
            pass
    return out


def cpu_us(win):
    if not win or not win.get("win_frames"):
        return None
    return (win["win_user_ns"] + win["win_sys_ns"]) / win["win_frames"] / 1e3


def fps(win):
    if not win or not win.get("win_wall_ns") or not win.get("win_frames"):
        return None
    return win["win_frames"] * 1e9 / win["win_wall_ns"]


def trial_metrics(t):
    """Per trial: the figures of one process pair."""
    m = {}
    prod, cons = t["prod"], t["cons"]
    m["ok"] = bool(prod.get("ok") and cons.get("ok"))
    src, sink = prod.get("src", {}), cons.get("sink", {})
    m["fps"] = fps(sink)
    m["fps_prod"] = fps(src)
    if t["transport"] == "floor":
        m["cpu_proc"] = cpu_us(src)      # the one process: producer + sink
        m["cpu_prod"] = m["cpu_proc"]
        m["cpu_cons"] = 0.0
    else:
        m["cpu_prod"] = cpu_us(src)
        m["cpu_cons"] = cpu_us(sink)
    for k in ("lat_p50", "lat_p95", "lat_p99"):
        m[k] = sink.get(k, 0) / 1e3 if sink.get("lat_n") else None
    m["gaps"] = sink.get("gaps")
    m["received"] = sink.get("received")
    m["produced"] = src.get("produced")
    # copies per frame
    tx = parse_stats(prod.get("tx_stats"))
    rx = parse_stats(cons.get("rx_stats"))
    m["tx_stats"], m["rx_stats"] = tx, rx
    cp = None
    if t["transport"].startswith("dm-"):
        frames = tx.get("frames") or 0
        rxf = rx.get("frames") or rx.get("buffers") or cons.get("sink", {}).get("received") or 0
        rx_cop = sum(v for k, v in rx.items() if "cop" in k)
        if frames:
            cp = tx.get("copies", 0) / frames + (rx_cop / rxf if rxf else 0)
            if t["transport"] == "dm-copy":
                # doradmasrc's `copies` counts only over-quota / layout copies;
                # copy=true copies every delivered frame (reader_copy_next)
                cp += 1.0
    elif t["transport"].startswith("shm") or t["transport"] == "unixfd":
        if src.get("produced"):
            # shmsink copies exactly the frames not in its allocator's memory
            # (gstshmsink.c render); shmsrc wraps the block read-only: 0;
            # unixfdsink likewise copies memory that is not fd memory
            cp = src.get("foreign_mem", 0) / src["produced"]
    else:
        cp = 0.0
    m["copies"] = cp
    for st in STAGES:
        v = sink.get("st_%s_p50" % st)
        m["st_" + st] = v / 1e3 if v is not None else None
    # doradmasrc's own publish -> delivery latency (last 512 frames)
    m["rx_lat50"] = rx["latency-p50"] / 1e3 if "latency-p50" in rx else None
    return m


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def rng(xs):
    xs = [x for x in xs if x is not None]
    return (min(xs), max(xs)) if xs else None


def fmt(x, nd=1):
    if x is None:
        return "–"
    if abs(x) >= 1000:
        return "{:,.0f}".format(x)
    return ("%." + str(nd) + "f") % x


def fmt_r(vals, nd=1):
    m, r = med(vals), rng(vals)
    if m is None:
        return "–"
    if r and len([v for v in vals if v is not None]) > 1:
        return "%s [%s–%s]" % (fmt(m, nd), fmt(r[0], nd), fmt(r[1], nd))
    return fmt(m, nd)


def collect(runs):
    """-> data[(transport, size, phase)] = list of per-round metric dicts,
    with transport CPU computed against the floor of the same run/round."""
    data = {}
    futex = {}
    for ri, run in enumerate(runs):
        floor = {}
        per = {}
        for t in run["trials"]:
            key = (t["transport"], (t["w"], t["h"]), t["phase"])
            m = trial_metrics(t)
            m["run"], m["round"] = ri, t["round"]
            per.setdefault(key, []).append(m)
            if t["transport"] == "floor":
                floor[((t["w"], t["h"]), t["phase"], t["round"])] = m
        for key, ms in per.items():
            for m in ms:
                f = floor.get((key[1], key[2], m["round"]))
                if key[0] != "floor" and f and f.get("cpu_proc") is not None \
                        and m["cpu_prod"] is not None and m["cpu_cons"] is not None:
                    m["cpu_tx"] = m["cpu_prod"] + m["cpu_cons"] - f["cpu_proc"]
                else:
                    m["cpu_tx"] = None
                data.setdefault(key, []).append(m)
        for f in run["futex"]:
            futex.setdefault(f["period_us"], []).append(dict(f, run=ri))
    return data, futex


def period_for(run, size):
    return run["config"]["period_us"]["%dx%d" % size]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--md", required=True)
    ap.add_argument("--png-dir", required=True)
    ap.add_argument("--cmd", default="bash tests/bench/transport/run.sh")
    ap.add_argument("--png-prefix", default="transport",
                    help="plots are PREFIX-fps.png, PREFIX-cpu.png, "
                    "PREFIX-latency.png")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    runs = [json.load(open(p)) for p in a.runs]
    data, futex = collect(runs)
    transports = [t for t in ORDER if any(k[0] == t for k in data)]
    sizes = [s for s in SIZES if any(k[1] == s for k in data)]
    last = runs[-1]
    mach = last["machine"]
    L = []
    L.append("# doradma transport benchmark — results\n")
    L.append("Generated by `%s` (tests/bench/transport/report.py) from %d run(s): %s."
             % (a.cmd, len(runs), ", ".join("`%s` (%s, %d rounds, %.0f s)" % (
                 os.path.basename(p), r["date"], r["config"]["rounds"],
                 r.get("elapsed_s", 0)) for p, r in zip(a.runs, runs))))
    L.append("")
    L.append("Machine: %s, %s cores, %s, kernel %s, GStreamer %s. Producer and "
             "consumer are separate processes, not pinned except for dm-spin "
             "(CPUs %s)."
             % (mach.get("cpu", "?"), mach.get("cores"), mach.get("mem_total", ""),
                mach.get("kernel"), mach.get("gstreamer"),
                "/".join(str(c) for c in last["config"].get("pin") or [])
                or "none"))
    loads = ["%s → %s" % (r["machine"]["loadavg_start"][0],
                          r["machine"]["loadavg_end"][0])
             for r in runs if "loadavg_start" in r["machine"]]
    if loads:
        L.append("")
        L.append("Load average (1 min) at the start → end of each run: %s "
                 "(other work on the machine competes with the pinned, "
                 "spinning consumer)." % ", ".join(loads))
    L.append("")
    L.append("Each cell: median over all rounds of all runs, [min–max] over those "
             "rounds. Frames are I420; the producer writes only a 32-byte stamp "
             "(magic, counter, CLOCK_MONOTONIC, and in paced trials the push "
             "time) into each frame, never the pixels.")
    L.append("")
    trixie = os.path.join(os.path.dirname(os.path.abspath(a.md)),
                          "results-trixie.md")
    for s in runs[0]["config"].get("skipped", []):
        if s.startswith("unixfd") and os.path.exists(trixie) \
                and os.path.abspath(a.md) != trixie:
            s += ("; measured in the Debian 13 chroot (GStreamer 1.26) by "
                  "tests/bench/transport/run-trixie.sh: "
                  "[results-trixie.md](results-trixie.md)")
        L.append("**Skipped:** %s\n" % s)

    # --- throughput table
    L.append("## Throughput (producer unthrottled, %d ms per trial)\n"
             % last["config"]["thr_ms"])
    L.append("fps = frames delivered to the consumer per second; CPU = CPU time "
             "(user+sys, getrusage RUSAGE_SELF over the measuring window) per frame, "
             "producer per produced frame, consumer per delivered frame; transport "
             "CPU = producer + consumer − the floor process (same size, same round).\n")
    L.append("| transport | size | fps delivered | fps produced | producer µs/frame "
             "| consumer µs/frame | transport µs/frame | copies/frame | gaps |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for s in sizes:
        for t in transports:
            ms = data.get((t, s, "thr"))
            if not ms:
                continue
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                t, SNAME[s], fmt_r([m["fps"] for m in ms], 0),
                fmt_r([m["fps_prod"] for m in ms], 0),
                fmt_r([m["cpu_prod"] for m in ms], 2),
                fmt_r([m["cpu_cons"] for m in ms], 2) if t != "floor" else "(in producer)",
                fmt_r([m["cpu_tx"] for m in ms], 2) if t != "floor" else "–",
                fmt(med([m["copies"] for m in ms]), 2),
                fmt(med([m["gaps"] for m in ms]), 0)))
    L.append("")

    # --- latency table
    L.append("## Latency (producer paced; the consumer sleeps between frames)\n")
    L.append("Latency = consumer's CLOCK_MONOTONIC at the start of its sink's render "
             "minus the producer's stamp written just before the push. Futex floor = "
             "futex-floor at the same period, same run (two processes, one asleep in "
             "FUTEX_WAIT, the other stamps and FUTEX_WAKEs).\n")
    L.append("Paced trials split each frame's latency into stages: a buffer "
             "probe on the producer's src pad writes the push time into the "
             "frame (every transport pays it, ~0.1 µs), and doradmasrc's "
             "GstDoradmaFrameMeta carries publish, receive and delivery times "
             "(see \"Where the end-to-end p50 goes\").\n")
    L.append("doradmasrc p50 = the element's own `latency-p50` stat: publish (in "
             "doradmasink) → delivery (after the wake and the lease, before the push), "
             "i.e. the end-to-end figure minus both GStreamer push paths.\n")
    L.append("| transport | size | period | p50 µs | p95 µs | p99 µs | p50 / futex p50 "
             "| p99 / futex p99 | transport µs/frame (paced) | doradmasrc p50 µs |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for s in sizes:
        per = period_for(last, s)
        fx = futex.get(per, [])
        f50 = med([f["p50"] / 1e3 for f in fx])
        f99 = med([f["p99"] / 1e3 for f in fx])
        fcpu = med([f["sleeper_cpu_us"] for f in fx if "sleeper_cpu_us" in f])
        wcpu = med([f["waker_cpu_us"] for f in fx if "waker_cpu_us" in f])
        L.append("| futex wake floor | %s | %d µs | %s | %s | %s | 1 | 1 | %s | – |" % (
            SNAME[s], per, fmt_r([f["p50"] / 1e3 for f in fx]),
            fmt_r([f["p95"] / 1e3 for f in fx]), fmt_r([f["p99"] / 1e3 for f in fx]),
            "sleeper %s / waker %s" % (fmt(fcpu, 1), fmt(wcpu, 1)) if fcpu else "–"))
        for t in transports:
            ms = data.get((t, s, "paced"))
            if not ms:
                continue
            p50, p99 = med([m["lat_p50"] for m in ms]), med([m["lat_p99"] for m in ms])
            L.append("| %s | %s | %d µs | %s | %s | %s | %s | %s | %s | %s |" % (
                t, SNAME[s], per, fmt_r([m["lat_p50"] for m in ms]),
                fmt_r([m["lat_p95"] for m in ms]), fmt_r([m["lat_p99"] for m in ms]),
                fmt(p50 / f50, 2) if p50 and f50 else "–",
                fmt(p99 / f99, 2) if p99 and f99 else "–",
                fmt_r([m["cpu_tx"] for m in ms], 2) if t != "floor" else
                "floor proc %s" % fmt(med([m["cpu_proc"] for m in ms]), 2),
                fmt_r([m["rx_lat50"] for m in ms]) if t.startswith("dm-") else "–"))
    L.append("")

    # --- ratios
    have_dm = any(t.startswith("dm-") for t in transports)
    L.append("## Ratios and targets\n")
    if not have_dm:
        L.append("doradma transports were not measured in these runs (see Skipped); "
                 "the targets cannot be evaluated.\n")
    else:
        have_ufd = "unixfd" in transports
        L.append("| size | transport | fps / shmsink fps | %sfps / floor fps | "
                 "transport µs/frame thr / paced | p50 / futex | p99 / futex |"
                 % ("fps / unixfd fps | " if have_ufd else ""))
        L.append("|---|---|---|---|---|---|---|" + ("---|" if have_ufd else ""))
        for s in sizes:
            per = period_for(last, s)
            f50 = med([f["p50"] / 1e3 for f in futex.get(per, [])])
            f99 = med([f["p99"] / 1e3 for f in futex.get(per, [])])
            shm = med([m["fps"] for m in data.get(("shm", s, "thr"), [])])
            flo = med([m["fps"] for m in data.get(("floor", s, "thr"), [])])
            ufd = med([m["fps"] for m in data.get(("unixfd", s, "thr"), [])])
            for t in [t for t in transports if t.startswith("dm-")]:
                ms = data.get((t, s, "thr"), [])
                mp = data.get((t, s, "paced"), [])
                f = med([m["fps"] for m in ms])
                p50 = med([m["lat_p50"] for m in mp])
                p99 = med([m["lat_p99"] for m in mp])
                L.append("| %s | %s | %s | %s%s | %s / %s | %s | %s |" % (
                    SNAME[s], t, fmt(f / shm, 2) if f and shm else "–",
                    "" if not have_ufd else
                    (fmt(f / ufd, 2) if f and ufd else "–") + " | ",
                    fmt(f / flo, 3) if f and flo else "–",
                    fmt(med([m["cpu_tx"] for m in ms]), 2),
                    fmt(med([m["cpu_tx"] for m in mp]), 2),
                    fmt(p50 / f50, 2) if p50 and f50 else "–",
                    fmt(p99 / f99, 2) if p99 and f99 else "–"))
        L.append("")

    # --- issue 35's targets, then issue 24's
    if have_dm:
        L += targets_35(data, futex, last, sizes,
                        [p for r in runs for p in r.get("ping", [])],
                        crowding(runs))
        L += where_we_stand(data, futex, last, sizes,
                            [p for r in runs for p in r.get("ping", [])],
                            crowding(runs))

    # --- per run spread
    L.append("## Spread between runs\n")
    L.append("Medians of each run separately (thr: fps; paced: p50/p99 µs).\n")
    hdr = "| figure | " + " | ".join("run %d (%s)" % (i + 1, r["date"][:16])
                                      for i, r in enumerate(runs)) + " | spread |"
    L.append(hdr)
    L.append("|---|" + "---|" * len(runs) + "---|")
    figs = []
    for s in sizes:
        for t in transports:
            figs.append(("%s %s fps" % (t, SNAME[s]), t, s, "thr", "fps"))
    for s in sizes:
        for t in transports:
            if t != "floor":
                figs.append(("%s %s transport µs/frame (thr)" % (t, SNAME[s]), t, s,
                             "thr", "cpu_tx"))
    for s in sizes:
        for t in transports:
            figs.append(("%s %s p50 µs" % (t, SNAME[s]), t, s, "paced", "lat_p50"))
            figs.append(("%s %s p99 µs" % (t, SNAME[s]), t, s, "paced", "lat_p99"))
    for name, t, s, ph, k in figs:
        vals = [med([m[k] for m in data.get((t, s, ph), []) if m["run"] == i])
                for i in range(len(runs))]
        if all(v is None for v in vals):
            continue
        vv = [v for v in vals if v is not None]
        spread = ("%.0f%%" % (100 * (max(vv) - min(vv)) / statistics.mean(vv))
                  if len(vv) > 1 and statistics.mean(vv) else "–")
        L.append("| %s | %s | %s |" % (name, " | ".join(fmt(v, 2) for v in vals),
                                        spread))
    for per in sorted(futex):
        for k in ("p50", "p99"):
            vals = [med([f[k] / 1e3 for f in futex[per] if f["run"] == i])
                    for i in range(len(runs))]
            vv = [v for v in vals if v is not None]
            spread = ("%.0f%%" % (100 * (max(vv) - min(vv)) / statistics.mean(vv))
                      if len(vv) > 1 else "–")
            L.append("| futex floor %d µs period %s µs | %s | %s |" % (
                per, k, " | ".join(fmt(v, 2) for v in vals), spread))
    L.append("")

    # --- what was measured, per transport
    L.append("## What each transport is\n")
    for t in transports:
        L.append("- **%s**: %s." % (t, LABEL[t]))
    L.append("")
    ex = {}
    for (t, s, ph), ms in data.items():
        for m in ms:
            if m["tx_stats"] or m["rx_stats"]:
                ex.setdefault(t, (m["tx_stats"], m["rx_stats"]))
    if ex:
        L.append("Element stats seen (one trial each):\n")
        for t, (tx, rx) in sorted(ex.items()):
            L.append("- %s: tx %s; rx %s" % (t, json.dumps(tx), json.dumps(rx)))
        L.append("")
    bad = [(k, m) for k, ms in data.items() for m in ms if not m["ok"]]
    if bad:
        L.append("**Failed trials:** %s\n" % ", ".join(
            "%s %s %s (run %d round %d)" % (k[0], SNAME[k[1]], k[2], m["run"] + 1,
                                            m["round"]) for k, m in bad))
    with open(a.md, "w") as f:
        f.write("\n".join(L) + "\n")
    print("report: wrote %s" % a.md, file=sys.stderr)
    plots(data, futex, last, transports, sizes, a.png_dir, a.png_prefix)


def ping_med(pings, s, per, kind, wait, pace, key="e2e_p50"):
    """Median (us) of spin-ping / iox-ping runs at size s and period per.
    Runs from before issue 24 have no kind/size/wait: a spinning ring at
    4 KiB, matched by period alone."""
    fs = s[0] * s[1] * 3 // 2
    return med([p[key] / 1e3 for p in pings
                if p.get("kind", "ring") == kind
                and p.get("wait", "spin") == wait and p["pace"] == pace
                and p["period_us"] == per and p.get("size", fs) == fs])


def crowding(runs):
    """A note when some run had more runnable work than cores (1-minute
    load above the core count): then a pinned spinner shares its core and
    the spinning figures measure the scheduler, not the transport."""
    worst = max(([max(r["machine"].get("loadavg_start", [0])[0],
                      r["machine"].get("loadavg_end", [0])[0]),
                  r["machine"].get("cores") or 1] for r in runs),
                key=lambda lc: lc[0] / lc[1])
    if worst[0] <= worst[1]:
        return None
    return "load %.1f on %d cores" % (worst[0], worst[1])


def sleeping_consumer(m_of, futex, last, sizes):
    """(size, transport, doradmasrc publish → delivery p50, futex floor p50
    at that size's period) for every size and both sleeping modes; None
    where a figure was not measured."""
    for s in sizes:
        fx = med([f["p50"] / 1e3 for f in futex.get(period_for(last, s), [])])
        for t in ("dm-lossless", "dm-latest"):
            yield s, t, m_of(t, s, "paced", "rx_lat50"), fx or None


def targets_35(data, futex, last, sizes, pings, crowded=None):
    """Issue 35's targets, each met / not met from these runs alone, at
    every size (and mode): the bound of each is made of figures of the
    same runs. A figure not measured is a row that says so, and its target
    is not met."""
    def m_of(t, s, ph, k):
        return med([m[k] for m in data.get((t, s, ph), [])])

    rows = []

    def row(item, size, measured, ok, spin=False):
        if ok is None:
            verdict = "– (not measured)"
        elif spin and crowded:
            verdict = "– (%s: not judged)" % crowded
        else:
            verdict = "yes" if ok else "**no**"
        rows.append((item, size, measured, verdict))

    t1 = "1. sleeping consumer: doradmasrc publish → delivery p50 ≤ 1.2× futex floor"
    for s, t, rx, fx in sleeping_consumer(m_of, futex, last, sizes):
        if rx is None or fx is None:
            row(t1, SNAME[s], "%s: –" % t, None)
            continue
        row(t1, SNAME[s], "%s: %s× (%s vs %s µs, %g ms period)" % (
            t, fmt(rx / fx, 2), fmt(rx), fmt(fx),
            period_for(last, s) / 1000), rx <= 1.2 * fx)
    t2 = ("2. spinning end to end (dm-spin p50) ≤ 2 × in-process hop + ring "
          "alone + 1 µs")
    for s in sizes:
        sp = m_of("dm-spin", s, "paced", "lat_p50")
        fl = m_of("floor", s, "paced", "lat_p50")
        ring = ping_med(pings, s, period_for(last, s), "ring", "spin", "sleep")
        if sp is None or fl is None or ring is None:
            row(t2, SNAME[s], "–", None)
            continue
        # two in-process hops: the floor pipeline (source ! fakesink in
        # one process) twice, as doradma has a hop on each side
        bound = 2 * fl + ring + 1
        row(t2, SNAME[s], "%s× the bound (%s vs 2 × %s + %s + 1 = %s µs)" % (
            fmt(sp / bound, 2), fmt(sp), fmt(fl), fmt(ring, 2), fmt(bound)),
            sp <= bound, spin=True)
    t3 = "3. transport CPU ≤ 3.5 µs/frame (unthrottled)"
    for t in ("dm-lossless", "dm-latest", "dm-spin"):
        for s in sizes:
            v = m_of(t, s, "thr", "cpu_tx")
            fp = m_of("floor", s, "thr", "cpu_proc")
            if v is None:
                row(t3, SNAME[s], "%s: –" % t, None)
                continue
            # a spinning consumer is busy whether or not a frame is there:
            # its CPU per frame is the producer's frame period
            row(t3, SNAME[s], "%s: %s µs (%s× the floor process's %s)%s" % (
                t, fmt(v, 2), fmt(v / fp, 2) if fp else "–", fmt(fp, 2),
                ", the consumer spinning" if t == "dm-spin" else ""),
                v <= 3.5, spin=t == "dm-spin")
    L = ["## Targets of issue 35 (met / not met)\n"]
    L.append("Each verdict comes from these runs alone: the futex floor, the "
             "in-process hop (the `floor` pipeline, source ! fakesink in one "
             "process, stamp → render) and the ring alone (spin-ping, "
             "spinning, writer idle) are measured at the same size and "
             "period in the same rounds. A target is met when every size "
             "(and mode) was measured and met. Item 4 (the CUDA path) is "
             "tests/bench/gpu's (docs/bench/gpu-paced-20261204.md).\n")
    L.append("| target | met? | rows met |")
    L.append("|---|---|---|")
    for item in (t1, t2, t3):
        verdicts = [r[3] for r in rows if r[0] == item]
        met = sum(1 for v in verdicts if v == "yes")
        L.append("| %s | %s | %d of %d |" % (
            item, "yes" if verdicts and met == len(verdicts) else "**no**",
            met, len(verdicts)))
    L.append("")
    L.append("| target | size | measured | met? |")
    L.append("|---|---|---|---|")
    L += ["| %s | %s | %s | %s |" % r for r in rows]
    L.append("")
    return L


def where_we_stand(data, futex, last, sizes, pings, crowded=None):
    """Issue 24's targets, each a ratio within the same runs. `crowded`
    (crowding()): the spinning rows are shown but not judged."""
    def m_of(t, s, ph, k):
        return med([m[k] for m in data.get((t, s, ph), [])])

    def yes(ok):
        return "yes" if ok else "**no**"

    def judge_spin(ok):
        return "– (%s: not judged)" % crowded if crowded else yes(ok)

    upto4k = [s for s in sizes if s[0] * s[1] <= 3840 * 2160]
    L = ["## Where we stand (issue 24 targets)\n"]
    L.append("Medians over all rounds of these runs, each ratio from the same "
             "runs. dm-spin: doradmasrc `spin-time=%s ns`, producer / consumer "
             "pinned to CPUs %s. Ring alone = spin-ping (the lib, no "
             "GStreamer), iceoryx = iox-ping (iceoryx's C binding, its own "
             "RouDi): same frame size, period and pinning, writer's core idle "
             "between frames (`sleep`) unless `busy` is said.%s\n" % (
                 last["config"].get("spin_ns", "?"),
                 "/".join(str(c) for c in last["config"].get("pin") or [])
                 or "(none)",
                 (" **These runs had %s**: more runnable threads than "
                  "cores, so a pinned spinning reader shares its core and "
                  "the spinning rows measure the scheduler; they are shown, "
                  "not judged. The waiting rows, the stages and the CPU "
                  "figures are still ratios within one run." % crowded)
                 if crowded else ""))
    L.append("| target | size | measured | met? |")
    L.append("|---|---|---|---|")
    for s in upto4k:
        per = period_for(last, s)
        sp = m_of("dm-spin", s, "paced", "lat_p50")
        fl = m_of("floor", s, "paced", "lat_p50")
        ring = ping_med(pings, s, per, "ring", "spin", "sleep")
        if sp is None or fl is None or ring is None:
            continue
        L.append("| dm-spin end-to-end p50 ≤ in-process floor + ring alone + "
                 "2 µs | %s | %s µs vs %s + %s + 2 = %s µs (excess %s µs) | %s |"
                 % (SNAME[s], fmt(sp), fmt(fl), fmt(ring, 2),
                    fmt(fl + ring + 2), fmt(sp - fl - ring - 2),
                    judge_spin(sp <= fl + ring + 2)))
    for s in upto4k:
        pu = m_of("dm-spin", s, "paced", "st_publish")
        de = m_of("dm-spin", s, "paced", "st_deliver")
        if pu is None or de is None:
            continue
        L.append("| dm-spin publish stage p50 ≤ 3 µs, deliver stage p50 ≤ 2 µs "
                 "| %s | publish %s µs, deliver %s µs | %s / %s |" % (
                     SNAME[s], fmt(pu), fmt(de), yes(pu <= 3), yes(de <= 2)))
    for s in sizes:
        per = period_for(last, s)
        for wait, pace, what in (("spin", "sleep", "spinning"),
                                 ("spin", "busy", "spinning, writer busy"),
                                 ("wait", "sleep", "waiting")):
            ring = ping_med(pings, s, per, "ring", wait, pace)
            iox = ping_med(pings, s, per, "iox", wait, pace)
            if ring is None and iox is None:
                continue
            r99 = ping_med(pings, s, per, "ring", wait, pace, "e2e_p99")
            i99 = ping_med(pings, s, per, "iox", wait, pace, "e2e_p99")
            L.append("| ring alone p50 ≤ iceoryx p50 (%s; p99 beside) | %s | "
                     "ring %s µs (p99 %s), iceoryx %s µs (p99 %s)%s | %s |" % (
                         what, SNAME[s], fmt(ring, 2), fmt(r99, 1),
                         fmt(iox, 2), fmt(i99, 1),
                         ": %s×" % fmt(ring / iox, 2) if ring and iox else "",
                         ("– (iceoryx not measured)" if ring is None or iox is None
                          else judge_spin(ring <= iox) if wait == "spin"
                          else yes(ring <= iox))))
    for s, t, rx, fx in sleeping_consumer(m_of, futex, last, sizes):
        if rx is None or fx is None:
            continue
        # the period, not the size, sets how cold the woken consumer
        # runs (period-vs-size.sh): say which one each row had
        L.append("| sleeping consumer: doradmasrc publish → delivery p50 ≤ "
                 "1.2× futex floor | %s | %s: %s µs vs %s µs = %s× "
                 "(%g ms period) | %s |" % (
                     SNAME[s], t, fmt(rx), fmt(fx), fmt(rx / fx, 2),
                     period_for(last, s) / 1000, yes(rx <= 1.2 * fx)))
    k4 = (3840, 2160)
    shm = m_of("shm", k4, "thr", "fps")
    for t in ("dm-lossless", "dm-latest", "dm-spin"):
        f = m_of(t, k4, "thr", "fps")
        if f is None or not shm:
            continue
        L.append("| ≥ 3× shmsink frames/s at 4K (delivered) | 4K | %s: %s vs %s = "
                 "%s× | %s |" % (t, fmt(f, 0), fmt(shm, 0), fmt(f / shm, 2),
                                 yes(f >= 3 * shm)))
    for t in ("dm-lossless", "dm-latest", "dm-spin"):
        vals = [m_of(t, s, "thr", "cpu_tx") for s in upto4k]
        if all(v is None for v in vals):
            continue
        L.append("| transport CPU ≤ 3.5 µs/frame (unthrottled) | %s | %s: %s "
                 "µs | %s |" % ("/".join(SNAME[s] for s in upto4k), t,
                               " / ".join(fmt(v, 2) for v in vals),
                               yes(all(v is not None and v <= 3.5
                                       for v in vals))))
    L += unixfd_rows(m_of, sizes)
    L.append("")
    L += stage_table(data, sizes)
    return L


def unixfd_rows(m_of, sizes):
    """GStreamer >= 1.24's unixfdsink/unixfdsrc next to doradma, from the
    same runs (no target is set against it: met? is –)."""
    rows = []
    dm = ("dm-spin", "dm-lossless", "dm-latest")
    for s in sizes:
        u = m_of("unixfd", s, "paced", "lat_p50")
        if u is None:
            continue
        rows.append("| unixfd (reference): end-to-end p50, paced | %s | unixfd "
                    "%s µs; %s | – |" % (SNAME[s], fmt(u), "; ".join(
                        "%s %s µs (%s× lower)" % (t, fmt(v), fmt(u / v, 1))
                        for t, v in ((t, m_of(t, s, "paced", "lat_p50"))
                                     for t in dm + ("shm",)) if v)))
    for s in sizes:
        u = m_of("unixfd", s, "thr", "fps")
        if u is None:
            continue
        rows.append("| unixfd (reference): frames/s delivered, unthrottled | %s "
                    "| unixfd %s; %s | – |" % (SNAME[s], fmt(u, 0), "; ".join(
                        "%s %s (%s×)" % (t, fmt(v, 0), fmt(v / u, 1))
                        for t, v in ((t, m_of(t, s, "thr", "fps"))
                                     for t in dm + ("shm",)) if v)))
    return rows


def stage_table(data, sizes):
    """Where each dm-* transport's paced end-to-end p50 goes, stage by
    stage, from the same trials."""
    rows = []
    for t in ("dm-spin", "dm-lossless", "dm-latest", "dm-copy"):
        for s in sizes:
            ms = data.get((t, s, "paced"), [])
            st = [med([m.get("st_" + k) for m in ms]) for k in STAGES]
            e2e = med([m["lat_p50"] for m in ms])
            if e2e is None or any(v is None for v in st):
                continue
            tot = sum(st)
            rows.append("| %s | %s | %s | %s | %s | %s |" % (
                t, SNAME[s], " | ".join(fmt(v) for v in st), fmt(tot),
                fmt(e2e), fmt(e2e - tot)))
    if not rows:
        return []
    L = ["### Where the end-to-end p50 goes, stage by stage (paced)\n"]
    L.append("Each frame's latency is the sum of its stages (all CLOCK_MONOTONIC,"
             " same frame): %s. Each cell is the median over rounds of the "
             "stage's p50 over a trial's frames; p50s do not add up exactly, "
             "the residual is end-to-end p50 − Σ stage p50s.\n" % "; ".join(
                 "**%s** = %s" % (k, STAGE_LABEL[k]) for k in STAGES))
    L.append("| transport | size | %s | Σ stages | end-to-end p50 | residual |"
             % " | ".join(STAGES))
    L.append("|---|---|" + "---|" * (len(STAGES) + 3))
    L += rows
    L.append("")
    return L


def plots(data, futex, last, transports, sizes, outdir, prefix):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing (apt-get install python3-matplotlib): "
              "no plots", file=sys.stderr)
        return
    x = list(range(len(sizes)))
    xl = [SNAME[s] for s in sizes]
    title = "%s, %s cores, kernel %s, GStreamer %s, %s" % (
        last["machine"].get("cpu", "?")[:40], last["machine"].get("cores"),
        last["machine"].get("kernel"), last["machine"].get("gstreamer"),
        last["date"][:10])

    def errplot(ax, key, phase, t, scale=1.0):
        ms = [data.get((t, s, phase), []) for s in sizes]
        ys = [med([m[key] for m in mm]) for mm in ms]
        lo = [rng([m[key] for m in mm]) for mm in ms]
        pts = [(i, y * scale, (y - max(r[0], y / 100)) * scale, (r[1] - y) * scale)
               for i, (y, r) in enumerate(zip(ys, lo)) if y is not None and r
               and y > 0]
        if not pts:
            return
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts],
                    yerr=[[p[2] for p in pts], [p[3] for p in pts]], marker="o",
                    capsize=3, label=t)

    fig, ax = plt.subplots(figsize=(8, 5))
    for t in transports:
        errplot(ax, "fps", "thr", t)
    ax.set_yscale("log")
    ax.set_xticks(x, xl)
    ax.set_ylabel("frames/s delivered (unthrottled producer)")
    ax.set_title("Throughput — " + title, fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, prefix + "-fps.png"), dpi=110)
    plt.close(fig)

    fig, axs = plt.subplots(1, 2, figsize=(11, 4.5), sharey=False)
    for ph, ax in zip(("thr", "paced"), axs):
        for t in transports:
            if t != "floor":
                errplot(ax, "cpu_tx", ph, t)
        ax.axhline(4, color="k", ls="--", lw=0.8, label="target 4 µs")
        ax.set_yscale("log")
        ax.set_ylim(bottom=1)
        ax.set_xticks(x, xl)
        ax.set_ylabel("transport CPU µs/frame (prod+cons−floor)")
        ax.set_title("%s" % ("unthrottled" if ph == "thr" else "paced"), fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("CPU per frame — " + title, fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, prefix + "-cpu.png"), dpi=110)
    plt.close(fig)

    fig, axs = plt.subplots(1, 2, figsize=(11, 4.5))
    for k, ax in zip(("lat_p50", "lat_p99"), axs):
        for t in transports:
            errplot(ax, k, "paced", t)
        fy = [med([f[k[4:]] / 1e3 for f in futex.get(period_for(last, s), [])])
              for s in sizes]
        ax.plot(x, fy, "k--", marker="x", label="futex wake floor")
        if k == "lat_p50":
            ax.axhline(5, color="r", ls=":", lw=0.8, label="dm-spin target 5 µs")
        ax.set_yscale("log")
        ax.set_xticks(x, xl)
        ax.set_ylabel("latency µs (%s)" % k[4:])
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Latency, paced producer — " + title, fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, prefix + "-latency.png"), dpi=110)
    plt.close(fig)
    print("report: wrote %s/%s-{fps,cpu,latency}.png" % (outdir, prefix),
          file=sys.stderr)


if __name__ == "__main__":
    main()
