#!/usr/bin/python3
"""Plots docs/bench/gpu-transport.txt (tests/bench/gpu/run.sh output) into
docs/bench/gpu-transport.png: latency p50/p99 and consumer CPU per frame at
60 fps, and frames/s delivered unpaced, per transport, 1080p and 4K.
Usage: /usr/bin/python3 tests/bench/gpu/plot.py IN.txt OUT.png"""
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

ORDER = ["doradma-1.26", "doradma-1.22", "cudaipc-legacy", "cudaipc-mmap"]
LABEL = {"doradma-1.26": "doradma ipc\n1.26 (wrapped)",
         "doradma-1.22": "doradma ipc\n1.22 (1 device copy)",
         "cudaipc-legacy": "cudaipcsink\nlegacy (1.26)",
         "cudaipc-mmap": "cudaipcsink\nmmap (1.26)"}
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"^(doradma-1\.2[26]|cudaipc-legacy|cudaipc-mmap)-(\d+x\d+)-p(\d+) ", line)
    if not m or "gpustampsink: frames" not in line:
        continue
    sink = dict(re.findall(r"(\w+)=([\d.]+)", line.split("|")[1]))
    rows[(m.group(1), m.group(2), int(m.group(3)) > 0)] = sink

fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
res = ["1920x1080", "3840x2160"]
w = 0.38
for ax, (title, key, paced, log) in zip(axes, [
        ("latency at 60 fps (bar p50, tick p99), µs", "lat_p50_us", True, False),
        ("consumer CPU per frame at 60 fps, µs", "cpu_us_per_frame", True, False),
        ("frames/s delivered, producer unpaced", "fps", False, True)]):
    for i, r in enumerate(res):
        xs = [j + (i - 0.5) * w for j in range(len(ORDER))]
        vals = [float(rows.get((t, r, paced), {}).get(key, 0)) for t in ORDER]
        ax.bar(xs, vals, w, label=r)
        if key == "lat_p50_us":
            p99 = [float(rows.get((t, r, paced), {}).get("lat_p99_us", 0)) for t in ORDER]
            ax.scatter(xs, p99, marker="_", s=200, color="black", zorder=3)
    ax.set_xticks(range(len(ORDER)))
    ax.set_xticklabels([LABEL[t] for t in ORDER], fontsize=8)
    ax.set_title(title, fontsize=10)
    if log:
        ax.set_yscale("log")
    ax.legend(fontsize=8)
fig.suptitle("NV12 on an H200: doradmasink transport=ipc → doradmasrc → memory:CUDAMemory "
             "vs cudaipcsink → cudaipcsrc io-mode=import (stamp-only frames)", fontsize=10)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
