"""What the bench scripts read from /proc, in one place (ab_data_path.py, io_depth.py, osd_busy.py, run_fuse_bench.py):
the processes by command line, a process's or thread's CPU ticks, a JVM's JIT compiler share, and the group a thread's
name belongs to."""

import re
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


def jvm_cpu_ticks(pid):
    """(all threads' CPU ticks, the JIT compiler threads' ticks) of JVM `pid`, or None once it has ended. A compiler
    thread that ended between two readings takes its ticks out of the second figure only: the share computed from two
    readings can then be a little low, never high."""
    process = read_stat("/proc/%d/stat" % pid)
    if process is None:
        return None
    compiler = 0
    try:
        tasks = list(Path("/proc/%d/task" % pid).iterdir())
    except OSError:
        return None
    for task in tasks:
        thread = read_stat(task / "stat")
        if thread is not None and thread["name"].startswith(JIT_COMPILER_THREADS):
            compiler += thread["utime"] + thread["stime"]
    return process["utime"] + process["stime"], compiler
