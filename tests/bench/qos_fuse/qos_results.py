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
