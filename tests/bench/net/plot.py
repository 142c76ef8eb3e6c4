#!/usr/bin/python3
"""Plots of tests/bench/net/compare.sh's CSV (docs/bench/network.md).

    /usr/bin/python3 tests/bench/net/plot.py CSV OUT_DIR

writes OUT_DIR/network-fps.png (frames/s delivered), network-latency.png
(end-to-end p50 and p99) and network-cpu.png (CPU ms per delivered frame),
one group of bars per case, one bar per transport. Needs matplotlib
(Debian: python3-matplotlib, in scripts/install-deps.sh).
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402

COLUMNS = ["case", "transport", "made", "delivered", "fps", "p50_ms",
           "p99_ms", "cpu_ms_per_frame"]
TRANSPORT_LABELS = {"ucx": "UCX pair (doradmanetsink/src)",
                    "rtp": "RTP raw (rtpvrawpay/udpsink)",
                    "gdp": "TCP + gdp (tcpserversink)"}


def number(row, column, path):
    """The field as a float; None where the case delivered nothing."""
    text = row[column]
    if text == "":
        return None
    try:
        return float(text)
    except ValueError:
        sys.exit("%s: case %s/%s: %s is not a number: %r"
                 % (path, row["case"], row["transport"], column, text))


def read(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            sys.exit("%s: columns %s, expected %s"
                     % (path, reader.fieldnames, COLUMNS))
        rows = list(reader)
    if not rows:
        sys.exit("%s: no rows" % path)
    return rows


def grouped(rows, path, column):
    """{transport: [value per case]} and the cases, in the file's order."""
    cases = list(dict.fromkeys(r["case"] for r in rows))
    transports = list(dict.fromkeys(r["transport"] for r in rows))
    values = {t: [None] * len(cases) for t in transports}
    for r in rows:
        values[r["transport"]][cases.index(r["case"])] = number(r, column,
                                                                path)
    return cases, values


def bars(ax, cases, values, hatch=None, alpha=1.0, labels=True):
    transports = list(values)
    width = 0.8 / len(transports)
    for i, t in enumerate(transports):
        xs = [c + (i - (len(transports) - 1) / 2) * width
              for c in range(len(cases))]
        heights = [v if v is not None else float("nan") for v in values[t]]
        ax.bar(xs, heights, width, color="C%d" % i, hatch=hatch, alpha=alpha,
               edgecolor="black", linewidth=0.5,
               label=TRANSPORT_LABELS.get(t, t) if labels else None)
        for x, v in zip(xs, values[t]):
            if v is None:
                ax.annotate("none", (x, 0.01), ha="center", va="bottom",
                            fontsize=7, xycoords=ax.get_xaxis_transform())
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases)


def figure(title, ylabel):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    return fig, ax


def save(fig, ax, out_dir, name):
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(path)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py CSV OUT_DIR")
    path, out_dir = sys.argv[1:]
    rows = read(path)

    cases, fps = grouped(rows, path, "fps")
    fig, ax = figure("Frames/s delivered (higher is better)", "frames/s")
    bars(ax, cases, fps)
    save(fig, ax, out_dir, "network-fps.png")

    _, p50 = grouped(rows, path, "p50_ms")
    _, p99 = grouped(rows, path, "p99_ms")
    fig, ax = figure("End-to-end latency: p99 (light, hatched) over p50 "
                     "(solid); lower is better", "ms (log scale)")
    bars(ax, cases, p99, hatch="//", alpha=0.35, labels=False)
    bars(ax, cases, p50)
    ax.set_yscale("log")
    save(fig, ax, out_dir, "network-latency.png")

    _, cpu = grouped(rows, path, "cpu_ms_per_frame")
    fig, ax = figure("CPU time per delivered frame, both processes "
                     "(lower is better)", "CPU ms / frame")
    bars(ax, cases, cpu)
    save(fig, ax, out_dir, "network-cpu.png")


if __name__ == "__main__":
    main()
