#!/usr/bin/python3
"""tests/bench/net/compare.sh's CSV: reading it and its summary table.

    python3 tests/bench/net/netcsv.py CSV

prints the markdown table of docs/bench/network.md: per case and transport
the median of the repetitions and their spread [min-max]. plot.py uses the
same reading and summary.
"""
import csv
import statistics
import sys

COLUMNS = ["rep", "case", "transport", "made", "delivered", "fps", "p50_ms",
           "p99_ms", "cpu_tx_ms", "cpu_rx_ms", "cpu_source_ms"]
METRICS = ["fps", "p50_ms", "p99_ms", "cpu_tx_ms", "cpu_rx_ms",
           "cpu_source_ms"]


def number(row, column, path):
    """The field as a float; None where the run delivered nothing."""
    text = row[column]
    if text == "":
        return None
    try:
        return float(text)
    except ValueError:
        sys.exit("%s: run %s %s/%s: %s is not a number: %r"
                 % (path, row["rep"], row["case"], row["transport"], column,
                    text))


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


def summary(rows, path):
    """[(case, transport, {column: (median, min, max) or None,
    "runs": [(made, delivered)]})] in the file's order of cases and
    transports (the first repetition's)."""
    cases = list(dict.fromkeys(r["case"] for r in rows))
    transports = list(dict.fromkeys(r["transport"] for r in rows))
    order = {t: i for i, t in enumerate(["ucx", "ucx-auth", "ucx-crypt",
                                         "rtp", "gdp", "gdp-1m"])}
    transports.sort(key=lambda t: order.get(t, len(order)))
    out = []
    for c in cases:
        for t in transports:
            runs = [r for r in rows if r["case"] == c and r["transport"] == t]
            if not runs:
                continue
            stats = {"runs": [(r["made"], r["delivered"]) for r in runs]}
            for m in METRICS:
                values = [v for v in (number(r, m, path) for r in runs)
                          if v is not None]
                stats[m] = ((statistics.median(values), min(values),
                             max(values)) if values else None)
            out.append((c, t, stats))
    return out


def spread(s, digits):
    if s is None:
        return "-"
    return "%.*f [%.*f–%.*f]" % (digits, s[0], digits, s[1], digits, s[2])


def delivered(runs):
    if all(r == runs[0] for r in runs):
        return "%s/%s ×%d" % (runs[0][1], runs[0][0], len(runs))
    return ", ".join("%s/%s" % (d, m) for m, d in runs)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: netcsv.py CSV")
    path = sys.argv[1]
    print("| case | transport | delivered/made | frames/s | p50 ms | p99 ms "
          "| CPU send ms/frame (− source) | CPU receive ms/frame "
          "| source alone ms/frame |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c, t, s in summary(read(path), path):
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |"
              % (c, t, delivered(s["runs"]), spread(s["fps"], 1),
                 spread(s["p50_ms"], 2), spread(s["p99_ms"], 1),
                 spread(s["cpu_tx_ms"], 2), spread(s["cpu_rx_ms"], 2),
                 spread(s["cpu_source_ms"], 1)))


if __name__ == "__main__":
    main()
