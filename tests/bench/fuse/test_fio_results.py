"""Tests of the benchmark harness's own logic (no cluster, no fio run): parsing saved fio JSON output,
ratio rows, the table, fio command lines and option checks.

    python3 -m unittest discover -s tests/bench/fuse -p 'test_*.py'
"""
import contextlib
import datetime
import io
import json
import subprocess
import tempfile
import time
import types
import unittest
from pathlib import Path

from fio_results import FioOutputError, FioResult, Row, fio_row, format_ratio, markdown_table, parse_fio_json
from cluster import Cluster
from run_fuse_bench import (FuseBenchmark, GLUSTER, MOUNT, OSD_WARM_UP, RAW, WIDE, fio_command, jit_notes,
                            parallel_label, parse_arguments, write_report)

TESTDATA = Path(__file__).resolve().parent / "testdata"
RANDOM_READ = (TESTDATA / "fio-randread-4k-qd32.json").read_text()
SEQUENTIAL_WRITE = (TESTDATA / "fio-write-1m.json").read_text()
# fio 3.33, --rw=read --bs=1M --ioengine=libaio --direct=1 --iodepth=8 of a 64 MiB file (the sequential rows' job).
DIRECT_SEQUENTIAL_READ = (TESTDATA / "fio-read-1m-direct-qd8.json").read_text()


class ParseFioJsonTest(unittest.TestCase):
    def test_random_read_figures(self):
        result = parse_fio_json(RANDOM_READ, "read")
        self.assertEqual(result.io_bytes, 77635584)
        self.assertEqual(result.runtime_ms, 2004)
        self.assertAlmostEqual(result.iops, 9458.083832, places=3)
        self.assertEqual(result.bandwidth_bytes_per_s, 38740311)
        self.assertAlmostEqual(result.bandwidth_mib_per_s, 38740311 / 1048576)
        self.assertAlmostEqual(result.completion_latency_p99_us, 52166.656)

    def test_sequential_write_figures(self):
        result = parse_fio_json(SEQUENTIAL_WRITE, "write")
        self.assertEqual(result.io_bytes, 64 * 1048576)
        self.assertEqual(result.bandwidth_bytes_per_s, 771366252)
        self.assertEqual(result.runtime_ms, 87)

    def test_direct_sequential_read_figures(self):
        result = parse_fio_json(DIRECT_SEQUENTIAL_READ, "read")
        document = json.loads(DIRECT_SEQUENTIAL_READ)["jobs"][0]
        self.assertEqual(document["job options"]["direct"], "1")
        self.assertEqual(document["job options"]["iodepth"], "8")
        self.assertEqual(result.io_bytes, 64 * 1048576)
        self.assertEqual(result.bandwidth_bytes_per_s, document["read"]["bw_bytes"])
        self.assertEqual(result.iops, document["read"]["iops"])
        self.assertGreater(result.completion_latency_p99_us, 0)
        with self.assertRaisesRegex(FioOutputError, "did not write any bytes"):
            parse_fio_json(DIRECT_SEQUENTIAL_READ, "write")

    def test_warnings_before_the_document_are_skipped(self):
        noisy = "fio: file hash not empty on exit\nnote: both iodepth >= 1 and synchronous I/O engine\n" + RANDOM_READ
        self.assertEqual(parse_fio_json(noisy, "read"), parse_fio_json(RANDOM_READ, "read"))

    def test_direction_without_bytes_is_an_error(self):
        with self.assertRaisesRegex(FioOutputError, "did not write any bytes"):
            parse_fio_json(RANDOM_READ, "write")

    def test_failed_job_is_an_error(self):
        document = json.loads(RANDOM_READ)
        document["jobs"][0]["error"] = 5
        with self.assertRaisesRegex(FioOutputError, "failed with error 5"):
            parse_fio_json(json.dumps(document), "read")

    def test_two_jobs_are_rejected(self):
        document = json.loads(RANDOM_READ)
        document["jobs"].append(document["jobs"][0])
        with self.assertRaisesRegex(FioOutputError, "exactly one job"):
            parse_fio_json(json.dumps(document), "read")

    def test_text_without_json_is_an_error(self):
        with self.assertRaisesRegex(FioOutputError, "no JSON document"):
            parse_fio_json("fio: pid=1, err=5/file:io_u.c:1889, func=io_u error, error=Input/output error\n", "read")

    def test_unknown_direction_is_rejected(self):
        with self.assertRaises(ValueError):
            parse_fio_json(RANDOM_READ, "trim")


class RowTest(unittest.TestCase):
    def test_ratio_is_mount_over_raw_disk(self):
        self.assertAlmostEqual(Row("create", "ops/s", 250.0, 1000.0).ratio, 0.25)

    def test_ratio_without_baseline_is_none(self):
        self.assertIsNone(Row("create", "ops/s", 250.0, 0.0).ratio)
        self.assertEqual(format_ratio(None), "n/a")

    def test_sequential_rows_compare_bandwidth_and_random_rows_iops(self):
        write = parse_fio_json(SEQUENTIAL_WRITE, "write")
        read = parse_fio_json(RANDOM_READ, "read")
        sequential = fio_row("sequential write 1 MiB", read, write)
        self.assertEqual(sequential.unit, "MiB/s")
        self.assertAlmostEqual(sequential.ratio, 38740311 / 771366252)
        random = fio_row("random read 4 KiB QD32", read, write)
        self.assertEqual(random.unit, "IOPS")
        self.assertAlmostEqual(random.ratio, read.iops / write.iops)

    def test_markdown_table(self):
        table = markdown_table([Row("stat", "ops/s", 500.0, 2000.0), Row("unlink", "ops/s", 1.0, 0.0)])
        self.assertEqual(table.splitlines(), [
            "| operation | unit | mount | raw disk | ratio (mount / raw) |",
            "|---|---|---:|---:|---:|",
            "| stat | ops/s | 500.0 | 2000.0 | 0.25 |",
            "| unlink | ops/s | 1.0 | 0.0 | n/a |"])

    def test_small_ratios_keep_three_significant_digits(self):
        self.assertEqual(format_ratio(29.2 / 255536.6), "0.000114")
        self.assertEqual(format_ratio(0.0123456), "0.0123")

    def test_row_json_carries_the_ratio(self):
        self.assertEqual(Row("stat", "ops/s", 1.0, 4.0).to_json(),
                         {"operation": "stat", "unit": "ops/s", "mount": 1.0, "raw_disk": 4.0, "glusterfs": None,
                          "ratio": 0.25, "ratio_to_glusterfs": None})

    def test_glusterfs_columns_appear_when_a_row_has_a_glusterfs_figure(self):
        table = markdown_table([Row("stat", "ops/s", 500.0, 2000.0, 250.0),
                                Row("sequential read 1 MiB, width 3 (not 1)", "MiB/s", 10.0, 20.0)])
        self.assertEqual(table.splitlines(), [
            "| operation | unit | mount | raw disk | ratio (mount / raw) | GlusterFS | mount / GlusterFS |",
            "|---|---|---:|---:|---:|---:|---:|",
            "| stat | ops/s | 500.0 | 2000.0 | 0.25 | 250.0 | 2 |",
            "| sequential read 1 MiB, width 3 (not 1) | MiB/s | 10.0 | 20.0 | 0.5 | - | - |"])

    def test_fio_row_takes_the_glusterfs_figure_in_the_rows_unit(self):
        write = FioResult("write", 1, 1, bandwidth_bytes_per_s=100.0 * 1024 * 1024, iops=100.0,
                          completion_latency_p99_us=None)
        slower = FioResult("write", 1, 1, bandwidth_bytes_per_s=50.0 * 1024 * 1024, iops=12800.0,
                           completion_latency_p99_us=None)
        self.assertEqual(fio_row("sequential write 1 MiB", write, write, slower).glusterfs, 50.0)
        self.assertEqual(fio_row("random read 4 KiB QD32", write, write, slower).glusterfs, 12800.0)
        self.assertAlmostEqual(fio_row("sequential write 1 MiB", write, write, slower).ratio_to_glusterfs, 2.0)
        self.assertIsNone(fio_row("sequential write 1 MiB", write, write).ratio_to_glusterfs)


class CommandLineTest(unittest.TestCase):
    def test_random_jobs_use_libaio_direct_and_the_queue_depth(self):
        command = fio_command(Path("/m/random.dat"), "randread", "4k", 1 << 28, 15, queue_depth=32,
                              direct=True, time_based=True)
        for expected in ("--ioengine=libaio", "--direct=1", "--iodepth=32", "--time_based", "--rw=randread",
                         "--bs=4k", "--size=268435456", "--runtime=15", "--output-format=json",
                         "--filename=/m/random.dat"):
            self.assertIn(expected, command)

    def test_buffered_write_uses_psync_and_is_flushed_at_the_end(self):
        command = fio_command(Path("/m/s.dat"), "write", "1M", 1 << 30, 15, end_fsync=True)
        self.assertIn("--ioengine=psync", command)
        self.assertIn("--end_fsync=1", command)
        self.assertNotIn("--direct=1", command)
        self.assertNotIn("--time_based", command)

    def test_parallel_jobs_are_reported_as_one_and_sequential_ones_get_a_file_each(self):
        sequential = fio_command(Path("/m/seq"), "write", "1M", 1 << 28, 15, end_fsync=True, jobs=4,
                                 file_per_job=True)
        for expected in ("--numjobs=4", "--group_reporting", "--directory=/m", "--filename_format=seq.$jobnum",
                         "--size=268435456"):
            self.assertIn(expected, sequential)
        self.assertFalse([argument for argument in sequential if argument.startswith("--filename=")])
        random = fio_command(Path("/m/random.dat"), "randread", "4k", 1 << 28, 15, queue_depth=32, direct=True,
                             time_based=True, jobs=4)
        self.assertIn("--filename=/m/random.dat", random)
        self.assertIn("--numjobs=4", random)
        single = fio_command(Path("/m/random.dat"), "randread", "4k", 1 << 28, 15)
        self.assertFalse([argument for argument in single if argument.startswith("--numjobs")])

    def test_parallel_rows_keep_the_unit_of_their_workload(self):
        write = parse_fio_json(SEQUENTIAL_WRITE, "write")
        read = parse_fio_json(RANDOM_READ, "read")
        self.assertEqual(parallel_label("random read 4 KiB QD32", 4), "random read 4 KiB QD32, 4 jobs")
        self.assertEqual(fio_row(parallel_label("sequential write 1 MiB", 4), write, write).unit, "MiB/s")
        self.assertEqual(fio_row(parallel_label("random read 4 KiB QD32", 4), read, read).unit, "IOPS")

    def test_parallel_jobs_default_to_four_and_refuse_negative_counts(self):
        self.assertEqual(parse_arguments([]).parallel_jobs, 4)
        self.assertEqual(parse_arguments(["--parallel-jobs", "0"]).parallel_jobs, 0)
        with self.assertRaises(SystemExit):
            parse_arguments(["--parallel-jobs", "-1"])

    def test_defaults(self):
        options = parse_arguments([])
        self.assertEqual((options.size_mib, options.random_size_mib, options.files, options.osds,
                          options.stripe_width, options.wide_stripe_width), (1024, 256, 10000, 3, 1, 3))
        self.assertEqual((options.sequential_queue_depth, options.buffered_sequential), (8, True))
        self.assertFalse(parse_arguments(["--no-buffered-sequential"]).buffered_sequential)
        with self.assertRaises(SystemExit):
            parse_arguments(["--sequential-queue-depth", "0"])

    def test_wide_rows_are_off_when_as_narrow_and_the_width_is_bounded_by_the_osds(self):
        self.assertEqual(parse_arguments(["--wide-stripe-width", "1"]).wide_stripe_width, 0)
        self.assertEqual(parse_arguments(["--osds", "4"]).wide_stripe_width, 4)
        with self.assertRaises(SystemExit):
            parse_arguments(["--wide-stripe-width", "4"])

    def test_stripe_width_above_osd_count_is_rejected(self):
        with self.assertRaises(SystemExit):
            parse_arguments(["--osds", "2", "--stripe-width", "3"])

    def test_non_positive_sizes_are_rejected(self):
        with self.assertRaises(SystemExit):
            parse_arguments(["--files", "0"])


class RecordingBenchmark(FuseBenchmark):
    """The benchmark's workload logic with fio and the caches replaced: records each fio command line and answers
    with saved output (a write moves 64 MiB), so the rows and commands are checked without a cluster."""

    def __init__(self, arguments):
        super().__init__(parse_arguments(arguments), Path("/state"), types.SimpleNamespace(say=lambda text: None))
        self.commands = []
        self.cold = []
        self.timed = []  # (target, workload, timed) of each job: timed ones start on a quiet disk

    def fio(self, target, workload, direction, command, timed=True):
        self.commands.append((target, workload, command))
        self.timed.append((target, workload, timed))
        for argument in command:
            if argument.startswith("--filename=") and direction == "write":
                Path(argument[len("--filename="):]).touch()  # the benchmark removes what its jobs wrote
        return parse_fio_json(SEQUENTIAL_WRITE if direction == "write" else DIRECT_SEQUENTIAL_READ, direction)

    def cold_caches(self, remount):
        self.cold.append(remount)


class SequentialRowsTest(unittest.TestCase):
    """The issue's acceptance line: the sequential rows are fio with O_DIRECT (libaio, 1 MiB) on both sides and a
    cold single-pass read; buffered figures only as extra rows labelled so."""

    def run_sequential(self, arguments, wide=False):
        benchmark = RecordingBenchmark(arguments)
        targets = {MOUNT: None, RAW: None}
        if wide:
            targets[WIDE] = None
        with tempfile.TemporaryDirectory() as folder:
            for name in list(targets):
                targets[name] = Path(folder) / name.replace(" ", "-")
                targets[name].mkdir()
            benchmark.sequential(targets)
            for target in targets.values():
                self.assertIn("sequential.dat", [path.name for path in target.iterdir()],
                              "the jobs' files are kept until the clean-up (their deletion disturbed later rows)")
        return benchmark

    def test_sequential_rows_are_direct_with_the_queue_depth_on_both_sides(self):
        benchmark = self.run_sequential(["--parallel-jobs", "0", "--no-buffered-sequential"])
        self.assertEqual([row.operation for row in benchmark.rows],
                         ["sequential write 1 MiB", "sequential read 1 MiB"])
        self.assertEqual([(target, workload) for target, workload, _ in benchmark.commands], [
            (MOUNT, "sequential write 1 MiB"), (RAW, "sequential write 1 MiB"),
            (MOUNT, "sequential read 1 MiB"), (RAW, "sequential read 1 MiB")])
        for _, _, command in benchmark.commands:
            for expected in ("--direct=1", "--ioengine=libaio", "--iodepth=8", "--bs=1M"):
                self.assertIn(expected, command)
            self.assertNotIn("--time_based", command)

    def test_read_is_one_cold_pass_over_what_was_written(self):
        benchmark = self.run_sequential(["--parallel-jobs", "0", "--no-buffered-sequential",
                                         "--sequential-queue-depth", "4"])
        reads = [command for _, workload, command in benchmark.commands if workload == "sequential read 1 MiB"]
        for command in reads:
            self.assertIn("--size=%d" % (64 * 1048576), command)  # exactly the bytes the write moved
            self.assertIn("--iodepth=4", command)
            runtime = int(next(argument for argument in command if argument.startswith("--runtime="))[10:])
            self.assertGreaterEqual(runtime, 900)  # the hang guard, not a bound that could cut the pass short
        writes = [command for _, workload, command in benchmark.commands if workload == "sequential write 1 MiB"]
        for command in writes:
            self.assertIn("--end_fsync=1", command)
        self.assertEqual(len(benchmark.cold), 2)  # before each side's read

    def test_buffered_rows_are_extra_and_labelled(self):
        benchmark = self.run_sequential(["--parallel-jobs", "0"])
        self.assertEqual([row.operation for row in benchmark.rows], [
            "sequential write 1 MiB", "sequential read 1 MiB",
            "sequential write 1 MiB, buffered", "sequential read 1 MiB, buffered"])
        for _, workload, command in benchmark.commands:
            if workload.endswith(", buffered"):
                self.assertIn("--ioengine=psync", command)
                self.assertNotIn("--direct=1", command)
            else:
                self.assertIn("--direct=1", command)
        self.assertTrue(all(row.unit == "MiB/s" for row in benchmark.rows))

    def test_wide_and_parallel_rows_are_direct_too(self):
        benchmark = self.run_sequential(["--parallel-jobs", "4", "--no-buffered-sequential"], wide=True)
        self.assertEqual([row.operation for row in benchmark.rows], [
            "sequential write 1 MiB", "sequential write 1 MiB, width 3 (not 1)",
            "sequential read 1 MiB", "sequential read 1 MiB, width 3 (not 1)",
            "sequential write 1 MiB, 4 jobs"])
        for _, _, command in benchmark.commands:
            self.assertIn("--direct=1", command)
        self.assertIn("sequential read 1 MiB: stripe width 3 gives 1.00x the MiB/s of width 1 (NOT faster)",
                      benchmark.notes)


class WarmUpTest(unittest.TestCase):
    """The untimed warm-up before the rows: every target gets the same fio warm-up, and every FUSE target (both
    XtreemFS mounts, which share the MRC, and GlusterFS) --warm-up-files creates, stats and unlinks."""

    def warm_up(self, arguments):
        benchmark = RecordingBenchmark(arguments)
        phases = []

        def metadata_phase(target, operation, folder, count, limit_s, key=None, timed=True):
            self.assertFalse(timed, "the warm-up is untimed")
            self.assertTrue(folder.is_dir())
            phases.append((target, operation, count))
            return count, 1000.0

        benchmark.metadata_phase = metadata_phase
        with tempfile.TemporaryDirectory() as folder:
            targets = {}
            for name in (MOUNT, RAW, WIDE, GLUSTER):
                targets[name] = Path(folder) / name.replace(" ", "-")
                targets[name].mkdir()
            benchmark.warm_up(targets)
            if benchmark.options.warm_up_mib > 0:
                for target in targets.values():
                    self.assertIn("warm-up-0.dat", [path.name for path in target.iterdir()],
                                  "the warm-up's files are kept until the clean-up")
        return benchmark, phases

    def test_every_fuse_target_gets_the_metadata_warm_up_and_the_raw_disk_none(self):
        benchmark, phases = self.warm_up(["--warm-up-files", "300"])
        self.assertEqual(phases, [(target, operation, 300) for target in (MOUNT, WIDE, GLUSTER)
                                  for operation in ("create", "stat", "unlink")])
        self.assertEqual(sorted({target for target, _, _ in benchmark.commands}), sorted([MOUNT, RAW, WIDE, GLUSTER]),
                         "the fio warm-up runs on every target, the raw disk included")

    def test_the_default_warm_up_takes_the_mrc_past_30000_operations(self):
        # Two XtreemFS mounts share the MRC, each creates, stats and unlinks the files: 6N operations, past the
        # ~30,000 after which the MRC's C2 code is cheaper than C1's (bin/xtreemfs-mrc).
        self.assertGreaterEqual(6 * parse_arguments([]).warm_up_files, 30000)

    def test_no_metadata_warm_up_when_zero(self):
        _, phases = self.warm_up(["--warm-up-files", "0"])
        self.assertEqual(phases, [])

    def sequential_warm_up_mib(self, benchmark, target):
        """(files, MiB written, MiB read) by the 1 MiB warm-up jobs on `target`."""
        files, written, read = set(), 0, 0
        for job_target, workload, command in benchmark.commands:
            if job_target != target or "--bs=1M" not in command:
                continue
            files.update(argument for argument in command if argument.startswith("--filename="))
            size_mib = int(next(argument for argument in command if argument.startswith("--size="))[7:]) // 2**20
            if "--rw=write" in command:
                written += size_mib
            elif "--rw=read" in command:
                read += size_mib
        return len(files), written, read

    def test_every_osd_gets_the_same_sequential_warm_up_whatever_the_width(self):
        # 3 OSDs: the width-3 volume's OSDs each get 256 MiB (one file of 768), and the width-1 volume writes
        # three files, one per OSD as the MRC spreads them, so that its measured file's OSD is warm too.
        benchmark, _ = self.warm_up(["--warm-up-mib", "256", "--osds", "3", "--warm-up-files", "0"])
        self.assertEqual(self.sequential_warm_up_mib(benchmark, WIDE), (1, 768, 768))
        self.assertEqual(self.sequential_warm_up_mib(benchmark, MOUNT), (3, 768, 768))
        self.assertEqual(self.sequential_warm_up_mib(benchmark, RAW), (1, 256, 256))
        self.assertEqual(self.sequential_warm_up_mib(benchmark, GLUSTER), (1, 256, 256))

    def test_the_warm_up_files_of_a_volume_of_width_two_on_three_osds(self):
        benchmark, _ = self.warm_up(["--warm-up-mib", "64", "--osds", "3", "--wide-stripe-width", "2",
                                     "--warm-up-files", "0"])
        self.assertEqual(self.sequential_warm_up_mib(benchmark, WIDE), (2, 256, 256))

    def test_the_random_warm_up_runs_once_per_target(self):
        benchmark, _ = self.warm_up(["--warm-up-random-s", "2", "--warm-up-files", "0"])
        for target in (MOUNT, RAW, WIDE, GLUSTER):
            random_jobs = [command for job_target, _, command in benchmark.commands
                           if job_target == target and "--bs=4k" in command]
            self.assertEqual(len(random_jobs), 2, target)


class OsdWarmUpTest(unittest.TestCase):
    """The first warm-up (--warm-up-objects): the 1 MiB rows' O_DIRECT job shape on a volume of small objects of its
    own, width --osds, so that every OSD calls its per-object methods past C2's compile thresholds before the rows."""

    def warm_up(self, arguments, folder):
        benchmark = RecordingBenchmark(arguments)
        unmounted = []
        benchmark.warm_up_mount = types.SimpleNamespace(unmount=lambda: unmounted.append(True))
        benchmark.warm_up_folder = Path(folder) / OSD_WARM_UP.replace(" ", "-")
        benchmark.warm_up_folder.mkdir()
        benchmark.settled = []
        benchmark.settle_osd_jit = lambda: benchmark.settled.append(len(benchmark.commands)) or 0.0
        targets = {}
        for name in (MOUNT, RAW):
            targets[name] = Path(folder) / name.replace(" ", "-")
            targets[name].mkdir()
        benchmark.warm_up(targets)
        return benchmark, unmounted

    def test_the_warm_up_writes_and_reads_its_objects_per_osd_before_every_other_job(self):
        with tempfile.TemporaryDirectory() as folder:
            benchmark, unmounted = self.warm_up(["--osds", "3", "--warm-up-objects", "100", "--warm-up-object-kib",
                                                 "256", "--warm-up-files", "0"], folder)
            self.assertEqual(benchmark.osd_warm_up_shape(), (3, 256))
            self.assertEqual(benchmark.osd_warm_up_passes(), [(100, 3 * 100 * 256 * 1024), (25, 3 * 25 * 256 * 1024)])
            # Two passes on new files, each written, read cold and followed by a wait for the JIT: 100 objects per
            # OSD, then 25.
            self.assertEqual([(target, workload) for target, workload, _ in benchmark.commands[:4]],
                             [(OSD_WARM_UP, "pass 1 write"), (OSD_WARM_UP, "pass 1 read"), (OSD_WARM_UP, "pass 2 write"), (OSD_WARM_UP, "pass 2 read")])
            self.assertEqual(benchmark.settled, [2, 4], "a wait after each pass")
            for index, size in ((0, 3 * 100 * 256 * 1024), (1, 3 * 25 * 256 * 1024)):
                path = benchmark.warm_up_folder / ("osd-warm-up-%d.dat" % index)
                write, read = benchmark.commands[2 * index][2], benchmark.commands[2 * index + 1][2]
                for command in (write, read):
                    for argument in ("--filename=%s" % path, "--bs=1M", "--size=%d" % size, "--direct=1",
                                     "--ioengine=libaio", "--iodepth=8"):
                        self.assertIn(argument, command)
                self.assertIn("--rw=write", write)
                self.assertIn("--end_fsync=1", write)
                self.assertIn("--rw=read", read)
                self.assertTrue(path.exists(), "the files are kept: their deletion would run during the rows")
            self.assertEqual(benchmark.cold[:2], [benchmark.warm_up_mount] * 2, "the reads are cold")
            self.assertEqual(unmounted, [True], "the warm-up's mount goes before the rows")
            self.assertEqual({target for target, _, _ in benchmark.commands[4:]}, {MOUNT, RAW},
                             "the other warm-ups follow")
            self.assertTrue(any(note.startswith("OSD warm-up on a volume of 256 KiB objects of its own: pass 1 write "
                                                "(100 objects per OSD)") and "pass 2 read (25 objects per OSD)" in note
                                for note in benchmark.notes), benchmark.notes)

    def test_off_by_default_and_then_no_job_on_it(self):
        # Off until it shows a gain (README, session 19); the object size is the OSD's O_DIRECT whole-object write's.
        options = parse_arguments([])
        self.assertEqual((options.warm_up_objects, options.warm_up_object_kib), (0, 256))
        benchmark = RecordingBenchmark(["--warm-up-files", "0"])
        with tempfile.TemporaryDirectory() as folder:
            benchmark.warm_up({MOUNT: Path(folder)})
        self.assertNotIn(OSD_WARM_UP, {target for target, _, _ in benchmark.commands})

    def test_object_sizes_whose_requests_take_other_osd_paths_are_refused(self):
        for size in ("128", "258", "2048"):
            with self.assertRaises(SystemExit, msg=size), contextlib.redirect_stderr(io.StringIO()):
                parse_arguments(["--warm-up-object-kib", size])

    def test_the_volume_is_made_with_the_object_size(self):
        cluster = Cluster(Path("/repository"), Path("/state"), 3)
        cluster.dir_port = 32638
        calls = []
        original = subprocess.run
        subprocess.run = lambda command, **_: calls.append(command) or types.SimpleNamespace(returncode=0, stdout="")
        try:
            cluster.create_volume("warm-up", 3, 256)
            cluster.create_volume("bench", 1)
        finally:
            subprocess.run = original
        self.assertEqual(calls, [
            ["/repository/bin/mkfs.xtreemfs", "--striping-width", "3", "--object-size", "256KiB",
             "pbrpc://127.0.0.1:32638/warm-up"],
            ["/repository/bin/mkfs.xtreemfs", "--striping-width", "1", "pbrpc://127.0.0.1:32638/bench"]])


class ReportTest(unittest.TestCase):
    def test_markdown_and_json_files(self):
        with tempfile.TemporaryDirectory() as folder:
            options = parse_arguments(["--out", folder, "--files", "500"])
            benchmark = types.SimpleNamespace(
                rows=[Row("create, 500 files", "ops/s", 100.0, 400.0)], runs={"mount": {}, "raw disk": {}},
                notes=["create on the mount stopped early"], page_cache_dropped=True, load_average_start=1.5)
            started = datetime.datetime(2026, 11, 22, 13, 0, 5, tzinfo=datetime.timezone.utc)
            paths = write_report(options, started, 42.0, benchmark)
            self.assertEqual(paths["md"].name, "fuse-20261122T130005Z.md")
            report = json.loads(paths["json"].read_text())
            self.assertEqual(report["rows"], [{"operation": "create, 500 files", "unit": "ops/s", "mount": 100.0,
                                               "raw_disk": 400.0, "glusterfs": None, "ratio": 0.25,
                                               "ratio_to_glusterfs": None}])
            self.assertEqual(report["settings"]["files"], 500)
            self.assertEqual(report["settings"]["sequential_queue_depth"], 8)
            self.assertEqual(report["notes"], ["create on the mount stopped early"])
            markdown = paths["md"].read_text()
            self.assertIn("| create, 500 files | ops/s | 100.0 | 400.0 | 0.25 |", markdown)
            self.assertIn("- create on the mount stopped early", markdown)
            self.assertIn("libaio, O_DIRECT, queue depth 8", markdown)


class JitShareTest(unittest.TestCase):
    """make bench's note of the OSDs' JIT compiler share per row (issue 10, session 18)."""

    def test_one_note_per_xtreemfs_mount_listing_the_measured_jobs_only(self):
        runs = {MOUNT: {"sequential write 1 MiB": {"osd_cpu_s": 4.0, "osd_jit_compiler_cpu_s": 2.0},
                        "create": {"ops_per_s": 2000.0}},
                WIDE: {"sequential read 1 MiB": {"osd_cpu_s": 0.0, "osd_jit_compiler_cpu_s": 0.0}},
                RAW: {"sequential write 1 MiB": {"iops": 300.0}}, GLUSTER: {}}
        self.assertEqual(jit_notes(runs), [
            "the OSDs' JIT compiler threads' share of the OSDs' CPU per job on the mount: sequential write 1 MiB "
            "50 % of 4.0 s",
            "the OSDs' JIT compiler threads' share of the OSDs' CPU per job on the wide mount: sequential read 1 MiB "
            "0 % of 0.0 s"])
        self.assertEqual(jit_notes({MOUNT: {"create": {}}, RAW: {}}), [])

    def test_a_thread_named_as_the_jvms_compiler_counts_as_the_compiler(self):
        # A thread of this process named as HotSpot names C2's (prctl PR_SET_NAME) burns CPU: it shows in the
        # compiler figure, and a process without such threads shows none.
        import ctypes
        import os
        import threading
        from proc_stats import jvm_cpu_ticks
        total_before, compiler_before = jvm_cpu_ticks(os.getpid())
        self.assertEqual(compiler_before, 0)

        def compile_like():
            ctypes.CDLL(None).prctl(15, b"C2 CompilerThread0", 0, 0, 0)
            began = time.thread_time()
            while time.thread_time() - began < 0.2:
                pass
            spun.set()
            done.wait()

        spun, done = threading.Event(), threading.Event()
        thread = threading.Thread(target=compile_like)
        thread.start()
        try:
            # Read once the thread has stopped spinning: jvm_cpu_ticks reads the process's figure before its threads',
            # so a thread still running between the two reads could show more ticks than the process did.
            self.assertTrue(spun.wait(30))
            total, compiler = jvm_cpu_ticks(os.getpid())
            self.assertGreaterEqual(compiler, 10)
            # The kernel rounds the process's user and system time to ticks apart from each thread's, so the process's
            # delta may lag the thread's own sum by up to 2 ticks (one per rounded field).
            self.assertGreaterEqual(total - total_before, compiler - 2)
        finally:
            done.set()
            thread.join()
        self.assertIsNone(jvm_cpu_ticks(2 ** 22 + 12345))


if __name__ == "__main__":
    unittest.main()
