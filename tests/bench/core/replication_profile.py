#!/usr/bin/python3
"""Where a replicated write's time goes (issue 12, the analysis of benchmark (c)): write throughput and CPU time per
MiB with 2 and 3 replicas against one, on one cluster.

One cluster of three OSDs (bin/xtreemfs-cluster, free ports, state under --out), emulated 7200 rpm HDDs or the real
disk (--emulation), and three volumes of width 1 with 1, 2 and 3 replicas (mkfs.xtreemfs --replicas). Benchmark (c)'s
ReplicationBenchmark (the Java client, 1 MiB requests, one outstanding, fsync at the end, order alternating per
round) runs twice: 3 replicas against 1, then 2 against 1. At each of its progress lines (one file written and
deleted) the CPU time (user + system, /proc/PID/stat) of every OSD process and of the benchmark's JVM is sampled, so
each file gets its CPU seconds per MiB (ReplicationBenchmark's warm-up file per volume is not counted: the first
chain writes cost about twice the CPU per MiB). Printed per
replica count: median MiB/s and its ratio to one replica, OSD and client CPU seconds per MiB, and the load average.
If the machine's CPU is what limits the writes (CPU-saturated, so every thread waits for a core), throughput goes
as the inverse of CPU per MiB; if the chain's serial hops or the tail's synced writes limit it, throughput falls
further than CPU per MiB rises.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuse"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "interference"))
from cluster import Cluster, ClusterError  # noqa: E402  (the FUSE harness's cluster helper)
from run_interference_bench import EmulatedCluster, run  # noqa: E402  (benchmark (a)'s emulated cluster)

REPOSITORY = Path(__file__).resolve().parents[3]
REPLICAS = (1, 2, 3)  # volumes r1, r2, r3
CLOCK_TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def osd_pids(cluster: Cluster) -> Dict[str, int]:
    pids = {}
    for line in (cluster.cluster_state / "cluster.properties").read_text().splitlines():
        key, _, value = line.partition("=")
        parts = key.split(".")
        if len(parts) == 3 and parts[0] == "server" and parts[2] == "pid" and parts[1].startswith("osd"):
            pids[parts[1]] = int(value)
    if len(pids) != 3:
        raise ClusterError("cluster.properties names %d OSD pids, not 3: %s" % (len(pids), pids))
    return pids


def cpu_seconds(pid: int) -> float:
    """User + system time of the process and its threads (fields 14 and 15 of /proc/PID/stat)."""
    fields = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS_PER_SECOND


PROGRESS = re.compile(r"\[bench\] round (\d+): r(\d) ([0-9.]+) MiB/s")


def compare(cluster: Cluster, replicas: int, options: argparse.Namespace) -> List[dict]:
    """ReplicationBenchmark, `replicas` against 1; one row per file written, with CPU seconds per MiB."""
    command = [str(REPOSITORY / "bin" / "xtreemfs-java"), "tests/bench/core",
               "org.xtreemfs.bench.core.ReplicationBenchmark", "--replicated-volume",
               "127.0.0.1:%d/r%d" % (cluster.dir_port, replicas), "--unreplicated-volume",
               "127.0.0.1:%d/r1" % cluster.dir_port, "--size-mib", str(options.size_mib), "--rounds",
               str(options.rounds)]
    pids = osd_pids(cluster)
    osd_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    bench = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL)  # xtreemfs-java execs java: bench.pid is the JVM
    client_before = 0.0
    rows = []
    for line in bench.stderr:
        if "[bench] warm-up done" in line:  # count from here
            osd_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
            client_before = cpu_seconds(bench.pid)
            continue
        match = PROGRESS.search(line)
        if match is None:
            continue
        osd_now = {name: cpu_seconds(pid) for name, pid in pids.items()}
        client_now = cpu_seconds(bench.pid)
        osd_cpu = sum(osd_now[name] - osd_before[name] for name in pids)
        rows.append({"replicas": int(match.group(2)), "round": int(match.group(1)),
                     "mib_per_second": float(match.group(3)),
                     "osd_cpu_s_per_mib": round(osd_cpu / options.size_mib, 4),
                     "osd_cpu_s": {name: round(osd_now[name] - osd_before[name], 2) for name in pids},
                     "client_cpu_s_per_mib": round((client_now - client_before) / options.size_mib, 4),
                     "load_average": [round(value, 2) for value in os.getloadavg()]})
        print("[replication-profile] %s" % rows[-1], flush=True)
        osd_before, client_before = osd_now, client_now
    output = bench.stdout.read()
    if bench.wait() != 0:
        raise ClusterError("ReplicationBenchmark failed (%d): %s" % (bench.returncode, output[-2000:]))
    print(output, end="")
    return rows


def main(arguments: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(REPOSITORY / "state" / "bench" / "replication-profile"),
                        help="folder for the cluster's state and logs (default: state/bench/replication-profile)")
    parser.add_argument("--size-mib", type=int, default=64, help="each file (default: 64)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each copying one file per volume (default: 3)")
    parser.add_argument("--emulation", choices=("hdd7200", "none"), default="hdd7200",
                        help="the OSDs' osd.device.emulation (default: hdd7200)")
    options = parser.parse_args(arguments)
    if options.size_mib < 1 or options.rounds < 1:
        parser.error("--size-mib and --rounds must be at least 1")
    out = Path(options.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    cluster = EmulatedCluster(out) if options.emulation == "hdd7200" else Cluster(REPOSITORY, out, 3)
    rows = []
    try:
        cluster.start()
        for replicas in REPLICAS:
            run([REPOSITORY / "bin" / "mkfs.xtreemfs", "--replicas", str(replicas), "--striping-width", "1",
                 "127.0.0.1:%d/r%d" % (cluster.dir_port, replicas)], "mkfs.xtreemfs r%d" % replicas)
        print("load average before: %s" % " ".join("%.2f" % value for value in os.getloadavg()))
        rows += compare(cluster, 3, options)
        rows += compare(cluster, 2, options)
    finally:
        cluster.stop()
    single = statistics.median(r["mib_per_second"] for r in rows if r["replicas"] == 1)
    print("emulation=%s, %d MiB per file, %d rounds" % (options.emulation, options.size_mib, options.rounds))
    print("%-9s %14s %7s %15s %18s" % ("replicas", "median MiB/s", "ratio", "OSD CPU s/MiB", "client CPU s/MiB"))
    for replicas in REPLICAS:
        mine = [r for r in rows if r["replicas"] == replicas]
        rate = statistics.median(r["mib_per_second"] for r in mine)
        print("%-9d %14.2f %7.2f %15.4f %18.4f" % (
            replicas, rate, rate / single, statistics.median(r["osd_cpu_s_per_mib"] for r in mine),
            statistics.median(r["client_cpu_s_per_mib"] for r in mine)))
    print("load average after: %s" % " ".join("%.2f" % value for value in os.getloadavg()))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except ClusterError as error:
        print("replication profile: %s" % error, file=sys.stderr)
        sys.exit(1)
