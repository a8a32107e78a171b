#!/usr/bin/python3
"""Where the OSD's Java samples of a qos-overhead --jfr run lie, per policy label: samples per 1,000 requests in all,
in the QoS stage (QosStage or qos.*) and in the fair policy (qos.wfq), and the top frames of the stage's samples.

    qos_overhead_profile.py --samples OUT/qos-overhead-samples.json --csv OUT/qos-overhead.csv

The samples are `jfr print --json --events jdk.ExecutionSample` of the OSD's recording; each is laid on the interval
of QosOverheadBenchmark's CSV it falls in (start_unix_ms, elapsed_ms), so fair and FIFO, which alternate second by
second on the same OSD, are compared per request: a fair path that costs more CPU per request than FIFO's shows as
more samples per 1,000 requests in its intervals. Samples between intervals (switches, warm-up) are counted apart.
"""
import argparse
import collections
import csv
import datetime
import json
import re
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple


def frames(event: dict) -> List[str]:
    """The sample's stack, innermost first, as 'package.Class.method'."""
    return [f["method"]["type"]["name"].replace("/", ".") + "." + f["method"]["name"]
            for f in event["values"]["stackTrace"]["frames"]]


def in_stage(frame: str) -> bool:
    return "QosStage" in frame or "org.xtreemfs.qos." in frame


def epoch_ms(timestamp: str) -> float:
    """JFR's ISO-8601 start time ('2026-11-27T12:40:01.123456789Z', any number of fraction digits, Z or an offset)
    as milliseconds since the epoch."""
    match = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?", timestamp.strip())
    if match is None:
        raise ValueError("not an ISO-8601 time: %r" % timestamp)
    zone = match.group(3) or "Z"
    parsed = datetime.datetime.fromisoformat(match.group(1) + ("+00:00" if zone == "Z" else zone))
    fraction = match.group(2) or "0"
    return parsed.timestamp() * 1000 + float("0." + fraction) * 1000


def label_of(time_ms: float, intervals: List[Tuple[float, float, str, str]]) -> Optional[Tuple[str, str]]:
    """(workload, label) of the interval holding time_ms, or None."""
    for start, end, workload, label in intervals:
        if start <= time_ms < end:
            return workload, label
    return None


def summarise(events: List[dict], rows: List[dict]) -> Tuple[Dict[str, List[int]], Dict[str, int], int,
                                                             collections.Counter]:
    """Per label: [samples, in the stage, in qos.wfq]; per label: requests; samples outside intervals; top frames."""
    intervals = sorted((float(r["start_unix_ms"]), float(r["start_unix_ms"]) + float(r["elapsed_ms"]),
                        r["workload"], r["policy"]) for r in rows)
    requests: Dict[str, int] = collections.Counter()
    for row in rows:
        requests[row["policy"]] += int(row["requests"])
    per_label: Dict[str, List[int]] = {}
    outside = 0
    top: collections.Counter = collections.Counter()
    for event in events:
        where = label_of(epoch_ms(event["values"]["startTime"]), intervals)
        if where is None:
            outside += 1
            continue
        figures = per_label.setdefault(where[1], [0, 0, 0])
        stack = frames(event)
        figures[0] += 1
        if any(in_stage(frame) for frame in stack):
            figures[1] += 1
            figures[2] += any("org.xtreemfs.qos.wfq." in frame for frame in stack)
            innermost = next(frame for frame in stack if in_stage(frame))
            top[(where[1], stack[0], innermost)] += 1
    return per_label, requests, outside, top


def main(arguments: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="qos_overhead_profile.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=Path, required=True, help="jfr print --json of the OSD's recording")
    parser.add_argument("--csv", type=Path, required=True, help="QosOverheadBenchmark's --out CSV")
    options = parser.parse_args(arguments)
    events = json.loads(options.samples.read_text())["recording"]["events"]
    with open(options.csv, newline="") as handle:
        rows = list(csv.DictReader(handle))
    total = len(events)
    stage_total = sum(1 for event in events if any(in_stage(frame) for frame in frames(event)))
    policy_total = sum(1 for event in events if any("org.xtreemfs.qos.wfq." in frame for frame in frames(event)))
    print(f"Java execution samples of the OSD: {total}; in the QoS stage (QosStage or qos.*): {stage_total}"
          f" ({100.0 * stage_total / max(total, 1):.1f} %), of which in the fair policy (qos.wfq): {policy_total}"
          f" ({100.0 * policy_total / max(total, 1):.1f} %)")
    per_label, requests, outside, top = summarise(events, rows)
    print("per policy label, in its measured intervals (samples per 1,000 requests: the OSD's Java CPU per request):")
    print("%-8s %10s %9s %9s %9s %12s %12s %12s" % ("label", "requests", "samples", "in stage", "in wfq",
                                                    "all/1k req", "stage/1k req", "wfq/1k req"))
    for label in sorted(per_label):
        samples, stage, policy = per_label[label]
        count = max(requests[label], 1)
        print("%-8s %10d %9d %9d %9d %12.2f %12.3f %12.3f" % (label, requests[label], samples, stage, policy,
                                                             1000.0 * samples / count, 1000.0 * stage / count,
                                                             1000.0 * policy / count))
    print(f"samples outside the measured intervals (policy switches, warm-up, preparation): {outside}")
    print("samples  label  top frame  <-  innermost QoS stage frame")
    for (label, leaf, innermost), count in top.most_common(20):
        print(f"{count:7d}  {label}  {leaf}  <-  {innermost}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError, KeyError) as error:
        print("qos_overhead_profile.py: %s" % error, file=sys.stderr)
        sys.exit(1)
