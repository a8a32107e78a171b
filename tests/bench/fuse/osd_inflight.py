#!/usr/bin/env python3
"""Requests in flight at each OSD over time, beside an ab_data_path.py run (issue 10: does one
sequential stream keep every OSD of a wide stripe busy, or does it wait on one OSD while the others idle?).

  osd_inflight.py sample --clusters 'GLOB' --out SAMPLES.jsonl [--interval-ms 20]   # until SIGINT / SIGTERM
  osd_inflight.py report --samples SAMPLES.jsonl --results OUT/results.json        # per ab_data_path.py job
  osd_inflight.py report --samples SAMPLES.jsonl --window START END                # one window (monotonic s)

`sample` finds the clusters by their cluster.properties (GLOB, e.g. '/tmp/ab/*/cluster/cluster.properties'; looked up
anew every second, so it can start before them; the clusters need status ports, as ab_data_path.py's have and make
bench's do not) and reads each OSD's status page (/status.json): rpcPendingCalls, the clients' calls the OSD has
received and not answered yet (queued, at the disk, being sent back), and qosInFlight, those of them released to
storage. It reads only the OSDs of clusters whose OSD JVMs used more than a fifth of a core over the last second (an
idle side is not asked); a sampled OSD still pays 0.1-0.25 ms of CPU per MiB for its status page at --interval-ms 20
(its status-net and status-page threads in ab_data_path.py's figures). Under load the pages answer slowly, so the
samples come every 100-250 ms, not every interval. Timestamps are CLOCK_MONOTONIC seconds, the clock of results.json's
start_monotonic_s / end_monotonic_s.

`report` gives per job (the OSDs of the job's side, by the pids in results.json) each OSD's time-weighted mean of
calls in flight and its share of samples with none, and the share of samples in which at least one OSD of the side
had none while another had some ("one idle while another works": a stream that waits on one OSD).
"""
import argparse
import collections
import glob
import json
import os
import re
import signal
import sys
import time
import urllib.request
from pathlib import Path

from proc_stats import process_ticks

TICKS = os.sysconf("SC_CLK_TCK")
BUSY_SHARE = 0.2


def osds_of(properties_path):
    """[(osd name, pid, status port)] of one cluster.properties."""
    values = {}
    try:
        for line in Path(properties_path).read_text().splitlines():
            key, separator, value = line.partition("=")
            if separator and not key.startswith("#"):
                values[key.strip()] = value.strip()
    except OSError:
        return []
    osds = []
    for key, value in values.items():
        match = re.fullmatch(r"server\.(osd\d+)\.kind", key)
        if not match or value != "osd":
            continue
        name = match.group(1)
        pid = values.get("server.%s.pid" % name)
        port = values.get("server.%s.setting.osd.status.port" % name)
        if pid and port and pid.isdigit() and port.isdigit() and int(port) > 0:  # 0: no status page
            osds.append((name, int(pid), int(port)))
    return sorted(osds)


def status_of(port):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/status.json" % port, timeout=0.5) as answer:
            status = json.load(answer)
    except (OSError, ValueError):
        return None
    return {"pending": status.get("rpcPendingCalls"), "qos_in_flight": status.get("qosInFlight")}


def sample(arguments):
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    clusters, looked_up = [], 0.0
    tick_history = {}
    with open(arguments.out, "a") as out:
        try:
            while not stopping:
                now = time.monotonic()
                if now - looked_up >= 1.0:
                    clusters = [osds_of(path) for path in sorted(glob.glob(arguments.clusters))]
                    looked_up = now
                line = {"t": now, "osds": {}}
                for osds in clusters:
                    # A cluster is sampled while its OSDs together used more than BUSY_SHARE of a core over the
                    # last second (an idle cluster's heartbeats use about 0.05): the side whose job runs.
                    used = 0
                    for _, pid, _ in osds:
                        ticks = process_ticks(pid)
                        history = tick_history.setdefault(pid, collections.deque())
                        if ticks is not None:
                            history.append((now, ticks))
                        while len(history) > 1 and now - history[1][0] >= 1.0:
                            history.popleft()
                        if len(history) > 1:
                            used += history[-1][1] - history[0][1]
                    if used < BUSY_SHARE * TICKS:
                        continue
                    for name, pid, port in osds:
                        status = status_of(port)
                        if status is not None:
                            line["osds"][str(pid)] = dict(status, name=name)
                if line["osds"]:
                    out.write(json.dumps(line) + "\n")
                    out.flush()
                time.sleep(max(0.0, arguments.interval_ms / 1000.0 - (time.monotonic() - now)))
        except KeyboardInterrupt:
            pass


def load_samples(path):
    samples = []
    with open(path) as lines:
        for line in lines:
            try:
                samples.append(json.loads(line))
            except ValueError:
                pass
    return samples


def window_figures(samples, pids, start, end):
    """Per OSD pid: (mean in flight weighted by time, share of time with none), and the share of time in which one
    OSD of `pids` had none while another had some; None without samples of all of them in [start, end]."""
    chosen = [s for s in samples if start <= s["t"] <= end and all(str(pid) in s["osds"] for pid in pids)]
    if len(chosen) < 2:
        return None
    weighted = {pid: 0.0 for pid in pids}
    idle = {pid: 0.0 for pid in pids}
    one_idle = 0.0
    total = 0.0
    for current, following in zip(chosen, chosen[1:]):
        span = following["t"] - current["t"]
        if span <= 0 or span > 1.0:  # a gap (the side was idle, or the sampler stalled): not counted
            continue
        counts = {pid: current["osds"][str(pid)]["pending"] or 0 for pid in pids}
        for pid, count in counts.items():
            weighted[pid] += count * span
            if count == 0:
                idle[pid] += span
        if len(pids) > 1 and min(counts.values()) == 0 and max(counts.values()) > 0:
            one_idle += span
        total += span
    if total <= 0:
        return None
    return ({pid: (weighted[pid] / total, idle[pid] / total) for pid in pids}, one_idle / total, len(chosen))


def report(arguments):
    samples = load_samples(arguments.samples)
    if arguments.window:
        start, end = arguments.window
        pids = sorted({int(pid) for s in samples if start <= s["t"] <= end for pid in s["osds"]})
        jobs = [("window", pids, start, end)]
    else:
        results = json.loads(Path(arguments.results).read_text())
        jobs = []
        for result in results if isinstance(results, list) else results.get("results", []):
            if "start_monotonic_s" not in result or not result.get("osd_pids"):
                continue
            label = "%s %-6s %-14s" % (result.get("round", ""), result.get("side", ""), result.get("rw", ""))
            jobs.append((label, sorted(result["osd_pids"]), result["start_monotonic_s"], result["end_monotonic_s"]))
    for label, pids, start, end in jobs:
        figures = window_figures(samples, pids, start, end)
        if figures is None:
            print("%s  no samples" % label)
            continue
        per_osd, one_idle, count = figures
        # Only OSDs that had work at some point: a width-1 side's idle OSDs would count as "idle" throughout.
        working = [pid for pid in pids if per_osd[pid][0] > 0]
        if len(working) < len(pids):
            figures = window_figures(samples, working, start, end) or figures
            per_osd, one_idle, count = figures
        print("%s  in flight per OSD (mean; time with none) %s  one idle while another works %3.0f %%  (%d samples)"
              % (label, " / ".join("%.2f; %.0f %%" % (per_osd[pid][0], 100 * per_osd[pid][1]) for pid in working),
                 100 * one_idle, count))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    sampling = commands.add_parser("sample")
    sampling.add_argument("--clusters", required=True, help="glob of the clusters' cluster.properties")
    sampling.add_argument("--out", required=True)
    sampling.add_argument("--interval-ms", type=float, default=20.0)
    reporting = commands.add_parser("report")
    reporting.add_argument("--samples", required=True)
    reporting.add_argument("--results")
    reporting.add_argument("--window", type=float, nargs=2, metavar=("START", "END"))
    arguments = parser.parse_args()
    if arguments.command == "sample":
        sample(arguments)
    else:
        if not arguments.results and not arguments.window:
            parser.error("report needs --results or --window")
        report(arguments)


if __name__ == "__main__":
    sys.exit(main())
