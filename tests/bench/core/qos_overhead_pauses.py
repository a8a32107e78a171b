#!/usr/bin/python3
"""Lays the JVM pauses of the qos-overhead run on its intervals: per workload and policy label, the OSD's and the
benchmark client's stop-the-world time (all safepoints, collections included), how many pauses and the longest.
A policy whose intervals hold more or longer pauses has its p99 raised by them, not by its decisions.

    qos_overhead_pauses.py --csv OUT/qos-overhead.csv --osd-log OUT/qos-overhead-osd-jvm.log \
        --client-log OUT/qos-overhead-client-jvm.log

Inputs: QosOverheadBenchmark's CSV (start_unix_ms and elapsed_ms of every interval) and the JVMs' unified logs
written with -Xlog:gc,safepoint:file=...:timemillis,tags (tests/bench/core/qos-overhead sets both).
"""
import argparse
import csv
import sys
from pathlib import Path
from typing import Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "qos_fuse"))
from qos_results import ResultError, parse_jvm_pauses, pauses_in_interval  # noqa: E402


def main(arguments: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="qos_overhead_pauses.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--csv", type=Path, required=True, help="QosOverheadBenchmark's --out CSV")
    parser.add_argument("--osd-log", type=Path, required=True, help="the OSD JVM's -Xlog:gc,safepoint file")
    parser.add_argument("--client-log", type=Path, help="the benchmark client JVM's -Xlog:gc,safepoint file")
    options = parser.parse_args(arguments)
    logs = {"OSD": options.osd_log}
    if options.client_log:
        logs["client"] = options.client_log
    pauses = {who: parse_jvm_pauses(path.read_text(errors="replace"), str(path)) for who, path in logs.items()}
    with open(options.csv, newline="") as handle:
        rows = list(csv.DictReader(handle))
    if not rows or "start_unix_ms" not in rows[0]:
        raise ResultError("%s has no start_unix_ms column (a run before the pauses were recorded)" % options.csv)
    # (workload, label, who) -> [total ms, count, longest ms, intervals]
    sums: Dict[Tuple[str, str, str], List[float]] = {}
    for row in rows:
        start = float(row["start_unix_ms"])
        end = start + float(row["elapsed_ms"])
        for who, found in pauses.items():
            interval = pauses_in_interval(found, "safepoint", start, end)
            figures = sums.setdefault((row["workload"], row["policy"], who), [0.0, 0, 0.0, 0])
            figures[0] += interval.total_ms
            figures[1] += interval.count
            figures[2] = max(figures[2], interval.longest_ms)
            figures[3] += 1
    print("JVM stop-the-world time (all safepoints) within the measured intervals, per workload and policy:")
    print("%-24s %-8s %-6s %10s %8s %11s %9s" % ("workload", "policy", "JVM", "total ms", "pauses", "longest ms",
                                                  "intervals"))
    for (workload, label, who), (total, count, longest, intervals) in sorted(sums.items()):
        print("%-24s %-8s %-6s %10.1f %8d %11.2f %9d" % (workload, label, who, total, count, longest, intervals))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ResultError) as error:
        print("qos_overhead_pauses.py: %s" % error, file=sys.stderr)
        sys.exit(1)
