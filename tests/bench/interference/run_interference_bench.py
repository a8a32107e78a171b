#!/usr/bin/python3
"""Interference benchmark (issue 12, benchmark (a)): does a sequential reader keep its throughput when a random
reader shares its replicated volume, with round-robin and with pattern read routing?

One cluster (bin/xtreemfs-cluster, free ports, state under --out): three OSDs on emulated 7200 rpm HDDs
(osd.device.emulation=hdd7200). Two volumes of three replicas, width 1, one per read routing policy
(mkfs.xtreemfs --replicas 3 --read-routing round-robin|pattern), each mounted with mount.xtreemfs. In each volume a
sequential file (--file-mib) and a random file (64 MiB) are placed on the same chain (head, middle, tail: files are
created until the MRC gives them the sequential file's chain, checked with xtfsutil) and written once. Then, per
volume: the sequential reader alone (fio, 128 KiB reads, O_DIRECT, one outstanding) for --phase-s, then the same
reader with --random-jobs random readers (4 KiB reads, O_DIRECT, one outstanding each) beside it, each phase after
the OSDs' emulated write-back has flushed the fill (status.json deviceWriteBackDirtyBytes 0). Reported per
policy: the sequential reader's MiB/s alone and with the random readers, their ratio, the random readers' IOPS and
which replica served how many reads in each phase (the OSDs' storageReadsServed), with the load average.
O_DIRECT keeps the kernel's and the client's caches out, so every read reaches an OSD's emulated disk.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuse"))
from cluster import Cluster, ClusterError, Mount  # noqa: E402  (the FUSE harness's cluster and mount helpers)

REPOSITORY = Path(__file__).resolve().parents[3]
POLICIES = ("round-robin", "pattern")
OSD_NAMES = ("osd0", "osd1", "osd2")
RANDOM_FILE_MIB = 64
PLACEMENT_ATTEMPTS = 24
FIO_GUARD_S = 120


def progress(message: str) -> None:
    print("[interference] " + message, flush=True)


def run(command: List[str], what: str) -> str:
    result = subprocess.run([str(part) for part in command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise ClusterError("%s failed (%d): %s" % (what, result.returncode, result.stdout.strip()[-2000:]))
    return result.stdout


class EmulatedCluster(Cluster):
    """Three OSDs on emulated HDDs, with status ports (reads served per OSD); also benchmark (b)'s
    (tests/bench/fast/run_fast_bench.py), which passes OSD settings (KEY=VALUE, e.g. osd.storage.layout=conventional)."""

    def __init__(self, state: Path, osd_settings: Tuple[str, ...] = ()):
        super().__init__(REPOSITORY, state, 0)
        self.status_ports: Dict[str, int] = {}
        self.osd_settings = osd_settings

    def start(self) -> None:
        self.started = True
        arguments = ["start", "--fresh", "--status-ports"]
        for name in OSD_NAMES:
            arguments += ["--osd", ",".join(("name=%s" % name, "emulation=hdd7200") + self.osd_settings)]
        self._run(*arguments)
        shell = self._run("status", "--shell")
        self.dir_port = int(next(line.split("=")[1] for line in shell.splitlines() if line.startswith("dir_port=")))
        for name in OSD_NAMES:
            self.status_ports[name] = self.status_port(name)

    @property
    def dir_url(self) -> str:
        return "127.0.0.1:%d" % self.dir_port

    def status(self, name: str) -> dict:
        with urllib.request.urlopen("http://127.0.0.1:%d/status.json" % self.status_ports[name], timeout=10) as page:
            return json.load(page)

    def await_write_back_drained(self, timeout_s: float) -> float:
        """Waits until no OSD's emulated write-back holds dirty data (head and middle write buffered, so the fill
        is still being flushed after it returned); returns the seconds waited."""
        started = time.monotonic()
        while any(int(self.status(name)["deviceWriteBackDirtyBytes"]) > 0 for name in OSD_NAMES):
            if time.monotonic() - started > timeout_s:
                raise ClusterError("the OSDs' write-back still holds dirty data after %d s" % timeout_s)
            time.sleep(0.5)
        return time.monotonic() - started

    def reads_served(self) -> Dict[str, int]:
        """By OSD uuid."""
        served = {}
        for name in OSD_NAMES:
            status = self.status(name)
            served[status["uuid"]] = int(status["storageReadsServed"])
        return served


def chain_of(path: Path) -> List[str]:
    """The chain of stripe position 0 of a width-1 file, head first, from `xtfsutil PATH`."""
    shown = run([REPOSITORY / "bin" / "xtfsutil", path], "xtfsutil " + str(path))
    chain = re.findall(r"stripe position 0: OSD (\S+)", shown)
    if len(chain) != 3:
        raise ClusterError("xtfsutil %s shows no chain of three:\n%s" % (path, shown))
    return chain


def place(mount_point: Path, name: str, size_bytes: int, wanted: List[str]) -> Path:
    """A file on the chain `wanted` (any chain when empty): files are created until the MRC gives one that chain."""
    for attempt in range(PLACEMENT_ATTEMPTS):
        path = mount_point / ("%s.try%d" % (name, attempt))
        path.touch()
        os.truncate(path, size_bytes)
        if not wanted or chain_of(path) == wanted:
            for other in range(attempt):
                (mount_point / ("%s.try%d" % (name, other))).unlink()
            final = mount_point / name
            path.rename(final)  # a rename keeps the file's layout
            return final
    raise ClusterError("%d files for %s got other chains than %s" % (PLACEMENT_ATTEMPTS, name, wanted))


def fio_json(command: List[str], what: str, timeout_s: float) -> dict:
    result = subprocess.run(command + ["--output-format=json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, timeout=timeout_s, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise ClusterError("%s failed (%d): %s" % (what, result.returncode, result.stderr.strip()[-2000:]))
    return json.loads(result.stdout[result.stdout.index("{"):])


def fill(path: Path, size_bytes: int) -> None:
    fio_json(["fio", "--name=fill", "--filename=" + str(path), "--rw=write", "--bs=1m", "--direct=1",
              "--ioengine=psync", "--size=%d" % size_bytes], "fio fill of " + str(path), 1800)


def sequential_command(path: Path, size_bytes: int, seconds: int) -> List[str]:
    return ["fio", "--name=sequential", "--filename=" + str(path), "--rw=read", "--bs=128k", "--direct=1",
            "--ioengine=psync", "--size=%d" % size_bytes, "--time_based", "--runtime=%d" % seconds]


def random_command(path: Path, jobs: int, seconds: int) -> List[str]:
    return ["fio", "--name=random", "--filename=" + str(path), "--rw=randread", "--bs=4k", "--direct=1",
            "--ioengine=psync", "--size=%d" % (RANDOM_FILE_MIB << 20), "--numjobs=%d" % jobs, "--time_based",
            "--runtime=%d" % seconds, "--group_reporting", "--randseed=42"]


def read_mib_per_second(result: dict) -> float:
    return sum(job["read"]["bw_bytes"] for job in result["jobs"]) / float(1 << 20)


def read_iops(result: dict) -> float:
    return sum(job["read"]["iops"] for job in result["jobs"])


def measure_policy(cluster: EmulatedCluster, policy: str, out: Path, options: argparse.Namespace) -> dict:
    volume = "interference-" + policy
    run([REPOSITORY / "bin" / "mkfs.xtreemfs", "--replicas", "3", "--striping-width", "1", "--read-routing", policy,
         "%s/%s" % (cluster.dir_url, volume)], "mkfs.xtreemfs " + volume)
    mount = Mount(Path(options.cpp_build) / "mount.xtreemfs", "pbrpc://%s/%s" % (cluster.dir_url, volume),
                  out / "mnt" / policy, out / ("mount-%s.log" % policy), [])
    mount.mount()
    try:
        size_bytes = options.file_mib << 20
        sequential = place(mount.mount_point, "sequential.dat", size_bytes, [])
        chain = chain_of(sequential)
        random_file = place(mount.mount_point, "random.dat", RANDOM_FILE_MIB << 20, chain)
        progress("%s: chain head %s, middle %s, tail %s; writing %d MiB + %d MiB through it"
                 % (policy, chain[0], chain[1], chain[2], options.file_mib, RANDOM_FILE_MIB))
        fill(sequential, size_bytes)
        fill(random_file, RANDOM_FILE_MIB << 20)
        progress("%s: write-back drained after %.1f s more" % (policy, cluster.await_write_back_drained(300)))

        progress("%s: sequential reader alone for %d s" % (policy, options.phase_s))
        before = cluster.reads_served()
        alone = fio_json(sequential_command(sequential, size_bytes, options.phase_s), "fio sequential alone",
                         options.phase_s + FIO_GUARD_S)
        after_alone = cluster.reads_served()

        progress("%s: sequential reader with %d random readers for %d s" % (policy, options.random_jobs,
                                                                            options.phase_s))
        random_reader = subprocess.Popen(random_command(random_file, options.random_jobs, options.phase_s + 2)
                                         + ["--output-format=json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, stdin=subprocess.DEVNULL)
        try:
            time.sleep(1)  # the random readers are running when the measured phase starts
            shared = fio_json(sequential_command(sequential, size_bytes, options.phase_s), "fio sequential shared",
                              options.phase_s + FIO_GUARD_S)
            random_output, random_errors = random_reader.communicate(timeout=FIO_GUARD_S)
        finally:
            if random_reader.poll() is None:
                random_reader.kill()
                random_reader.wait()
        if random_reader.returncode != 0:
            raise ClusterError("fio random failed (%d): %s" % (random_reader.returncode, random_errors[-2000:]))
        random_result = json.loads(random_output[random_output.index("{"):])
        after_shared = cluster.reads_served()
        alone_mib_s = read_mib_per_second(alone)
        shared_mib_s = read_mib_per_second(shared)
        return {
            "policy": policy,
            "chain": chain,
            "sequential_alone_mib_s": round(alone_mib_s, 2),
            "sequential_shared_mib_s": round(shared_mib_s, 2),
            "ratio": round(shared_mib_s / alone_mib_s, 3) if alone_mib_s > 0 else 0.0,
            "random_iops": round(read_iops(random_result), 1),
            "reads_alone_head_middle_tail": [after_alone[uuid] - before[uuid] for uuid in chain],
            "reads_shared_head_middle_tail": [after_shared[uuid] - after_alone[uuid] for uuid in chain],
        }
    finally:
        mount.unmount()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(REPOSITORY / "state" / "bench" / "interference"),
                        help="folder for the cluster state, logs and results (default: state/bench/interference)")
    parser.add_argument("--cpp-build", default=str(REPOSITORY / "cpp" / "build"),
                        help="folder holding mount.xtreemfs (default: cpp/build)")
    parser.add_argument("--file-mib", type=int, default=128, help="size of the sequential file (default: 128)")
    parser.add_argument("--phase-s", type=int, default=20, help="seconds per measured phase (default: 20)")
    parser.add_argument("--random-jobs", type=int, default=3,
                        help="random readers beside the sequential one, each its own open file (default: 3)")
    options = parser.parse_args()
    if options.file_mib < 1 or options.phase_s < 1 or options.random_jobs < 1:
        parser.error("--file-mib, --phase-s and --random-jobs must be at least 1")
    out = Path(options.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    cluster = EmulatedCluster(out)
    results = []
    try:
        progress("starting a cluster of three emulated-HDD OSDs")
        cluster.start()
        for policy in POLICIES:
            results.append(measure_policy(cluster, policy, out, options))
    finally:
        cluster.stop()
    load = os.getloadavg()
    report = {"load_average_1_5_15": [round(value, 2) for value in load], "file_mib": options.file_mib,
              "phase_s": options.phase_s, "random_jobs": options.random_jobs, "results": results}
    (out / "interference.json").write_text(json.dumps(report, indent=2) + "\n")
    print("%-12s %14s %14s %7s %12s  %-22s %-22s" % ("routing", "seq alone MiB/s", "seq shared", "ratio",
                                                    "random IOPS", "reads alone h/m/t", "reads shared h/m/t"))
    for result in results:
        print("%-12s %14.2f %14.2f %7.3f %12.1f  %-22s %-22s" % (
            result["policy"], result["sequential_alone_mib_s"], result["sequential_shared_mib_s"], result["ratio"],
            result["random_iops"], "/".join(map(str, result["reads_alone_head_middle_tail"])),
            "/".join(map(str, result["reads_shared_head_middle_tail"]))))
    print("load average %.2f %.2f %.2f (1/5/15 min); figures in %s" % (load + (out / "interference.json",)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ClusterError as error:
        print("interference benchmark: %s" % error, file=sys.stderr)
        sys.exit(1)
