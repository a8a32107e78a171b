#!/usr/bin/python3
"""Plots reservation versus achieved throughput per tenant from the simulator's CSV output.

Reads <scenario>-<variant>-tenants.csv and <scenario>-<variant>-windows.csv written by
`bin/xtreemfs-sim --out DIR` for kind=osd scenarios and draws, per scenario, a bar chart of reservation and
achieved mean throughput per tenant (FIFO and fair queue side by side) and the per-second throughput of the
reserved tenants over time with their reservation. Needs matplotlib (Debian: python3-matplotlib, which is why the
shebang names the system interpreter).

    contrib/bench/plot_reservations.py --csv-dir state/sim --out state/sim/reservations.png \
        [--scenario reservations-hdd --scenario reservations-hdd-capacity-drop]
"""
import argparse
import csv
import glob
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

VARIANTS = ("fifo", "fair")


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def scenarios_in(csv_dir):
    """Scenario names that have tenants CSVs for every variant, sorted."""
    found = defaultdict(set)
    for path in glob.glob(os.path.join(csv_dir, "*-tenants.csv")):
        stem = os.path.basename(path)[: -len("-tenants.csv")]
        scenario, _, variant = stem.rpartition("-")
        found[scenario].add(variant)
    return sorted(name for name, variants in found.items() if set(VARIANTS) <= variants)


def plot_bars(axis, csv_dir, scenario):
    tenants_by_variant = {v: read_rows(os.path.join(csv_dir, f"{scenario}-{v}-tenants.csv")) for v in VARIANTS}
    tenants = [row["tenant"] for row in tenants_by_variant["fair"]]
    unit = tenants_by_variant["fair"][0]["unit"]
    reservation = [float(row["reservation"]) for row in tenants_by_variant["fair"]]
    width = 0.27
    positions = range(len(tenants))
    axis.bar([p - width for p in positions], reservation, width, label="reservation", color="#888888")
    colours = {"fifo": "#d95f02", "fair": "#1b9e77"}
    for offset, variant in ((0, "fifo"), (width, "fair")):
        achieved = [float(row["achieved"]) for row in tenants_by_variant[variant]]
        axis.bar([p + offset for p in positions], achieved, width, label=f"achieved, {variant}",
                 color=colours[variant])
    axis.set_xticks(list(positions))
    axis.set_xticklabels(tenants, rotation=30, ha="right")
    axis.set_ylabel(f"mean after warm-up ({unit})")
    axis.set_title(f"{scenario}: reservation vs achieved")
    axis.legend(fontsize="small")


def plot_windows(axis, csv_dir, scenario):
    tenants = read_rows(os.path.join(csv_dir, f"{scenario}-fair-tenants.csv"))
    reserved = {row["tenant"]: float(row["reservation"]) for row in tenants if row["class"] == "RESERVED"}
    unit = tenants[0]["unit"]
    scale = 1024 * 1024 if unit == "MiB/s" else 1
    styles = {"fifo": ":", "fair": "-"}
    for variant in VARIANTS:
        series = defaultdict(list)
        for row in read_rows(os.path.join(csv_dir, f"{scenario}-{variant}-windows.csv")):
            if row["tenant"] in reserved:
                series[row["tenant"]].append((int(row["second"]), int(row["cost"]) / scale))
        for tenant, points in sorted(series.items()):
            points.sort()
            axis.plot([p[0] for p in points], [p[1] for p in points], styles[variant], linewidth=0.8,
                      label=f"{tenant} {variant}" if tenant == min(reserved) else None)
    for value in sorted(set(reserved.values())):
        axis.axhline(value, color="black", linewidth=1.2, label="reservation")
        axis.axhline(0.9 * value, color="black", linewidth=0.8, linestyle="--", label="90 % of reservation")
    axis.set_xlabel("simulated second")
    axis.set_ylabel(f"reserved tenants, per second ({unit})")
    axis.set_title(f"{scenario}:\nreserved tenants per 1 s window (solid: fair queue, dotted: FIFO)")
    axis.legend(fontsize="small", loc="upper right")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv-dir", required=True, help="directory given to bin/xtreemfs-sim --out")
    parser.add_argument("--out", required=True, help="PNG file to write")
    parser.add_argument("--scenario", action="append", help="only these scenarios (repeatable; default: all)")
    arguments = parser.parse_args()
    scenarios = [name for name in scenarios_in(arguments.csv_dir)
                 if not arguments.scenario or name in arguments.scenario]
    if not scenarios:
        sys.exit(f"no scenario with both *-fifo-tenants.csv and *-fair-tenants.csv in {arguments.csv_dir}"
                 + (f" among {arguments.scenario}" if arguments.scenario else ""))
    figure, axes = plt.subplots(2, len(scenarios), figsize=(7 * len(scenarios), 9), squeeze=False)
    for column, scenario in enumerate(scenarios):
        plot_bars(axes[0][column], arguments.csv_dir, scenario)
        plot_windows(axes[1][column], arguments.csv_dir, scenario)
    figure.tight_layout()
    figure.savefig(arguments.out, dpi=110)
    print(f"wrote {arguments.out}")


if __name__ == "__main__":
    main()
