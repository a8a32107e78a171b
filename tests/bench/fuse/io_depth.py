#!/usr/bin/env python3
"""How many requests are outstanding at each layer while ab_data_path.py's fio jobs run (issue 10, the cold random
read's shape): the FUSE connection's requests (the kernel's count of unanswered requests of each mount), the OSD
JVMs' threads by group and state (R running or runnable, S sleeping, D in an uninterruptible wait, which for a storage
thread is a read waiting for the disk) and the disk's own queue (/proc/diskstats: in flight, and over a window the
average queue size and the wait per read, iostat -x's aqu-sz and r_await).

  io_depth.py sample --match OUT --disk vda --out SAMPLES.jsonl     # until killed (SIGINT/SIGTERM), every 10 ms
  io_depth.py report --samples SAMPLES.jsonl --results OUT/results.json  # per fio job of the run: the averages

`sample` looks up the processes and mounts anew every second, so it can start before the clusters do: OSD JVMs are the
processes whose command line has org.xtreemfs.osd.OsdMain and --match's text, mounts the fuse mounts whose mount point
has it. Timestamps are CLOCK_MONOTONIC seconds, the clock of results.json's start_monotonic_s / end_monotonic_s, so
`report` takes each job's samples by time. The mount points' side names are their parent folders (OUT/NAME/mnt).
"""
import argparse
import collections
import json
import signal
import sys
import time
from pathlib import Path

from proc_stats import disk_counters, disk_figures, pids_whose_command_line_has, read_stat, thread_group

OSD_MAIN = "org.xtreemfs.osd.OsdMain"
WATCHED_GROUPS = ("stage-storage", "osd-net")


def osd_pids(match):
    return pids_whose_command_line_has(OSD_MAIN, match)


def fuse_mounts(match):
    """{side name: /sys/fs/fuse/connections/MINOR/waiting} of the fuse mounts whose mount point has `match`."""
    mounts = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        separator = fields.index("-")
        if not fields[separator + 1].startswith("fuse") or match not in fields[4]:
            continue
        minor = fields[2].split(":")[1]
        mounts[Path(fields[4]).parent.name] = Path("/sys/fs/fuse/connections") / minor / "waiting"
    return mounts


def task_stat(task):
    """(thread group, state) of one thread, or None when it has ended."""
    stat = read_stat(task / "stat")
    return (thread_group(stat["name"]), stat["state"]) if stat else None


def watched_tasks(pid):
    """The threads of the groups sampled (storage workers and network threads): reading every thread of every JVM
    each 10 ms cost the sampler more CPU than it should take from the machine it measures."""
    try:
        tasks = list(Path("/proc/%d/task" % pid).iterdir())
    except OSError:
        return []
    return [task for task in tasks if (task_stat(task) or ("",))[0] in WATCHED_GROUPS]


def thread_states(tasks):
    """Counter of (thread group, state) over the threads."""
    counts = collections.Counter()
    for task in tasks:
        group_state = task_stat(task)
        if group_state:
            counts[group_state] += 1
    return counts


def disk_stats(disk):
    counters = disk_counters(disk)
    if counters is None:
        raise SystemExit("no disk %s in /proc/diskstats" % disk)
    return counters


def sample(options):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    tasks, mounts, looked_up = {}, {}, 0.0
    with open(options.out, "w") as out:
        while not stop:
            now = time.monotonic()
            if now - looked_up >= 1.0:
                tasks = {pid: watched_tasks(pid) for pid in osd_pids(options.match)}
                mounts, looked_up = fuse_mounts(options.match), now
            record = {"t": now, "disk": disk_stats(options.disk), "fuse": {}, "osd": {}}
            for side, waiting in mounts.items():
                try:
                    record["fuse"][side] = int(waiting.read_text())
                except (OSError, ValueError):
                    pass
            for pid, threads in tasks.items():
                record["osd"][str(pid)] = {"%s:%s" % key: count for key, count in thread_states(threads).items()}
            out.write(json.dumps(record) + "\n")
            time.sleep(max(0.0, options.interval_ms / 1000 - (time.monotonic() - now)))


def report(options):
    samples = [json.loads(line) for line in Path(options.samples).read_text().splitlines() if line.strip()]
    jobs = json.loads(Path(options.results).read_text())
    for job in jobs:
        window = [s for s in samples if job["start_monotonic_s"] <= s["t"] <= job["end_monotonic_s"]]
        if len(window) < 2:
            continue
        disk = disk_figures(window[0]["disk"], window[-1]["disk"], window[-1]["t"] - window[0]["t"], job["iops"])
        mean = lambda values: sum(values) / max(len(values), 1)
        # The job's side: its fuse mount (OUT/NAME/mnt) and its OSD pids (results.json's osd_pids).
        fuse = mean([s["fuse"].get(job["side"], 0) for s in window])
        threads = collections.Counter()
        for s in window:
            for pid in job.get("osd_pids", []):
                threads.update(s["osd"].get(str(pid), {}))
        storage_d = threads.get("stage-storage:D", 0) / len(window)
        storage_r = threads.get("stage-storage:R", 0) / len(window)
        net = {state: threads.get("osd-net:%s" % state, 0) / len(window) for state in "RSD"}
        print("%d %-5s %-9s %8.0f IOPS  fuse waiting %5.1f | storage threads D %5.1f R %4.1f | osd-net R %.2f D %.2f"
              " | disk in flight %5.1f, aqu-sz %5.1f, r_await %.3f ms, %.0f reads/s of %.1f KiB (%d samples)" % (
                  job.get("round", -1), job["side"], job["rw"], job["iops"], fuse, storage_d, storage_r, net["R"],
                  net["D"], mean([s["disk"]["in_flight"] for s in window]), disk["disk_aqu_sz"],
                  disk["disk_r_await_ms"], disk["disk_reads_per_s"], disk["disk_read_kib"], len(window)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    sampler = commands.add_parser("sample")
    sampler.add_argument("--match", required=True, help="text in the OSD JVMs' command lines and the mount points")
    sampler.add_argument("--disk", default="vda")
    sampler.add_argument("--interval-ms", type=float, default=10)
    sampler.add_argument("--out", required=True)
    reporter = commands.add_parser("report")
    reporter.add_argument("--samples", required=True)
    reporter.add_argument("--results", required=True)
    options = parser.parse_args()
    (sample if options.command == "sample" else report)(options)


if __name__ == "__main__":
    sys.exit(main())
