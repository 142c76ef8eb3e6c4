#!/usr/bin/python3
"""Plots of tests/bench/net/compare.sh's CSV (docs/bench/network.md).

    /usr/bin/python3 tests/bench/net/plot.py CSV OUT_DIR

writes OUT_DIR/network-fps.png (frames/s delivered), network-latency.png
(end-to-end p50 and p99) and network-cpu.png (CPU ms per frame: the
sender less the source, the receiver), one group of bars per case, one bar
per transport: the median of the repetitions, the whiskers their min-max.
Needs matplotlib (Debian: python3-matplotlib, in scripts/install-deps.sh).
"""
import os
import sys

import matplotlib

import netcsv

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402

TRANSPORT_LABELS = {"ucx": "UCX pair (doradmanetsink/src)",
                    "ucx-auth": "UCX pair, key-file",
                    "ucx-crypt": "UCX pair, key-file + encrypt",
                    "rtp": "RTP raw, jumbo (rtpvrawpay/udpsink)",
                    "gdp": "TCP + gdp (tcpclientsrc: 4 KiB reads)",
                    "gdp-1m": "TCP + gdp (fdsrc: 1 MiB reads)"}


def grouped(summary, column):
    """{transport: [(median, min, max) or None per case]} and the cases."""
    cases = list(dict.fromkeys(c for c, _, _ in summary))
    values = {}
    for c, t, s in summary:
        values.setdefault(t, [None] * len(cases))[cases.index(c)] = s[column]
    return cases, values


def bars(ax, cases, values, hatch=None, alpha=1.0, labels=True):
    transports = list(values)
    width = 0.8 / len(transports)
    for i, t in enumerate(transports):
        xs = [c + (i - (len(transports) - 1) / 2) * width
              for c in range(len(cases))]
        nan = float("nan")
        mid = [v[0] if v else nan for v in values[t]]
        err = [[v[0] - v[1] if v else 0 for v in values[t]],
               [v[2] - v[0] if v else 0 for v in values[t]]]
        ax.bar(xs, mid, width, yerr=err, capsize=2, color="C%d" % i,
               hatch=hatch, alpha=alpha, edgecolor="black", linewidth=0.5,
               error_kw={"elinewidth": 0.8, "alpha": max(alpha, 0.6)},
               label=TRANSPORT_LABELS.get(t, t) if labels else None)
        for x, v in zip(xs, values[t]):
            if v is None:
                ax.annotate("none", (x, 0.01), ha="center", va="bottom",
                            fontsize=7, xycoords=ax.get_xaxis_transform())
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases)


def figure(title, ylabel, n=1):
    fig, axes = plt.subplots(1, n, figsize=(8 * n, 4.5), squeeze=False)
    for ax in axes[0]:
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    fig.suptitle(title)
    return fig, axes[0]


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
    summary = netcsv.summary(netcsv.read(path), path)
    spread = " (median of the repetitions, whiskers min-max)"

    cases, fps = grouped(summary, "fps")
    fig, (ax,) = figure("Frames/s delivered (higher is better)" + spread,
                        "frames/s")
    bars(ax, cases, fps)
    save(fig, ax, out_dir, "network-fps.png")

    _, p50 = grouped(summary, "p50_ms")
    _, p99 = grouped(summary, "p99_ms")
    fig, (ax,) = figure("End-to-end latency: p99 (light, hatched) over p50 "
                        "(solid); lower is better", "ms (log scale)")
    bars(ax, cases, p99, hatch="//", alpha=0.35, labels=False)
    bars(ax, cases, p50)
    ax.set_yscale("log")
    save(fig, ax, out_dir, "network-latency.png")

    _, tx = grouped(summary, "cpu_tx_ms")
    _, rx = grouped(summary, "cpu_rx_ms")
    fig, (ax_tx, ax_rx) = figure("CPU time per frame (lower is better)"
                                 + spread, "CPU ms / frame", 2)
    ax_tx.set_title("sender, less the source alone (per frame made)")
    bars(ax_tx, cases, tx)
    ax_rx.set_title("receiver (per frame delivered)")
    bars(ax_rx, cases, rx, labels=False)
    save(fig, ax_tx, out_dir, "network-cpu.png")


if __name__ == "__main__":
    main()
