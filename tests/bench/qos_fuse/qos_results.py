"""The QoS benchmark's arithmetic: fio's per-second logs into 1-s windows, the reservation each window is held
to (also after a capacity drop), attainment per volume, the profile figures from `lsfs.xtreemfs --osds`, and the
simulator's tenants CSV. Pure functions without I/O, so test_qos_results.py checks them on fixed inputs.

Units: a sequential volume is measured in bytes/s (fio's bandwidth log, KiB/s), a random one in 4 KiB I/Os per
second (fio's IOPS log); its reservation is in the same unit.
"""
import csv
import io
import math
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence

KIB = 1024
MIB = 1024 * 1024

# A window counts as met when the volume received at least this fraction of the reservation held for it (the SLO).
ATTAINED_FRACTION = 0.9

# fio's data direction field in a log line: 0 read, 1 write, 2 trim.
FIO_DIRECTION_WRITE = 1


class ResultError(ValueError):
    """An input (fio log, lsfs output, simulator CSV) is not what the benchmark needs; the message names it."""


@dataclass(frozen=True)
class FioSample:
    """One line of fio's per-window log: the window's end (ms since the job started) and its average value."""
    end_ms: int
    value: float


def parse_fio_log(text: str, source: str = "fio log") -> List[FioSample]:
    """Write samples of a fio bandwidth or IOPS log (`time_ms, value, direction, block_size, offset[, prio]`).

    Lines of other directions are skipped; a malformed line is an error naming the source and line number,
    never a silent zero.
    """
    samples = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [field.strip() for field in line.split(",")]
        try:
            end_ms, value, direction = int(fields[0]), float(fields[1]), int(fields[2])
        except (IndexError, ValueError):
            raise ResultError("%s line %d is not 'time_ms, value, direction, ...': %r" % (source, number, line))
        if end_ms < 0 or value < 0:
            raise ResultError("%s line %d has a negative time or value: %r" % (source, number, line))
        if direction == FIO_DIRECTION_WRITE:
            samples.append(FioSample(end_ms, value))
    return samples


def window_values(samples: Sequence[FioSample], first_second: int, window_count: int, scale: float = 1.0) -> List[float]:
    """The value of each aligned 1-s window [s, s+1) for s = first_second .. first_second + window_count - 1.

    With log_avg_msec=1000 fio writes a sample about every second, each the average over the time since the
    previous sample (the first since the job started). Its stat thread runs late under load, so samples drift
    (1048, 2049, ... 67399, 68568 ms): rounding each to a window would leave some windows empty and give others
    two samples. Each sample is therefore spread over the interval it covers, and a window's value is the
    time-weighted sum of the samples overlapping it. Time after the last sample counts as nothing received.
    `scale` converts fio's unit (KiB/s for bandwidth: 1024).
    """
    if first_second < 0 or window_count < 0:
        raise ValueError("first_second and window_count must be >= 0, not %d and %d" % (first_second, window_count))
    values = [0.0] * window_count
    previous_end_s = 0.0
    for sample in sorted(samples, key=lambda item: item.end_ms):
        start_s, end_s = previous_end_s, sample.end_ms / 1000.0
        previous_end_s = max(previous_end_s, end_s)
        if end_s <= start_s:
            continue  # a second sample at the same instant covers no time
        for window in range(max(first_second, int(start_s)), min(first_second + window_count, int(end_s) + 1)):
            overlap_s = min(end_s, window + 1) - max(start_s, window)
            if overlap_s > 0:
                values[window - first_second] += sample.value * scale * overlap_s
    return values


def honoured_reservation(reservation: float, osd_capacity: float, osd_reserved_total: float,
                         speed_fraction: float) -> float:
    """The part of `reservation` that admission would still honour on an OSD running at `speed_fraction`.

    Admission decides against the OSD's profile capacity; a device at a fraction of its speed delivers that
    fraction of it. If every reservation on the OSD still fits (reserved total <= fraction x capacity), each
    is honoured in full; otherwise they share the remaining capacity in proportion to their size, which is the
    largest uniform scaling admission would accept.
    """
    if not 0 < speed_fraction <= 1:
        raise ValueError("speed_fraction must be in (0, 1], not %r" % speed_fraction)
    if reservation < 0 or osd_capacity <= 0 or osd_reserved_total < reservation:
        raise ValueError("need 0 <= reservation (%r) <= reserved total (%r) and a positive capacity (%r)"
                         % (reservation, osd_reserved_total, osd_capacity))
    if osd_reserved_total == 0:
        return 0.0
    return reservation * min(1.0, speed_fraction * osd_capacity / osd_reserved_total)


@dataclass(frozen=True)
class Attainment:
    """What a volume received over the measured windows against what each window was held to."""
    mean: float
    minimum: float
    windows: int
    windows_met: int

    @property
    def fraction_met(self) -> float:
        return self.windows_met / self.windows if self.windows else 0.0


def attainment(values: Sequence[float], targets: Sequence[float]) -> Attainment:
    """Mean, minimum and the windows at >= ATTAINED_FRACTION of their target (same length, one per window).

    A window with a target of 0 (a best-effort volume) is never counted as met: best-effort volumes have no
    attainment, and the report shows none for them.
    """
    if len(values) != len(targets):
        raise ValueError("%d values but %d targets" % (len(values), len(targets)))
    if not values:
        raise ResultError("no measured windows")
    met = sum(1 for value, target in zip(values, targets) if target > 0 and value >= ATTAINED_FRACTION * target)
    return Attainment(mean=sum(values) / len(values), minimum=min(values), windows=len(values), windows_met=met)


@dataclass(frozen=True)
class OsdProfileFigures:
    """An OSD as `lsfs.xtreemfs --osds` shows it: its uuid, usage type and what its profile delivers."""
    uuid: str
    usage: str
    sequential_bytes_per_second_one_stream: float
    random_iops: float


_RATE_UNITS = {"B/s": 1, "KiB/s": KIB, "MiB/s": MIB, "GiB/s": 1024 * MIB}


def parse_rate(text: str) -> float:
    """'12.5MiB/s' or '800 KiB/s' in bytes/s."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMG]?i?B/s)\s*", text)
    if match is None or match.group(2) not in _RATE_UNITS:
        raise ResultError("not a rate such as 12.5MiB/s: %r" % text)
    return float(match.group(1)) * _RATE_UNITS[match.group(2)]


def free_reservation(free_output: str, usage: str) -> float:
    """The largest reservation of `usage` ('sequential': bytes/s, 'random': IOPS) in `xtfsutil --free` output,
    whose lines read '  sequential   capacity up to 249.75GiB, throughput up to 3200KiB/s' and
    '  random       capacity up to 249.75GiB, iops up to 39'."""
    if usage not in ("sequential", "random"):
        raise ValueError("usage must be sequential or random, not %r" % usage)
    pattern = r"throughput up to\s+([0-9.]+\s*[KMG]?i?B/s)" if usage == "sequential" else r"iops up to\s+([0-9]+)"
    for line in free_output.splitlines():
        words = line.split()
        if words and words[0] == usage:
            match = re.search(pattern, line)
            if match:
                return parse_rate(match.group(1)) if usage == "sequential" else float(match.group(1))
    raise ResultError("xtfsutil --free shows no %s reservation:\n%s" % (usage, free_output))


@dataclass(frozen=True)
class SimTenant:
    """One tenant row of the simulator's <scenario>-<variant>-tenants.csv."""
    tenant: str
    reservation: float
    achieved: float
    windows_fraction_met: Optional[float]


def parse_sim_tenants(text: str) -> Dict[str, SimTenant]:
    """The simulator's tenants CSV (columns tenant, reservation, achieved, windows_meeting_floor, ...) by tenant.

    A best-effort tenant's windows_meeting_floor is NaN in the CSV: None here.
    """
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows:
        raise ResultError("the simulator's tenants CSV has no rows")
    tenants = {}
    for row in rows:
        try:
            fraction = float(row["windows_meeting_floor"] or "nan")
            tenants[row["tenant"]] = SimTenant(row["tenant"], float(row["reservation"] or 0),
                                               float(row["achieved"]), None if math.isnan(fraction) else fraction)
        except (KeyError, ValueError) as error:
            raise ResultError("the simulator's tenants CSV row %r lacks a figure: %s" % (row, error))
    return tenants


@dataclass(frozen=True)
class VolumeResult:
    """One volume under one policy, ready for the report and the CSV."""
    policy: str
    volume: str
    kind: str            # "sequential", "random" or "best-effort"
    unit: str            # "MiB/s" or "IOPS"
    reservation: float   # in unit; 0 for best-effort
    offered: float       # fio's rate target, in unit
    result: Attainment   # in unit
    simulated_mean: Optional[float] = None
    simulated_fraction_met: Optional[float] = None


def summary_rows(results: Iterable[VolumeResult]) -> List[Dict[str, str]]:
    """CSV rows: one per volume and policy, figures in the volume's unit."""
    def figure(value: Optional[float]) -> str:
        return "" if value is None or (isinstance(value, float) and math.isnan(value)) else "%.3f" % value

    rows = []
    for item in results:
        reserved = item.reservation > 0
        rows.append({
            "policy": item.policy, "volume": item.volume, "kind": item.kind, "unit": item.unit,
            "reservation": figure(item.reservation if reserved else None), "offered": figure(item.offered),
            "mean": figure(item.result.mean), "minimum": figure(item.result.minimum),
            "windows": str(item.result.windows),
            "windows_met_fraction": figure(item.result.fraction_met if reserved else None),
            "simulated_mean": figure(item.simulated_mean),
            "simulated_windows_met_fraction": figure(item.simulated_fraction_met if reserved else None),
        })
    return rows


def slo_met(results: Iterable[VolumeResult], policy: str, windows_fraction_min: float = 0.999) -> bool:
    """Whether every reserved volume of `policy` reached ATTAINED_FRACTION of its reservation in at least
    `windows_fraction_min` of its windows."""
    reserved = [item for item in results if item.policy == policy and item.reservation > 0]
    if not reserved:
        raise ResultError("no reserved volume measured with policy %s" % policy)
    return all(item.result.fraction_met >= windows_fraction_min for item in reserved)


def overload_ratio(results: Iterable[VolumeResult], policy: str, unit: str, shares: Dict[str, float]) -> float:
    """Offered over delivered on one OSD: the sums of fio's rate targets and of the achieved means of the volumes
    measured in `unit` under `policy`, each counted with its share of that OSD (`shares`: volume -> fraction of
    its load that reaches the OSD, 0.5 for a volume striped over two OSDs; volumes not named count fully).
    Load of the other unit on the same OSD is left out, so this is a lower bound of the OSD's overload."""
    offered = delivered = 0.0
    for item in results:
        if item.policy == policy and item.unit == unit:
            share = shares.get(item.volume, 1.0)
            offered += share * item.offered
            delivered += share * item.result.mean
    if delivered <= 0:
        raise ResultError("nothing delivered in %s under %s" % (unit, policy))
    return offered / delivered


def report_table(results: Sequence[VolumeResult]) -> str:
    """The text table of the report: one line per volume and policy."""
    lines = ["%-6s %-9s %-11s %10s %10s %10s %10s %9s %10s %9s" % (
        "policy", "volume", "kind", "reserved", "offered", "mean", "minimum", ">=90%", "sim mean", "sim >=90%")]
    for item in results:
        reserved = item.reservation > 0

        def unit_figure(value: Optional[float]) -> str:
            if value is None:
                return "-"
            return ("%.2f" % value if item.unit == "MiB/s" else "%.1f" % value)

        lines.append("%-6s %-9s %-11s %10s %10s %10s %10s %9s %10s %9s" % (
            item.policy, item.volume, item.kind + (" " if reserved else ""),
            unit_figure(item.reservation) if reserved else "-", unit_figure(item.offered),
            unit_figure(item.result.mean), unit_figure(item.result.minimum),
            "%.1f %%" % (100 * item.result.fraction_met) if reserved else "-",
            unit_figure(item.simulated_mean),
            "%.1f %%" % (100 * item.simulated_fraction_met) if reserved and item.simulated_fraction_met is not None
            else "-"))
    return "\n".join(lines) + "\n"


# --- Explaining a missed window: what each part of the system did in that second --------------------------------
#
# The run records, per second: each OSD's QoS queue, CPU used and CPU waited (osd-seconds.csv); each tenant's
# mount and fio CPU used and waited, and its requests queued at its OSD (tenant-seconds.csv); the machine's load;
# each server JVM's stop-the-world pauses (its -Xlog:gc,safepoint file); and each OSD's own per-volume windows
# (/qos/history.json). The functions below parse those sources and name the cause of a window below 90 %.

@dataclass(frozen=True)
class Pause:
    """One stop-the-world pause of a JVM: when it ended (ms since the epoch), how long it took, and what it was
    ('gc': a collection, 'safepoint': any stop-the-world operation, collections included)."""
    end_unix_ms: float
    duration_ms: float
    kind: str


# -Xlog:gc,safepoint:file=...:timemillis,tags lines, e.g.
# [1764224293123ms][gc] GC(3) Pause Young (Allocation Failure) 10M->2M(40M) 1.234ms
# [1764224293124ms][safepoint] Safepoint "GenCollectForAllocation", Time since last: 99 ns, Reaching safepoint:
#   12345 ns, At safepoint: 1300000 ns, Total: 1312345 ns
_LOG_TIME = re.compile(r"^\[(\d+)ms\]")
_GC_PAUSE = re.compile(r"\bGC\(\d+\) Pause .* ([0-9]+(?:\.[0-9]+)?)ms\s*$")
_SAFEPOINT = re.compile(r"\bSafepoint \"[^\"]*\".*\bTotal: ([0-9]+) ns")


def parse_jvm_pauses(text: str, source: str = "JVM log") -> List[Pause]:
    """The pauses of a unified JVM log written with the `timemillis` decorator (see run_qos_bench.py's
    JVM_LOG_OPTION). Lines that are neither a GC pause nor a safepoint (heap sizes, phases) are skipped; a pause
    line without the time decorator is an error naming the source and line, never a silent zero."""
    pauses = []
    for number, line in enumerate(text.splitlines(), start=1):
        gc = _GC_PAUSE.search(line)
        safepoint = _SAFEPOINT.search(line)
        if not gc and not safepoint:
            continue
        time_match = _LOG_TIME.match(line)
        if time_match is None:
            raise ResultError("%s line %d has no [<epoch ms>ms] decorator: %r" % (source, number, line))
        end_ms = float(time_match.group(1))
        if gc:
            pauses.append(Pause(end_ms, float(gc.group(1)), "gc"))
        else:
            pauses.append(Pause(end_ms, int(safepoint.group(1)) / 1e6, "safepoint"))
    return pauses


def pause_ms_per_window(pauses: Iterable[Pause], kind: str, origin_unix_ms: float, window_count: int) -> List[float]:
    """Milliseconds of `kind` pauses in each 1-s window [origin + w s, origin + (w+1) s), w = 0 .. window_count-1:
    each pause spans [end - duration, end] and is split over the windows it overlaps."""
    values = [0.0] * window_count
    for pause in pauses:
        if pause.kind != kind:
            continue
        start_s = (pause.end_unix_ms - pause.duration_ms - origin_unix_ms) / 1000.0
        end_s = (pause.end_unix_ms - origin_unix_ms) / 1000.0
        for window in range(max(0, int(math.floor(start_s))), min(window_count, int(math.floor(end_s)) + 1)):
            overlap_s = min(end_s, window + 1) - max(start_s, window)
            if overlap_s > 0:
                values[window] += overlap_s * 1000.0
    return values


@dataclass(frozen=True)
class ProcessCpu:
    """A process as /proc/PID/stat shows it: its parent and the CPU it used so far (user + system, clock ticks)."""
    pid: int
    parent_pid: int
    cpu_ticks: int


def parse_proc_stat(text: str) -> ProcessCpu:
    """/proc/PID/stat: 'pid (comm) state ppid ... utime stime ...' (fields 14 and 15). The command name may hold
    spaces and parentheses, so the fields are counted from its last ')'."""
    head, separator, rest = text.rpartition(")")
    fields = rest.split()
    try:
        if not separator:
            raise ValueError("no ')'")
        return ProcessCpu(int(head.split("(", 1)[0]), int(fields[1]), int(fields[11]) + int(fields[12]))
    except (IndexError, ValueError) as error:
        raise ResultError("not a /proc/PID/stat line (%s): %r" % (error, text[:200]))


def tree_cpu_ticks(processes: Dict[int, ProcessCpu], root: int) -> int:
    """CPU ticks of `root` and every live descendant (fio runs each job in a child process)."""
    children: Dict[int, List[int]] = {}
    for process in processes.values():
        children.setdefault(process.parent_pid, []).append(process.pid)
    total, pending, seen = 0, [root], set()
    while pending:
        pid = pending.pop()
        if pid in seen or pid not in processes:
            continue
        seen.add(pid)
        total += processes[pid].cpu_ticks
        pending.extend(children.get(pid, []))
    return total


def parse_cpu_busy_ticks(proc_stat_text: str) -> tuple:
    """(busy, total) ticks of all CPUs from /proc/stat's first line 'cpu user nice system idle iowait irq softirq
    steal ...'; idle and iowait are not busy."""
    line = proc_stat_text.splitlines()[0] if proc_stat_text else ""
    fields = line.split()
    if len(fields) < 6 or fields[0] != "cpu":
        raise ResultError("/proc/stat does not start with the 'cpu' line: %r" % line)
    ticks = [int(value) for value in fields[1:9]]
    total = sum(ticks)
    return total - ticks[3] - ticks[4], total


def parse_runnable(loadavg_text: str) -> int:
    """Threads runnable now, from /proc/loadavg ('0.50 0.60 0.70 3/512 12345': 3)."""
    fields = loadavg_text.split()
    try:
        return int(fields[3].split("/")[0])
    except (IndexError, ValueError):
        raise ResultError("not a /proc/loadavg line: %r" % loadavg_text)


def volume_id_of(xtfsutil_output: str) -> str:
    """The volume id in `xtfsutil PATH` output ('volume:           seq-a (id 5f0c..., MRC ...)')."""
    match = re.search(r"^volume:\s+\S+ \(id ([^,)\s]+)", xtfsutil_output, re.MULTILINE)
    if match is None:
        raise ResultError("xtfsutil shows no volume id:\n" + xtfsutil_output)
    return match.group(1)


def osd_continuity(history: Dict) -> Dict[str, Dict[str, Optional[float]]]:
    """Per volume id of a byte-charged OSD's /qos/history.json: cost_per_byte, the cost the fair queue charged over
    the bytes it moved in the kept windows (above 1 by the positionings charged: ShareRule.bytesPerRandomIo per
    request that does not continue its file's stream), and the OSD's continuity totals since the volume was first
    seen: object_accesses, positioning_charged and out_of_order (None where the OSD does not list them). Volumes of
    other cost units, or without bytes, are left out."""
    result = {}
    for volume in history.get("volumes", []):
        if volume.get("costUnit") != "bytes" or "achievedBytesPerSecond" not in volume:
            continue
        moved = sum(volume.get("achievedBytesPerSecond") or [])
        charged = sum(volume.get("achievedCostPerSecond") or [])
        result[volume["volumeId"]] = {
            "cost_per_byte": charged / moved if moved > 0 else None,
            "object_accesses": volume.get("objectAccessRequestsTotal"),
            "positioning_charged": volume.get("positioningChargedRequestsTotal"),
            "out_of_order": volume.get("outOfOrderRequestsTotal")}
    return result


def osd_history_windows(history: Dict, origin_unix_ms: float, window_count: int) -> Dict[str, List[float]]:
    """Per volume id: what the OSD completed for it in each benchmark window [origin + w s, origin + (w+1) s), from
    /qos/history.json (each volume's consecutive windows end at newestWindowEndUnixMs; an OSD window overlapping
    two benchmark windows is split by time). In the unit fio measures: bytes per second on a byte-charged OSD
    (achievedBytesPerSecond: its cost adds a positioning to each request that breaks its stream, 1.9-2.5 times the
    bytes in the run of 2026-11-27 08:23), the cost unit (4 KiB I/Os) otherwise."""
    window_seconds = float(history.get("windowSeconds") or 1.0)
    result = {}
    for volume in history.get("volumes", []):
        values = [0.0] * window_count
        newest_end_ms = volume.get("newestWindowEndUnixMs")
        if volume.get("costUnit") == "bytes" and "achievedBytesPerSecond" in volume:
            achieved = volume.get("achievedBytesPerSecond") or []
        else:
            achieved = volume.get("achievedCostPerSecond") or []
        if newest_end_ms is not None:
            for index, rate in enumerate(achieved):
                end_s = (newest_end_ms - origin_unix_ms) / 1000.0 - (len(achieved) - 1 - index) * window_seconds
                start_s = end_s - window_seconds
                for window in range(max(0, int(math.floor(start_s))), min(window_count, int(math.floor(end_s)) + 1)):
                    overlap_s = min(end_s, window + 1) - max(start_s, window)
                    if overlap_s > 0:
                        values[window] += rate * overlap_s
        result[volume["volumeId"]] = values
    return result


# What counts as a cause in one second (the thresholds the report's "cause" applies; see README.md in this folder).
PAUSE_CAUSE_MS = 100          # a JVM stopped this long in the window: a tenth of it without service
CPU_WAIT_CAUSE_MS = 200       # a process's threads waited this long for a CPU (summed over threads)


@dataclass(frozen=True)
class WindowMeasures:
    """What one reserved volume's part of the system did in one 1-s window (None where not recorded)."""
    osd: str
    osd_served: Optional[float] = None           # what the OSD completed for the volume (its unit)
    osd_served_all: Optional[float] = None       # ... for every volume of that OSD
    osd_queue: Optional[float] = None            # requests in the OSD's QoS queue, all volumes
    volume_queue: Optional[float] = None         # requests of this volume in it
    osd_pause_ms: Optional[float] = None         # stop-the-world time of the OSD's JVM (safepoints)
    osd_gc_ms: Optional[float] = None            # ... of it in collections
    osd_cpu_ms: Optional[float] = None
    osd_cpu_wait_ms: Optional[float] = None
    mount_cpu_ms: Optional[float] = None
    mount_cpu_wait_ms: Optional[float] = None
    fio_cpu_ms: Optional[float] = None
    fio_cpu_wait_ms: Optional[float] = None
    load_1min: Optional[float] = None
    runnable: Optional[float] = None
    cpu_busy_percent: Optional[float] = None
    target: Optional[float] = None               # the reservation held for the window (its unit)


def window_causes(measures: WindowMeasures) -> List[str]:
    """The causes these measures name for a missed window, most direct first; 'none recorded' if none applies.

    - the OSD's own window shows >= 90 % of the reservation served: fio recorded less than the OSD did;
    - the OSD's JVM paused >= PAUSE_CAUSE_MS (a GC or other safepoint: no request was served meanwhile);
    - the OSD's, the mount's or fio's threads waited >= CPU_WAIT_CAUSE_MS for a CPU (starved by the machine);
    - nothing of the volume waited at the OSD at the window's end: its requests did not reach the OSD (the
      mount or fio did not send them), so the queue had nothing of it to give;
    - the volume had requests queued at the OSD and still got less: the OSD (queue or device) did not serve it.
    """
    causes = []
    if measures.osd_served is not None and measures.target and measures.osd_served >= ATTAINED_FRACTION * measures.target:
        # The OSD's own window says the volume got its reservation: fio (or the path back to it) fell behind.
        causes.append("the OSD served it %.0f %% of its reservation: the shortfall is fio's (its completions "
                      "late)" % (100 * measures.osd_served / measures.target))
    if (measures.osd_pause_ms or 0) >= PAUSE_CAUSE_MS:
        causes.append("OSD %s's JVM paused %.0f ms (%.0f ms of it GC)" % (measures.osd, measures.osd_pause_ms,
                                                                          measures.osd_gc_ms or 0))
    for who, wait in (("OSD " + measures.osd, measures.osd_cpu_wait_ms), ("mount", measures.mount_cpu_wait_ms),
                      ("fio", measures.fio_cpu_wait_ms)):
        if (wait or 0) >= CPU_WAIT_CAUSE_MS:
            causes.append("%s starved: waited %.0f ms for a CPU" % (who, wait))
    if measures.volume_queue is not None:
        if measures.volume_queue == 0:
            causes.append("requests not reaching the OSD (none of the volume queued there)")
        elif not causes:
            causes.append("the OSD did not serve it: %.0f of its requests queued there" % measures.volume_queue)
    return causes or ["none recorded"]


def miss_lines(label: str, achieved: float, target: float, unit: str, measures: WindowMeasures) -> List[str]:
    """The report's lines for one missed window: the figure, everything recorded beside it, and the cause."""
    def figure(value: Optional[float], form: str = "%.0f") -> str:
        return "-" if value is None else form % value

    served_form = "%.2f" if unit == "MiB/s" else "%.1f"
    return [
        "%s: %s of %s %s (%.0f %%)" % (label, served_form % achieved, served_form % target, unit,
                                       100 * achieved / target if target else 0),
        "    OSD %s: served it %s, all volumes %s %s; queue %s (of it %s); paused %s ms (GC %s ms); CPU %s ms, "
        "waited %s ms" % (measures.osd, figure(measures.osd_served, served_form),
                          figure(measures.osd_served_all, served_form), unit, figure(measures.osd_queue),
                          figure(measures.volume_queue), figure(measures.osd_pause_ms), figure(measures.osd_gc_ms),
                          figure(measures.osd_cpu_ms), figure(measures.osd_cpu_wait_ms)),
        "    mount: CPU %s ms, waited %s ms; fio: CPU %s ms, waited %s ms; machine: load %s, %s runnable, %s %% busy"
        % (figure(measures.mount_cpu_ms), figure(measures.mount_cpu_wait_ms), figure(measures.fio_cpu_ms),
           figure(measures.fio_cpu_wait_ms), figure(measures.load_1min, "%.1f"), figure(measures.runnable),
           figure(measures.cpu_busy_percent)),
        "    cause: " + "; ".join(window_causes(measures)),
    ]


def cause_tally(causes_per_window: List[List[str]]) -> str:
    """'mount starved: 3, requests not reaching the OSD: 2' (each window's causes by their kind, before ':' or '(')."""
    counts: Dict[str, int] = {}
    for causes in causes_per_window:
        for cause in causes:
            kind = re.split(r"[:(]| \d", cause, maxsplit=1)[0].strip()
            counts[kind] = counts.get(kind, 0) + 1
    return ", ".join("%s: %d" % item for item in sorted(counts.items(), key=lambda item: -item[1])) or "none"


@dataclass(frozen=True)
class IntervalPauses:
    """A JVM's stop-the-world time within one measured interval: the sum, the count and the longest pause."""
    total_ms: float
    count: int
    longest_ms: float


def pauses_in_interval(pauses: Iterable[Pause], kind: str, start_unix_ms: float, end_unix_ms: float) -> IntervalPauses:
    """The `kind` pauses overlapping [start, end) (each pause spans [end - duration, end]), clipped to it; used
    by tests/bench/core/qos_overhead_pauses.py to lay the OSD's and the client's pauses on each policy's
    intervals."""
    total, count, longest = 0.0, 0, 0.0
    for pause in pauses:
        if pause.kind != kind:
            continue
        overlap = min(pause.end_unix_ms, end_unix_ms) - max(pause.end_unix_ms - pause.duration_ms, start_unix_ms)
        if overlap > 0 or (pause.duration_ms == 0 and start_unix_ms <= pause.end_unix_ms < end_unix_ms):
            total += max(0.0, overlap)
            count += 1
            longest = max(longest, pause.duration_ms)
    return IntervalPauses(total, count, longest)
