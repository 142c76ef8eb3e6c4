#!/usr/bin/python3
"""Summary of period-vs-size.sh's OUTDIR: per period and size, doradmasrc's
publish -> delivery p50 against the futex floor of the same run and period
(medians over the rounds, [min-max] of the per-round ratios), and the ring
alone (spin-ping, sleeping reader) against the floor.

Usage: period-vs-size.py OUTDIR [OUTDIR...]  (several: pooled per dir)"""
import json
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

NAME = {(640, 480): "480p", (1920, 1080): "1080p", (3840, 2160): "4K",
        (7680, 4320): "8K"}


def ratios(run):
    """-> {(transport, size): (rx p50 median, floor p50 median, [ratio per round])}"""
    data, futex = report.collect([run])
    out = {}
    for (t, s, ph), ms in data.items():
        if ph != "paced":
            continue
        per = run["config"]["period_us"]["%dx%d" % s]
        fl = {f["round"]: f["p50"] / 1e3 for f in futex.get(per, [])}
        rs = [m["rx_lat50"] / fl[m["round"]] for m in ms
              if m.get("rx_lat50") and fl.get(m["round"])]
        out[(t, s)] = (st.median([m["rx_lat50"] for m in ms if m.get("rx_lat50")]),
                       st.median(fl.values()), per, rs)
    return out


def main():
    for d in sys.argv[1:]:
        print("## %s" % d)
        print("| run | transport | " + " | ".join(NAME.values()) + " |")
        print("|---|---|" + "---|" * len(NAME))
        for name in ("default", "p2000", "p20000"):
            f = os.path.join(d, name + ".json")
            if not os.path.exists(f):
                continue
            run = json.load(open(f))
            r = ratios(run)
            for t in ("dm-lossless", "dm-latest"):
                cells = []
                for s in NAME:
                    if (t, s) not in r:
                        cells.append("–")
                        continue
                    rx, fl, per, rs = r[(t, s)]
                    cells.append("%.2f× [%.2f–%.2f] (%.1f / %.1f µs, %g ms)" % (
                        st.median(rs), min(rs), max(rs), rx, fl, per / 1000))
                print("| %s (load %s → %s) | %s | %s |" % (
                    name, run["machine"].get("loadavg_start", ["?"])[0],
                    run["machine"].get("loadavg_end", ["?"])[0], t,
                    " | ".join(cells)))
        p = os.path.join(d, "pings.jsonl")
        if os.path.exists(p):
            rows = [json.loads(x) for x in open(p) if x.strip()]
            print("\n| period | futex floor p50 µs | floor, 100 ms timeout | "
                  "ring alone 460800 B pub p50 | ring alone 49766400 B |")
            print("|---|---|---|---|---|")
            for per in sorted({x["period_us"] for x in rows}):
                def v(pred, k):
                    xs = [x[k] / 1e3 for x in rows
                          if x["period_us"] == per and pred(x)]
                    return ("%.1f [%.1f–%.1f]" % (st.median(xs), min(xs), max(xs))
                            if xs else "–")
                print("| %g ms | %s | %s | %s | %s |" % (
                    per / 1000,
                    v(lambda x: x["tool"] == "futex" and not x.get("timeout_ns"), "p50"),
                    v(lambda x: x["tool"] == "futex" and x.get("timeout_ns"), "p50"),
                    v(lambda x: x["tool"] == "ring" and x["size"] == 460800, "pub_p50"),
                    v(lambda x: x["tool"] == "ring" and x["size"] == 49766400, "pub_p50")))
        print()


if __name__ == "__main__":
    main()
