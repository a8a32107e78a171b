#!/usr/bin/env python3
"""A/B of the data path of two or more builds in the same minutes (issue 10): a private cluster (bin/xtreemfs-cluster,
--osds OSDs, one volume of --width) and a mount per side, fio jobs alternating between the sides (the order reversed every
round), and the CPU time per request of the OSD JVMs and of the mount from /proc/PID/stat, which the load of a
shared machine moves far less than IOPS. Medians over the rounds at the end; every round in OUT/results.json. A job
after which another process had dropped the page cache (/proc/vmstat drop_pagecache) is marked, and the run ends with a
warning: the prepared files' page-cache state differs after a drop.

Workloads (--workloads, comma-separated): randread, randwrite (4 KiB QD32, libaio, O_DIRECT), read, write (1 MiB,
buffered, overwriting the file the warm-up wrote), write-fresh (the same into a fresh file, as make bench's buffered
write row: every object a new file on the OSD), read-direct, write-direct (1 MiB, libaio, O_DIRECT, queue depth --sequential-queue-depth, as make bench's
sequential rows; the write ends with fsync; with --cold every read job starts on a dropped page cache, as make bench's
cold reads), and the metadata path: create, stat, unlink (tests/bench/fuse/metadata_ops of --files files in a fresh
folder per round, listed in that order; create and unlink go together so that rounds stay independent). For those
the MRC's and the DIR's CPU per operation are reported too ("mrc ... us/op", "dir ... us/op"), the MRC's answered calls
per operation by procedure from its status page ("mrc calls per op": which of the kernel's requests the mount could
not answer itself, e.g. MRC_GETATTR for a lookup), and the OSDs' (the
background deletions, as far as they ran before the loop ended), and per thread group of the OSDs and of the MRC
("osd threads", "mrc threads": which thread spends it, e.g. the storage stage, the deletion scheduler, the C2
compiler threads, GC), as the fio rows report the OSDs' thread groups; the medians at the end list the busiest groups.
Every row (fio and metadata) also breaks down the mount's threads ("mount threads": the FUSE threads, fuse-request, and
the io threads) and sums their context switches per operation ("mount cs VOLUNTARY+INVOLUNTARY/io"), from the mount's
/proc/PID/task/*/status as for the JVMs: a wake-up handed between the mount's threads shows there.

  ab_data_path.py --build M=/path/to/main --mount M=/path/to/main/mount.xtreemfs --build B=. --rounds 4 --out DIR

A side is NAME=REPOSITORY (its bin/ and built servers; its cpp/build/mount.xtreemfs unless --mount NAME=PATH);
--java-opts NAME=FLAGS gives that side's servers JVM flags (XTREEMFS_SERVER_JAVA_OPTS), so one build can run twice
with different flags; --osd-setting and --mrc-setting NAME=KEY=VALUE set a setting of that side's OSDs or MRC
(e.g. M=mrc.outcomes.retentionMs=1000); --mkfs-args NAME=ARGS adds mkfs.xtreemfs options to that side's volume (e.g. its object
size). --profile records round --profile-round (default 0; not counted in the medians): perf -g of
the OSD JVMs (and of the MRC for the metadata workloads; JIT symbols from jcmd Compiler.perfmap; add
-XX:+PreserveFramePointer for call stacks) and of the mount, under OUT/NAME/profile; --jfr adds JFR recordings;
--async-profiler LIB (libasyncProfiler.so, e.g. unpacked from Maven Central's tools.profiler:async-profiler jar) adds
async-profiler's CPU profile of each JVM, Java frames with their inlining and per thread, as collapsed stacks
(OUT/NAME/profile/GROUP-PID-LABEL.collapsed; tests/bench/fuse/collapsed_top.py ranks them). --osds sets the cluster's
OSD count (default 3; 1 for a width-1 volume leaves no idle OSD in the figures). --glusterfs NAME adds a side NAME
on a one-brick GlusterFS volume (glusterfs.py, as make bench's GlusterFS column; needs root): its brick process
(glusterfsd) is reported and profiled as "osd", its FUSE client (glusterfs) as "mount", and its client is remounted
before every read with --cold. --raw NAME adds a side NAME that runs the same fio jobs on a plain folder of OUT's file
system: the shared disk's own speed moves by a quarter between jobs, so compare the sequential rows to it round by round. Needs fio, fusermount3, and root for perf. Stops its clusters and mounts at the end.

What the disk saw is reported beside every read row ("disk:"), from /proc/diskstats of the disk under OUT over the
job, as iostat -x would: read requests per fio request, their mean size, MiB/s read at the disk, r_await, aqu-sz and
util (the whole disk: other processes' I/O of the same seconds included). --prepare-direct writes every side's
read-direct file in the warm-up (as make bench's O_DIRECT write row does before its cold read), so that each read
round compares files written in the same minutes, read in alternating order (each file is read back once in the
warm-up, so the OSD's large-read path is compiled before the rounds), and prints where each side's files lie
("N files, E extents, J jumps": how often the next object file, or extent, does not start where the previous ended;
filefrag -v): one file of a local file system or a GlusterFS brick against one file per object on an OSD.
"""
import argparse
import contextlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from glusterfs import GlusterVolume
from proc_stats import disk_counters, disk_figures, disk_under, pids_whose_command_line_has, read_stat, thread_group

TICKS = os.sysconf("SC_CLK_TCK")
METADATA = ("create", "stat", "unlink")
READ_ROWS = ("read", "randread", "read-direct")


def cpu_ticks(pids, kinds=("utime", "stime")):
    """CPU ticks of the processes since their start: user and kernel time (the default), or one of them."""
    total = 0
    for pid in pids:
        times = read_stat("/proc/%d/stat" % pid)
        if times:
            total += sum(times[kind] for kind in kinds)
    return total


def run_queue_wait_ns(pids):
    """Nanoseconds the processes' live threads spent runnable but waiting for a CPU (/proc/PID/task/*/schedstat's
    second field): with the CPU per request it tells a process that waits for the CPU from one that waits for work."""
    total = 0
    for pid in pids:
        try:
            for task in Path("/proc/%d/task" % pid).iterdir():
                try:
                    total += int((task / "schedstat").read_text().split()[1])
                except (OSError, IndexError, ValueError):
                    pass
        except OSError:
            pass
    return total


def thread_groups(pids):
    """Per group of threads of the processes (the thread's name without its trailing number, e.g. stage-storage,
    osd-net): CPU ticks (user + kernel) and voluntary and involuntary context switches since each thread's start,
    from /proc/PID/task/*/stat and status. A voluntary switch is a thread that blocked (a wait for work, a lock, the
    disk): the per-request count of each group says how many hand-offs and waits one request costs, and where."""
    groups = {}
    for pid in pids:
        try:
            tasks = list(Path("/proc/%d/task" % pid).iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                stat = read_stat(task / "stat")
                if stat is None:
                    continue
                ticks = stat["utime"] + stat["stime"]
                switches = {}
                for line in (task / "status").read_text().splitlines():
                    key, _, value = line.partition(":")
                    if key in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"):
                        switches[key] = int(value)
            except (OSError, IndexError, ValueError):
                continue
            group = thread_group(stat["name"])
            total = groups.setdefault(group, [0, 0, 0, 0])
            total[0] += ticks
            total[1] += switches.get("voluntary_ctxt_switches", 0)
            total[2] += switches.get("nonvoluntary_ctxt_switches", 0)
            total[3] += 1
    return groups


def thread_group_deltas(before, after, ios):
    """Per thread group between two thread_groups() snapshots: CPU us, voluntary and involuntary switches per
    operation, and the group's thread count (threads that ended in between are missing from `after`)."""
    deltas = {}
    for group, (ticks, voluntary, involuntary, threads) in after.items():
        start = before.get(group, [0, 0, 0, 0])
        if ticks - start[0] or voluntary - start[1] or involuntary - start[2]:
            deltas[group] = {"cpu_us_per_io": (ticks - start[0]) / TICKS / ios * 1e6,
                             "voluntary_switches_per_io": (voluntary - start[1]) / ios,
                             "involuntary_switches_per_io": (involuntary - start[2]) / ios, "threads": threads}
    return deltas


def switches_per_io(groups):
    """Voluntary and involuntary context switches per operation summed over thread_group_deltas()' groups: for the
    mount, how many times its threads blocked or were preempted per request (a FUSE thread's hand-off of its reading
    place before a server call costs a wake-up and a sleep, fuse/request_loop.h)."""
    return (sum(figures["voluntary_switches_per_io"] for figures in groups.values()),
            sum(figures["involuntary_switches_per_io"] for figures in groups.values()))


def machine_ticks():
    """The machine's CPU ticks (all cores) as (busy, idle, iowait) from /proc/stat: idle or iowait ticks while a job
    runs mean a core had nothing to run (the job waited for something other than the CPU)."""
    fields = [int(value) for value in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle, iowait = fields[3], fields[4]
    return sum(fields[:8]) - idle - iowait, idle, iowait


def load():
    return os.getloadavg()[0]


def file_extents(path):
    """[(first block, last block)] of `path`'s extents on its disk, in file order, from filefrag -v (4 KiB blocks);
    empty when filefrag cannot map it."""
    done = subprocess.run(["filefrag", "-v", str(path)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return [(int(match.group(1)), int(match.group(2)))
            for match in re.finditer(r"^\s*\d+:\s+\d+\.\.\s*\d+:\s+(\d+)\.\.\s*(\d+):", done.stdout, re.M)]


def layout_on_disk(files):
    """Where `files` (read in this order) lie on the disk, from filefrag -v: the files, their extents, and how often
    the next file (or extent) does not start at the block after the previous one's end ("jumps"), with the mean jump
    in MiB: a cold read of object files that lie one after the other is one sequential stream for the disk."""
    extents, jumps, jump_blocks, previous_end = 0, 0, 0, None
    for path in files:
        for start, end in file_extents(path):
            extents += 1
            if previous_end is not None and start != previous_end + 1:
                jumps += 1
                jump_blocks += abs(start - previous_end - 1)
            previous_end = end
    return {"files": len(files), "extents": extents, "jumps": jumps,
            "mean_jump_mib": jump_blocks * 4096 / 2**20 / max(jumps, 1)}


# Page-cache drops this script made itself (drop_caches); the rest of /proc/vmstat's count are other processes'.
OWN_DROPS = [0]


def drop_caches():
    """As make bench before a cold read: sync, then drop the kernel's page, dentry and inode caches (the OSDs' object
    files and the mount's pages alike), so that the read reaches the disk. Needs root."""
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as drop:
        drop.write("3\n")
    OWN_DROPS[0] += 1


def page_cache_drops():
    """How often anyone dropped the page cache since boot (/proc/vmstat drop_pagecache; 0 where it is missing). A drop
    by another process between the preparation and a job changes what the job measures: e.g. the prepared file's
    large page-cache folios are gone, so random writes into it cost the OSD less (tests/bench/fuse/README.md, "random
    write into 1 MiB objects")."""
    try:
        for line in Path("/proc/vmstat").read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == "drop_pagecache":
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


class Side:
    def __init__(self, name, repo, state, width, mount_args, osd_settings, java_opts, mount_binary=None, osds=3,
                 mkfs_args=(), mrc_settings=()):
        self.mount_binary = Path(mount_binary) if mount_binary else Path(repo) / "cpp/build/mount.xtreemfs"
        self.name, self.repo, self.state, self.width = name, Path(repo), Path(state), width
        self.mount_args, self.osd_settings, self.java_opts = mount_args, osd_settings, java_opts
        self.mkfs_args = list(mkfs_args)
        self.mrc_settings = list(mrc_settings)
        self.mount_process = None
        self.osds = osds
        self.jfr = False
        self.async_profiler = None
        self.idle_cpu_per_s = {}
        self.cold = False
        self.java = True  # the "osd" processes are JVMs (jcmd may be used on them)
        self.disk = None  # the block device under the side's files (/proc/diskstats name), set in main

    def cluster(self, *args):
        env = dict(os.environ)
        if self.java_opts:
            env["XTREEMFS_SERVER_JAVA_OPTS"] = self.java_opts
        done = subprocess.run([str(self.repo / "bin/xtreemfs-cluster")] + list(args) + ["--state", str(self.state / "cluster")],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        if done.returncode != 0:
            raise SystemExit("%s: xtreemfs-cluster %s failed (exit %d):\n%s" % (self.name, " ".join(args), done.returncode,
                                                                              done.stdout))
        return done.stdout

    def start(self):
        self.state.mkdir(parents=True, exist_ok=True)
        extra = []
        for setting in self.osd_settings:
            extra += ["--osd-setting", setting]
        for setting in self.mrc_settings:
            extra += ["--mrc-setting", setting]
        self.cluster("start", "--osds", str(self.osds), "--status-ports", *extra)
        shell = self.cluster("status", "--shell")
        self.dir_port = int(re.search(r"^dir_port=(\d+)$", shell, re.M).group(1))
        status_port = re.search(r"^mrc_status_port=(\d+)$", shell, re.M)
        self.mrc_status_port = int(status_port.group(1)) if status_port else 0
        self.mrc_pid = int(re.search(r"^mrc_pid=(\d+)$", shell, re.M).group(1))
        self.dir_pid = int(re.search(r"^dir_pid=(\d+)$", shell, re.M).group(1))
        pids = re.search(r"^osd_pids=\(([^)]*)\)", shell, re.M)
        self.osd_pids = [int(p) for p in pids.group(1).split()] if pids else []
        if not self.osd_pids:
            print(shell, file=sys.stderr)
            raise SystemExit("no osd pids")
        url = "pbrpc://127.0.0.1:%d/v%d" % (self.dir_port, self.width)
        subprocess.run([str(self.repo / "bin/mkfs.xtreemfs"), "--striping-width", str(self.width)] + self.mkfs_args
                       + [url], check=True, stdout=subprocess.DEVNULL)
        self.mnt = self.state / "mnt"
        self.mnt.mkdir(exist_ok=True)
        log = open(self.state / "mount.stderr", "ab")
        self.mount_process = subprocess.Popen([str(self.mount_binary), "-f", "--log-file",
                                               str(self.state / "mount.log")] + self.mount_args + [url, str(self.mnt)],
                                              stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                              start_new_session=True)
        for _ in range(300):
            if os.path.ismount(self.mnt):
                break
            time.sleep(0.1)
        else:
            raise SystemExit("%s: not mounted" % self.name)

    def stop(self):
        if self.mount_process is not None:
            subprocess.run(["fusermount3", "-u", str(self.mnt)])
            try:
                self.mount_process.wait(60)
            except subprocess.TimeoutExpired:
                self.mount_process.kill()
        try:
            self.cluster("stop")
        except SystemExit as error:
            print(error, file=sys.stderr)

    def fio(self, rw, bs, runtime_s, size_mib, direct=True, qd=32, file="f.dat", time_based=True, end_fsync=False,
            profile=None, label=None, jobs=1):
        """One fio job on `file` of the mount, or with `jobs` > 1 that many (group_reporting: summed), job i on
        `file`.i of its own (make bench's parallel-jobs row), each of size_mib / jobs."""
        if jobs > 1:
            target = ["--directory=%s" % self.mnt, "--filename_format=%s.$jobnum" % file,
                      "--numjobs=%d" % jobs, "--group_reporting"]
            size_mib = max(1, size_mib // jobs)
        else:
            target = ["--filename=%s" % (self.mnt / file)]
        command = ["fio", "--name=ab"] + target + ["--rw=%s" % rw, "--bs=%s" % bs,
                   "--size=%dM" % size_mib, "--runtime=%d" % runtime_s, "--output-format=json", "--randrepeat=0",
                   "--norandommap"]
        if direct:
            command += ["--ioengine=libaio", "--direct=1", "--iodepth=%d" % qd]
        else:
            command += ["--ioengine=psync"]
        if time_based:
            command.append("--time_based")
        if end_fsync:
            command.append("--end_fsync=1")
        if self.cold and rw in ("read", "randread"):
            drop_caches()
        pids_osd = self.osd_pids
        pid_mount = [self.mount_process.pid] if self.mount_process is not None else []
        load_before = load()
        osd0, mount0, wall0 = cpu_ticks(pids_osd), cpu_ticks(pid_mount), time.monotonic()
        osd_sys0, mount_sys0 = cpu_ticks(pids_osd, ("stime",)), cpu_ticks(pid_mount, ("stime",))
        osd_wait0, mount_wait0 = run_queue_wait_ns(pids_osd), run_queue_wait_ns(pid_mount)
        machine0, fio0 = machine_ticks(), resource.getrusage(resource.RUSAGE_CHILDREN)
        disk0 = disk_counters(self.disk)
        osd_threads0, mount_threads0 = thread_groups(pids_osd), thread_groups(pid_mount)
        with profiling(profile if pid_mount else None, label or rw, {"osd": pids_osd}, pid_mount[0] if pid_mount else None,
                       self.jfr, self.async_profiler, self.java):
            output = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        osd1, mount1, wall1 = cpu_ticks(pids_osd), cpu_ticks(pid_mount), time.monotonic()
        osd_sys1, mount_sys1 = cpu_ticks(pids_osd, ("stime",)), cpu_ticks(pid_mount, ("stime",))
        osd_wait1, mount_wait1 = run_queue_wait_ns(pids_osd), run_queue_wait_ns(pid_mount)
        machine1, fio1 = machine_ticks(), resource.getrusage(resource.RUSAGE_CHILDREN)
        disk1 = disk_counters(self.disk)
        osd_threads1, mount_threads1 = thread_groups(pids_osd), thread_groups(pid_mount)
        if output.returncode != 0:
            raise SystemExit("%s fio failed: %s" % (self.name, output.stderr))
        job = json.loads(output.stdout[output.stdout.index("{"):])["jobs"][0]
        side = job["read"] if rw in ("read", "randread") else job["write"]
        ios = side["total_ios"]
        result = {"side": self.name, "rw": label or rw, "bs": bs, "iops": side["iops"], "mib_s": side["bw_bytes"] / 2**20,
                  "ios": ios, "wall_s": wall1 - wall0, "load_before": load_before, "load_after": load(),
                  # Where the job ran, for traces of the same minutes (fsync_trace.py --jobs): CLOCK_MONOTONIC.
                  "start_monotonic_s": wall0, "end_monotonic_s": wall1, "osd_pids": list(pids_osd)}
        self.per_io(result, "osd", (osd1 - osd0) / TICKS)
        self.per_io(result, "mount", (mount1 - mount0) / TICKS)
        ios = max(ios, 1)
        # Kernel shares, what fio itself cost (its submissions: for O_DIRECT through FUSE the kernel's side of each
        # request), how long the processes' threads waited for a CPU, and whether the machine had idle cores.
        result["osd_sys_us_per_io"] = (osd_sys1 - osd_sys0) / TICKS / ios * 1e6
        result["mount_sys_us_per_io"] = (mount_sys1 - mount_sys0) / TICKS / ios * 1e6
        result["fio_us_per_io"] = (fio1.ru_utime + fio1.ru_stime - fio0.ru_utime - fio0.ru_stime) / ios * 1e6
        result["fio_sys_us_per_io"] = (fio1.ru_stime - fio0.ru_stime) / ios * 1e6
        result["osd_run_queue_wait_us_per_io"] = (osd_wait1 - osd_wait0) / 1e3 / ios
        result["mount_run_queue_wait_us_per_io"] = (mount_wait1 - mount_wait0) / 1e3 / ios
        busy, idle, iowait = (after - before for after, before in zip(machine1, machine0))
        result["machine_idle_fraction"] = idle / max(busy + idle + iowait, 1)
        result["machine_iowait_fraction"] = iowait / max(busy + idle + iowait, 1)
        result.update(disk_figures(disk0, disk1, wall1 - wall0, ios))
        result["osd_threads"] = thread_group_deltas(osd_threads0, osd_threads1, ios)
        if pid_mount:
            result["mount_threads"] = thread_group_deltas(mount_threads0, mount_threads1, ios)
            result["mount_voluntary_switches_per_io"], result["mount_involuntary_switches_per_io"] = switches_per_io(
                result["mount_threads"])
        return result

    def processes(self):
        return {"osd": self.osd_pids, "mrc": [self.mrc_pid], "dir": [self.dir_pid], "mount": [self.mount_process.pid]}

    def data_files(self, name):
        """The files on the disk that hold the side's file `name`, in read order: the OSDs' object files of the file
        written last (call it right after writing `name`), by object number."""
        objects, newest = {}, 0.0
        for folder in (self.state / "cluster").rglob("*"):
            if folder.is_dir() and folder.name != "mnt":
                files = [f for f in folder.iterdir() if f.is_file() and f.name.isdigit()]
                written = max((f.stat().st_mtime for f in files), default=0.0)
                if files and written > newest:
                    objects, newest = {int(f.name): f for f in files}, written
        return [objects[n] for n in sorted(objects)]

    def measure_idle(self, seconds):
        """CPU seconds per second each kind of process spends with no load (heartbeats, timers, the JIT's leftovers):
        at a few hundred operations per second that background is a large part of the CPU per operation, and it
        accrues per second, not per operation, so a slower round would look dearer per operation."""
        before = {kind: cpu_ticks(pids) for kind, pids in self.processes().items()}
        time.sleep(seconds)
        self.idle_cpu_per_s = {kind: (cpu_ticks(pids) - before[kind]) / TICKS / seconds
                               for kind, pids in self.processes().items()}

    def per_io(self, result, kind, cpu_s):
        """CPU per operation of one kind of process, gross and net of its idle rate over the operation's wall time."""
        ios = max(result["ios"], 1)
        result["%s_cpu_s" % kind] = cpu_s
        result["%s_us_per_io" % kind] = cpu_s / ios * 1e6
        idle_s = self.idle_cpu_per_s.get(kind, 0.0) * result["wall_s"]
        result["%s_net_us_per_io" % kind] = (cpu_s - idle_s) / ios * 1e6


class GlusterProcess:
    """The pid of a process this script did not start (GlusterFS's client), where Side expects a Popen."""

    def __init__(self, pid):
        self.pid = pid


class GlusterSide(Side):
    """A one-brick GlusterFS volume in the side's state folder, measured like a build: the brick process stands for
    the OSDs, GlusterFS's FUSE client for the mount."""

    def __init__(self, name, state):
        super().__init__(name, ".", state, 1, [], [], "")
        self.volume = GlusterVolume(Path(state).resolve())
        self.java = False

    def find_processes(self):
        brick = pids_whose_command_line_has("--brick-name %s" % self.volume.brick)
        client = [pid for pid in pids_whose_command_line_has(str(self.volume.mount_point))
                  if Path("/proc/%d/exe" % pid).resolve().name.startswith("glusterfs")
                  and pid not in brick]
        if len(brick) != 1 or len(client) != 1:
            raise SystemExit("%s: expected one brick and one client process, found %s and %s" % (
                self.name, brick, client))
        self.osd_pids, self.mount_process = brick, GlusterProcess(client[0])

    def start(self):
        self.state.mkdir(parents=True, exist_ok=True)
        self.volume.start()
        self.mnt = self.volume.mount_point
        self.find_processes()

    def stop(self):
        for problem in self.volume.stop():
            print("%s: %s" % (self.name, problem), file=sys.stderr)

    def processes(self):
        return {"osd": self.osd_pids, "mount": [self.mount_process.pid]}

    def data_files(self, name):
        brick = Path(self.volume.brick)
        return [brick / name] if (brick / name).exists() else []

    def fio(self, rw, *args, **kwargs):
        if self.cold and rw in ("read", "randread"):
            self.volume.remount()  # a fresh client, as make bench does before a cold read
            self.find_processes()
        return super().fio(rw, *args, **kwargs)


class RawSide(Side):
    """fio on a plain folder of the same file system, no servers and no mount: the disk's speed in the same minutes
    as the sides it is listed with. The shared virtual disk's sequential write speed moves by a quarter from one job
    to the next (session 13: 285-456 MiB/s for one O_DIRECT file over four rounds), so a side's figure means something
    only next to the disk's own in the same round."""

    def __init__(self, name, state):
        super().__init__(name, ".", state, 1, [], [], "")
        self.java = False
        self.osd_pids = []

    def start(self):
        self.state.mkdir(parents=True, exist_ok=True)
        self.mnt = self.state / "files"
        self.mnt.mkdir(exist_ok=True)

    def stop(self):
        pass

    def processes(self):
        return {}

    def data_files(self, name):
        return [self.mnt / name]


@contextlib.contextmanager
def profiling(profile, label, jvms, mount_pid, jfr, async_profiler=None, java=True):
    """perf record -g of each group of server JVMs ({"osd": pids, "mrc": [pid]}: PROFILE/GROUP-LABEL.perf, with JIT
    symbols from jcmd Compiler.perfmap afterwards) and of the mount (PROFILE/mount-LABEL.perf) while the body runs;
    with `jfr` also a JFR recording per JVM (PROFILE/GROUP-PID-LABEL.jfr; at a high load it holds few samples); with
    `async_profiler` (the path of libasyncProfiler.so) async-profiler's CPU samples of each JVM, loaded into it with
    jcmd JVMTI.agent_load (its options in double quotes: jcmd splits arguments at commas), as collapsed stacks per
    thread (PROFILE/GROUP-PID-LABEL.collapsed). Nothing when `profile`
    is None."""
    if profile is None:
        yield
        return
    profile.mkdir(parents=True, exist_ok=True)
    all_pids = [pid for pids in jvms.values() for pid in pids]
    if async_profiler:
        for pid in all_pids:
            subprocess.run(["jcmd", str(pid), "JVMTI.agent_load", str(async_profiler),
                            '"start,event=cpu,interval=1ms,threads"'], stdout=subprocess.DEVNULL, check=True)
    if jfr:
        for group, pids in jvms.items():
            for pid in pids:
                subprocess.run(["jcmd", str(pid), "JFR.start", "name=ab", "settings=profile",
                                "filename=%s" % (profile / ("%s-%d-%s.jfr" % (group, pid, label)))],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    recorders = [subprocess.Popen(["perf", "record", "-g", "-F", "999", "-o", str(profile / ("%s-%s.perf" % (name, label))),
                                   "-p", ",".join(str(pid) for pid in pids)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for name, pids in list(jvms.items()) + [("mount", [mount_pid])]]
    try:
        yield
    finally:
        for recorder in recorders:
            recorder.send_signal(signal.SIGINT)
            recorder.wait(60)
        if async_profiler:
            for group, pids in jvms.items():
                for pid in pids:
                    subprocess.run(["jcmd", str(pid), "JVMTI.agent_load", str(async_profiler), '"stop,collapsed,file=%s"'
                                    % (profile / ("%s-%d-%s.collapsed" % (group, pid, label)))],
                                   stdout=subprocess.DEVNULL, check=True)
        for pid in all_pids if java else ():  # jcmd's SIGQUIT would end a process that is no JVM
            if jfr:
                subprocess.run(["jcmd", str(pid), "JFR.stop", "name=ab"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            subprocess.run(["jcmd", str(pid), "Compiler.perfmap"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# The processes whose threads the metadata rows break down (the OSD's deletion work, the MRC's operation, the mount's
# FUSE threads and io threads).
METADATA_THREAD_KINDS = ("osd", "mrc", "mount")


def mrc_calls(status_port):
    """The MRC's answered calls by procedure ({"MRC_GETATTR": n, ...}) from its status page (status.json's
    "operations"); empty without a status port or when the page does not answer."""
    if not status_port:
        return {}
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/status.json" % status_port, timeout=10) as page:
            operations = json.load(page).get("operations", {})
    except (OSError, ValueError):
        return {}
    return {procedure: counts.get("calls", 0) for procedure, counts in operations.items()}


def calls_per_operation(before, after, operations):
    """The MRC's calls per operation by procedure between two mrc_calls() snapshots (procedures not called left out):
    e.g. {"MRC_UNLINK": 1.0, "MRC_GETATTR": 0.12} for an unlink loop whose lookups the mount sent on 12 % of the time."""
    operations = max(operations, 1)
    return {procedure: (count - before.get(procedure, 0)) / operations
            for procedure, count in sorted(after.items()) if count > before.get(procedure, 0)}


def metadata_snapshot(pids):
    """CPU ticks per kind of process ({"osd": [...], "mrc": [...], ...}) and, for METADATA_THREAD_KINDS, their
    thread groups (thread_groups()): the state metadata_figures() subtracts."""
    return {"ticks": {kind: cpu_ticks(kind_pids) for kind, kind_pids in pids.items()},
            "threads": {kind: thread_groups(pids[kind]) for kind in METADATA_THREAD_KINDS if kind in pids}}


def metadata_figures(result, before, after, idle_cpu_per_s):
    """Adds to a metadata row (its "ios" and "wall_s" set) the CPU per operation of every kind of process between two
    metadata_snapshot()s, gross (KIND_us_per_io) and net of the kind's idle rate over the row's wall time
    (KIND_net_us_per_io), and per thread group of the OSD and the MRC (KIND_threads, as the fio rows' osd_threads):
    which thread spends an operation's CPU (e.g. the storage stage, the deletion scheduler, the C2 compiler, GC)."""
    operations = max(result["ios"], 1)
    for kind, ticks in after["ticks"].items():
        cpu_s = (ticks - before["ticks"].get(kind, 0)) / TICKS
        result["%s_cpu_s" % kind] = cpu_s
        result["%s_us_per_io" % kind] = cpu_s / operations * 1e6
        idle_s = idle_cpu_per_s.get(kind, 0.0) * result["wall_s"]
        result["%s_net_us_per_io" % kind] = (cpu_s - idle_s) / operations * 1e6
    for kind, groups in after["threads"].items():
        result["%s_threads" % kind] = thread_group_deltas(before["threads"].get(kind, {}), groups, operations)
    if "mount_threads" in result:
        result["mount_voluntary_switches_per_io"], result["mount_involuntary_switches_per_io"] = switches_per_io(
            result["mount_threads"])
    return result


def busiest_thread_groups(groups, count=6):
    """The `count` thread groups with the most CPU per operation, as printed lines' text (us and voluntary +
    involuntary context switches per operation)."""
    ranked = sorted(groups.items(), key=lambda item: -item[1]["cpu_us_per_io"])
    return "; ".join("%s %.1f us, %.2f+%.2f cs" % (group, figures["cpu_us_per_io"],
                                                    figures["voluntary_switches_per_io"],
                                                    figures["involuntary_switches_per_io"])
                     for group, figures in ranked[:count])


def median(values):
    values = sorted(values)
    if not values:
        return 0.0
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def median_thread_groups(rows, kind):
    """Per thread group of `kind` ("osd", "mrc"), the median over the rows of its CPU us per operation; a row in
    which the group spent nothing (absent from its KIND_threads) counts as 0, so a group busy in one round only
    (the JIT's compiler) does not look busy in every round."""
    groups = set()
    for row in rows:
        groups.update(row.get("%s_threads" % kind, {}))
    return {group: median([row.get("%s_threads" % kind, {}).get(group, {}).get("cpu_us_per_io", 0.0) for row in rows])
            for group in groups}


def after_figures(result, before, after, idle_cpu_per_s, seconds):
    """Adds to a row the OSDs' CPU per operation in the `seconds` after its loop ended, net of their idle rate
    (osd_after_net_us_per_io), and per OSD thread group (osd_after_threads): the background work of the row's
    operations that had not run when the loop ended (an unlink's deletion of the file's objects), which the row's own
    figures miss when it lags behind."""
    operations = max(result["ios"], 1)
    cpu_s = (after["ticks"]["osd"] - before["ticks"]["osd"]) / TICKS
    result["osd_after_s"] = seconds
    result["osd_after_net_us_per_io"] = (cpu_s - idle_cpu_per_s.get("osd", 0.0) * seconds) / operations * 1e6
    result["osd_after_threads"] = thread_group_deltas(before["threads"]["osd"], after["threads"]["osd"], operations)
    return result


def metadata(side, operation, folder, files, metadata_binary, profile=None, after_s=0.0):
    """One metadata_ops phase on the side's mount; CPU per operation of the MRC, the OSDs, the DIR and the mount, and
    per thread group of the OSDs and the MRC; with `after_s` also the OSDs' CPU in that many seconds after the loop."""
    pids = side.processes()
    load_before = load()
    calls_before = mrc_calls(getattr(side, "mrc_status_port", 0))
    before = metadata_snapshot(pids)
    wall0 = time.monotonic()
    with profiling(profile, operation, {"mrc": pids["mrc"], "osd": pids["osd"]}, pids["mount"][0], side.jfr,
                   side.async_profiler):
        output = subprocess.run([str(metadata_binary), operation, str(folder), str(files)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    wall1 = time.monotonic()
    after = metadata_snapshot(pids)
    calls_after = mrc_calls(getattr(side, "mrc_status_port", 0))
    if output.returncode != 0:
        raise SystemExit("%s metadata_ops %s failed: %s" % (side.name, operation, output.stderr))
    count = json.loads(output.stdout)["count"]
    result = {"side": side.name, "rw": operation, "bs": "-", "iops": count / (wall1 - wall0), "mib_s": 0.0,
              "ios": count, "wall_s": wall1 - wall0, "load_before": load_before, "load_after": load()}
    metadata_figures(result, before, after, side.idle_cpu_per_s)
    if calls_after:
        result["mrc_calls_per_op"] = calls_per_operation(calls_before, calls_after, count)
    if after_s > 0:
        time.sleep(after_s)
        after_figures(result, after, metadata_snapshot(pids), side.idle_cpu_per_s, after_s)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", action="append", required=True, help="NAME=REPO")
    parser.add_argument("--java-opts", action="append", default=[], help="NAME=OPTS for the servers of that side")
    parser.add_argument("--mount-args", action="append", default=[], help="NAME=ARGS")
    parser.add_argument("--mount", action="append", default=[], help="NAME=PATH of mount.xtreemfs (default REPO/cpp/build)")
    parser.add_argument("--mkfs-args", action="append", default=[],
                        help="NAME=ARGS: extra mkfs.xtreemfs options for that side's volume, e.g. "
                             "B='--object-size 128KiB' (one build, two volume layouts)")
    parser.add_argument("--osd-setting", action="append", default=[], help="NAME=KEY=VALUE: a setting of that side's OSDs")
    parser.add_argument("--mrc-setting", action="append", default=[],
                        help="NAME=KEY=VALUE: a setting of that side's MRC, e.g. M=mrc.outcomes.retentionMs=1000 (the "
                             "exactly-once journal's expiry on every change)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--runtime-s", type=int, default=8)
    parser.add_argument("--width", type=int, default=1)
    parser.add_argument("--side-width", action="append", default=[], metavar="NAME=N",
                        help="that side's volume width instead of --width: one build at two widths in the same minutes "
                             "(issue 10: a wider stripe must read one stream faster)")
    parser.add_argument("--osds", type=int, default=3, help="OSDs per side's cluster (at least --width)")
    parser.add_argument("--sequential-queue-depth", type=int, default=8,
                        help="fio iodepth of read-direct and write-direct")
    parser.add_argument("--size-mib", type=int, default=256)
    parser.add_argument("--parallel-jobs", type=int, default=4,
                        help="fio jobs of write-direct-jobs, each writing size-mib / N to a file of its own")
    parser.add_argument("--workloads", default="randread,randwrite",
                        help="comma-separated: randread, randwrite, read, write, write-fresh, read-direct, "
                             "write-direct, write-direct-jobs, create, stat, unlink")
    parser.add_argument("--files", type=int, default=2000, help="files per round of the metadata workloads")
    parser.add_argument("--unlink-after-s", type=float, default=2.0, metavar="S",
                        help="after each unlink row, measure the OSDs' CPU for this long more (net of idle, per unlink:"
                             " 'osd after'), the deletions still running in the background when the loop ended (0: "
                             "none)")
    parser.add_argument("--idle-s", type=float, default=10, metavar="S",
                        help="after the warm-up, measure each side's CPU with no load for this long; the 'net' figures "
                             "subtract that idle rate over each job's wall time (0: none)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--profile", action="store_true",
                        help="perf -g of the server JVMs and the mount in round --profile-round (not counted)")
    parser.add_argument("--profile-round", type=int, default=0, metavar="N",
                        help="the round --profile records (a later one sees the JIT settled)")
    parser.add_argument("--jfr", action="store_true", help="with --profile, JFR recordings of the JVMs too")
    parser.add_argument("--cold", action="store_true",
                        help="drop the page cache (sync; echo 3 > /proc/sys/vm/drop_caches) before every read job, as "
                             "make bench's cold reads do; needs root")
    parser.add_argument("--glusterfs", metavar="NAME",
                        help="also a side NAME on a one-brick GlusterFS volume (brick as 'osd', client as 'mount')")
    parser.add_argument("--raw", metavar="NAME",
                        help="also a side NAME: fio on a plain folder of OUT's file system (the disk in the same minutes;"
                             " compare each side to it round by round; it skips the metadata workloads)")
    parser.add_argument("--prepare-direct", action="store_true",
                        help="write every side's read-direct file (1 MiB O_DIRECT, QD --sequential-queue-depth, as make "
                             "bench's write row) in the warm-up, one side after the other, read it back once (the "
                             "large-read path's JIT warm-up), and print where its files lie on the disk (filefrag): every read-direct round is then a pure cold read of files "
                             "written in the same minutes (without it round 0 lays the file out)")
    parser.add_argument("--async-profiler", type=Path, metavar="LIB",
                        help="with --profile, async-profiler's CPU samples of the JVMs too (path of libasyncProfiler.so)")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    java = dict(item.split("=", 1) for item in options.java_opts)
    mount_args = dict(item.split("=", 1) for item in options.mount_args)
    mounts = dict(item.split("=", 1) for item in options.mount)
    widths = {name: int(width) for name, width in (item.split("=", 1) for item in options.side_width)}
    mkfs_args = dict(item.split("=", 1) for item in options.mkfs_args)
    osd_settings, mrc_settings = {}, {}
    for item in options.osd_setting:
        name, setting = item.split("=", 1)
        osd_settings.setdefault(name, []).append(setting)
    for item in options.mrc_setting:
        name, setting = item.split("=", 1)
        mrc_settings.setdefault(name, []).append(setting)
    sides = []
    for item in options.build:
        name, repo = item.split("=", 1)
        sides.append(Side(name, repo, options.out / name, widths.get(name, options.width), mount_args.get(name, "").split(),
                          osd_settings.get(name, []), java.get(name, ""), mounts.get(name), options.osds,
                          mkfs_args.get(name, "").split(), mrc_settings.get(name, [])))
    disk = disk_under(options.out)
    for side in sides:
        side.cold = options.cold
        side.jfr = options.jfr
        side.async_profiler = options.async_profiler.resolve() if options.async_profiler else None
    if options.raw:
        sides.append(RawSide(options.raw, options.out / options.raw))
        sides[-1].cold = options.cold
    if options.glusterfs:
        if any(workload in METADATA for workload in options.workloads.split(",")):
            raise SystemExit("--glusterfs: data workloads only (the metadata figures need an MRC)")
        sides.append(GlusterSide(options.glusterfs, options.out / options.glusterfs))
        sides[-1].cold = options.cold
    for side in sides:
        side.disk = disk
    results = []
    metadata_binary = options.out / "metadata_ops"
    workloads = options.workloads.split(",")
    if any(workload in METADATA for workload in workloads):
        if ("create" in workloads) != ("unlink" in workloads):
            raise SystemExit("--workloads: create and unlink go together (each round creates and removes its files)")
        subprocess.run(["cc", "-O2", "-Wall", "-o", str(metadata_binary),
                        str(Path(__file__).resolve().parent / "metadata_ops.c")], check=True)
    drops_at_start = page_cache_drops()
    foreign_drops = 0
    try:
        for side in sides:
            side.start()
        for side in sides:  # prepare and warm up (untimed)
            if any(workload not in METADATA for workload in workloads):
                side.fio("write", "1M", 120, options.size_mib, direct=False, time_based=False, end_fsync=True)
                side.fio("randread", "4k", 4, options.size_mib)
                side.fio("randwrite", "4k", 4, options.size_mib)
            if options.prepare_direct:
                (side.mnt / "seq-direct.dat").unlink(missing_ok=True)
                side.fio("write", "1M", 120, options.size_mib, qd=options.sequential_queue_depth, time_based=False,
                         end_fsync=True, file="seq-direct.dat")
                # Read back once (cached, untimed), as make bench's warm-up reads its file back: the OSD's large-read
                # path (regions, sendfile, the read-ahead) is other code than the 4 KiB and write paths above, and
                # without this the first cold rounds pay its C2 compilation (up to half the OSD's CPU per MiB).
                side.fio("read", "1M", 120, options.size_mib, qd=options.sequential_queue_depth, time_based=False,
                         file="seq-direct.dat")
            if metadata_binary.exists() and not isinstance(side, RawSide):
                folder = side.mnt / "metadata-warm-up"
                folder.mkdir()
                for operation in ("create", "stat", "unlink"):
                    metadata(side, operation, folder, options.files, metadata_binary)
                folder.rmdir()
        if options.prepare_direct:
            for side in sides:
                layout = layout_on_disk(side.data_files("seq-direct.dat"))
                print("%s seq-direct.dat on the disk: %d files, %d extents, %d jumps (mean %.1f MiB)" % (
                    side.name, layout["files"], layout["extents"], layout["jumps"], layout["mean_jump_mib"]), flush=True)
        if options.idle_s > 0:
            time.sleep(2)  # the warm-up's background deletions and compilations settle
            for side in sides:
                side.measure_idle(options.idle_s)
                print("%s idle: %s CPU s/s (load %.1f)" % (side.name, ", ".join(
                    "%s %.3f" % item for item in side.idle_cpu_per_s.items()), load()), flush=True)
        for round_index in range(options.rounds):
            order = sides if round_index % 2 == 0 else list(reversed(sides))
            for workload in workloads:
                for side in order:
                    profiled = options.profile and round_index == options.profile_round
                    profile = options.out / side.name / "profile" if profiled else None
                    if workload in METADATA and isinstance(side, RawSide):
                        continue  # make bench has the metadata rows' raw baseline; here they compare builds
                    if workload in METADATA:
                        folder = side.mnt / ("metadata-%d" % round_index)
                        if workload == "create":
                            folder.mkdir()
                        result = metadata(side, workload, folder, options.files, metadata_binary, profile,
                                          options.unlink_after_s if workload == "unlink" else 0.0)
                        if workload == "unlink":
                            folder.rmdir()
                    elif workload in ("write", "read"):
                        result = side.fio(workload, "1M", options.runtime_s, options.size_mib, direct=False,
                                          time_based=False, end_fsync=workload == "write", file="seq.dat",
                                          profile=profile)
                    elif workload == "write-fresh":
                        # make bench's buffered row: a fresh file, so every object is a new file on the OSD (the
                        # "write" row overwrites seq.dat, whose objects the warm-up created).
                        (side.mnt / "seq-fresh.dat").unlink(missing_ok=True)
                        result = side.fio("write", "1M", options.runtime_s, options.size_mib, direct=False,
                                          time_based=False, end_fsync=True, file="seq-fresh.dat", profile=profile,
                                          label=workload)
                    elif workload == "write-direct-jobs":
                        # make bench's parallel-jobs row: --parallel-jobs fio jobs at once, a fresh file each.
                        for job in range(options.parallel_jobs):
                            (side.mnt / ("seq-jobs.dat.%d" % job)).unlink(missing_ok=True)
                        result = side.fio("write", "1M", options.runtime_s, options.size_mib,
                                          qd=options.sequential_queue_depth, time_based=False, end_fsync=True,
                                          file="seq-jobs.dat", profile=profile, label=workload,
                                          jobs=options.parallel_jobs)
                    elif workload in ("write-direct", "read-direct"):
                        rw = workload.split("-")[0]
                        if rw == "write":
                            # A fresh file, as make bench's row writes: every object is a new file on the OSD (an
                            # overwrite measures neither the creates nor the end_fsync of objects never forced).
                            (side.mnt / "seq-direct.dat").unlink(missing_ok=True)
                        result = side.fio(rw, "1M", options.runtime_s, options.size_mib,
                                          qd=options.sequential_queue_depth, time_based=False,
                                          end_fsync=rw == "write", file="seq-direct.dat", profile=profile,
                                          label=workload)
                    else:
                        result = side.fio(workload, "4k", options.runtime_s, options.size_mib, profile=profile)
                    result["round"] = round_index
                    result["profiled"] = profiled
                    dropped_since = page_cache_drops() - drops_at_start - OWN_DROPS[0] - foreign_drops
                    foreign_drops += dropped_since
                    result["foreign_page_cache_drops"] = dropped_since
                    results.append(result)
                    print("%(round)d %(side)s %(rw)-9s %(iops)8.0f IOPS %(mib_s)7.1f MiB/s  osd %(osd_us_per_io)6.1f"
                          " (net %(osd_net_us_per_io)6.1f) us/io  mount %(mount_us_per_io)6.1f us/io" % result
                          + ("  mrc %.1f (net %.1f) us/op  dir %.1f us/op" % (
                              result["mrc_us_per_io"], result["mrc_net_us_per_io"], result["dir_us_per_io"])
                             if "mrc_us_per_io" in result else "")
                          + ("  osd sys %.1f, mount sys %.1f, fio %.1f (sys %.1f) us/io; run-queue wait osd %.1f, mount"
                             " %.1f us/io; machine idle %.0f %%, iowait %.0f %%" % (
                                 result["osd_sys_us_per_io"], result["mount_sys_us_per_io"], result["fio_us_per_io"],
                                 result["fio_sys_us_per_io"], result["osd_run_queue_wait_us_per_io"],
                                 result["mount_run_queue_wait_us_per_io"], 100 * result["machine_idle_fraction"],
                                 100 * result["machine_iowait_fraction"]) if "fio_us_per_io" in result else "")
                          + ("  disk: %.2f reads/io of %.0f KiB, %.0f MiB/s, r_await %.2f ms, aqu-sz %.2f, util %.0f %%" % (
                              result["disk_reads_per_io"], result["disk_read_kib"], result["disk_read_mib_s"],
                              result["disk_r_await_ms"], result["disk_aqu_sz"], 100 * result["disk_util"])
                             if "disk_reads_per_io" in result and result["rw"] in READ_ROWS else "")
                          + ("  mount cs %.2f+%.2f/io" % (result["mount_voluntary_switches_per_io"],
                                                           result["mount_involuntary_switches_per_io"])
                             if "mount_voluntary_switches_per_io" in result else "")
                          + ("  osd after %.1f us/op (net, %.0f s)" % (result["osd_after_net_us_per_io"],
                                                                       result["osd_after_s"])
                             if "osd_after_net_us_per_io" in result else "")
                          + "  load %(load_before).1f-%(load_after).1f" % result
                          + ("  page cache dropped %d times by another process since the previous job"
                             % dropped_since if dropped_since else ""), flush=True)
                    if result.get("mrc_calls_per_op"):
                        print("    mrc calls per op: %s" % ", ".join(
                            "%s %.3f" % item for item in result["mrc_calls_per_op"].items()), flush=True)
                    for kind in ("osd", "mrc", "mount", "osd_after"):
                        if result.get("%s_threads" % kind):
                            # Where the process's CPU and context switches per request went, by thread group (top 6).
                            print("    %s threads per io: %s" % (kind, busiest_thread_groups(result["%s_threads" % kind])),
                                  flush=True)
    finally:
        for side in sides:
            side.stop()
        (options.out / "results.json").write_text(json.dumps(results, indent=1))
    if foreign_drops:
        print("\nwarning: other processes dropped the page cache %d times during this run (/proc/vmstat"
              " drop_pagecache); jobs after a drop may have measured other page-cache states" % foreign_drops)
    print("\nmedians:")
    for workload in workloads:
        for side in sides:
            rows = [r for r in results if r["side"] == side.name and r["rw"] == workload and not r["profiled"]]
            if not rows:
                continue
            def of(key):
                return median([r[key] for r in rows])
            print("%-6s %-9s %8.0f IOPS %7.1f MiB/s  osd %6.1f (net %6.1f) us/io  mount %6.1f us/io%s  (n=%d, load "
                  "%.1f-%.1f)" % (
                      side.name, workload, of("iops"), of("mib_s"), of("osd_us_per_io"),
                      of("osd_net_us_per_io"), of("mount_us_per_io"),
                      "  mrc %6.1f (net %6.1f) us/op  dir %6.1f us/op" % (
                          of("mrc_us_per_io"), of("mrc_net_us_per_io"), of("dir_us_per_io"))
                      if workload in METADATA else
                      "  osd sys %.1f, mount sys %.1f, fio %.1f us/io; run-queue wait osd %.1f, mount %.1f us/io; "
                      "machine idle %.0f %%" % (of("osd_sys_us_per_io"), of("mount_sys_us_per_io"),
                                               of("fio_us_per_io"), of("osd_run_queue_wait_us_per_io"),
                                               of("mount_run_queue_wait_us_per_io"),
                                               100 * of("machine_idle_fraction")),
                      len(rows), min(r["load_before"] for r in rows), max(r["load_after"] for r in rows)))
            if workload in READ_ROWS and all("disk_reads_per_io" in r for r in rows):
                print("         disk, median: %.2f reads/io of %.0f KiB, %.0f MiB/s, r_await %.2f ms, aqu-sz %.2f, "
                      "util %.0f %%" % (of("disk_reads_per_io"), of("disk_read_kib"), of("disk_read_mib_s"),
                                        of("disk_r_await_ms"), of("disk_aqu_sz"), 100 * of("disk_util")))
            if all("mount_voluntary_switches_per_io" in r for r in rows):
                print("         mount context switches per op, median: %.2f voluntary + %.2f involuntary" % (
                    of("mount_voluntary_switches_per_io"), of("mount_involuntary_switches_per_io")))
            if all("osd_after_net_us_per_io" in r for r in rows):
                print("         osd after the loop: %.1f us/op (net)" % of("osd_after_net_us_per_io"))
            procedures = sorted({p for r in rows for p in r.get("mrc_calls_per_op", {})})
            if procedures:
                print("         mrc calls per op, median: %s" % ", ".join(
                    "%s %.3f" % (p, median([r.get("mrc_calls_per_op", {}).get(p, 0.0) for r in rows]))
                    for p in procedures))
            for kind in ("osd", "mrc", "mount", "osd_after"):
                groups = median_thread_groups(rows, kind)
                if groups:
                    top = sorted(groups.items(), key=lambda item: -item[1])[:6]
                    print("         %s threads, median us/io: %s" % (
                        kind, "; ".join("%s %.1f" % (group, cpu) for group, cpu in top)))


if __name__ == "__main__":
    main()
