"""Tests of make bench's hygiene (issue 10, session 20): nothing is deleted between timed jobs, every timed job waits
for a quiet disk first (proc_stats.wait_until_disk_quiet on a sequence of /proc/diskstats readings), and a run that
would fill the disk refuses to start. No cluster, no fio, no timing.

    python3 -m unittest discover -s tests/bench/fuse -p 'test_*.py'
"""
import os
import shutil
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from proc_stats import disk_activity, disk_busy, disk_counters, disk_under, wait_until_disk_quiet
from run_fuse_bench import (GLUSTER, MIB, MOUNT, OSD_WARM_UP, RAW, WIDE, BenchmarkError, disk_notes,
                            parse_arguments, space_needed_bytes, space_problem)
from test_fio_results import RecordingBenchmark


def reading(writes=0, discards=0, in_flight=0, write_sectors=0, discard_sectors=0):
    return {"reads": 0, "read_sectors": 0, "read_ms": 0, "writes": writes, "write_sectors": write_sectors,
            "in_flight": in_flight, "io_ms": 0, "weighted_ms": 0, "discards": discards,
            "discard_sectors": discard_sectors}


class FakeClock:
    """A clock that moves only when slept on, and a disk whose readings are taken from a list (the last repeats)."""

    def __init__(self, readings):
        self.now = 100.0
        self.readings = list(readings)

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds

    def read(self):
        return self.readings.pop(0) if len(self.readings) > 1 else self.readings[0]


class QuietDiskTest(unittest.TestCase):
    def wait(self, readings, bound_s=30.0):
        fake = FakeClock(readings)
        return wait_until_disk_quiet(fake.read, 1.0, bound_s, 0.125, clock=fake.clock, sleep=fake.sleep)

    def test_an_idle_disk_is_quiet_after_one_second_of_readings(self):
        waited_s, bound_hit = self.wait([reading(writes=5)])
        self.assertAlmostEqual(waited_s, 1.0, places=6)
        self.assertFalse(bound_hit)

    def test_discards_completing_restart_the_quiet_second(self):
        # Discards complete in the readings of the first 0.625 s (ext4's journal commit after an unlink), then nothing.
        readings = [reading(discards=n) for n in (0, 10, 20, 30, 40, 50)] + [reading(discards=50)]
        waited_s, bound_hit = self.wait(readings)
        self.assertAlmostEqual(waited_s, 1.625, places=6)
        self.assertFalse(bound_hit)

    def test_writes_and_a_request_in_flight_count_as_busy_reads_do_not(self):
        self.assertTrue(disk_busy(reading(writes=1), reading(writes=2)))
        self.assertTrue(disk_busy(reading(), reading(in_flight=1)))
        self.assertTrue(disk_busy(reading(discards=3), reading(discards=4)))
        quiet = reading()
        after = dict(quiet, reads=1000, read_sectors=8000)
        self.assertFalse(disk_busy(quiet, after))

    def test_a_disk_busy_throughout_ends_the_wait_at_the_bound(self):
        readings = [reading(writes=n) for n in range(1000)]
        waited_s, bound_hit = self.wait(readings, bound_s=5.0)
        self.assertGreaterEqual(waited_s, 5.0)
        self.assertLess(waited_s, 5.2)
        self.assertTrue(bound_hit)

    def test_a_request_in_flight_without_completions_keeps_it_busy(self):
        readings = [reading(in_flight=1)] * 30 + [reading()]
        waited_s, bound_hit = self.wait(readings)
        self.assertAlmostEqual(waited_s, 4.625, places=6)  # in flight until 3.625 s, then the quiet second
        self.assertFalse(bound_hit)

    def test_activity_during_a_job(self):
        before = reading(writes=10, discards=2, write_sectors=2048, discard_sectors=0)
        after = reading(writes=30, discards=229, write_sectors=4096, discard_sectors=227 * 2048 + 0)
        self.assertEqual(disk_activity(before, after), {"disk_writes": 20, "disk_write_mib": 1.0,
                                                        "disk_discards": 227, "disk_discard_mib": 227.0})
        self.assertEqual(disk_activity(None, after), {})

    def test_the_counters_of_the_disk_under_a_folder_carry_discards(self):
        disk = disk_under(tempfile.gettempdir())
        if disk is None:
            self.skipTest("the temporary folder is not on a block device")
        counters = disk_counters(disk)
        self.assertIn("discards", counters)
        self.assertIn("discard_sectors", counters)


class SpaceTest(unittest.TestCase):
    def test_every_kept_file_is_counted(self):
        options = parse_arguments(["--size-mib", "1024", "--random-size-mib", "256", "--warm-up-mib", "256",
                                   "--osds", "3", "--files", "1000"])
        needed = space_needed_bytes(options, with_gluster=True)
        # width 1: 3 warm-up files of 256; direct, buffered and 4-job sequential 1024 each; random 256.
        self.assertEqual(needed[MOUNT], (768 + 3 * 1024 + 256) * MIB + 1000 * 4096)
        self.assertEqual(needed[GLUSTER], needed[MOUNT] - 512 * MIB)  # one warm-up file, not three
        self.assertEqual(needed[RAW], needed[GLUSTER] + 1000 * 4096)  # metadata before and after the mount
        self.assertEqual(needed[WIDE], (768 + 1024) * MIB)  # warm-up and the direct pair only
        self.assertNotIn(OSD_WARM_UP, needed)

    def test_only_the_chosen_workloads_and_sides(self):
        options = parse_arguments(["--workloads", "metadata", "--warm-up-mib", "0", "--wide-stripe-width", "0",
                                   "--files", "100"])
        self.assertEqual(space_needed_bytes(options, with_gluster=False), {MOUNT: 100 * 4096, RAW: 200 * 4096})

    def test_the_osd_warm_up_files_are_counted(self):
        options = parse_arguments(["--warm-up-objects", "100", "--osds", "3", "--workloads", "metadata",
                                   "--warm-up-mib", "0"])
        self.assertEqual(space_needed_bytes(options, False)[OSD_WARM_UP], 3 * (100 + 25) * 256 * 1024)

    def test_a_run_that_does_not_fit_names_both_numbers(self):
        problem = space_problem(10 * 1024 * MIB, 8 * 1024 * MIB, "the file system of /tmp")
        self.assertIn("needs 10.0 GiB on the file system of /tmp", problem)
        self.assertIn("only 8.0 GiB are free", problem)
        self.assertIsNone(space_problem(10 * 1024 * MIB, 20 * 1024 * MIB, "/tmp"))

    def test_the_margin_counts(self):
        # 10 GiB need 13 GiB free: 10 % and 2 GiB more.
        self.assertIsNotNone(space_problem(10 * 1024 * MIB, 12 * 1024 * MIB, "/tmp"))
        self.assertIsNone(space_problem(10 * 1024 * MIB, 13 * 1024 * MIB, "/tmp"))

    def test_set_up_refuses_to_start_before_starting_anything(self):
        benchmark = RecordingBenchmark(["--glusterfs", "off"])
        with tempfile.TemporaryDirectory() as folder:
            benchmark.state = Path(folder)
            with mock.patch("run_fuse_bench.free_bytes", return_value=1024 * MIB), \
                    mock.patch("shutil.which", return_value="/usr/bin/tool"), \
                    mock.patch("os.access", return_value=True), \
                    mock.patch("subprocess.run", side_effect=AssertionError("nothing may start")):
                with self.assertRaisesRegex(BenchmarkError, "only 1.0 GiB are free"):
                    benchmark.set_up()
            self.assertIsNone(benchmark.cluster)


class NoDeletionBetweenJobsTest(unittest.TestCase):
    """The whole run's jobs through the harness's structure, fio and metadata_ops replaced: no file or folder is
    removed from the warm-up's first job to the metadata rows' end (the metadata rows' unlinks are metadata_ops', the
    measured operation)."""

    def test_no_side_deletes_anything_and_every_row_job_is_timed(self):
        benchmark = RecordingBenchmark(["--warm-up-files", "10", "--files", "10", "--parallel-jobs", "4",
                                        "--warm-up-random-s", "1"])
        phases = []

        def metadata_phase(target, operation, folder, count, limit_s, key=None, timed=True):
            phases.append((target, operation, key, timed))
            benchmark.runs[target][key or operation] = {"count": count, "seconds": 1.0, "cpu_seconds": 1.0}
            return count, 1000.0

        benchmark.metadata_phase = metadata_phase
        removed = []
        refuse = lambda *arguments, **keywords: removed.append(arguments)
        with tempfile.TemporaryDirectory() as folder:
            targets = {}
            for name in (MOUNT, RAW, WIDE, GLUSTER):
                targets[name] = Path(folder) / name.replace(" ", "-")
                targets[name].mkdir()
            with mock.patch.object(Path, "unlink", refuse), mock.patch.object(Path, "rmdir", refuse), \
                    mock.patch.object(os, "unlink", refuse), mock.patch.object(os, "remove", refuse), \
                    mock.patch.object(os, "rmdir", refuse), mock.patch.object(shutil, "rmtree", refuse):
                benchmark.warm_up(targets)
                benchmark.sequential(targets)
                benchmark.random(targets)
                benchmark.metadata(targets)
            self.assertEqual(removed, [])
            names = sorted(path.name for path in targets[MOUNT].iterdir() if path.is_file())
            self.assertEqual(names, ["random.dat", "sequential-buffered.dat", "sequential.dat", "warm-up-0.dat",
                                     "warm-up-1.dat", "warm-up-2.dat"], "a distinct name per kept file")
        untimed = {(target, workload) for target, workload, timed in benchmark.timed if not timed}
        timed = {(target, workload) for target, workload, timed in benchmark.timed if timed}
        self.assertEqual({workload for _, workload in untimed}, {"warm-up", "preparing 256 MiB for the random jobs"})
        self.assertIn((MOUNT, "sequential read 1 MiB, buffered"), timed)
        self.assertIn((GLUSTER, "random read 4 KiB QD32, 4 jobs"), timed)
        self.assertTrue(all(timed for _, _, key, timed in phases if key is None or "warm-up" not in key))
        self.assertTrue(all(not timed for _, _, key, timed in phases if key is not None and "warm-up" in key))


class DiskNotesTest(unittest.TestCase):
    def test_one_note_per_side_and_one_per_busy_start(self):
        runs = {MOUNT: {"sequential write 1 MiB": {"disk_quiet_wait_s": 1.2, "disk_quiet_bound_hit": False,
                                                   "disk_discards": 0, "disk_discard_mib": 0.0,
                                                   "disk_write_mib": 1024.0},
                        "warm-up": {}},
                RAW: {"sequential write 1 MiB, buffered": {"disk_quiet_wait_s": 30.0, "disk_quiet_bound_hit": True,
                                                           "disk_discards": 227, "disk_discard_mib": 226.0,
                                                           "disk_write_mib": 900.0}}}
        notes = disk_notes(runs, ["vda"], 30)
        self.assertEqual(notes[0], "the disk (vda) per timed job on the mount (waited to be quiet; then discarded and "
                                   "written during the job, by anyone): sequential write 1 MiB 1.2 s, 0 discards "
                                   "(0 MiB), 1024 MiB written")
        self.assertIn("sequential write 1 MiB, buffered 30.0 s, 227 discards (226 MiB), 900 MiB written", notes[1])
        self.assertEqual(notes[2], "sequential write 1 MiB, buffered on raw disk started on a BUSY disk: vda was not "
                                   "quiet for 1 s within the 30 s bound (--quiet-disk-bound-s)")
        self.assertEqual(len(notes), 3)


if __name__ == "__main__":
    unittest.main()
