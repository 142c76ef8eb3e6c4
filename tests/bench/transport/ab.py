#!/usr/bin/python3
"""A/B of two plugin builds measured by bench.py in alternating runs (same
machine, same session): per transport and size, the median over every trial
of each side, the new/old ratio, and each side's ratio to shmsink's median
in its own runs (shm is the yardstick of the run-to-run noise), the
end-to-end p50, and the CPU per frame of producer + consumer (no floor
subtracted: an upper bound of the transport CPU).

  tests/bench/transport/ab.py --old runs/ab-x-old-*.json --new runs/ab-x-new-*.json
"""
import argparse
import json
import statistics


def medians(files, key):
    cells = {}
    for f in files:
        with open(f) as fh:
            for t in json.load(fh)["trials"]:
                s = t["cons"]["sink"]
                if not s.get("win_wall_ns"):
                    continue
                p = t["prod"]["src"]
                if key == "fps":
                    v = s["win_frames"] * 1e9 / s["win_wall_ns"]
                elif key == "p50":
                    v = s["lat_p50"] / 1e3
                else:
                    v = ((p["win_user_ns"] + p["win_sys_ns"]) / p["win_frames"]
                         + (s["win_user_ns"] + s["win_sys_ns"]) / s["win_frames"]) / 1e3
                k = (t["transport"], "%dx%d" % (t["w"], t["h"]), t["phase"])
                cells.setdefault(k, []).append(v)
    return {k: (statistics.median(v), len(v)) for k, v in cells.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", nargs="+", required=True)
    ap.add_argument("--new", nargs="+", required=True)
    a = ap.parse_args()
    print("| transport | size | phase | old fps | new fps | new/old | old / shm | new / shm | trials | p50 µs old → new | CPU µs/frame old → new |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---|---|")
    of, nf = medians(a.old, "fps"), medians(a.new, "fps")
    op, np_ = medians(a.old, "p50"), medians(a.new, "p50")
    oc, nc = medians(a.old, "cpu"), medians(a.new, "cpu")
    for k in sorted(of):
        if k not in nf:
            continue
        shm = ("shm", k[1], k[2])
        o, n = of[k][0], nf[k][0]
        so = of[shm][0] if shm in of else float("nan")
        sn = nf[shm][0] if shm in nf else float("nan")
        print("| %s | %s | %s | %.0f | %.0f | %.2f | %.2f | %.2f | %d+%d | %.1f → %.1f | %.2f → %.2f |" % (
            k[0], k[1], k[2], o, n, n / o, o / so, n / sn, of[k][1], nf[k][1],
            op[k][0], np_[k][0], oc[k][0], nc[k][0]))


if __name__ == "__main__":
    main()
