"""What the bench scripts read from /proc, in one place (ab_data_path.py, io_depth.py, osd_busy.py, osd_inflight.py,
run_fuse_bench.py): the processes by command line, a process's or thread's CPU ticks, a JVM's JIT compiler threads and
their share, the group a thread's name belongs to, the disk's counters with what iostat -x derives from them, the disk
under a folder, and whether that disk has gone quiet."""

import os
import re
import time
from pathlib import Path


def command_lines():
    """(pid, command line with its NULs as spaces) of every process, skipping those that end while being read."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            yield int(entry.name), command


def pids_whose_command_line_has(*texts):
    """The pids whose command line contains every one of `texts`."""
    return [pid for pid, command in command_lines() if all(text in command for text in texts)]


def read_stat(stat_path):
    """A /proc/PID/stat or /proc/PID/task/TID/stat as {"name", "state", "utime", "stime"} (ticks: fields 14 and 15;
    the name in brackets may hold spaces and brackets, hence the split at the last closing one), or None once the
    process or thread has ended."""
    try:
        text = Path(stat_path).read_text()
        head, _, rest = text.rpartition(")")
        fields = rest.split()
        return {"name": head.partition("(")[2], "state": fields[0], "utime": int(fields[11]),
                "stime": int(fields[12])}
    except (OSError, IndexError, ValueError):
        return None


def thread_group(name):
    """Pool threads differ only in their numbers: stage-storage-7, osd-net-3-1 -> stage-storage, osd-net."""
    return re.sub(r"[-#]?\d+(-\d+)*$", "", name) or name


# The JVM's JIT compiler threads as /proc names them (15 characters: "C2 CompilerThread0" -> "C2 CompilerThre").
JIT_COMPILER_THREADS = ("C1 CompilerThre", "C2 CompilerThre")


def process_ticks(pid):
    """A process's CPU ticks (user + kernel, all its threads), or None once it has ended."""
    stat = read_stat("/proc/%d/stat" % pid)
    return None if stat is None else stat["utime"] + stat["stime"]


def compiler_threads(pid):
    """The stat paths of a JVM's JIT compiler threads (HotSpot starts and ends them as its compile queue grows and
    shrinks, so a sampler looks them up again now and then)."""
    found = []
    try:
        tasks = list(Path("/proc/%d/task" % pid).iterdir())
    except OSError:
        return found
    for task in tasks:
        thread = read_stat(task / "stat")
        if thread is not None and thread["name"].startswith(JIT_COMPILER_THREADS):
            found.append(task / "stat")
    return found


def threads_ticks(stat_paths):
    """The CPU ticks of these threads; one that ended counts nothing (its ticks are gone from the process's view too)."""
    return sum(stat["utime"] + stat["stime"] for stat in map(read_stat, stat_paths) if stat)


def jvm_cpu_ticks(pid):
    """(all threads' CPU ticks, the JIT compiler threads' ticks) of JVM `pid`, or None once it has ended. A compiler
    thread that ended between two readings takes its ticks out of the second figure only: the share computed from two
    readings can then be a little low, never high."""
    total = process_ticks(pid)
    return None if total is None else (total, threads_ticks(compiler_threads(pid)))


def disk_counters(disk):
    """/proc/diskstats of `disk` (e.g. vda): reads, sectors read, ms reading, writes, sectors written, requests in
    flight, io_ticks ms, weighted ms (the fields iostat -x derives r/s, rkB/s, r_await, aqu-sz and %util from), and the
    discards completed and sectors discarded (0 on kernels before 4.18, which do not count them), or None when there
    is no such disk."""
    if not disk:
        return None
    for line in Path("/proc/diskstats").read_text().splitlines():
        fields = line.split()
        if fields[2] == disk:
            values = [int(v) for v in fields[3:]]
            counters = {"reads": values[0], "read_sectors": values[2], "read_ms": values[3], "writes": values[4],
                        "write_sectors": values[6], "in_flight": values[8], "io_ms": values[9],
                        "weighted_ms": values[10], "discards": 0, "discard_sectors": 0}
            if len(values) >= 14:
                counters["discards"], counters["discard_sectors"] = values[11], values[13]
            return counters
    return None


def disk_under(path):
    """The /proc/diskstats name of the whole disk holding `path` (vda for a file on /dev/vda or /dev/vda1), or None
    when its file system is not on a block device (tmpfs, overlay, NFS): the partition's counters would miss nothing,
    but a partition of the same disk as another folder must count as that disk, so both folders' I/O meet in one
    name."""
    device = os.stat(path).st_dev
    block = Path("/sys/dev/block/%d:%d" % (os.major(device), os.minor(device)))
    try:
        resolved = block.resolve(strict=True)
    except OSError:
        return None
    if (resolved / "partition").exists():
        resolved = resolved.parent
    return resolved.name


def summed_disk_counters(disks):
    """disk_counters of each of `disks`, summed field by field (one figure for the folders' disks), or None when one
    of them cannot be read."""
    readings = [disk_counters(disk) for disk in disks]
    if not readings or any(reading is None for reading in readings):
        return None
    return {key: sum(reading[key] for reading in readings) for key in readings[0]}


def disk_busy(before, after):
    """Whether the disk did anything that could slow the next job between two disk_counters readings: a request
    in flight at the second reading, or a write or discard completed (ext4 with `discard` issues the discards of
    freed extents at its journal commit, seconds after the unlink; the disk serves them beside the job's requests)."""
    return (after["in_flight"] > 0 or after["writes"] != before["writes"]
            or after["discards"] != before["discards"])


def wait_until_disk_quiet(read, quiet_s=1.0, bound_s=30.0, poll_s=0.1, clock=time.monotonic, sleep=time.sleep):
    """Waits until the disk read by `read()` (disk_counters-like readings) has been quiet (not disk_busy) for `quiet_s`,
    at most `bound_s`; returns (seconds waited, whether the bound ended the wait). Quiet must be seen, not assumed:
    the quiet time starts at the first reading, so the wait is at least `quiet_s`. A reading of None (the disk went
    away) ends the wait as quiet: there is nothing to wait for."""
    began = clock()
    previous = read()
    last_busy = began
    while previous is not None:
        now = clock()
        if now - last_busy >= quiet_s:
            return now - began, False
        if now - began >= bound_s:
            return now - began, True
        sleep(poll_s)
        current = read()
        if current is None:
            break
        if disk_busy(previous, current):
            last_busy = clock()
        previous = current
    return clock() - began, False


def disk_activity(before, after):
    """What the disk completed between two disk_counters readings: writes and discards, with their MiB (a row the
    disk discarded or wrote for someone else during was disturbed; the job's own writes are in the write figures)."""
    if not before or not after:
        return {}
    return {"disk_writes": after["writes"] - before["writes"],
            "disk_write_mib": (after["write_sectors"] - before["write_sectors"]) / 2048,
            "disk_discards": after["discards"] - before["discards"],
            "disk_discard_mib": (after["discard_sectors"] - before["discard_sectors"]) / 2048}


def disk_figures(before, after, wall_s, ios):
    """What the disk saw between two disk_counters readings `wall_s` apart, as iostat -x over that time: read requests
    per second and per fio request (`ios` requests), the mean read request (KiB), MiB/s read at the disk, r_await (ms),
    the mean queue (aqu-sz, reads and writes) and %util. The disk is shared: other processes' I/O of the same seconds
    is in these too."""
    if not before or not after:
        return {}
    delta = {key: after[key] - before[key] for key in before}
    reads = max(delta["reads"], 1)
    return {"disk_reads_per_io": delta["reads"] / max(ios, 1),
            "disk_reads_per_s": delta["reads"] / max(wall_s, 1e-9),
            "disk_read_kib": delta["read_sectors"] / 2 / reads,
            "disk_read_mib_s": delta["read_sectors"] / 2048 / max(wall_s, 1e-9),
            "disk_r_await_ms": delta["read_ms"] / reads,
            "disk_aqu_sz": delta["weighted_ms"] / 1000 / max(wall_s, 1e-9),
            "disk_util": delta["io_ms"] / 1000 / max(wall_s, 1e-9),
            "disk_write_mib": delta["write_sectors"] / 2048}
