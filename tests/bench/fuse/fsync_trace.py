#!/usr/bin/env python3
"""What a file's fsync through the mount waits for (issue 10, the end fsync of a sequential write).

Runs COMMAND (e.g. an ab_data_path.py run) under a system-wide `perf record` of the fsync and fdatasync system
calls, ext4's sync_file, jbd2's commits and the block requests, then reports every fsync that a process named
--client (default: fio) made: its duration, and in its window the fsyncs of every other process (the OSDs'
osd-fsync-N and osd-force-N threads: count, median, 90th percentile and maximum latency), the journal commits
(jbd2 start/end) and the flushes sent to the device (block requests whose flags hold F: preflush or FUA), and the
same counts over the whole run (the forces made in the background while writing).

  nice -n 19 tests/bench/fuse/fsync_trace.py --out /tmp/trace -- tests/bench/fuse/ab_data_path.py --out /tmp/ab ...
  tests/bench/fuse/fsync_trace.py --out /tmp/trace --analyse --jobs /tmp/ab/results.json

On a shared machine other processes' fsyncs overlap: with --jobs (ab_data_path.py's results.json, whose jobs carry
their CLOCK_MONOTONIC window and OSD pids; perf records with that clock) each write job's end fsync is the client
fsync ending last within the job, and only the job's own OSDs' calls count.

The journal counts stay 0 on a file system without a journal (this machine's root ext4 has none: each fsync then
writes the inode and, for a new file, its folder synchronously and sends one flush). Needs root (perf tracepoints). Only the analysis: `fsync_trace.py --out DIR --analyse` (reads DIR/perf.data).
"""
import argparse
import collections
import json
import pathlib
import re
import subprocess
import sys

EVENTS = ["syscalls:sys_enter_fsync", "syscalls:sys_exit_fsync", "syscalls:sys_enter_fdatasync",
          "syscalls:sys_exit_fdatasync", "jbd2:jbd2_start_commit", "jbd2:jbd2_end_commit", "block:block_rq_issue"]
LINE = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<pid>\d+)/(?P<tid>\d+)\s+(?P<time>\d+\.\d+):\s+(?P<event>[\w:]+):"
                  r"\s*(?P<rest>.*)$")


def percentile(values, fraction):
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(fraction * len(values)))]


def thread_kind(comm):
    """Thread names without their number (osd-fsync-3 -> osd-fsync), so that pools sum up."""
    return re.sub(r"[-_]?\d+$", "", comm)


def analyse(perf_data, client, jobs_file=None):
    output = subprocess.run(["perf", "script", "-i", str(perf_data), "-F", "comm,pid,tid,time,event,trace"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    open_calls = {}
    syncs = []  # (comm, tid, start, end, kind)
    commits, flushes = [], []
    for line in output.splitlines():
        match = LINE.match(line)
        if not match:
            continue
        comm, tid, time, event = match["comm"].strip(), int(match["tid"]), float(match["time"]), match["event"]
        if event.startswith("syscalls:sys_enter_"):
            open_calls[tid] = (comm, time, event.rsplit("_", 1)[1])
        elif event.startswith("syscalls:sys_exit_"):
            started = open_calls.pop(tid, None)
            if started:
                syncs.append((started[0], tid, started[1], time, started[2], int(match["pid"])))
        elif event == "jbd2:jbd2_start_commit":
            commits.append(time)
        elif event == "block:block_rq_issue":
            flags = match["rest"].split()[1] if len(match["rest"].split()) > 1 else ""
            if "F" in flags:
                flushes.append(time)
    client_syncs = [s for s in syncs if s[0] == client]
    others = [s for s in syncs if s[0] != client]
    if jobs_file:
        report_jobs(json.loads(pathlib.Path(jobs_file).read_text()), client_syncs, others, flushes)
        return
    print("whole run: %d fsync/fdatasync calls by other processes %s; %d journal commits; %d flushes (preflush/FUA)"
          % (len(others), dict(collections.Counter(thread_kind(s[0]) for s in others)), len(commits), len(flushes)))
    for comm, tid, start, end, kind, _ in client_syncs:
        inside = [s for s in others if s[2] >= start and s[3] <= end]
        by_kind = collections.defaultdict(list)
        for s in inside:
            by_kind[thread_kind(s[0])].append((s[3] - s[2]) * 1e3)
        print("%s %s (tid %d) at %.3f: %.1f ms; inside it: %d journal commits, %d flushes" % (
            comm, kind, tid, start, (end - start) * 1e3, sum(start <= t <= end for t in commits),
            sum(start <= t <= end for t in flushes)))
        for name, latencies in sorted(by_kind.items()):
            print("    %-16s %5d calls, latency median %.2f, p90 %.2f, max %.2f ms, first starts %.1f ms in, last"
                  " ends %.1f ms before the end" % (
                      name, len(latencies), percentile(latencies, 0.5), percentile(latencies, 0.9), max(latencies),
                      (min(s[2] for s in inside if thread_kind(s[0]) == name) - start) * 1e3,
                      (end - max(s[3] for s in inside if thread_kind(s[0]) == name)) * 1e3))


def report_jobs(jobs, client_syncs, others, flushes):
    """Per job of ab_data_path.py that ended with an fsync: that fsync, and its OSDs' calls during the job."""
    print("side  round workload      MiB/s  end fsync ms  OSD forces in it (median / p90 / max ms)  OSD forces"
          " during the job before it  flushes in it")
    for job in jobs:
        if "start_monotonic_s" not in job or not job["rw"].startswith("write"):
            continue
        inside = [s for s in client_syncs if job["start_monotonic_s"] <= s[2] and s[3] <= job["end_monotonic_s"]]
        if not inside:
            continue
        fsync = max(inside, key=lambda s: s[3])
        pids = set(job["osd_pids"])
        own = [s for s in others if s[5] in pids and job["start_monotonic_s"] <= s[2] <= job["end_monotonic_s"]]
        during = [(s[3] - s[2]) * 1e3 for s in own if s[2] >= fsync[2] and s[3] <= fsync[3]]
        before = [s for s in own if s[3] < fsync[2]]
        print("%-5s %5d %-12s %7.1f %12.1f  %5d (%.2f / %.2f / %.2f)  %28d  %d" % (
            job["side"], job["round"], job["rw"], job["mib_s"], (fsync[3] - fsync[2]) * 1e3, len(during),
            percentile(during, 0.5), percentile(during, 0.9), max(during, default=0), len(before),
            sum(fsync[2] <= t <= fsync[3] for t in flushes)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--client", default="fio", help="the process whose fsyncs are reported (command name)")
    parser.add_argument("--analyse", action="store_true", help="only analyse OUT/perf.data")
    parser.add_argument("--jobs", help="ab_data_path.py's results.json: report per write job (see above)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    perf_data = options.out / "perf.data"
    if not options.analyse:
        command = options.command[1:] if options.command[:1] == ["--"] else options.command
        if not command:
            parser.error("a command to trace, after --")
        recorder = subprocess.Popen(["perf", "record", "-a", "-k", "CLOCK_MONOTONIC", "-o", str(perf_data)]
                                    + [arg for event in EVENTS for arg in ("-e", event)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            returncode = subprocess.run(command).returncode
        finally:
            recorder.send_signal(2)  # SIGINT: perf writes its file and ends
            recorder.wait()
        if returncode != 0:
            sys.exit(returncode)
    analyse(perf_data, options.client, options.jobs)


if __name__ == "__main__":
    main()
