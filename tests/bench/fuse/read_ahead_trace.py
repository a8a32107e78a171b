#!/usr/bin/env python3
"""What the disk and the OSD's object read-ahead do during an ab_data_path.py cold read (issue 10, session 20: why does
the disk's queue stay shallow during the cold sequential read?). perf tracepoints, no change to the OSD:

  read_ahead_trace.py record --out TRACE --match OUT/SIDE     # until SIGINT / SIGTERM; start before ab_data_path.py
  read_ahead_trace.py report --out TRACE --results OUT/results.json --side SIDE --objects OUT/SIDE/cluster/data/osd0

`record` runs `perf record -a` of the block layer (block_bio_queue: who submitted a read, by thread name;
block_rq_issue / block_rq_complete: the request at the disk) and, once an OSD JVM whose command line has --match's text
is up, `perf record -p` of its sendfile64 calls (the read-ahead's fill to /dev/null on osd-read-ahead threads, the
storage threads' page-ins, the network threads' replies). Times are CLOCK_MONOTONIC, results.json's clock.

`report` prints per job of the side: reads in flight at the disk (issue to completion, time-weighted) by submitter
(read-ahead, storage, net, other processes), the read-ahead's requests and their mean size, the threads inside
sendfile per group, how many of the file's objects each group read from the disk (object files mapped to sectors
with filefrag: --objects is the OSD's data folder, still on disk after the run), and at each reply (a network
thread's sendfile of a whole 1 MiB region) how many objects the read-ahead had finished beyond the replies sent
and how many it was still reading. Root only (perf, filefrag).
"""
import argparse
import bisect
import collections
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from ab_data_path import file_extents
from proc_stats import disk_under, pids_whose_command_line_has

LINE = re.compile(r"^\s*(.+?)\s+(\d+)\s+([\d.]+):\s+(\S+):\s+(.*)$")
SECTORS = re.compile(r"(\d+) \+ (\d+)")
GROUPS = (("osd-read-ahead", "ra"), ("stage-storage", "storage"), ("osd-net", "net"))


def group(comm):
    for prefix, name in GROUPS:
        if comm.startswith(prefix):
            return name
    return "other"


def mean_in_flight(requests, start, end, keep=lambda submitter: True):
    """Time-weighted mean of requests (issue s, completion s, submitter) in flight over [start, end)."""
    busy = 0.0
    for issued, done, submitter in requests:
        if keep(submitter):
            busy += max(0.0, min(done, end) - max(issued, start))
    return busy / max(end - start, 1e-9)


def perf_lines(data):
    out = subprocess.run(["perf", "script", "-i", str(data), "-F", "comm,tid,time,event,trace"],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        match = LINE.match(line)
        if match:
            comm, tid, t, event, rest = match.groups()
            yield comm, tid, float(t), event, rest


def object_extents(folder):
    """Sorted (first sector, end sector, (file folder, object number)) of every object file under the OSD's folder."""
    extents = []
    for path in Path(folder).glob("*/*/*/*"):
        if path.name.isdigit():
            extents.extend((first * 8, (last + 1) * 8, (path.parent.name, int(path.name)))
                           for first, last in file_extents(path))
    return sorted(extents)


def disk_numbers(folder):
    """perf's name of the disk under `folder` ("254,0": major,minor, as block tracepoints print it)."""
    disk = disk_under(folder)
    if disk is None:
        sys.exit("no block device under %s: pass --disk MAJOR,MINOR" % folder)
    return Path("/sys/block/%s/dev" % disk).read_text().strip().replace(":", ",")


def disk_requests(data, disk, extents):
    """[(issue s, completion s, submitter group)] of the disk's reads, and [(time, object, group)] of the reads
    (bios) of the objects' sectors."""
    starts = [e[0] for e in extents]
    submitter, issued, requests, bios = {}, {}, [], []
    for comm, _tid, t, event, rest in perf_lines(data):
        fields = rest.split()
        if fields[0] != disk or "R" not in fields[1]:
            continue
        sector = int(SECTORS.search(rest).group(1))
        if event.endswith("block_bio_queue"):
            i = bisect.bisect_right(starts, sector) - 1
            key = extents[i][2] if i >= 0 and sector < extents[i][1] else None
            submitter[sector] = group(comm) if key else "other"
            if key:
                bios.append((t, key, group(comm)))
        elif event.endswith("block_rq_issue"):
            issued[sector] = t
        elif event.endswith("block_rq_complete") and sector in issued:
            requests.append((issued.pop(sector), t, submitter.get(sector, "other")))
    return requests, bios


def sendfiles(data):
    """[(enter s, exit s, group, count)] of the OSD's sendfile64 calls that moved bytes."""
    open_calls, calls = {}, []
    for comm, tid, t, event, rest in perf_lines(data):
        if event.endswith("sys_enter_sendfile64"):
            count = re.search(r"count: (0x[0-9a-f]+)", rest)
            open_calls[tid] = (t, group(comm), int(count.group(1), 16) if count else 0)
        elif event.endswith("sys_exit_sendfile64") and tid in open_calls:
            t0, name, count = open_calls.pop(tid)
            if int(rest.split()[-1], 0) > 0:
                calls.append((t0, t, name, count))
    return calls


def percentiles(values, points=(10, 50, 90)):
    values = sorted(values)
    return "/".join("%.1f" % values[min(len(values) - 1, len(values) * p // 100)] for p in points) if values else "-"


def report(arguments):
    extents = object_extents(arguments.objects)
    requests, bios = disk_requests(Path(arguments.out) / "block.data",
                                   arguments.disk or disk_numbers(arguments.objects), extents)
    calls = sendfiles(Path(arguments.out) / "osd.data")
    results = json.loads(Path(arguments.results).read_text())
    results = results if isinstance(results, list) else results.get("results", results)
    for job in results:
        if job["side"] != arguments.side:
            continue
        a, b = job["start_monotonic_s"], job["end_monotonic_s"]
        print("%s %s %.1f MiB/s, %.2f s" % (job["side"], job["rw"], job["mib_s"], b - a))
        print("  disk reads in flight, mean: all %.2f; read-ahead %.2f, storage %.2f, net %.2f, other processes %.2f" % (
            (mean_in_flight(requests, a, b),) + tuple(
                mean_in_flight(requests, a, b, lambda s, g=g: s == g) for g in ("ra", "storage", "net", "other"))))
        ra = [(done - issued) * 1e3 for issued, done, s in requests if a <= issued < b and s == "ra"]
        print("  read-ahead requests %d, latency ms p10/p50/p90 %s" % (len(ra), percentiles(ra)))
        busy = collections.Counter()
        for t0, t1, name, _count in calls:
            busy[name] += max(0.0, min(t1, b) - max(t0, a))
        print("  threads inside sendfile, mean: " + ", ".join(
            "%s %.2f" % (g, busy[g] / (b - a)) for g in ("ra", "storage", "net")))
        touched = collections.Counter(g for key, g in {(key, g) for t, key, g in bios if a - 1 <= t < b})
        print("  objects read from the disk by: " + ", ".join("%s %d" % kv for kv in sorted(touched.items())))
        ra_calls = [(t0, t1) for t0, t1, name, _c in calls if name == "ra" and a - 1 <= t0 < b]
        ra_ends = sorted(t1 for _t0, t1 in ra_calls)
        replies = sorted(t0 for t0, _t1, name, count in calls if name == "net" and count == 1 << 20 and a <= t0 < b)
        ahead = [bisect.bisect_right(ra_ends, t) - (i + 1) for i, t in enumerate(replies)]
        reading = [sum(1 for t0, t1 in ra_calls if t0 <= t < t1) for t in replies]
        print("  at each reply: objects read ahead beyond the replies sent p10/p50/p90 %s; read-ahead objects being"
              " read %s; read-ahead sendfile ms %s" % (percentiles(ahead), percentiles(reading),
                                                       percentiles([(t1 - t0) * 1e3 for t0, t1 in ra_calls])))


def record(arguments):
    out = Path(arguments.out)
    out.mkdir(parents=True, exist_ok=True)
    perfs = [subprocess.Popen(["perf", "record", "-q", "-a", "-k", "CLOCK_MONOTONIC", "-e", "block:block_bio_queue",
                               "-e", "block:block_rq_issue", "-e", "block:block_rq_complete",
                               "-o", str(out / "block.data")])]
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    while not stop and len(perfs) == 1:
        found = pids_whose_command_line_has("org.xtreemfs.osd.OsdMain", arguments.match)
        if found:
            perfs.append(subprocess.Popen(["perf", "record", "-q", "-k", "CLOCK_MONOTONIC", "-p", str(found[0]),
                                           "-e", "syscalls:sys_enter_sendfile64", "-e", "syscalls:sys_exit_sendfile64",
                                           "-o", str(out / "osd.data")]))
        else:
            time.sleep(0.5)
    while not stop:
        time.sleep(0.5)
    for perf in perfs:
        perf.send_signal(signal.SIGINT)
    for perf in perfs:
        perf.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    r = commands.add_parser("record")
    r.add_argument("--out", required=True)
    r.add_argument("--match", required=True, help="text of the OSD's command line, e.g. OUT/SIDE")
    p = commands.add_parser("report")
    p.add_argument("--out", required=True)
    p.add_argument("--results", required=True)
    p.add_argument("--side", required=True)
    p.add_argument("--objects", required=True, help="the OSD's data folder (OUT/SIDE/cluster/data/osd0)")
    p.add_argument("--disk", help="major,minor of the disk as perf prints it (default: the disk under --objects)")
    arguments = parser.parse_args()
    record(arguments) if arguments.command == "record" else report(arguments)


if __name__ == "__main__":
    sys.exit(main())
