#!/usr/bin/env python3
"""A/B of make bench's stat row as it runs there (issue 10): per side a private cluster (one OSD, a width-1 volume)
and a mount; make bench's metadata warm-up (create, stat, unlink of --warm-up-files); then per round and side
(the order reversed every round): create --files files in a fresh folder, a fresh mount process, sync and
drop_caches, and `metadata_ops stat` of every file (the row), with the CPU per stat of the mount and the MRC and
the MRC's calls per stat (ab_data_path.py's figures). Then, again after a fresh mount and dropped caches, a
diagnostic pass that times every stat(2) on its own (Python, os.stat): where the row's time goes (the first
stats, the one that waits for the stat-ahead listing, the rest). The files are unlinked untimed.

  stat_cold_ab.py --build MAIN=/work/main --build NEW=. --rounds 4 --out /tmp/stat-cold-ab

Needs root (drop_caches) and fusermount3; stops its clusters and mounts at the end.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ab_data_path import Side, drop_caches, load, metadata  # noqa: E402
from cluster import Mount  # noqa: E402


class StatSide(Side):
    def remount(self):
        """A fresh mount process (make bench's cold_caches), started as make bench starts it (cluster.Mount)."""
        subprocess.run(["fusermount3", "-u", str(self.mnt)], check=True)
        self.mount_process.wait(60)
        mount = Mount(self.mount_binary, "pbrpc://127.0.0.1:%d/v%d" % (self.dir_port, self.width), self.mnt,
                      self.state / "mount.log", self.mount_args)
        mount.mount()
        self.mount_process = mount.process


def read_bytes(pid):
    """Bytes the process caused to be read from the disk (/proc/PID/io): the MRC's store reads that missed the page
    cache."""
    for line in Path("/proc/%d/io" % pid).read_text().splitlines():
        if line.startswith("read_bytes:"):
            return int(line.split()[1])
    return 0


def cold(side):
    side.remount()
    os.sync()
    drop_caches()


def timed_stats(folder, files):
    """Every stat(2)'s duration in us, in order."""
    durations = []
    for index in range(files):
        path = "%s/f%d" % (folder, index)
        start = time.perf_counter_ns()
        os.stat(path)
        durations.append((time.perf_counter_ns() - start) / 1e3)
    return durations


def latency_summary(durations):
    ranked = sorted(range(len(durations)), key=lambda i: -durations[i])
    total = sum(durations)
    return {"total_ms": round(total / 1e3, 1), "first_12_us": [round(d) for d in durations[:12]],
            "slowest_us": [(i, round(durations[i])) for i in ranked[:12]],
            "over_1ms": sum(1 for d in durations if d > 1000),
            "over_1ms_ms": round(sum(d for d in durations if d > 1000) / 1e3, 1),
            "median_us": round(sorted(durations)[len(durations) // 2], 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", action="append", required=True, help="NAME=REPO")
    parser.add_argument("--mount", action="append", default=[], help="NAME=PATH of mount.xtreemfs")
    parser.add_argument("--mount-args", action="append", default=[], help="NAME=ARGS")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--warm-up-files", type=int, default=5000, help="make bench's --warm-up-files")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--no-timed-pass", action="store_true",
                        help="skip the second cold pass that times every stat (at a load of 20-30 it takes minutes)")
    parser.add_argument("--create-once", action="store_true",
                        help="create the files in the first round only and stat the same ones (each time after a fresh "
                             "mount and dropped caches) in every round: on a loaded machine the creates take minutes")
    parser.add_argument("--keep-files", action="store_true",
                        help="leave each round's files instead of unlinking them (untimed either way; saves minutes "
                             "on a loaded machine; the MRC's store then grows by --files files per round and side)")
    parser.add_argument("--profile-round", type=int, default=-1, metavar="N",
                        help="profile round N's stat row: perf -g of the mount and the servers, and with "
                             "--async-profiler the JVMs' Java frames (ab_data_path.py's profiling)")
    parser.add_argument("--async-profiler", type=Path, metavar="LIB", help="path of libasyncProfiler.so")
    options = parser.parse_args()
    mounts = dict(item.split("=", 1) for item in options.mount)
    mount_args = {name: args.split() for name, args in (item.split("=", 1) for item in options.mount_args)}
    options.out.mkdir(parents=True, exist_ok=True)
    binary = options.out / "metadata_ops"
    subprocess.run(["cc", "-O2", "-Wall", "-o", str(binary), str(Path(__file__).resolve().parent / "metadata_ops.c")],
                   check=True)
    sides = []
    for item in options.build:
        name, repo = item.split("=", 1)
        sides.append(StatSide(name, Path(repo).resolve(), (options.out / name).resolve(), 1, mount_args.get(name, []),
                              [], "", mounts.get(name), osds=1))
        sides[-1].async_profiler = options.async_profiler
    results = []
    print("load %.1f at start" % load(), flush=True)
    try:
        for side in sides:
            side.start()
        for side in sides if options.warm_up_files > 0 else []:
            folder = side.mnt / "warm-up"
            folder.mkdir()
            for operation in ("create", "stat", "unlink"):
                metadata(side, operation, folder, options.warm_up_files, binary)
            folder.rmdir()
        for round_index in range(options.rounds):
            order = sides if round_index % 2 == 0 else list(reversed(sides))
            for side in order:
                folder = side.mnt / ("r%d" % (0 if options.create_once else round_index))
                if round_index == 0 or not options.create_once:
                    folder.mkdir()
                    metadata(side, "create", folder, options.files, binary)
                cold(side)
                profile = side.state / "profile" if round_index == options.profile_round else None
                disk0, mount_disk0 = read_bytes(side.mrc_pid), read_bytes(side.mount_process.pid)
                row = metadata(side, "stat", folder, options.files, binary, profile)
                row["mrc_disk_read_bytes"] = read_bytes(side.mrc_pid) - disk0
                row["mount_disk_read_bytes"] = read_bytes(side.mount_process.pid) - mount_disk0
                if not options.no_timed_pass:
                    cold(side)
                    row["latencies"] = latency_summary(timed_stats(folder, options.files))
                row["round"] = round_index
                results.append(row)
                print("%d %-6s stat %7.0f/s  mount %5.1f us/op  mrc %5.1f us/op  calls %s  disk read mrc %d KiB mount %d KiB  load %.1f  |"
                      " timed pass: %s" % (round_index, side.name, row["iops"], row["mount_us_per_io"], row["mrc_us_per_io"],
                               {k: round(v, 4) for k, v in row.get("mrc_calls_per_op", {}).items()},
                               row["mrc_disk_read_bytes"] // 1024,
                               row["mount_disk_read_bytes"] // 1024, row["load_after"], row.get("latencies", "-")), flush=True)
                if not options.keep_files and not options.create_once:
                    metadata(side, "unlink", folder, options.files, binary)
                    folder.rmdir()
    finally:
        for side in sides:
            side.stop()
        (options.out / "results.json").write_text(json.dumps(results, indent=1))
    print("load %.1f at end" % load())


if __name__ == "__main__":
    main()
