#!/usr/bin/python3
"""FAST's experiment on a real chain (issue 12, benchmark (b)), at a reduced size, beside the simulator's prediction.

Tenants of four classes share one chain of three emulated-HDD OSDs (osd.device.emulation=hdd7200) through one
mount.xtreemfs: random readers (rr), sequential readers (sr), random writers (rw) and sequential writers (sw), each
with a file of its own (its "chunk", --chunk-mib), 4 KiB requests, O_DIRECT, --queue-depth outstanding (libaio), all
starting together. Each moves FAST's bytes for its class (tests/sim/scenarios/fast.properties: 16, 19, 20 and 20 MiB)
times --scale; its completion time is fio's runtime of the job (plus its start delay, below). Three variants, each on
a fresh cluster (bin/xtreemfs-cluster, free ports, state under --out) so that each starts from the same state:

  round-robin          mkfs.xtreemfs --read-routing round-robin, OSDs with osd.storage.layout=conventional: FAST's
                       baseline (each open file's reads bound to a replica in turn, the tail writes in place);
                       the simulator's variant `baseline`
  pattern-no-stealing  --read-routing pattern-no-stealing, the default layout (the tail keeps a log): FAST routing
                       without stealing (random reads to the head, sequential ones to the middle); sim `pattern`
  pattern              --read-routing pattern: the same with stealing; sim `pattern-steal`

Every tenant's file is placed on the same chain (files are created until the MRC gives the first file's chain, read
from the xtreemfs.locations attribute). The readers' files are written in full first, the writers' files are made
sparse at --chunk-mib, and the OSDs' emulated write-back is left to drain before the tenants start. Readers start
--stagger-ms apart in declaration order (random readers first), so that round-robin binding numbers their streams
in the simulator's order (reader i on replica i mod 3).

The simulator (bin/xtreemfs-sim, FastScenario) runs the same reduced scenario: fast.properties with this run's
tenants, bytes, chunk size and queue depth, each chunk at the place the emulated disk gives that tenant's file
(qos.device.DeviceLayout: the region its file id hashes to). The emulated HDD runs the model at half speed, so the
prediction is the simulator's time times --sim-speed-factor (2). Reported per class and variant: the measured mean
(min-max) completion time and the prediction, the ratios to round-robin, which replica served how many reads, and
the load average before and after each variant (the machine may be shared; compare ratios within one run).
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuse"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "interference"))
from cluster import ClusterError, Mount  # noqa: E402  (the FUSE harness's cluster and mount helpers)
from run_interference_bench import EmulatedCluster, fio_json, run  # noqa: E402  (benchmark (a)'s cluster)

REPOSITORY = Path(__file__).resolve().parents[3]
SIM_BASE_SCENARIO = REPOSITORY / "tests" / "sim" / "scenarios" / "fast.properties"
MIB = 1 << 20
GIB = 1 << 30
PLACEMENT_ATTEMPTS = 48
FIO_GUARD_S = 900


@dataclass(frozen=True)
class Variant:
    name: str          # also the read routing policy (mkfs.xtreemfs --read-routing)
    layout: str        # osd.storage.layout of every OSD
    sim_variant: str   # FastScenario's variant


VARIANTS = (Variant("round-robin", "conventional", "baseline"),
            Variant("pattern-no-stealing", "role", "pattern"),
            Variant("pattern", "role", "pattern-steal"))


@dataclass(frozen=True)
class TenantClass:
    group: str         # the simulator's tenant group
    title: str
    fio_rw: str
    fast_mib: float    # bytes per tenant in tests/sim/scenarios/fast.properties
    sim_role: str      # FastScenario.Role in its completions CSV

    @property
    def reads(self) -> bool:
        return self.fio_rw in ("read", "randread")


CLASSES = (TenantClass("rr", "random readers", "randread", 16, "RANDOM_READ"),
           TenantClass("sr", "sequential readers", "read", 19, "SEQUENTIAL_READ"),
           TenantClass("rw", "random writers", "randwrite", 20, "RANDOM_WRITE"),
           TenantClass("sw", "sequential writers", "write", 20, "SEQUENTIAL_WRITE"))


@dataclass(frozen=True)
class Tenant:
    tenant_id: str     # as the simulator names it (ScenarioConfig.tenants)
    tenant_class: TenantClass
    bytes: int


def progress(message: str) -> None:
    print("[fast] " + message, flush=True)


def tenants_of(counts: Dict[str, int], scale: float) -> List[Tenant]:
    """In declaration order, with the simulator's ids: a group of one is its name, of 2-9 name1.., of 10+ name01.."""
    tenants = []
    for tenant_class in CLASSES:
        count = counts[tenant_class.group]
        for index in range(1, count + 1):
            suffix = "" if count == 1 else ("%02d" % index if count >= 10 else str(index))
            # whole 4 KiB requests
            size = max(4096, int(tenant_class.fast_mib * scale * MIB) // 4096 * 4096)
            tenants.append(Tenant(tenant_class.group + suffix, tenant_class, size))
    return tenants


def region_start_gib(file_id: str) -> int:
    """qos.device.DeviceLayout.regionStartBytes on the emulated HDD (1 TiB, regions of 1 GiB), in GiB: 64-bit FNV-1a
    over the id's UTF-16 code units, unsigned, modulo the region count."""
    units = file_id.encode("utf-16-le")
    value = 0xcbf29ce484222325
    for index in range(0, len(units), 2):
        value = ((value ^ int.from_bytes(units[index:index + 2], "little")) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return value % 1024


def chain_of(path: Path) -> List[str]:
    locations = json.loads(os.getxattr(str(path), "xtreemfs.locations").decode())
    return [replica["osds"][0] for replica in locations["replicas"]]


def place(mount_point: Path, name: str, size_bytes: int, wanted: List[str]) -> Path:
    """A file of `size_bytes` (sparse) on the chain `wanted` (any when empty): files are created until the MRC gives
    one that chain."""
    for attempt in range(PLACEMENT_ATTEMPTS):
        path = mount_point / ("%s.try%d" % (name, attempt))
        path.touch()
        chain = chain_of(path)
        if len(chain) != 3:
            raise ClusterError("%s has a chain of %d replicas, not 3: %s" % (path, len(chain), chain))
        if not wanted or chain == wanted:
            os.truncate(path, size_bytes)
            final = mount_point / name
            path.rename(final)  # a rename keeps the file's layout
            return final
        path.unlink()
    raise ClusterError("%d files for %s got other chains than %s" % (PLACEMENT_ATTEMPTS, name, wanted))


def job_file(tenants: List[Tenant], paths: Dict[str, Path], options: argparse.Namespace) -> str:
    lines = ["[global]", "bs=4k", "direct=1", "ioengine=libaio", "iodepth=%d" % options.queue_depth,
             "size=%d" % (options.chunk_mib * MIB), "fallocate=none", ""]
    reader = 0
    for index, tenant in enumerate(tenants):
        lines += ["[%s]" % tenant.tenant_id, "filename=%s" % paths[tenant.tenant_id],
                  "rw=%s" % tenant.tenant_class.fio_rw, "io_size=%d" % tenant.bytes, "randseed=%d" % (1000 + index)]
        if tenant.tenant_class.reads:
            lines.append("startdelay=%dms" % (reader * options.stagger_ms))
            reader += 1
        lines.append("")
    return "\n".join(lines)


def start_delay_s(tenants: List[Tenant], options: argparse.Namespace) -> Dict[str, float]:
    readers = [t.tenant_id for t in tenants if t.tenant_class.reads]
    return {t.tenant_id: (readers.index(t.tenant_id) * options.stagger_ms / 1000.0 if t.tenant_id in readers else 0.0)
            for t in tenants}


def load_average() -> List[float]:
    return [round(value, 2) for value in os.getloadavg()]


def measure_variant(variant: Variant, tenants: List[Tenant], out: Path, options: argparse.Namespace) -> dict:
    state = out / variant.name
    settings = ("osd.storage.layout=%s" % variant.layout,)
    cluster = EmulatedCluster(state, settings)
    mount = None
    try:
        progress("%s: starting three emulated-HDD OSDs (%s)" % (variant.name, settings[0]))
        cluster.start()
        volume = "fast-" + variant.name
        run([REPOSITORY / "bin" / "mkfs.xtreemfs", "--replicas", "3", "--striping-width", "1", "--read-routing",
             variant.name, "%s/%s" % (cluster.dir_url, volume)], "mkfs.xtreemfs " + volume)
        mount = Mount(Path(options.cpp_build) / "mount.xtreemfs", "pbrpc://%s/%s" % (cluster.dir_url, volume),
                      state / "mnt", state / "mount.log", ["--io-threads", "32", "--no-write-behind"])
        mount.mount()
        chunk_bytes = options.chunk_mib * MIB
        paths: Dict[str, Path] = {}
        chain: List[str] = []
        for tenant in tenants:
            paths[tenant.tenant_id] = place(mount.mount_point, tenant.tenant_id + ".dat", chunk_bytes, chain)
            chain = chain or chain_of(paths[tenant.tenant_id])
        file_ids = {tid: os.getxattr(str(path), "xtreemfs.file_id").decode() for tid, path in paths.items()}
        readers = [t for t in tenants if t.tenant_class.reads]
        progress("%s: chain head %s, middle %s, tail %s; writing the %d readers' files (%d MiB each)"
                 % (variant.name, chain[0], chain[1], chain[2], len(readers), options.chunk_mib))
        # end_fsync: OSD_FSYNC down the chain flushes head and middle now; else their emulated write-back would keep the
        # data until its 30 s expiry (60 s at half speed) and flush it while the tenants run.
        fill = ["fio", "--bs=1m", "--direct=1", "--ioengine=psync", "--rw=write", "--end_fsync=1",
                "--size=%d" % chunk_bytes]
        for tenant in readers:
            fill += ["--name=fill-" + tenant.tenant_id, "--filename=" + str(paths[tenant.tenant_id])]
        fio_json(fill, "fio fill", 1800)
        progress("%s: write-back drained after %.1f s more" % (variant.name, cluster.await_write_back_drained(300)))

        jobs = state / "tenants.fio"
        jobs.write_text(job_file(tenants, paths, options))
        load_before = load_average()
        served_before = cluster.reads_served()
        progress("%s: %d tenants running (queue depth %d)" % (variant.name, len(tenants), options.queue_depth))
        started = time.monotonic()
        result = fio_json(["fio", str(jobs)], "fio tenants", FIO_GUARD_S)
        wall_s = time.monotonic() - started
        served_after = cluster.reads_served()
        load_after = load_average()
        delays = start_delay_s(tenants, options)
        completion = {}
        for job in result["jobs"]:
            if job.get("error", 0) != 0:
                raise ClusterError("fio job %s failed with error %d" % (job["jobname"], job["error"]))
            completion[job["jobname"]] = round(delays[job["jobname"]] + job["job_runtime"] / 1000.0, 3)
        missing = [t.tenant_id for t in tenants if t.tenant_id not in completion]
        if missing:
            raise ClusterError("fio reported no job for %s" % missing)
        reads = [served_after[uuid] - served_before[uuid] for uuid in chain]
        progress("%s: done in %.1f s; reads head/middle/tail %s" % (variant.name, wall_s, "/".join(map(str, reads))))
        return {"variant": variant.name, "layout": variant.layout, "chain": chain, "completion_s": completion,
                "reads_head_middle_tail": reads, "wall_s": round(wall_s, 1), "file_ids": file_ids,
                "load_average_before": load_before, "load_average_after": load_after}
    finally:
        if mount is not None:
            mount.unmount()
        cluster.stop()


def sim_scenario(tenants: List[Tenant], file_ids: Dict[str, str], options: argparse.Namespace) -> str:
    """fast.properties (the model's parameters stay in one place) with this run's tenants and sizes appended: a later
    key overrides an earlier one in a properties file."""
    counts = {c.group: sum(1 for t in tenants if t.tenant_class is c) for c in CLASSES}
    lines = [SIM_BASE_SCENARIO.read_text(), "",
             "# Appended by tests/bench/fast/run_fast_bench.py: the reduced scenario of one benchmark run.",
             "description=FAST at a reduced size, as run on the real chain by tests/bench/fast/run_fast_bench.py",
             "tenants=" + ",".join("%s*%d" % (c.group, counts[c.group]) for c in CLASSES if counts[c.group]),
             "chunk.mib=%d" % options.chunk_mib, "queue.depths=%d" % options.queue_depth,
             "variants=" + ",".join(v.sim_variant for v in VARIANTS)]
    for tenant_class in CLASSES:
        sizes = {t.bytes for t in tenants if t.tenant_class is tenant_class}
        if sizes:
            lines.append("tenant.%s.bytes.mib=%.6f" % (tenant_class.group, sizes.pop() / MIB))
    for tenant in tenants:
        lines.append("tenant.%s.chunk.start.gib=%d" % (tenant.tenant_id, region_start_gib(file_ids[tenant.tenant_id])))
    return "\n".join(lines) + "\n"


def simulate(tenants: List[Tenant], file_ids: Dict[str, str], sim_dir: Path, options: argparse.Namespace) -> dict:
    """Seconds per sim variant and tenant, at the emulated disk's speed (times --sim-speed-factor)."""
    sim_dir.mkdir(parents=True, exist_ok=True)
    scenario = sim_dir / "fast-bench.properties"
    scenario.write_text(sim_scenario(tenants, file_ids, options))
    result = subprocess.run([str(REPOSITORY / "bin" / "xtreemfs-sim"), "--scenario", str(scenario), "--out",
                             str(sim_dir)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL)
    (sim_dir / "fast-bench.txt").write_text(result.stdout)
    completions = sim_dir / "fast-bench-completions.csv"
    if not completions.exists():
        raise ClusterError("the simulator wrote no %s (exit %d): %s" % (completions, result.returncode,
                                                                        result.stdout[-2000:]))
    seconds: Dict[str, Dict[str, float]] = {}
    for row in csv.DictReader(io.StringIO(completions.read_text())):
        seconds.setdefault(row["variant"], {})[row["tenant"]] = round(float(row["completion_seconds"])
                                                                       * options.sim_speed_factor, 3)
    failed = [line.strip() for line in result.stdout.splitlines() if line.lstrip().startswith("[FAIL]")]
    return {"exit_code": result.returncode, "seconds": seconds, "failed_checks": failed}


def class_stats(seconds: Dict[str, float], tenants: List[Tenant],
                tenant_class: TenantClass) -> Tuple[float, float, float]:
    """Mean, min and max of the class's completion seconds."""
    values = [seconds[t.tenant_id] for t in tenants if t.tenant_class is tenant_class]
    return sum(values) / len(values), min(values), max(values)


def report(tenants: List[Tenant], measured: List[dict]) -> str:
    """Per class and variant: measured and predicted completion; ratios to round-robin (the measured one's, and the
    simulator's baseline on the round-robin run's file places) when round-robin ran."""
    present = [c for c in CLASSES if any(t.tenant_class is c for t in tenants)]
    by_name = {v.name: v for v in VARIANTS}
    base = next((entry for entry in measured if entry["variant"] == "round-robin"), None)
    out = ["Mean completion s per class (min-max). sim: the simulator on the same tenants and file places, its "
           "time times the emulation's slowdown.",
           "%-20s %-20s %22s %10s %9s %9s" % ("class", "variant", "measured", "sim", "meas/rr", "sim/rr")]
    for tenant_class in present:
        for entry in measured:
            mean, low, high = class_stats(entry["completion_s"], tenants, tenant_class)
            sim_mean = class_stats(entry["sim"]["seconds"][by_name[entry["variant"]].sim_variant], tenants,
                                   tenant_class)[0]
            ratios = ("-", "-")
            if base is not None:
                ratios = ("%.2f" % (mean / class_stats(base["completion_s"], tenants, tenant_class)[0]),
                          "%.2f" % (sim_mean / class_stats(base["sim"]["seconds"]["baseline"], tenants,
                                                           tenant_class)[0]))
            out.append("%-20s %-20s %8.2f (%5.2f-%6.2f) %10.2f %9s %9s" % (
                tenant_class.title, entry["variant"], mean, low, high, sim_mean, ratios[0], ratios[1]))
    out.append("")
    out.append("%-20s %-22s %-8s %-16s %-16s %s" % ("variant", "reads head/middle/tail", "wall s", "load before",
                                                    "load after", "simulator"))
    for entry in measured:
        sim = entry["sim"]
        out.append("%-20s %-22s %-8.1f %-16s %-16s exit %d%s" % (
            entry["variant"], "/".join(map(str, entry["reads_head_middle_tail"])), entry["wall_s"],
            " ".join(map(str, entry["load_average_before"])), " ".join(map(str, entry["load_average_after"])),
            sim["exit_code"], "" if not sim["failed_checks"] else ", %d of its checks failed at this size"
            % len(sim["failed_checks"])))
    return "\n".join(out)


def parse_arguments(arguments: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(REPOSITORY / "state" / "bench" / "fast"),
                        help="folder for the clusters' state, logs, the simulator's files and the results "
                             "(default: state/bench/fast)")
    parser.add_argument("--cpp-build", default=str(REPOSITORY / "cpp" / "build"),
                        help="folder holding mount.xtreemfs (default: cpp/build)")
    parser.add_argument("--scale", type=float, default=0.125,
                        help="bytes per tenant as a fraction of FAST's (16, 19, 20, 20 MiB per class; default: 0.125)")
    parser.add_argument("--chunk-mib", type=int, default=16,
                        help="size of each tenant's file, in which it reads or writes (default: 16; FAST: 64)")
    parser.add_argument("--random-readers", type=int, default=2, help="default: 2 (FAST: 10)")
    parser.add_argument("--sequential-readers", type=int, default=2, help="default: 2 (FAST: 10)")
    parser.add_argument("--random-writers", type=int, default=1, help="default: 1 (FAST: 5)")
    parser.add_argument("--sequential-writers", type=int, default=1, help="default: 1 (FAST: 5)")
    parser.add_argument("--queue-depth", type=int, default=4,
                        help="requests each tenant keeps outstanding (default: 4, as fast.properties' tenants)")
    parser.add_argument("--stagger-ms", type=int, default=100,
                        help="start delay between two readers, so round-robin binding numbers them in order "
                             "(default: 100)")
    parser.add_argument("--variants", default=",".join(v.name for v in VARIANTS),
                        help="which to run, in this order (default: all three: %(default)s)")
    parser.add_argument("--sim-speed-factor", type=float, default=2.0,
                        help="how much slower the emulated HDD is than the simulator's full model "
                             "(DeviceEmulation.HDD_SLOWDOWN_FACTOR; default: 2)")
    options = parser.parse_args(arguments)
    counts = (options.random_readers, options.sequential_readers, options.random_writers, options.sequential_writers)
    if min(counts) < 0 or sum(counts) < 1 or max(counts) > 99:
        parser.error("tenant counts must be 0..99 and at least one tenant in all")
    if options.scale <= 0 or options.chunk_mib < 1 or options.queue_depth < 1 or options.stagger_ms < 0:
        parser.error("--scale, --chunk-mib and --queue-depth must be positive, --stagger-ms not negative")
    biggest_mib = max(c.fast_mib for c in CLASSES) * options.scale
    if biggest_mib > options.chunk_mib:
        parser.error("--scale %.3f moves up to %.1f MiB per tenant, more than --chunk-mib %d"
                     % (options.scale, biggest_mib, options.chunk_mib))
    known = {v.name for v in VARIANTS}
    options.variant_list = [name.strip() for name in options.variants.split(",") if name.strip()]
    unknown = [name for name in options.variant_list if name not in known]
    if unknown or not options.variant_list:
        parser.error("--variants takes %s, not %s" % (", ".join(sorted(known)), options.variants))
    return options


def main(arguments: List[str]) -> int:
    options = parse_arguments(arguments)
    out = Path(options.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    tenants = tenants_of({"rr": options.random_readers, "sr": options.sequential_readers,
                          "rw": options.random_writers, "sw": options.sequential_writers}, options.scale)
    progress("tenants: " + ", ".join("%s %.2f MiB" % (t.tenant_id, t.bytes / MIB) for t in tenants))
    by_name = {v.name: v for v in VARIANTS}
    measured = []
    for name in options.variant_list:
        entry = measure_variant(by_name[name], tenants, out, options)
        # Each variant's cluster has its own volume id, so its files hash to other places on the emulated disks:
        # the simulator runs on each variant's places.
        entry["sim"] = simulate(tenants, entry["file_ids"], out / name / "sim", options)
        measured.append(entry)
    text = report(tenants, measured)
    summary = {"scale": options.scale, "chunk_mib": options.chunk_mib, "queue_depth": options.queue_depth,
               "sim_speed_factor": options.sim_speed_factor, "tenants": {t.tenant_id: t.bytes for t in tenants},
               "measured": measured}
    (out / "fast.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "fast-report.txt").write_text(text + "\n")
    print(text)
    print("figures in %s" % (out / "fast.json"))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except ClusterError as error:
        print("FAST benchmark: %s" % error, file=sys.stderr)
        sys.exit(1)
