"""Reading fio's JSON output and turning paired measurements (mount, raw disk) into ratio rows.

Pure functions without I/O, so test_fio_results.py checks them on saved fio output (testdata/).
"""
import json
from dataclasses import asdict, dataclass
from typing import List, Optional

MIB = 1024 * 1024


class FioOutputError(ValueError):
    """fio's output is not a successful single-job JSON report."""


@dataclass(frozen=True)
class FioResult:
    """One direction (read or write) of one fio job."""
    direction: str
    io_bytes: int
    runtime_ms: int
    bandwidth_bytes_per_s: float
    iops: float
    completion_latency_p99_us: Optional[float]

    @property
    def bandwidth_mib_per_s(self) -> float:
        return self.bandwidth_bytes_per_s / MIB


def parse_fio_json(text: str, direction: str) -> FioResult:
    """The `direction` ("read" or "write") figures of the only job in fio's --output-format=json output.

    fio prints warnings ("fio: ...") on stdout before the JSON document, so parsing starts at the
    first line that opens an object. A job that failed (error != 0) or moved no bytes is an error,
    never a zero figure: a zero would turn into a meaningless ratio.
    """
    if direction not in ("read", "write"):
        raise ValueError("direction must be read or write, not %r" % direction)
    start = _document_start(text)
    try:
        document, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as error:
        raise FioOutputError("fio output is not JSON: %s" % error) from error
    jobs = document.get("jobs")
    if not isinstance(jobs, list) or len(jobs) != 1:
        raise FioOutputError("expected exactly one job in fio's output, found %s"
                             % (len(jobs) if isinstance(jobs, list) else "none"))
    job = jobs[0]
    if job.get("error", 0) != 0:
        raise FioOutputError("fio job %r failed with error %s" % (job.get("jobname"), job["error"]))
    figures = job.get(direction)
    if not isinstance(figures, dict):
        raise FioOutputError("fio job %r has no %s section" % (job.get("jobname"), direction))
    io_bytes = int(figures.get("io_bytes", 0))
    if io_bytes <= 0:
        raise FioOutputError("fio job %r did not %s any bytes" % (job.get("jobname"), direction))
    percentiles = figures.get("clat_ns", {}).get("percentile", {})
    p99_ns = percentiles.get("99.000000")
    return FioResult(
        direction=direction,
        io_bytes=io_bytes,
        runtime_ms=int(figures["runtime"]),
        bandwidth_bytes_per_s=float(figures["bw_bytes"]),
        iops=float(figures["iops"]),
        completion_latency_p99_us=None if p99_ns is None else p99_ns / 1000.0)


def _document_start(text: str) -> int:
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("{"):
            return offset + (len(line) - len(line.lstrip()))
        offset += len(line)
    raise FioOutputError("no JSON document in fio's output: %r" % text[:200])


@dataclass(frozen=True)
class Row:
    """One line of the result table: the same operation through the mount and on the raw disk, and, where the
    run measured it, through a GlusterFS mount (the issue's second baseline; None: not measured)."""
    operation: str
    unit: str
    mount: float
    raw_disk: float
    glusterfs: Optional[float] = None

    @property
    def ratio(self) -> Optional[float]:
        """mount / raw disk (higher is better for every unit used here); None without a baseline."""
        return self.mount / self.raw_disk if self.raw_disk > 0 else None

    @property
    def ratio_to_glusterfs(self) -> Optional[float]:
        """mount / GlusterFS; above 1.0 the mount beat GlusterFS on this row. None if GlusterFS was not measured."""
        return self.mount / self.glusterfs if self.glusterfs else None

    def to_json(self) -> dict:
        return dict(asdict(self), ratio=self.ratio, ratio_to_glusterfs=self.ratio_to_glusterfs)


def fio_row(operation: str, mount: FioResult, raw_disk: FioResult, glusterfs: Optional[FioResult] = None) -> Row:
    """MiB/s for 1 MiB requests, IOPS for smaller ones (the figure each workload is judged by)."""
    if operation.startswith("sequential"):
        return Row(operation, "MiB/s", mount.bandwidth_mib_per_s, raw_disk.bandwidth_mib_per_s,
                   glusterfs.bandwidth_mib_per_s if glusterfs else None)
    return Row(operation, "IOPS", mount.iops, raw_disk.iops, glusterfs.iops if glusterfs else None)


def format_ratio(ratio: Optional[float]) -> str:
    if ratio is None:
        return "n/a"
    return "%.3g" % ratio


def markdown_table(rows: List[Row]) -> str:
    """mount | raw disk | ratio; with GlusterFS columns when any row has a GlusterFS figure ('-' where a row has
    none, e.g. the wider stripe's rows)."""
    with_glusterfs = any(row.glusterfs is not None for row in rows)
    if with_glusterfs:
        lines = ["| operation | unit | mount | raw disk | ratio (mount / raw) | GlusterFS | mount / GlusterFS |",
                 "|---|---|---:|---:|---:|---:|---:|"]
    else:
        lines = ["| operation | unit | mount | raw disk | ratio (mount / raw) |",
                 "|---|---|---:|---:|---:|"]
    for row in rows:
        line = "| %s | %s | %.1f | %.1f | %s |" % (row.operation, row.unit, row.mount, row.raw_disk,
                                                   format_ratio(row.ratio))
        if with_glusterfs:
            line += (" %.1f | %s |" % (row.glusterfs, format_ratio(row.ratio_to_glusterfs))
                     if row.glusterfs is not None else " - | - |")
        lines.append(line)
    return "\n".join(lines) + "\n"
