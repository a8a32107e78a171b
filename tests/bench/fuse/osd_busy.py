#!/usr/bin/env python3
"""Per-OSD CPU over time beside an ab_data_path.py run (issue 10: is one OSD of a stripe idle while another works?).

  osd_busy.py sample --out SAMPLES.jsonl [--interval-ms 100]      # until Ctrl-C / SIGTERM
  osd_busy.py report --samples SAMPLES.jsonl --results OUT/results.json
  osd_busy.py timeline --samples SAMPLES.jsonl [--step-s 5]     # per OSD: CPU and JIT share of a core per step

`sample` reads /proc/PID/stat of every running OsdMain JVM (and every mount.xtreemfs) every interval and writes one
line per interval: CLOCK_MONOTONIC time, each process's CPU ticks (user + kernel) and each OSD's JIT compiler threads'
ticks (C1/C2 CompilerThread: three OSD JVMs compile the same code three times, and a width-3 stream pays it while
the JIT has not settled; `timeline` shows when it did, e.g. beside `make bench`). `report` takes the jobs of an
ab_data_path.py run (each result's osd_pids and start/end monotonic time) and prints per job: each OSD's CPU per
MiB, and the share of intervals in which an OSD of the side was busy (more than --busy-share of a core) while another
was idle (less than --idle-share): a stripe whose OSDs take turns instead of working together waits on one of them.
"""
import argparse
import json
import os
import signal
import time
from pathlib import Path

from proc_stats import command_lines, compiler_threads, process_ticks, threads_ticks

TICKS = os.sysconf("SC_CLK_TCK")


def processes():
    found = {}
    for pid, command in command_lines():
        if "org.xtreemfs.osd.OsdMain" in command:
            found[pid] = "osd"
        elif "mount.xtreemfs" in command and not command.startswith("python"):
            found[pid] = "mount"
    return found


def sample(options):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    known, compilers, last_scan = {}, {}, 0.0
    with open(options.out, "w") as out:
        try:
            while not stop:
                now = time.monotonic()
                if now - last_scan > 1.0:  # clusters start and stop during a run
                    known, last_scan = processes(), now
                    compilers = {pid: compiler_threads(pid) for pid, kind in known.items() if kind == "osd"}
                row = {"t": now, "cpu": {}, "jit": {}}
                for pid, kind in known.items():
                    value = process_ticks(pid)
                    if value is not None:
                        row["cpu"][str(pid)] = value
                        if pid in compilers:
                            row["jit"][str(pid)] = threads_ticks(compilers[pid])
                out.write(json.dumps(row) + "\n")
                time.sleep(options.interval_ms / 1000)
        except KeyboardInterrupt:
            pass


def report(options):
    rows = [json.loads(line) for line in open(options.samples)]
    results = json.loads(Path(options.results).read_text())
    for result in results:
        pids = [str(pid) for pid in result.get("osd_pids", [])]
        start, end = result["start_monotonic_s"], result["end_monotonic_s"]
        window = [row for row in rows if start <= row["t"] <= end and all(pid in row["cpu"] for pid in pids)]
        if len(window) < 3 or not pids:
            continue
        mib = result["ios"] if result["bs"] == "1M" else result["ios"] * 4 / 1024
        per_osd = [(window[-1]["cpu"][pid] - window[0]["cpu"][pid]) / TICKS * 1e6 / max(mib, 1) for pid in pids]
        # The compiler threads' CPU in the job (a thread that ended in between makes this a lower bound).
        jit = sum(max(window[-1].get("jit", {}).get(pid, 0) - window[0].get("jit", {}).get(pid, 0), 0)
                  for pid in pids) / TICKS * 1e6 / max(mib, 1)
        intervals, one_idle, all_busy = 0, 0, 0
        for before, after in zip(window, window[1:]):
            seconds = after["t"] - before["t"]
            shares = [(after["cpu"][pid] - before["cpu"][pid]) / TICKS / seconds for pid in pids]
            intervals += 1
            if max(shares) > options.busy_share and min(shares) < options.idle_share:
                one_idle += 1
            if min(shares) > options.busy_share:
                all_busy += 1
        print("%d %-6s %-12s %7.1f MiB/s  OSD us/MiB %s (of it JIT compiler threads %.0f)  one busy while another"
              " idle %3.0f %%, all busy %3.0f %% (%d intervals)" % (
                  result["round"], result["side"], result["rw"], result["mib_s"],
                  " / ".join("%.0f" % value for value in per_osd), jit, 100 * one_idle / intervals,
                                   100 * all_busy / intervals, intervals))


def timeline(options):
    rows = [json.loads(line) for line in open(options.samples)]
    if not rows:
        return
    start, previous = rows[0]["t"], rows[0]
    for row in rows[1:]:
        if row["t"] - previous["t"] < options.step_s:
            continue
        seconds = row["t"] - previous["t"]
        pids = sorted(set(row.get("jit", {})) & set(previous.get("jit", {})))
        print("%7.1f s  %s" % (row["t"] - start, "  ".join(
            "%s %.2f (jit %.2f)" % (pid, (row["cpu"][pid] - previous["cpu"][pid]) / TICKS / seconds,
                                    max(row["jit"][pid] - previous["jit"][pid], 0) / TICKS / seconds)
            for pid in pids if pid in row["cpu"] and pid in previous["cpu"])))
        previous = row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    sampling = commands.add_parser("sample")
    sampling.add_argument("--out", required=True)
    sampling.add_argument("--interval-ms", type=float, default=100,
                          help="the kernel counts CPU in ticks of 10 ms: 100 ms resolves a tenth of a core")
    reporting = commands.add_parser("report")
    reporting.add_argument("--samples", required=True)
    reporting.add_argument("--results", required=True)
    reporting.add_argument("--busy-share", type=float, default=0.2, help="of one core: an OSD at work")
    reporting.add_argument("--idle-share", type=float, default=0.05, help="of one core: an OSD with nothing to do")
    timing = commands.add_parser("timeline")
    timing.add_argument("--samples", required=True)
    timing.add_argument("--step-s", type=float, default=5)
    options = parser.parse_args()
    {"sample": sample, "report": report, "timeline": timeline}[options.command](options)


if __name__ == "__main__":
    main()
