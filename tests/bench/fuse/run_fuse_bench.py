#!/usr/bin/env python3
"""FUSE benchmark: fio and metadata operations through mount.xtreemfs and on the raw local disk.

Starts its own cluster with bin/xtreemfs-cluster (DIR, MRC, N OSDs on free loopback ports, state in a
temporary folder), mounts
a volume with cpp/build/mount.xtreemfs and runs every workload once on the mount and once on a folder
of the local disk, one right after the other, so machine noise hits both sides. Prints and writes
(markdown and JSON) one row per workload: mount | raw disk | ratio. See README.md in this folder.
"""
import argparse
import contextlib
import datetime
import json
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import glusterfs
from cluster import Cluster, ClusterError, Mount
from fio_results import FioOutputError, FioResult, Row, fio_row, markdown_table, parse_fio_json
from proc_stats import disk_activity, disk_under, jvm_cpu_ticks, summed_disk_counters, wait_until_disk_quiet

REPOSITORY = Path(__file__).resolve().parents[3]
MIB = 1024 * 1024
FIO_HANG_GUARD_S = 900  # added to --runtime-s: a hung mount fails the run instead of blocking it
MOUNT, RAW, WIDE, GLUSTER = "mount", "raw disk", "wide mount", "glusterfs"
# The volume of small objects the OSDs are warmed up on first (--warm-up-objects), never a row's target.
OSD_WARM_UP = "osd warm-up"
# The object sizes at which an OSD takes the 1 MiB rows' paths for whole-object requests
# (servers/osd ObjectStore): a write of 256 KiB or more goes to the disk with O_DIRECT (DIRECT_WRITE_BYTES_MIN;
# smaller ones go through the page cache in pieces), reads of 128 KiB or more are read ahead (ObjectReadAhead
# READ_BYTES_MIN) and of 64 KiB or more sent with sendfile (REGION_READ_BYTES_MIN), and writes of 128 KiB or more
# complete a stream's object (STREAM_WRITE_BYTES_MIN). Above 1 MiB the warm-up would call them less often than
# the rows do.
WARM_UP_OBJECT_KIB_MIN, WARM_UP_OBJECT_KIB_MAX = 256, 1024
# The OSD warm-up's passes, as fractions of --warm-up-objects: the first one takes every per-object method past C2's
# thresholds, the second (after the JIT settled) has the methods queued that passed them while C2's queue was long.
WARM_UP_PASSES = (1.0, 0.25)
# The OSDs' JIT has settled when their compiler threads together used less than this share of one core over the
# window (--warm-up-settle-s).
SETTLE_CORE_SHARE, SETTLE_WINDOW_S = 0.1, 1.0
# The workload groups, in the order a run does them (--workloads picks a subset).
WORKLOADS = ("sequential", "random", "metadata")
SEQUENTIAL_WRITE, SEQUENTIAL_READ = "sequential write 1 MiB", "sequential read 1 MiB"
# The extra rows of the same jobs through the page cache (psync, write flushed by end_fsync): what applications
# that do not open with O_DIRECT see, served by the client's write-behind and read-ahead.
BUFFERED = ", buffered"
RANDOM_WRITE, RANDOM_READ = "random write 4 KiB QD32", "random read 4 KiB QD32"
# Before every timed job the disk under the benchmark's folders must have been quiet this long (no request in flight,
# no write or discard completed; --quiet-disk-bound-s bounds the wait).
QUIET_DISK_S = 1.0
# Free space the run leaves beyond what its kept files need (space_needed_bytes): the servers' logs and metadata, the
# file systems' own metadata, and everyone else on the machine.
SPACE_MARGIN_SHARE, SPACE_MARGIN_BYTES = 0.1, 2 * 1024 * MIB


def parallel_label(workload: str, jobs: int) -> str:
    return "%s, %d jobs" % (workload, jobs)


def sequential_file_name(suffix: str) -> str:
    """The file of the sequential pair whose labels end in `suffix`: sequential.dat (direct), sequential-buffered.dat."""
    return "sequential%s.dat" % suffix.replace(",", "").replace(" ", "-")


class BenchmarkError(RuntimeError):
    pass


def positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be a positive integer, not %s" % text)
    return value


def parse_arguments(arguments: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="run_fuse_bench.py",
        description="fio sequential 1 MiB write/read, random 4 KiB write/read at queue depth 32 and "
                    "create/stat/unlink of many files, through a FUSE mount of a private local cluster "
                    "and on the raw local disk in the same run; reports mount/raw-disk ratios.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--size-mib", type=positive_int, metavar="MIB", default=1024,
                        help="size of the sequential file in MiB (the write stops earlier at --runtime-s)")
    parser.add_argument("--random-size-mib", type=positive_int, metavar="MIB", default=256,
                        help="size of the file the random 4 KiB jobs work on, in MiB (written sequentially "
                             "first, untimed, so reads hit real data)")
    parser.add_argument("--sequential-queue-depth", type=positive_int, metavar="N", default=8,
                        help="requests in flight (libaio, O_DIRECT) of the sequential 1 MiB jobs, on the raw disk and "
                             "the mount alike")
    parser.add_argument("--buffered-sequential", action=argparse.BooleanOptionalAction, default=True,
                        help="also run the sequential write and read buffered (psync, write flushed at the end), as "
                             "extra rows labelled ', buffered'")
    parser.add_argument("--runtime-s", type=positive_int, metavar="S", default=15,
                        help="upper bound of every fio job in seconds; the random jobs run exactly this long")
    parser.add_argument("--warm-up-mib", type=int, metavar="MIB", default=256,
                        help="untimed sequential write and read of this many MiB per OSD on every XtreemFS mount "
                             "(whatever its width: ceil(osds/width) files of width x MIB) and of one such file on the "
                             "raw disk and GlusterFS, before the first measured job, so that the servers' JIT "
                             "compiling of their first seconds is not measured as the first row's speed; 0: none")
    parser.add_argument("--warm-up-objects", type=int, metavar="N", default=0,
                        help="first of all warm-ups: untimed O_DIRECT write (libaio, 1 MiB requests, "
                             "--sequential-queue-depth, fsync at the end) and one cold read of N objects per OSD on a "
                             "volume of its own, width --osds, objects of --warm-up-object-kib, mounted for this "
                             "only, then a second pass of N/4 (the files are kept: their deletion would run during "
                             "the rows). An OSD calls its per-object methods once or twice per object, and C2 "
                             "compiles a method after about 5,000 calls (Tier4InvocationThreshold), so 5000 takes "
                             "them past it, which the 1 MiB warm-up alone does not (its compiler threads were 10-66 %% "
                             "of the OSDs' CPU in the sequential rows, session 18). Off by default: in session 19 "
                             "5000 cost 60-130 s and the rows' compiler share did not fall resolvably (tests/bench/"
                             "fuse/README.md, session 19: C2 raises its thresholds by its queue's length); 0: none")
    parser.add_argument("--warm-up-object-kib", type=int, metavar="KIB", default=WARM_UP_OBJECT_KIB_MIN,
                        help="object size of the --warm-up-objects volume, a multiple of 4 from %d (the smallest at "
                             "which the OSD writes whole objects with O_DIRECT and reads them ahead and with "
                             "sendfile, as in the 1 MiB rows) to %d" % (WARM_UP_OBJECT_KIB_MIN, WARM_UP_OBJECT_KIB_MAX))
    parser.add_argument("--warm-up-settle-s", type=int, metavar="S", default=15,
                        help="after each --warm-up-objects pass, wait at most this long until the OSDs' JIT compiler "
                             "threads together use less than %d %%%% of a core over %.0f s: C2 raises its compile "
                             "thresholds by its queue's length (Tier4LoadFeedback), so methods that passed them "
                             "while the queue was long are queued only in a later pass over a short queue; 0: no "
                             "wait" % (100 * SETTLE_CORE_SHARE, SETTLE_WINDOW_S))
    parser.add_argument("--warm-up-random-s", type=int, metavar="S", default=5,
                        help="after the sequential warm-up, untimed random 4 KiB writes and then reads (queue depth "
                             "32, O_DIRECT) on the warm-up file for this long each, on every target; 0: none")
    parser.add_argument("--warm-up-files", type=int, metavar="N", default=5000,
                        help="untimed create, stat and unlink of this many files on every FUSE mount (both XtreemFS "
                             "volumes, which share the MRC, and GlusterFS; not the raw disk: nothing to compile "
                             "there, ext4 slows creates right after many deletions, and its metadata baseline is the "
                             "faster of a run before and one after the mount's) before the first measured job: the "
                             "MRC has done 3N metadata operations per XtreemFS mount (6N = 30,000 by default: two "
                             "volumes) when the rows start, past the "
                             "~30,000 after which its C2 code is compiled and cheaper than C1's "
                             "(tests/bench/fuse/README.md, session 15), so the rows measure a running server, not "
                             "its JIT's first minute; the OSDs' deletion path is compiled by these unlinks too. "
                             "At session 14's quiet rates about 25 s in all, 15 s more than 2,000 files; 0: none")
    parser.add_argument("--parallel-jobs", type=int, metavar="N", default=4,
                        help="also run the sequential write and both random jobs as N fio jobs at once (the "
                             "issue's '4 jobs' figures): each sequential job writes a file of its own of "
                             "--size-mib/N, the random jobs share the random file, each at queue depth 32; "
                             "0 or 1: no such rows")
    parser.add_argument("--files", type=positive_int, metavar="N", default=10000,
                        help="files to create, stat and unlink (one directory)")
    parser.add_argument("--metadata-limit-s", type=positive_int, default=90, metavar="S",
                        help="upper bound of each metadata operation's loop on the mount; the raw disk then "
                             "does as many files as the mount managed")
    parser.add_argument("--osds", type=positive_int, metavar="N", default=3, help="OSDs in the cluster")
    parser.add_argument("--stripe-width", type=positive_int, metavar="N", default=1,
                        help="striping width of the benchmark volume (at most --osds)")
    parser.add_argument("--wide-stripe-width", type=int, metavar="N", default=None,
                        help="striping width of a second volume on which the sequential rows are repeated, to "
                             "show whether wider stripes are faster for one stream (default: --osds; 0 or "
                             "--stripe-width: no such rows)")
    parser.add_argument("--mount-args", default="", metavar="OPTIONS",
                        help="extra mount.xtreemfs options, one shell-quoted string, e.g. \"-o max_read=131072\"")
    parser.add_argument("--out", type=Path, metavar="DIR", default=REPOSITORY / "state" / "bench",
                        help="folder for fuse-<timestamp>.md and .json")
    parser.add_argument("--raw-dir", type=Path, metavar="DIR",
                        help="folder on the local disk for the baseline; a subfolder is created and removed "
                             "(default: STATE/raw, on the same file system as the OSDs' objects)")
    parser.add_argument("--state-parent", type=Path, metavar="DIR", default=Path(tempfile.gettempdir()),
                        help="where the temporary state folder (servers' data, logs, mount point) is created")
    parser.add_argument("--cpp-build", type=Path, metavar="DIR", default=REPOSITORY / "cpp" / "build",
                        help="C++ build folder holding mount.xtreemfs")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), metavar="LIST",
                        help="comma-separated subset of %s to run, in that order (e.g. 'metadata' alone while "
                             "working on the metadata path)" % ",".join(WORKLOADS))
    parser.add_argument("--glusterfs", choices=("auto", "on", "off"), default="auto",
                        help="also run every width-1 row on a one-brick GlusterFS volume (the issue's second "
                             "baseline; needs root and glusterfs-server/-client, which 'bin/install-deps --bench' "
                             "installs): auto runs it when the machine can and says why not in the notes otherwise, "
                             "on fails the run if it cannot, off never runs it")
    parser.add_argument("--quiet-disk-bound-s", type=int, metavar="S", default=30,
                        help="before every timed job (each fio row on each side, each metadata operation), wait until "
                             "the disk under the benchmark's folders has had no request in flight and completed no "
                             "write or discard for %.0f s (/proc/diskstats), at most this long; the wait and the "
                             "disk's writes and discards during the job are in the JSON and the notes; 0: no wait"
                             % QUIET_DISK_S)
    parser.add_argument("--keep-state", action="store_true",
                        help="keep the state folder (logs, data) after a successful run; a failed run always keeps it")
    options = parser.parse_args(arguments)
    options.workloads = [name.strip() for name in options.workloads.split(",") if name.strip()]
    unknown = [name for name in options.workloads if name not in WORKLOADS]
    if unknown or not options.workloads:
        parser.error("--workloads takes a non-empty subset of %s, not '%s'" % (",".join(WORKLOADS), ",".join(unknown)))
    if options.stripe_width > options.osds:
        parser.error("--stripe-width %d exceeds --osds %d" % (options.stripe_width, options.osds))
    if options.wide_stripe_width is None:
        options.wide_stripe_width = options.osds
    if options.wide_stripe_width < 0 or options.wide_stripe_width > options.osds:
        parser.error("--wide-stripe-width %d is not between 0 and --osds %d" % (options.wide_stripe_width,
                                                                                options.osds))
    if options.wide_stripe_width == options.stripe_width:
        options.wide_stripe_width = 0
    if options.warm_up_objects < 0:
        parser.error("--warm-up-objects takes 0 or more, not %d" % options.warm_up_objects)
    if (options.warm_up_object_kib % 4 or not
            WARM_UP_OBJECT_KIB_MIN <= options.warm_up_object_kib <= WARM_UP_OBJECT_KIB_MAX):
        parser.error("--warm-up-object-kib takes a multiple of 4 from %d to %d, not %d" % (
            WARM_UP_OBJECT_KIB_MIN, WARM_UP_OBJECT_KIB_MAX, options.warm_up_object_kib))
    if options.parallel_jobs < 0:
        parser.error("--parallel-jobs takes 0 or more, not %d" % options.parallel_jobs)
    if options.quiet_disk_bound_s < 0:
        parser.error("--quiet-disk-bound-s takes 0 or more, not %d" % options.quiet_disk_bound_s)
    return options


def osd_warm_up_passes(options: argparse.Namespace) -> List[Tuple[int, int]]:
    """(objects per OSD, file size in bytes) of each OSD warm-up pass (WARM_UP_PASSES) on the volume of width --osds."""
    return [(objects, options.osds * objects * options.warm_up_object_kib * 1024)
            for objects in (max(1, round(fraction * options.warm_up_objects)) for fraction in WARM_UP_PASSES)]


def space_needed_bytes(options: argparse.Namespace, with_gluster: bool) -> Dict[str, int]:
    """The bytes of the files a run writes and keeps until its clean-up, per side (MOUNT, WIDE, GLUSTER and
    OSD_WARM_UP live in the state folder, RAW in the raw-disk folder): nothing is deleted between timed jobs (the
    deletions' discards and the OSDs' object removals, osd.deletion.delayMs after an unlink, landed in other rows),
    so every file of every job is on the disk at the end. Writes bounded by --runtime-s may write less; this is the
    most they write. Metadata files are empty: an inode and a directory entry each, counted as 4 KiB."""
    width_one = [MOUNT, RAW] + ([GLUSTER] if with_gluster else [])
    sides = width_one + ([WIDE] if options.wide_stripe_width else [])
    needed = {side: 0 for side in sides}
    for side in sides:
        if options.warm_up_mib > 0:
            width = {MOUNT: options.stripe_width, WIDE: options.wide_stripe_width}.get(side)
            files = 1 if width is None else -(-options.osds // width)
            needed[side] += files * options.warm_up_mib * (width or 1) * MIB
    if options.warm_up_objects > 0:
        needed[OSD_WARM_UP] = sum(size_bytes for _, size_bytes in osd_warm_up_passes(options))
    if "sequential" in options.workloads:
        for side in sides:
            needed[side] += options.size_mib * MIB  # the direct pair
        for side in width_one:
            if options.buffered_sequential:
                needed[side] += options.size_mib * MIB
            if options.parallel_jobs > 1:
                needed[side] += options.parallel_jobs * (options.size_mib * MIB // options.parallel_jobs)
    if "random" in options.workloads:
        for side in width_one:
            needed[side] += options.random_size_mib * MIB
    if "metadata" in options.workloads:
        for side in width_one:
            needed[side] += (2 if side == RAW else 1) * options.files * 4096
    return needed


def space_problem(needed_bytes: int, free_bytes: int, where: str) -> Optional[str]:
    """Why `needed_bytes` (plus SPACE_MARGIN_SHARE of it and SPACE_MARGIN_BYTES) do not fit in `free_bytes`, or
    None when they do."""
    with_margin = int(needed_bytes * (1 + SPACE_MARGIN_SHARE)) + SPACE_MARGIN_BYTES
    if with_margin <= free_bytes:
        return None
    return ("the run keeps its files until the end and needs %.1f GiB on %s (%.1f GiB with a margin of %.0f %% and "
            "%.0f GiB), but only %.1f GiB are free; use smaller --size-mib, --random-size-mib or --warm-up-mib, fewer "
            "--workloads, or free space" % (needed_bytes / 1024 / MIB, where, with_margin / 1024 / MIB,
                                            100 * SPACE_MARGIN_SHARE, SPACE_MARGIN_BYTES / 1024 / MIB,
                                            free_bytes / 1024 / MIB))


def free_bytes(path: Path) -> int:
    status = os.statvfs(path)
    return status.f_bavail * status.f_frsize


def fio_command(filename: Path, rw: str, block_size: str, size_bytes: int, runtime_s: int,
                queue_depth: int = 1, direct: bool = False, time_based: bool = False,
                end_fsync: bool = False, jobs: int = 1, file_per_job: bool = False) -> List[str]:
    """One fio job, or `jobs` alike reported as one (group_reporting: summed bandwidth and IOPS). Buffered
    jobs use psync at depth 1; direct ones libaio at `queue_depth`. `size_bytes` is per job; with
    `file_per_job` job i works on `filename`.i, otherwise all share `filename`."""
    if file_per_job:
        target = ["--directory=%s" % filename.parent, "--filename_format=%s.$jobnum" % filename.name]
    else:
        target = ["--filename=%s" % filename]
    command = ["fio", "--name=bench"] + target + ["--rw=%s" % rw, "--bs=%s" % block_size,
               "--size=%d" % size_bytes, "--runtime=%d" % runtime_s, "--output-format=json",
               "--randrepeat=0", "--norandommap"]
    if jobs > 1:
        command += ["--numjobs=%d" % jobs, "--group_reporting"]
    if direct:
        command += ["--ioengine=libaio", "--direct=1", "--iodepth=%d" % queue_depth]
    else:
        command += ["--ioengine=psync"]
    if time_based:
        command.append("--time_based")
    if end_fsync:
        command.append("--end_fsync=1")  # counted in fio's runtime, so write figures include the flush
    return command


def run_child(command: List[str], timeout_s: float) -> subprocess.CompletedProcess:
    """subprocess.run, except that on an interruption or timeout the child gets SIGTERM first: fio
    then stops its job processes (which run in sessions of their own) instead of leaving them
    writing to the mount that is about to be unmounted."""
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as child:
        try:
            stdout, stderr = child.communicate(timeout=timeout_s)
        except BaseException:
            child.terminate()
            try:
                child.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.communicate()
            raise
    return subprocess.CompletedProcess(command, child.returncode, stdout, stderr)


class Progress:
    """Announces each step on stderr with the time since the start, and its duration when it ends."""

    def __init__(self) -> None:
        self.started = time.monotonic()

    def say(self, text: str) -> None:
        print("[fuse-bench %6.1f s] %s" % (time.monotonic() - self.started, text), file=sys.stderr, flush=True)

    @contextlib.contextmanager
    def step(self, description: str):
        self.say(description + " ...")
        outcome: Dict[str, str] = {}
        began = time.monotonic()
        yield outcome
        self.say("  %s: %s%.1f s" % (description, outcome["result"] + ", " if "result" in outcome else "",
                                     time.monotonic() - began))


class FuseBenchmark:
    def __init__(self, options: argparse.Namespace, state: Path, progress: Progress):
        self.options = options
        self.state = state
        self.progress = progress
        self.cluster: Optional[Cluster] = None
        self.mount: Optional[Mount] = None
        self.wide_mount: Optional[Mount] = None  # the volume of --wide-stripe-width, for the sequential rows
        self.warm_up_mount: Optional[Mount] = None  # the volume of --warm-up-objects, mounted until its warm-up ends
        self.warm_up_folder: Optional[Path] = None  # where on it the warm-up's file goes
        self.gluster: Optional[glusterfs.GlusterVolume] = None  # the GlusterFS baseline (--glusterfs)
        self.page_cache_dropped = True
        self.notes: List[str] = []
        self.runs: Dict[str, Dict[str, dict]] = {MOUNT: {}, RAW: {}, WIDE: {}, GLUSTER: {}, OSD_WARM_UP: {}}
        self.rows: List[Row] = []
        self.disks: List[str] = []  # the disks under the state and raw-disk folders, watched before every timed job
        self.load_average_start = os.getloadavg()[0]  # 1-minute average: how busy the shared machine was

    # ---- set-up and tear-down

    def set_up(self) -> Dict[str, Path]:
        options = self.options
        mount_binary = options.cpp_build / "mount.xtreemfs"
        for tool in ("fio", "cc", "fusermount3"):
            if shutil.which(tool) is None:
                raise BenchmarkError("%s is not installed (make deps installs it)" % tool)
        if not os.access(mount_binary, os.X_OK):
            raise BenchmarkError("%s is not built; run 'make cpp' first" % mount_binary)
        self.check_space()
        metadata_binary = self.state / "metadata_ops"
        with self.progress.step("compiling metadata_ops.c"):
            subprocess.run(["cc", "-O2", "-Wall", "-o", str(metadata_binary),
                            str(Path(__file__).resolve().parent / "metadata_ops.c")], check=True)
        self.cluster = Cluster(REPOSITORY, self.state, options.osds)
        with self.progress.step("starting DIR, MRC and %d OSDs in %s" % (options.osds, self.state)) as step:
            self.cluster.start()
            step["result"] = "DIR on port %d" % self.cluster.dir_port
        with self.progress.step("creating volume 'bench' (stripe width %d)" % options.stripe_width):
            self.cluster.create_volume("bench", options.stripe_width)
        self.mount = Mount(mount_binary, self.cluster.volume_url("bench"), self.state / "mnt",
                           self.state / "mount.log", shlex.split(options.mount_args))
        with self.progress.step("mounting with %s" % " ".join([mount_binary.name] + self.mount.options)):
            self.mount.mount()
        if options.wide_stripe_width:
            with self.progress.step("creating volume 'wide' (stripe width %d)" % options.wide_stripe_width):
                self.cluster.create_volume("wide", options.wide_stripe_width)
            self.wide_mount = Mount(mount_binary, self.cluster.volume_url("wide"), self.state / "mnt-wide",
                                    self.state / "mount-wide.log", shlex.split(options.mount_args))
            with self.progress.step("mounting volume 'wide'"):
                self.wide_mount.mount()
        if options.warm_up_objects > 0:
            width, object_kib = self.osd_warm_up_shape()
            with self.progress.step("creating volume 'warm-up' (stripe width %d, %d KiB objects)" % (width,
                                                                                                    object_kib)):
                self.cluster.create_volume("warm-up", width, object_kib)
            self.warm_up_mount = Mount(mount_binary, self.cluster.volume_url("warm-up"), self.state / "mnt-warm-up",
                                       self.state / "mount-warm-up.log", shlex.split(options.mount_args))
            with self.progress.step("mounting volume 'warm-up'"):
                self.warm_up_mount.mount()
            self.warm_up_folder = self.state / "mnt-warm-up" / "bench"
            self.warm_up_folder.mkdir()
        self.set_up_glusterfs()
        raw = (options.raw_dir or self.state / "raw") / ("xtreemfs-bench-fuse-%d" % os.getpid())
        raw.mkdir(parents=True)
        targets = {MOUNT: self.state / "mnt" / "bench", RAW: raw}
        targets[MOUNT].mkdir()
        if self.wide_mount is not None:
            targets[WIDE] = self.state / "mnt-wide" / "bench"
            targets[WIDE].mkdir()
        if self.gluster is not None:
            targets[GLUSTER] = self.gluster.mount_point / "bench"
            targets[GLUSTER].mkdir()
        if os.stat(raw).st_dev != os.stat(self.state).st_dev:
            self.notes.append("the raw-disk folder %s is on another file system than the OSDs' objects (%s)"
                              % (raw, self.state))
        disks = [disk_under(folder) for folder in (self.state, raw)]
        if options.quiet_disk_bound_s > 0 and None in disks:
            self.notes.append("no disk found under %s: the timed jobs started without waiting for a quiet disk"
                              % " or ".join(str(folder) for folder, disk in zip((self.state, raw), disks) if disk is None))
        self.disks = sorted({disk for disk in disks if disk is not None})
        return targets

    def check_space(self) -> None:
        """Refuses to start when the files the run keeps until its end (space_needed_bytes) do not fit, with a margin,
        in the free space of their file systems, rather than filling the disk."""
        options = self.options
        with_gluster = options.glusterfs != "off" and glusterfs.unavailable_reason() is None
        needed = space_needed_bytes(options, with_gluster)
        raw_parent = options.raw_dir or self.state
        while not raw_parent.exists():
            raw_parent = raw_parent.parent
        state_bytes = sum(size for side, size in needed.items() if side != RAW)
        if os.stat(raw_parent).st_dev == os.stat(self.state).st_dev:
            checks = [(state_bytes + needed[RAW], self.state)]
        else:
            checks = [(state_bytes, self.state), (needed[RAW], raw_parent)]
        for needed_bytes, folder in checks:
            problem = space_problem(needed_bytes, free_bytes(folder), "the file system of %s" % folder)
            if problem is not None:
                raise BenchmarkError(problem)

    def set_up_glusterfs(self) -> None:
        """The GlusterFS baseline per --glusterfs; with auto, a machine that cannot run it gets a note saying why,
        so a table without the GlusterFS columns never looks like a complete one."""
        if self.options.glusterfs == "off":
            return
        reason = glusterfs.unavailable_reason()
        if reason is not None:
            if self.options.glusterfs == "on":
                raise BenchmarkError("--glusterfs on: " + reason)
            self.notes.append("GlusterFS not measured: " + reason)
            return
        self.gluster = glusterfs.GlusterVolume(self.state / "glusterfs")
        with self.progress.step("starting a one-brick GlusterFS volume (%s)" % glusterfs.version()) as step:
            self.gluster.start()
            step["result"] = "volume %s mounted at %s" % (self.gluster.name, self.gluster.mount_point)

    def tear_down(self, targets: Optional[Dict[str, Path]]) -> None:
        for mount in (self.mount, self.wide_mount, self.warm_up_mount):
            if mount is not None:
                mount.unmount()
        if self.gluster is not None:
            self.notes.extend("GlusterFS clean-up: " + problem for problem in self.gluster.stop())
        if self.cluster is not None:
            self.cluster.stop()
        if targets is not None:  # the raw side's kept files (with --keep-state too: they are data, not logs)
            shutil.rmtree(targets[RAW], ignore_errors=True)

    # ---- caches

    def cold_caches(self, remount: Optional[Mount]) -> None:
        """Reads must reach the disk on both sides: a fresh client process for the mount (nothing in
        its memory), then sync and drop the kernel's page, dentry and inode caches, which hold the
        raw-disk file, the mount's pages and the OSDs' object files alike."""
        with self.progress.step("cold caches (%ssync, drop page cache)" % ("remount, " if remount else "")):
            if remount is not None:
                remount.remount()
            os.sync()
            if not self.page_cache_dropped:
                return
            try:
                with open("/proc/sys/vm/drop_caches", "w") as drop:
                    drop.write("3\n")
            except OSError as error:
                self.page_cache_dropped = False
                self.notes.append("could not drop the page cache (%s): the OSDs' object files may be read "
                                  "from memory; fio still evicts the file it reads (invalidate=1)" % error)
                self.progress.say("  WARNING: " + self.notes[-1])

    def mount_of(self, target: str):
        """The mount to restart before a cold read (the XtreemFS mounts and the GlusterFS client), or None."""
        return {MOUNT: self.mount, WIDE: self.wide_mount, GLUSTER: self.gluster}.get(target)

    def width_one(self, targets: Dict[str, Path]) -> Dict[str, Path]:
        """The targets of the width-1 rows: the mount, the raw disk and GlusterFS when measured."""
        return {target: targets[target] for target in (MOUNT, RAW, GLUSTER) if target in targets}

    # ---- workloads

    def quiet_disk(self) -> Dict[str, object]:
        """Waits until the disks under the benchmark's folders are quiet (wait_until_disk_quiet, QUIET_DISK_S, at most
        --quiet-disk-bound-s) before a timed job; returns what the job's record gets: the wait, whether its bound
        ended it, and the disks' counters at the job's start (for disk_activity)."""
        bound_s = self.options.quiet_disk_bound_s
        if bound_s <= 0 or not self.disks:
            return {}
        waited_s, bound_hit = wait_until_disk_quiet(lambda: summed_disk_counters(self.disks), QUIET_DISK_S, bound_s)
        if bound_hit:
            self.progress.say("  WARNING: the disk (%s) was not quiet for %.0f s within %d s: the job starts on a busy "
                              "disk" % (",".join(self.disks), QUIET_DISK_S, bound_s))
        return {"disk_quiet_wait_s": round(waited_s, 2), "disk_quiet_bound_hit": bound_hit,
                "disk_counters_before": summed_disk_counters(self.disks)}

    def disk_record(self, quiet: Dict[str, object]) -> Dict[str, object]:
        """The job's disk figures for its record: the quiet wait and the writes and discards during the job."""
        if not quiet:
            return {}
        record = {key: quiet[key] for key in ("disk_quiet_wait_s", "disk_quiet_bound_hit")}
        record.update(disk_activity(quiet["disk_counters_before"], summed_disk_counters(self.disks)))
        return record

    def fio(self, target: str, workload: str, direction: str, command: List[str], timed: bool = True) -> FioResult:
        """Runs one fio job; a timed one (a row's) starts on a quiet disk (quiet_disk) and records the disk's
        writes and discards during it."""
        osd_pids = self.cluster.osd_pids if target in (MOUNT, WIDE, OSD_WARM_UP) and self.cluster is not None else []
        quiet = self.quiet_disk() if timed else {}
        osd_before = osd_cpu_ticks(osd_pids)
        with self.progress.step("%s on %s" % (workload, target)) as step:
            completed = run_child(command, self.options.runtime_s + FIO_HANG_GUARD_S)
            if completed.returncode != 0:
                raise BenchmarkError("fio %s on %s exited with %d: %s" % (
                    workload, target, completed.returncode, (completed.stderr or completed.stdout)[-2000:]))
            try:
                result = parse_fio_json(completed.stdout, direction)
            except FioOutputError as error:
                raise BenchmarkError("fio %s on %s: %s" % (workload, target, error)) from error
            step["result"] = "%.1f MiB/s, %.0f IOPS, %d MiB" % (
                result.bandwidth_mib_per_s, result.iops, result.io_bytes // MIB)
            run = asdict(result)
            osd_after = osd_cpu_ticks(osd_pids)
            if osd_before is not None and osd_after is not None:
                run["osd_cpu_s"] = (osd_after[0] - osd_before[0]) / TICKS_PER_S
                run["osd_jit_compiler_cpu_s"] = (osd_after[1] - osd_before[1]) / TICKS_PER_S
                step["result"] += ", the OSDs' JIT compiler %.0f %% of their %.1f s of CPU" % (
                    100 * jit_share(run), run["osd_cpu_s"])
            run.update(self.disk_record(quiet))
            step["result"] += disk_summary(run)
        self.runs[target][workload] = run
        return result

    def warm_up_files(self, target: str) -> Tuple[int, int]:
        """(files, MiB per file) of the sequential warm-up on `target`: every OSD gets --warm-up-mib of 1 MiB
        writes and reads whatever the volume's width. Each OSD JVM compiles its own code (session 14: the C2
        compiler threads were 24-45 % of the OSDs' CPU in make bench's sequential rows), so a width-W file of
        --warm-up-mib gave each of its OSDs only 1/W of that, and a width-1 volume warmed the one OSD its
        warm-up file landed on, while its measured file lands on the next (the MRC spreads new files over the
        OSDs): the width-3 rows then measured three JVMs compiling and the width-1 rows one that had not seen
        the 1 MiB path. Hence ceil(osds / width) files of width x --warm-up-mib on the XtreemFS mounts, written
        one after the other and all kept (until the clean-up, as every job's files), so the MRC places them on
        different OSDs; one
        file on the raw disk and GlusterFS (one disk, one brick)."""
        options = self.options
        width = {MOUNT: options.stripe_width, WIDE: options.wide_stripe_width}.get(target)
        if width is None:
            return 1, options.warm_up_mib
        return -(-options.osds // width), options.warm_up_mib * width

    def osd_warm_up_shape(self) -> Tuple[int, int]:
        """(stripe width, object size in KiB) of the --warm-up-objects volume: width --osds, so that one stream
        reaches every OSD."""
        return self.options.osds, self.options.warm_up_object_kib

    def osd_warm_up(self) -> None:
        """The OSDs' per-object paths past C2's thresholds (--warm-up-objects): the 1 MiB rows' job shape (O_DIRECT,
        libaio, 1 MiB requests at --sequential-queue-depth, fsync at the end, then one cold read) on a volume of small
        objects, which the mount splits into whole-object requests, so the OSDs run the rows' code per object,
        several times per MiB. In WARM_UP_PASSES, each on a new file and followed by settle_osd_jit: C2 raises its
        thresholds by the length of its queue (Tier4LoadFeedback: 5,000 calls become 10,000 with three tasks
        queued per C2 thread), and the first pass keeps the queue long with everything else it compiles, so
        methods past the thresholds may get queued only when a later call finds the queue short (the reason for the
        second pass; session 19 saw the waits end within 1-5 s and the second pass compile as much as the first:
        README). Runs before the other warm-ups, so that the 1 MiB one finds this code compiled and whatever the
        1 MiB objects' own profile makes C2 recompile is recompiled there, not in the rows. The files are kept: their
        unlink would have the OSDs delete thousands of object files (osd.deletion.delayMs later) during the rows;
        they go with the cluster."""
        if self.warm_up_folder is None:
            return
        options = self.options
        direct = {"direct": True, "queue_depth": options.sequential_queue_depth}
        parts = []
        for index, (objects, size_bytes) in enumerate(self.osd_warm_up_passes()):
            path = self.warm_up_folder / ("osd-warm-up-%d.dat" % index)
            for direction in ("write", "read"):
                if direction == "read":
                    self.cold_caches(self.warm_up_mount)
                label = "pass %d %s" % (index + 1, direction)
                result = self.fio(OSD_WARM_UP, label, direction, fio_command(
                    path, direction, "1M", size_bytes, FIO_HANG_GUARD_S, end_fsync=direction == "write", **direct),
                    timed=False)
                part = "%s (%d objects per OSD) %.1f s" % (label, objects, result.runtime_ms / 1000)
                run = self.runs[OSD_WARM_UP].get(label, {})
                if "osd_cpu_s" in run:
                    part += ", the OSDs' JIT compiler %.0f %% of their %.1f s of CPU" % (100 * jit_share(run),
                                                                                       run["osd_cpu_s"])
                parts.append(part)
            parts.append("settled after %.1f s" % self.settle_osd_jit())
        self.warm_up_mount.unmount()  # one client process fewer beside the rows
        self.notes.append("OSD warm-up on a volume of %d KiB objects of its own: %s" % (options.warm_up_object_kib,
                                                                                      "; ".join(parts)))

    def osd_warm_up_passes(self) -> List[Tuple[int, int]]:
        return osd_warm_up_passes(self.options)

    def settle_osd_jit(self) -> float:
        """Waits until the OSDs' JIT compiler threads together used less than SETTLE_CORE_SHARE of a core over
        SETTLE_WINDOW_S, at most --warm-up-settle-s; returns the seconds waited."""
        osd_pids = self.cluster.osd_pids if self.cluster is not None else []
        began = time.monotonic()
        before = osd_cpu_ticks(osd_pids)
        while before is not None and time.monotonic() - began < self.options.warm_up_settle_s:
            time.sleep(SETTLE_WINDOW_S)
            after = osd_cpu_ticks(osd_pids)
            if after is None or (after[1] - before[1]) / TICKS_PER_S < SETTLE_CORE_SHARE * SETTLE_WINDOW_S:
                break
            before = after
        return time.monotonic() - began

    def warm_up(self, targets: Dict[str, Path]) -> None:
        """Fresh server JVMs compile their hot code during their first seconds of load (a perf profile showed
        C2 compiler threads at 40 % of the OSDs' CPU during a 15-s job); without this the first row measured
        that, not the file system. Untimed: first the OSDs' per-object paths on small objects (osd_warm_up), then
        every OSD gets the same 1 MiB warm-up (warm_up_files)."""
        options = self.options
        self.osd_warm_up()
        for target, folder in targets.items():
            if options.warm_up_mib > 0:
                count, file_mib = self.warm_up_files(target)
                files = [folder / ("warm-up-%d.dat" % index) for index in range(count)]
                for path in files:
                    self.fio(target, "warm-up", "write", fio_command(path, "write", "1M", file_mib * MIB,
                                                                     FIO_HANG_GUARD_S, end_fsync=True), timed=False)
                    self.fio(target, "warm-up", "read", fio_command(path, "read", "1M", file_mib * MIB,
                                                                    FIO_HANG_GUARD_S), timed=False)
                # The 4 KiB request paths are partly other code than the 1 MiB ones (the OSD's small reads and
                # writes, the mount's asynchronous small requests): warm them too, on the first file.
                for rw, direction in (("randwrite", "write"), ("randread", "read")):
                    if options.warm_up_random_s > 0:
                        self.fio(target, "warm-up", direction, fio_command(
                            files[0], rw, "4k", options.warm_up_mib * MIB, options.warm_up_random_s,
                            queue_depth=32, direct=True, time_based=True), timed=False)
                # The files are kept until the clean-up, like every job's (nothing is deleted between timed jobs).
            if options.warm_up_files > 0 and target != RAW:
                warm_folder = folder / "warm-up-metadata"
                warm_folder.mkdir()
                for operation in ("create", "stat", "unlink"):
                    self.metadata_phase(target, operation, warm_folder, options.warm_up_files,
                                        options.metadata_limit_s, key=operation + " (warm-up)", timed=False)
                    self.runs[target].pop(operation + " (warm-up)", None)
            self.runs[target].pop("warm-up", None)

    def sequential(self, targets: Dict[str, Path]) -> None:
        """The issue's sequential rows: 1 MiB requests with O_DIRECT (libaio, --sequential-queue-depth) on both
        sides, the write flushed at the end, then one cold pass reading exactly what it wrote. Then the buffered
        extra rows (width 1 only) and the N-job write."""
        options = self.options
        direct = {"direct": True, "queue_depth": options.sequential_queue_depth}
        written, read = self.sequential_pair(targets, "", direct)
        if WIDE in targets:
            for workload, results in ((SEQUENTIAL_WRITE, written), (SEQUENTIAL_READ, read)):
                narrow, wide = results[MOUNT].bandwidth_mib_per_s, results[WIDE].bandwidth_mib_per_s
                self.notes.append("%s: stripe width %d gives %.2fx the MiB/s of width %d (%s)" % (
                    workload, self.options.wide_stripe_width, wide / narrow if narrow else float("nan"),
                    self.options.stripe_width, "faster" if wide > narrow else "NOT faster"))
        if options.buffered_sequential:
            self.sequential_pair(self.width_one(targets), BUFFERED, {})
        jobs = options.parallel_jobs
        if jobs > 1:
            parallel: Dict[str, FioResult] = {}
            label = parallel_label(SEQUENTIAL_WRITE, jobs)
            for target in self.width_one(targets):
                parallel[target] = self.fio(target, label, "write", fio_command(
                    targets[target] / "sequential-parallel", "write", "1M", options.size_mib * MIB // jobs,
                    options.runtime_s, end_fsync=True, jobs=jobs, file_per_job=True, **direct))
            self.rows.append(fio_row(label, parallel[MOUNT], parallel[RAW], parallel.get(GLUSTER)))

    def sequential_pair(self, targets: Dict[str, Path], suffix: str,
                        io: Dict[str, object]) -> Tuple[Dict[str, FioResult], Dict[str, FioResult]]:
        """Writes the sequential file on every target (flushed at the end: the raw disk cannot win by leaving
        data in its page cache, nor the mount by leaving it in the OSDs'), then, caches cold, reads it back once;
        adds the rows (labels end in `suffix`). The files are kept until the clean-up, each pair's under a name of
        its own (sequential_file_name): an unlink here had ext4 discard them and the OSDs delete their objects
        during later rows. `io`: fio_command's direct/queue_depth."""
        options = self.options
        written: Dict[str, FioResult] = {}
        write_label, read_label = SEQUENTIAL_WRITE + suffix, SEQUENTIAL_READ + suffix
        name = sequential_file_name(suffix)
        for target, folder in targets.items():
            written[target] = self.fio(target, write_label, "write", fio_command(
                folder / name, "write", "1M", options.size_mib * MIB, options.runtime_s,
                end_fsync=True, **io))
        read: Dict[str, FioResult] = {}
        for target, folder in targets.items():
            self.cold_caches(self.mount_of(target))
            # One pass over exactly what the (possibly runtime-bounded) write produced: fio would otherwise
            # extend the file; the runtime bound is the hang guard only, so the pass is never cut short.
            read[target] = self.fio(target, read_label, "read", fio_command(
                folder / name, "read", "1M", written[target].io_bytes, FIO_HANG_GUARD_S, **io))
        for label, results in ((write_label, written), (read_label, read)):
            self.rows.append(fio_row(label, results[MOUNT], results[RAW], results.get(GLUSTER)))
            if WIDE in targets:
                self.rows.append(fio_row(self.wide_label(label), results[WIDE], results[RAW]))
        return written, read

    def wide_label(self, workload: str) -> str:
        return "%s, width %d (not %d)" % (workload, self.options.wide_stripe_width, self.options.stripe_width)

    def random(self, targets: Dict[str, Path]) -> None:
        targets = self.width_one(targets)
        options = self.options
        size_bytes = options.random_size_mib * MIB
        for target, folder in targets.items():
            # Untimed preparation: every block exists, so reads hit data (not holes or unwritten extents).
            self.fio(target, "preparing %d MiB for the random jobs" % options.random_size_mib, "write",
                     fio_command(folder / "random.dat", "write", "1M", size_bytes, FIO_HANG_GUARD_S,
                                 end_fsync=True), timed=False)
        jobs = options.parallel_jobs
        job_counts = [1, jobs] if jobs > 1 else [1]
        results: Dict[str, Dict[str, FioResult]] = {}
        for workload, rw, direction in ((RANDOM_WRITE, "randwrite", "write"), (RANDOM_READ, "randread", "read")):
            for count in job_counts:
                label = workload if count == 1 else parallel_label(workload, count)
                results[label] = {}
                for target, folder in targets.items():
                    if direction == "read":
                        self.cold_caches(self.mount_of(target))
                    results[label][target] = self.fio(target, label, direction, fio_command(
                        folder / "random.dat", rw, "4k", size_bytes, options.runtime_s, queue_depth=32,
                        direct=True, time_based=True, jobs=count))
        for label, result in results.items():
            self.rows.append(fio_row(label, result[MOUNT], result[RAW], result.get(GLUSTER)))
        # random.dat stays until the clean-up (nothing is deleted between timed jobs).

    def metadata(self, targets: Dict[str, Path]) -> None:
        """create, stat, unlink of up to --files files in one directory per side. The raw disk runs
        right before and right after the mount (in two folders), and the faster of the two is the
        baseline: ext4's inode allocator skips inodes freed in the last 5-10 s (recently_deleted()),
        so creates right after many deletions on the same file system (until session 20 the OSDs removed the
        objects of the fio files osd.deletion.delayMs after their unlink, i.e. during this part) cost a scan per
        create and run several times slower; a single raw run can catch such a window, and a slowed
        baseline inflates the ratio. Both raw figures and the CPU time each loop got are in the notes
        and the JSON. The mount is bounded by --metadata-limit-s per operation; the raw run after it
        does exactly as many files. GlusterFS, when measured, runs right after the mount with the same
        limit, on the files it created itself. The unlinks are the measured operation; leftover files and
        the folders go with the cluster, the GlusterFS volume and the raw-disk folder at the clean-up.
        Since session 20 the fio files are kept until then, so the OSDs no longer delete their objects
        during these rows, and every operation starts on a quiet disk (quiet_disk)."""
        limit_s = self.options.metadata_limit_s
        folders = {target: targets[target] / "metadata" for target in self.width_one(targets)}
        raw_before = targets[RAW] / "metadata-before"
        for folder in list(folders.values()) + [raw_before]:
            folder.mkdir()
        count = self.options.files
        gluster_count = count  # GlusterFS works on the files it created (bounded by the same limit)
        for operation in ("create", "stat", "unlink"):
            if operation == "stat":
                self.cold_caches(self.mount)
            before_done, before_rate = self.metadata_phase(RAW, operation, raw_before, count, None,
                                                           key=operation + " (before the mount)")
            mount_done, mount_rate = self.metadata_phase(MOUNT, operation, folders[MOUNT], count, limit_s)
            gluster_rate = None
            if GLUSTER in folders:
                if operation == "stat":
                    self.cold_caches(self.gluster)
                gluster_count, gluster_rate = self.metadata_phase(GLUSTER, operation, folders[GLUSTER],
                                                                  gluster_count, limit_s)
            raw_done, raw_rate = self.metadata_phase(RAW, operation, folders[RAW], mount_done, None)
            if mount_done < count:
                self.notes.append("%s on the mount stopped at the %d s limit after %d of %d files"
                                  % (operation, limit_s, mount_done, count))
            if gluster_rate is not None and gluster_count < count:
                self.notes.append("%s on GlusterFS stopped at the %d s limit after %d files"
                                  % (operation, limit_s, gluster_count))
            self.notes.append("raw-disk %s: %.0f ops/s before the mount (%d files), %.0f ops/s after it; "
                              "the faster is the baseline" % (operation, before_rate, before_done, raw_rate))
            for key in (operation + " (before the mount)", operation):
                run = self.runs[RAW][key]
                if run.get("cpu_seconds", run["seconds"]) < 0.5 * run["seconds"]:
                    self.notes.append("raw-disk %s got the CPU for only %.0f %% of its %.1f s (other load on the "
                                      "machine): its figure is a lower bound" % (
                                          key, 100 * run["cpu_seconds"] / run["seconds"], run["seconds"]))
            self.rows.append(Row("%s, %d files" % (operation, mount_done), "ops/s", mount_rate,
                                 max(raw_rate, before_rate), gluster_rate))
            count = mount_done  # the next operation works on the files that exist

    def metadata_phase(self, target: str, operation: str, folder: Path, count: int,
                       limit_s: Optional[int], key: Optional[str] = None, timed: bool = True) -> Tuple[int, float]:
        """Runs metadata_ops; returns (files done, operations per second). `key` names the run in the
        JSON (default: the operation). A timed one (a row's) starts on a quiet disk and records the disk's
        writes and discards during it, as fio does."""
        description = "%s of %d files on %s%s" % (operation, count, target,
                                                 "" if key is None else " " + key[len(operation):].strip())
        command = [str(self.state / "metadata_ops"), operation, str(folder), str(count)]
        if limit_s is not None:
            command.append(str(limit_s))
            description += " (at most %d s)" % limit_s
        quiet = self.quiet_disk() if timed else {}
        with self.progress.step(description) as step:
            completed = run_child(command, (limit_s or 0) + FIO_HANG_GUARD_S)
            if completed.returncode != 0:
                raise BenchmarkError("%s failed: %s" % (description, completed.stderr.strip()))
            outcome = json.loads(completed.stdout)
            rate = outcome["count"] / outcome["seconds"]
            step["result"] = "%d files, %.0f ops/s, %.2f s of CPU" % (outcome["count"], rate,
                                                                     outcome.get("cpu_seconds", 0))
            outcome.update(self.disk_record(quiet))
            step["result"] += disk_summary(outcome)
        self.runs[target][key or operation] = dict(outcome, ops_per_s=rate)
        return outcome["count"], rate


TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def osd_cpu_ticks(osd_pids: List[int]) -> Optional[Tuple[int, int]]:
    """(CPU ticks, JIT compiler threads' ticks) summed over the OSD JVMs, or None without OSDs or once one ended."""
    if not osd_pids:
        return None
    totals = [jvm_cpu_ticks(pid) for pid in osd_pids]
    if any(total is None for total in totals):
        return None
    return sum(total[0] for total in totals), sum(total[1] for total in totals)


def jit_share(run: dict) -> float:
    return run["osd_jit_compiler_cpu_s"] / run["osd_cpu_s"] if run["osd_cpu_s"] > 0 else 0.0


def jit_notes(runs: Dict[str, Dict[str, dict]]) -> List[str]:
    """One note per XtreemFS mount: how much of the OSD JVMs' CPU in each measured fio job their JIT compiler threads
    took. An OSD compiles a method called once per 1 MiB object only after thousands of objects (issue 10, session 18:
    C2 was 31-68 % of the OSDs' CPU in the sequential rows after make bench's warm-up, still 5-33 % after 5 GiB), so
    a row's figure measures the JVM's first gigabytes as much as the data path; read a ratio beside its share."""
    notes = []
    for target in (MOUNT, WIDE):
        parts = ["%s %.0f %% of %.1f s" % (workload, 100 * jit_share(run), run["osd_cpu_s"])
                 for workload, run in runs.get(target, {}).items() if "osd_cpu_s" in run]
        if parts:
            notes.append("the OSDs' JIT compiler threads' share of the OSDs' CPU per job on the %s: %s" % (
                target, "; ".join(parts)))
    return notes


def disk_summary(record: Dict[str, object]) -> str:
    """A timed job's disk figures (FuseBenchmark.disk_record) for its progress line; empty without them."""
    if "disk_discards" not in record:
        return ""
    return ", the disk: waited %.1f s to be quiet, then %d discards, %.0f MiB written" % (
        record["disk_quiet_wait_s"], record["disk_discards"], record["disk_write_mib"])


def disk_notes(runs: Dict[str, Dict[str, dict]], disks: List[str], bound_s: int) -> List[str]:
    """The disk before and during every timed job, one note per side: how long the job waited for a quiet disk and
    what the disk discarded and wrote during it (a row the disk discarded for is disturbed: the first make bench runs
    of session 20 had 227 discards/s during a row, from files the benchmark itself had just unlinked); and one note
    per job that started on a busy disk because the wait hit its bound."""
    notes, busy = [], []
    for target, target_runs in runs.items():
        parts = []
        for workload, run in target_runs.items():
            if "disk_discards" not in run:
                continue
            parts.append("%s %.1f s, %d discards (%.0f MiB), %.0f MiB written" % (
                workload, run["disk_quiet_wait_s"], run["disk_discards"], run["disk_discard_mib"],
                run["disk_write_mib"]))
            if run["disk_quiet_bound_hit"]:
                busy.append("%s on %s started on a BUSY disk: %s was not quiet for %.0f s within the %d s bound "
                            "(--quiet-disk-bound-s)" % (workload, target, ",".join(disks), QUIET_DISK_S, bound_s))
        if parts:
            notes.append("the disk (%s) per timed job on the %s (waited to be quiet; then discarded and written during "
                         "the job, by anyone): %s" % (",".join(disks), target, "; ".join(parts)))
    return notes + busy


def fio_version() -> str:
    if shutil.which("fio") is None:
        return "fio not installed"
    return subprocess.run(["fio", "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()


def write_report(options: argparse.Namespace, started: datetime.datetime, duration_s: float,
                 benchmark: FuseBenchmark) -> Dict[str, Path]:
    settings = {"sequential_size_mib": options.size_mib, "random_size_mib": options.random_size_mib,
                "runtime_s": options.runtime_s, "warm_up_mib": options.warm_up_mib,
                "warm_up_random_s": options.warm_up_random_s, "warm_up_files": options.warm_up_files,
                "warm_up_objects": options.warm_up_objects, "warm_up_object_kib": options.warm_up_object_kib,
                "warm_up_settle_s": options.warm_up_settle_s,
                "files": options.files,
                "metadata_limit_s": options.metadata_limit_s, "osds": options.osds,
                "stripe_width": options.stripe_width, "wide_stripe_width": options.wide_stripe_width,
                "parallel_jobs": options.parallel_jobs, "quiet_disk_bound_s": options.quiet_disk_bound_s,
                "quiet_disk_s": QUIET_DISK_S, "disks": getattr(benchmark, "disks", []),
                "sequential_queue_depth": options.sequential_queue_depth,
                "buffered_sequential": options.buffered_sequential,
                "mount_args": options.mount_args}
    host = {"cpus": os.cpu_count(), "kernel": platform.release(), "fio": fio_version(),
            "load_average_start": benchmark.load_average_start, "load_average_end": os.getloadavg()[0],
            "glusterfs": glusterfs.version() if getattr(benchmark, "gluster", None) is not None else None}
    report = {"benchmark": "fuse", "started_utc": started.isoformat(timespec="seconds"),
              "duration_s": round(duration_s, 1), "host": host, "settings": settings,
              "page_cache_dropped": benchmark.page_cache_dropped,
              "rows": [row.to_json() for row in benchmark.rows], "runs": benchmark.runs,
              "notes": benchmark.notes}
    options.out.mkdir(parents=True, exist_ok=True)
    stem = options.out / ("fuse-" + started.strftime("%Y%m%dT%H%M%SZ"))
    paths = {"json": stem.with_suffix(".json"), "md": stem.with_suffix(".md")}
    paths["json"].write_text(json.dumps(report, indent=2) + "\n")
    lines = ["# FUSE benchmark, %s" % report["started_utc"], "",
             "mount.xtreemfs on a private cluster of %d OSDs (stripe width %d%s, all on loopback) against the "
             "raw local disk, same run. Sequential: 1 MiB requests, libaio, O_DIRECT, queue depth %d, up to %d MiB "
             "written (at most %d s) with fsync at the end, then read back in one cold pass%s, after an untimed "
             "warm-up of %d MiB written and read, then %d s each of random 4 KiB writes and reads on it, and on the FUSE mounts "
             "%d files created, stat'ed and unlinked on each (the servers' JIT compiles most of its code in those minutes, but an OSD's per-object methods still compile in the sequential rows: the notes give the share per row). Random: %d MiB file, 4 KiB, libaio, O_DIRECT, queue depth 32, %d s each. "
             "Rows ending in ', N jobs' ran N such fio jobs at once (summed; sequential: a file each). "
             "Metadata: up to %d files in one directory, at most %d s per operation. Caches are cold before every read and before stat. "
             "Host: %d CPUs, kernel %s, %s, load average %.1f at the start and %.1f at the end; duration %.0f s."
             % (options.osds, options.stripe_width,
                ("; the sequential rows also on a volume of width %d" % options.wide_stripe_width
                 if options.wide_stripe_width else ""), options.sequential_queue_depth, options.size_mib,
                options.runtime_s, "; rows ending in ', buffered' ran the same two jobs through the page cache "
                "(psync)" if options.buffered_sequential else "", options.warm_up_mib,
                options.warm_up_random_s, options.warm_up_files, options.random_size_mib,
                options.runtime_s, options.files, options.metadata_limit_s, host["cpus"], host["kernel"],
                host["fio"], benchmark.load_average_start, host["load_average_end"], duration_s), "",
             markdown_table(benchmark.rows).rstrip(), "",
             "Ratio = mount / raw disk; higher is better, 1.0 means as fast as the local disk. One run on a "
             "shared machine: noisy." + (" GlusterFS: %s, one brick in the state folder (same file system), default "
                                         "volume options, its own FUSE client, the width-1 rows only; 'mount / "
                                         "GlusterFS' above 1 means this project was faster." % host["glusterfs"]
                                         if host.get("glusterfs") else "")]
    lines += ["", "Notes:"] + ["- " + note for note in benchmark.notes] if benchmark.notes else []
    paths["md"].write_text("\n".join(lines) + "\n")
    return paths


def interrupt(signal_number, frame):
    """SIGTERM takes the same way out as Ctrl-C: main's finally block unmounts and stops the servers."""
    raise KeyboardInterrupt()


def main(arguments: List[str]) -> int:
    options = parse_arguments(arguments)
    progress = Progress()
    started = datetime.datetime.now(datetime.timezone.utc)
    options.state_parent.mkdir(parents=True, exist_ok=True)
    state = Path(tempfile.mkdtemp(prefix="xtreemfs-bench-fuse.", dir=options.state_parent))
    benchmark = FuseBenchmark(options, state, progress)
    signal.signal(signal.SIGTERM, interrupt)
    targets = None
    status = 1
    try:
        targets = benchmark.set_up()
        benchmark.warm_up(targets)
        for workload in WORKLOADS:
            if workload in options.workloads:
                getattr(benchmark, workload)(targets)
        benchmark.notes.extend(jit_notes(benchmark.runs))
        benchmark.notes.extend(disk_notes(benchmark.runs, benchmark.disks, options.quiet_disk_bound_s))
        status = 0
    except KeyboardInterrupt:
        progress.say("interrupted")
        status = 130
    except (BenchmarkError, ClusterError, glusterfs.GlusterError, subprocess.SubprocessError, OSError) as error:
        progress.say("FAILED: %s" % error)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not leave servers behind
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        with progress.step("cleaning up (unmount, stop servers)"):
            benchmark.tear_down(targets)
        if status == 0 and not options.keep_state:
            shutil.rmtree(state, ignore_errors=True)
        else:
            progress.say("state and logs kept in %s" % state)
    if status != 0:
        return status
    paths = write_report(options, started, time.monotonic() - progress.started, benchmark)
    print()
    print(markdown_table(benchmark.rows), end="")
    for note in benchmark.notes:
        print("note: " + note)
    print("results: %s and %s" % (paths["md"], paths["json"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
