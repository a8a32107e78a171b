"""Tests of ab_data_path.py's own arithmetic (no cluster, no fio run): the metadata rows' CPU per operation per
process and per thread group, the figures after an unlink loop, and their medians over rounds.

    python3 -m unittest discover -s tests/bench/fuse -p 'test_*.py'
"""
import unittest

from ab_data_path import (TICKS, after_figures, busiest_thread_groups, calls_per_operation, disk_figures, median,
                          median_thread_groups, metadata_figures, mrc_calls, thread_group_deltas)


def snapshot(ticks, osd_threads, mrc_threads):
    """A metadata_snapshot() as the harness takes it: ticks per kind, thread groups as [ticks, voluntary switches,
    involuntary switches, threads]."""
    return {"ticks": ticks, "threads": {"osd": osd_threads, "mrc": mrc_threads}}


class MetadataFiguresTest(unittest.TestCase):
    def setUp(self):
        # 1,000 unlinks in 2 s; the OSD spent 30 ticks (0.3 s at 100 ticks/s), 20 of them in the C2 compiler.
        self.before = snapshot({"osd": 100, "mrc": 500, "dir": 7, "mount": 40},
                               {"stage-storage": [50, 10, 1, 2], "C2 CompilerThread": [30, 5, 0, 1]},
                               {"mrc-net": [400, 100, 3, 1]})
        self.after = snapshot({"osd": 100 + 3 * TICKS // 10, "mrc": 500 + TICKS, "dir": 7 + TICKS // 100,
                               "mount": 40 + TICKS // 5},
                              {"stage-storage": [50 + TICKS // 10, 1010, 1, 2],
                               "C2 CompilerThread": [30 + TICKS // 5, 5, 500, 1],
                               "osd-deletion-scheduler": [TICKS // 100, 20, 0, 1]},
                              {"mrc-net": [400 + TICKS, 2100, 3, 1]})
        self.result = {"ios": 1000, "wall_s": 2.0}

    def test_cpu_per_operation_of_every_process(self):
        metadata_figures(self.result, self.before, self.after, {})
        self.assertAlmostEqual(self.result["osd_us_per_io"], 300.0)
        self.assertAlmostEqual(self.result["mrc_us_per_io"], 1000.0)
        self.assertAlmostEqual(self.result["dir_us_per_io"], 10.0)
        self.assertAlmostEqual(self.result["mount_us_per_io"], 200.0)
        self.assertAlmostEqual(self.result["osd_cpu_s"], 0.3)

    def test_net_figures_subtract_the_idle_rate_over_the_wall_time(self):
        # The OSD idles at 0.05 CPU s/s: 0.1 s of its 0.3 s over the row's 2 s are background, not the unlinks'.
        metadata_figures(self.result, self.before, self.after, {"osd": 0.05, "dir": 0.005})
        self.assertAlmostEqual(self.result["osd_net_us_per_io"], 200.0)
        self.assertAlmostEqual(self.result["dir_net_us_per_io"], 0.0)
        self.assertAlmostEqual(self.result["mrc_net_us_per_io"], self.result["mrc_us_per_io"])

    def test_thread_groups_of_the_osd_and_the_mrc(self):
        metadata_figures(self.result, self.before, self.after, {})
        osd = self.result["osd_threads"]
        self.assertAlmostEqual(osd["C2 CompilerThread"]["cpu_us_per_io"], 200.0)
        self.assertAlmostEqual(osd["C2 CompilerThread"]["involuntary_switches_per_io"], 0.5)
        self.assertAlmostEqual(osd["stage-storage"]["cpu_us_per_io"], 100.0)
        self.assertAlmostEqual(osd["stage-storage"]["voluntary_switches_per_io"], 1.0)
        # A thread group that started during the row counts from zero.
        self.assertAlmostEqual(osd["osd-deletion-scheduler"]["cpu_us_per_io"], 10.0)
        self.assertEqual(osd["osd-deletion-scheduler"]["threads"], 1)
        self.assertAlmostEqual(self.result["mrc_threads"]["mrc-net"]["cpu_us_per_io"], 1000.0)
        self.assertAlmostEqual(self.result["mrc_threads"]["mrc-net"]["voluntary_switches_per_io"], 2.0)
        # The groups add up to the process's figure here (no thread ended during the row).
        self.assertAlmostEqual(sum(group["cpu_us_per_io"] for group in osd.values()) - 10.0,
                               self.result["osd_us_per_io"])

    def test_idle_groups_are_left_out_and_the_busiest_printed_first(self):
        deltas = thread_group_deltas({"idle": [5, 1, 1, 1], "busy": [0, 0, 0, 1]},
                                     {"idle": [5, 1, 1, 1], "busy": [TICKS, 10, 0, 1], "some": [TICKS // 10, 0, 0, 1]},
                                     10)
        self.assertEqual(set(deltas), {"busy", "some"})
        self.assertEqual(busiest_thread_groups(deltas, 1), "busy 100000.0 us, 1.00+0.00 cs")
        self.assertTrue(busiest_thread_groups(deltas).startswith("busy "))

    def test_after_the_loop_net_of_idle(self):
        later = snapshot(dict(self.after["ticks"], osd=self.after["ticks"]["osd"] + TICKS // 2),
                         dict(self.after["threads"]["osd"],
                              **{"stage-storage": [50 + TICKS // 10 + TICKS // 2, 1500, 1, 2]}),
                         self.after["threads"]["mrc"])
        after_figures(self.result, self.after, later, {"osd": 0.05}, 2.0)
        # 0.5 s in 2 s, 0.1 s of it the idle rate: 0.4 s over 1,000 unlinks.
        self.assertAlmostEqual(self.result["osd_after_net_us_per_io"], 400.0)
        self.assertEqual(set(self.result["osd_after_threads"]), {"stage-storage"})
        self.assertAlmostEqual(self.result["osd_after_threads"]["stage-storage"]["cpu_us_per_io"], 500.0)


class MedianTest(unittest.TestCase):
    def test_median_of_odd_and_even_counts(self):
        self.assertEqual(median([3.0, 1.0, 2.0]), 2.0)
        self.assertEqual(median([4.0, 1.0, 2.0, 3.0]), 2.5)
        self.assertEqual(median([]), 0.0)

    def test_a_group_missing_from_a_round_counts_as_zero(self):
        rows = [{"osd_threads": {"C2 CompilerThread": {"cpu_us_per_io": 900.0},
                                 "stage-storage": {"cpu_us_per_io": 50.0}}},
                {"osd_threads": {"stage-storage": {"cpu_us_per_io": 70.0}}},
                {"osd_threads": {"stage-storage": {"cpu_us_per_io": 60.0}}}]
        groups = median_thread_groups(rows, "osd")
        self.assertEqual(groups["C2 CompilerThread"], 0.0)
        self.assertEqual(groups["stage-storage"], 60.0)
        self.assertEqual(median_thread_groups(rows, "mrc"), {})



class MrcCallsTest(unittest.TestCase):
    def test_calls_per_operation_by_procedure_leaving_out_those_not_called(self):
        before = {"MRC_GETATTR": 100, "MRC_UNLINK": 50, "MRC_OPEN": 7}
        after = {"MRC_GETATTR": 220, "MRC_UNLINK": 1050, "MRC_OPEN": 7, "MRC_READDIR": 2}
        self.assertEqual(calls_per_operation(before, after, 1000),
                         {"MRC_GETATTR": 0.12, "MRC_READDIR": 0.002, "MRC_UNLINK": 1.0})

    def test_no_status_port_means_no_counts(self):
        self.assertEqual(mrc_calls(0), {})


class DiskFiguresTest(unittest.TestCase):
    def test_iostat_figures_of_one_job(self):
        # 1,024 fio requests of 1 MiB in 4 s; the disk read 2,048 requests of 512 KiB (2,097,152 sectors), 6,144 ms
        # reading in all, busy 3.2 s, 8 s of queue-weighted time.
        before = {"reads": 10, "read_sectors": 100, "read_ms": 50, "writes": 5, "write_sectors": 80, "io_ms": 1000,
                  "weighted_ms": 2000}
        after = dict(before, reads=10 + 2048, read_sectors=100 + 2097152, read_ms=50 + 6144, io_ms=1000 + 3200,
                     weighted_ms=2000 + 8000, write_sectors=80 + 2048)
        figures = disk_figures(before, after, 4.0, 1024)
        self.assertAlmostEqual(figures["disk_reads_per_io"], 2.0)
        self.assertAlmostEqual(figures["disk_read_kib"], 512.0)
        self.assertAlmostEqual(figures["disk_read_mib_s"], 256.0)
        self.assertAlmostEqual(figures["disk_r_await_ms"], 3.0)
        self.assertAlmostEqual(figures["disk_aqu_sz"], 2.0)
        self.assertAlmostEqual(figures["disk_util"], 0.8)
        self.assertAlmostEqual(figures["disk_write_mib"], 1.0)

    def test_no_counters_no_figures(self):
        self.assertEqual(disk_figures(None, None, 1.0, 1), {})


if __name__ == "__main__":
    unittest.main()
