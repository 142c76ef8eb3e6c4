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


def measures(t):
    """fps, end-to-end p50 (us), producer + consumer CPU (us/frame) of a trial"""
    s, p = t["cons"]["sink"], t["prod"]["src"]
    return (s["win_frames"] * 1e9 / s["win_wall_ns"], s["lat_p50"] / 1e3,
            ((p["win_user_ns"] + p["win_sys_ns"]) / p["win_frames"]
             + (s["win_user_ns"] + s["win_sys_ns"]) / s["win_frames"]) / 1e3)


def medians(files):
    """(transport, size, phase) -> (median fps, median p50, median CPU, trials)"""
    cells = {}
    for f in files:
        with open(f) as fh:
            for t in json.load(fh)["trials"]:
                if not t["cons"]["sink"].get("win_wall_ns"):
                    continue
                k = (t["transport"], "%dx%d" % (t["w"], t["h"]), t["phase"])
                cells.setdefault(k, []).append(measures(t))
    return {k: tuple(statistics.median(m[i] for m in v) for i in range(3))
            + (len(v),) for k, v in cells.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", nargs="+", required=True)
    ap.add_argument("--new", nargs="+", required=True)
    a = ap.parse_args()
    print("| transport | size | phase | old fps | new fps | new/old | old / shm | new / shm | trials | p50 µs old → new | CPU µs/frame old → new |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---|---|")
    old, new = medians(a.old), medians(a.new)
    nan = (float("nan"),)
    for k in sorted(old):
        if k not in new:
            continue
        o, n = old[k], new[k]
        so = old.get(("shm", k[1], k[2]), nan)[0]
        sn = new.get(("shm", k[1], k[2]), nan)[0]
        print("| %s | %s | %s | %.0f | %.0f | %.2f | %.2f | %.2f | %d+%d | %.1f → %.1f | %.2f → %.2f |" % (
            k[0], k[1], k[2], o[0], n[0], n[0] / o[0], o[0] / so, n[0] / sn,
            o[3], n[3], o[1], n[1], o[2], n[2]))


if __name__ == "__main__":
    main()
