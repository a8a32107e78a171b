#!/usr/bin/python3
"""Plots reserved against achieved per 1-s window for the QoS FUSE benchmark (tests/bench/qos_fuse), both policies.

Reads qos-windows.csv written by run_qos_bench.py (policy, volume, second, unit, achieved, held_reservation) and
draws one panel per policy and unit (MiB/s for the sequential volumes, IOPS for the random ones): each reserved
volume's achieved throughput per second as a line, the reservation held for it (which steps down after a capacity
drop if the reservations no longer fit) as a black line, 90 % of it dashed, and the drop as a vertical line.
Best-effort volumes are drawn thin and grey. Needs matplotlib (Debian: python3-matplotlib).

    contrib/bench/plot_qos_bench.py --windows OUT/qos-windows.csv --out OUT/qos-reservations.png [--drop-second 70]
"""
import argparse
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

COLOURS = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a")


def read_windows(path):
    """{(policy, unit): {volume: [(second, achieved, held_reservation or None)]}} in file order."""
    panels = defaultdict(lambda: defaultdict(list))
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            held = float(row["held_reservation"]) if row["held_reservation"] else None
            panels[(row["policy"], row["unit"])][row["volume"]].append(
                (int(row["second"]), float(row["achieved"]), held))
    return panels


def main(arguments):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--windows", required=True, help="qos-windows.csv of run_qos_bench.py")
    parser.add_argument("--out", required=True, help="PNG to write")
    parser.add_argument("--drop-second", type=int, help="second at which the capacity drop happened")
    options = parser.parse_args(arguments)
    panels = read_windows(options.windows)
    if not panels:
        parser.error("%s has no windows" % options.windows)
    policies = sorted({policy for policy, _ in panels}, key=lambda p: (p != "fifo", p))
    units = sorted({unit for _, unit in panels}, key=lambda u: (u != "MiB/s", u))
    figure, axes = plt.subplots(len(units), len(policies), figsize=(6.5 * len(policies), 3.8 * len(units)),
                                squeeze=False, sharex=True)
    for column, policy in enumerate(policies):
        for row, unit in enumerate(units):
            axis = axes[row][column]
            volumes = panels.get((policy, unit), {})
            colour_index = 0
            for volume, points in sorted(volumes.items()):
                seconds = [p[0] for p in points]
                reserved = points[0][2] is not None
                if reserved:
                    colour = COLOURS[colour_index % len(COLOURS)]
                    colour_index += 1
                    axis.plot(seconds, [p[1] for p in points], color=colour, linewidth=1.2,
                              label="%s achieved" % volume)
                    axis.step(seconds, [p[2] for p in points], where="post", color=colour, linewidth=1.6,
                              linestyle="-", alpha=0.45, label="%s reserved" % volume)
                    axis.step(seconds, [0.9 * p[2] for p in points], where="post", color=colour, linewidth=0.8,
                              linestyle="--", alpha=0.6)
                else:
                    axis.plot(seconds, [p[1] for p in points], color="#999999", linewidth=0.7,
                              label="%s (best-effort)" % volume)
            if options.drop_second is not None:
                axis.axvline(options.drop_second, color="black", linewidth=0.8, linestyle=":",
                             label="capacity drop (2/3 speed)")
            axis.set_title("%s: %s volumes" % (policy, "sequential" if unit == "MiB/s" else "random"))
            axis.set_ylabel("%s per 1-s window" % unit)
            axis.set_ylim(bottom=0)
            axis.legend(fontsize="x-small", ncol=2)
            if row == len(units) - 1:
                axis.set_xlabel("second since fio started (warm-up excluded)")
    figure.suptitle("Reserved vs achieved through FUSE, FIFO vs fair queue (dashed: 90 % of the reservation)")
    figure.tight_layout()
    figure.savefig(options.out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
