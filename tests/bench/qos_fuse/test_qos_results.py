"""Unit tests of the QoS benchmark's arithmetic (qos_results.py) and its scenario generation; run by make bench-test."""
import argparse
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qos_results import (KIB, MIB, Attainment, FioSample, Pause, ProcessCpu, ResultError, VolumeResult,  # noqa: E402
                         WindowMeasures, attainment, cause_tally, free_reservation, honoured_reservation, miss_lines,
                         osd_continuity, osd_history_windows, overload_ratio, pauses_in_interval, parse_cpu_busy_ticks, parse_fio_log, parse_jvm_pauses,
                         parse_proc_stat, parse_rate, parse_runnable, parse_sim_tenants, pause_ms_per_window,
                         report_table, slo_met, summary_rows, tree_cpu_ticks, volume_id_of, window_causes,
                         window_values)

FIO_BW_LOG = """1000, 40576, 1, 0, 0
2001, 33664, 1, 0, 0
3002, 52683, 1, 0, 0
3002, 999, 0, 0, 0
5010, 55240, 1, 0, 0
6010, 62848, 1, 0, 0
"""

FREE_OUTPUT = """largest reservation admitted now, per type (each figure with the other at its smallest; 2 of 2 ledger OSDs available):
  sequential   capacity up to 249.75GiB, throughput up to 3200KiB/s
  random       capacity up to 249.75GiB, iops up to 39
  cold         capacity up to 499.75GiB
  best-effort  none (no available OSD of a matching type has room)
"""

SIM_TENANTS_CSV = """scenario,variant,tenant,class,weight,unit,reservation,achieved,windows_meeting_floor,p50_ms,p99_ms,p999_ms,rejected
qos,fair,seqa,RESERVED,1,MiB/s,1.9000,2.8000,1.0000,40.1,50.2,55.0,0
qos,fair,beseq,BEST_EFFORT,1,MiB/s,0.0000,0.5000,NaN,400.0,500.0,600.0,12
"""


class FioLogTest(unittest.TestCase):
    def test_write_samples_are_parsed_and_other_directions_skipped(self):
        samples = parse_fio_log(FIO_BW_LOG)
        self.assertEqual([s.end_ms for s in samples], [1000, 2001, 3002, 5010, 6010])
        self.assertEqual(samples[0].value, 40576)

    def test_a_malformed_line_is_an_error_naming_source_and_line(self):
        with self.assertRaisesRegex(ResultError, r"seq-a_bw.1.log line 2"):
            parse_fio_log("1000, 5, 1, 0, 0\nfio: oops\n", "seq-a_bw.1.log")

    def test_punctual_samples_fill_their_windows(self):
        samples = [FioSample(1000, 10), FioSample(2000, 20), FioSample(3000, 30)]
        self.assertEqual(window_values(samples, 0, 3, KIB), [10 * KIB, 20 * KIB, 30 * KIB])

    def test_the_warm_up_is_left_out_and_time_after_the_last_sample_is_zero(self):
        samples = [FioSample(1000, 10), FioSample(2000, 20), FioSample(3000, 30)]
        self.assertEqual(window_values(samples, 2, 3), [30.0, 0.0, 0.0])

    def test_drifting_samples_are_spread_over_the_interval_they_cover(self):
        # fio's samples from a loaded run: 67.399 s, then 68.568 s (the stat thread 170 ms late), then 69.602 s.
        # Rounding would leave window 67 empty; spread over their intervals every window gets its share.
        samples = [FioSample(66393, 1659), FioSample(67399, 1018), FioSample(68568, 875), FioSample(69602, 867)]
        values = window_values(samples, 66, 3)
        self.assertAlmostEqual(values[0], 0.393 * 1659 + 0.607 * 1018, places=6)  # 66.000-66.393-67.000
        self.assertAlmostEqual(values[1], 0.399 * 1018 + 0.601 * 875, places=6)   # 67.000-67.399-68.000
        self.assertAlmostEqual(values[2], 0.568 * 875 + 0.432 * 867, places=6)    # 68.000-68.568-69.000

    def test_duplicate_instants_cover_no_time(self):
        self.assertEqual(window_values([FioSample(1000, 10), FioSample(1000, 99)], 0, 1), [10.0])


class ReservationTest(unittest.TestCase):
    def test_reservations_that_still_fit_the_slowed_osd_are_honoured_in_full(self):
        # 60 % reserved, 2/3 of the speed left: everything still fits
        self.assertEqual(honoured_reservation(30, 100, 60, 2 / 3), 30)

    def test_reservations_beyond_the_slowed_capacity_shrink_in_proportion(self):
        # 90 % reserved, 2/3 left: each reservation gets (2/3 * 100) / 90 of itself
        self.assertAlmostEqual(honoured_reservation(45, 100, 90, 2 / 3), 45 * (200 / 3) / 90)
        self.assertAlmostEqual(2 * honoured_reservation(45, 100, 90, 2 / 3), 200 / 3)

    def test_bad_inputs_are_refused(self):
        for arguments in ((10, 100, 5, 1), (10, 0, 20, 1), (10, 100, 20, 0), (10, 100, 20, 1.5)):
            with self.assertRaises(ValueError):
                honoured_reservation(*arguments)


class AttainmentTest(unittest.TestCase):
    def test_windows_at_ninety_percent_of_their_own_target_count(self):
        # the target steps down after a drop: 8 is below 90 % of 10 but meets 90 % of 8
        result = attainment([10, 9, 8.9, 8, 7.1], [10, 10, 10, 8, 8])
        self.assertEqual(result.windows_met, 3)
        self.assertAlmostEqual(result.fraction_met, 0.6)
        self.assertAlmostEqual(result.mean, 8.6)
        self.assertEqual(result.minimum, 7.1)

    def test_best_effort_windows_are_never_met(self):
        self.assertEqual(attainment([5, 5], [0, 0]).windows_met, 0)

    def test_lengths_must_match_and_windows_exist(self):
        with self.assertRaises(ValueError):
            attainment([1, 2], [1])
        with self.assertRaises(ResultError):
            attainment([], [])


class ToolOutputTest(unittest.TestCase):
    def test_rates(self):
        self.assertEqual(parse_rate("3200KiB/s"), 3200 * KIB)
        self.assertEqual(parse_rate("44MiB/s"), 44 * MIB)
        self.assertEqual(parse_rate("1.5 GiB/s"), 1.5 * 1024 * MIB)
        with self.assertRaises(ResultError):
            parse_rate("fast")

    def test_free_reservations_per_type(self):
        self.assertEqual(free_reservation(FREE_OUTPUT, "sequential"), 3200 * KIB)
        self.assertEqual(free_reservation(FREE_OUTPUT, "random"), 39)
        with self.assertRaisesRegex(ResultError, "no random reservation"):
            free_reservation("  sequential   capacity up to 1GiB, throughput up to 1MiB/s\n", "random")

    def test_simulator_tenants(self):
        tenants = parse_sim_tenants(SIM_TENANTS_CSV)
        self.assertEqual(tenants["seqa"].achieved, 2.8)
        self.assertEqual(tenants["seqa"].windows_fraction_met, 1.0)
        self.assertIsNone(tenants["beseq"].windows_fraction_met)
        with self.assertRaises(ResultError):
            parse_sim_tenants("tenant,reservation\n")


def _result(policy, volume, reservation, fraction_met_windows):
    return VolumeResult(policy, volume, "sequential" if reservation else "best-effort", "MiB/s", reservation, 3.0,
                        Attainment(mean=1.0, minimum=0.5, windows=1000, windows_met=fraction_met_windows))


class SloTest(unittest.TestCase):
    def test_the_slo_needs_every_reserved_volume_at_999_per_mille(self):
        results = [_result("fair", "seq-a", 1.0, 1000), _result("fair", "seq-b", 1.0, 999),
                   _result("fair", "be", 0, 0), _result("fifo", "seq-a", 1.0, 1000), _result("fifo", "seq-b", 1.0, 998)]
        self.assertTrue(slo_met(results, "fair"))
        self.assertFalse(slo_met(results, "fifo"))
        with self.assertRaises(ResultError):
            slo_met(results, "other")

    def test_overload_counts_striped_volumes_with_their_share(self):
        # offered 3 + 0.5 * 3 = 4.5 against delivered 1 + 0.5 * 1 = 1.5 (the fifo row is another policy)
        results = [_result("fair", "seq-a", 1.0, 1000), _result("fair", "be", 0, 0), _result("fifo", "x", 1.0, 0)]
        self.assertAlmostEqual(overload_ratio(results, "fair", "MiB/s", {"be": 0.5}), 3.0)
        with self.assertRaises(ResultError):
            overload_ratio(results, "fair", "IOPS", {})

    def test_rows_and_table_leave_best_effort_attainment_empty(self):
        results = [_result("fair", "seq-a", 1.0, 1000), _result("fair", "be", 0, 0)]
        rows = summary_rows(results)
        self.assertEqual(rows[0]["windows_met_fraction"], "1.000")
        self.assertEqual(rows[1]["windows_met_fraction"], "")
        self.assertEqual(rows[1]["reservation"], "")
        table = report_table(results).splitlines()
        self.assertIn("100.0 %", table[1])
        self.assertNotIn("%", table[2])


class ScenarioTest(unittest.TestCase):
    def test_generated_scenario_carries_the_load_of_one_osd_at_the_simulators_speed(self):
        from run_qos_bench import simulator_scenario, tenants_for
        tenants = tenants_for(sequential_capacity=2 * MIB, random_iops=40, reserve_fraction=0.6, overload=3)
        options = argparse.Namespace(sim_speed_factor=2.0, overload=3.0, drop_osd="seq0", warmup_s=10,
                                     measure_s=120, bytes_per_random_io=1 << 20)
        outcome = {"tenants": tenants, "queue_capacity": 96, "volume_queue_capacity": 16}
        sequential = dict(line.split("=", 1) for line in simulator_scenario(outcome, "seq0", options).splitlines()
                          if "=" in line and not line.startswith("#"))
        self.assertEqual(sequential["tenants"], "seqa,seqb,beseq")  # one best-effort volume per OSD
        self.assertEqual(sequential["cost"], "bytes")
        self.assertEqual(sequential["device.slowdown.at.seconds"], "70")
        # 0.6 * 2 MiB/s / 2 = 614.4 KiB/s, admitted as 614 KiB/s, times the speed factor 2
        self.assertAlmostEqual(float(sequential["tenant.seqa.reservation.mib.per.second"]), 2 * 614 / 1024, places=4)
        self.assertEqual(sequential["tenant.beseq.class"], "best_effort")
        random = dict(line.split("=", 1) for line in simulator_scenario(outcome, "rand0", options).splitlines()
                      if "=" in line and not line.startswith("#"))
        self.assertEqual(random["cost"], "ios")
        self.assertNotIn("device.slowdown.at.seconds", random)
        self.assertEqual(random["tenants"], "randa,randb,berand")
        # 0.6 * 40 / 2 = 12 IOPS, times 2
        self.assertAlmostEqual(float(random["tenant.randa.reservation.iops"]), 24.0)

    def test_tenants_split_the_reserved_fraction_and_best_effort_brings_the_overload(self):
        from run_qos_bench import tenants_for
        tenants = {t.name: t for t in tenants_for(10 * MIB, 100, 0.6, 3)}
        self.assertEqual(tenants["seq-a"].reservation, 3 * MIB)  # 0.6 x 10 MiB/s / 2, a whole number of KiB/s
        self.assertEqual(tenants["rand-b"].reservation, 30)
        self.assertAlmostEqual(tenants["seq-b"].offered, 9 * MIB)
        # one best-effort volume per OSD, each alone offering its OSD 3x its capacity
        self.assertAlmostEqual(tenants["be-seq"].offered, 30 * MIB)
        self.assertEqual(tenants["be-seq"].osd, "seq0")
        self.assertAlmostEqual(tenants["be-rand"].offered, 300)
        self.assertEqual(tenants["be-rand"].osd, "rand0")


# What JDK 17 writes with -Xlog:gc,safepoint:file=...:timemillis,tags (run_qos_bench.JVM_LOG_OPTION).
JVM_LOG = """[1764224290000ms][gc] Using Serial
[1764224293050ms][safepoint] Safepoint "Cleanup", Time since last: 1000150862 ns, Reaching safepoint: 178153 ns, Cleanup: 1200 ns, At safepoint: 6003 ns, Total: 184156 ns
[1764224294200ms][gc] GC(3) Pause Young (Allocation Failure) 10M->2M(40M) 300.500ms
[1764224294200ms][safepoint] Safepoint "GenCollectForAllocation", Time since last: 99 ns, Reaching safepoint: 1000000 ns, Cleanup: 0 ns, At safepoint: 300500000 ns, Total: 301500000 ns
"""


class DiagnosisSourcesTest(unittest.TestCase):
    def test_jvm_pauses_are_parsed_with_their_end_and_kind(self):
        pauses = parse_jvm_pauses(JVM_LOG, "jvm-1.log")
        self.assertEqual(pauses, [Pause(1764224293050, 0.184156, "safepoint"), Pause(1764224294200, 300.5, "gc"),
                                  Pause(1764224294200, 301.5, "safepoint")])

    def test_a_pause_line_without_its_time_is_an_error_naming_the_line(self):
        with self.assertRaisesRegex(ResultError, "jvm-1.log line 1"):
            parse_jvm_pauses("[gc] GC(3) Pause Young (Allocation Failure) 10M->2M(40M) 3.5ms\n", "jvm-1.log")

    def test_pauses_are_split_over_the_windows_they_overlap(self):
        origin = 1764224292000.0  # window 0 = [..292.0, ..293.0)
        pauses = parse_jvm_pauses(JVM_LOG)
        # the 301.5 ms safepoint ended at 294.2 s: 101.5 ms in window 1 ([293, 294)), 200 ms in window 2
        safepoint = pause_ms_per_window(pauses, "safepoint", origin, 4)
        self.assertAlmostEqual(safepoint[1], 0.184156 + 101.5, places=3)
        self.assertAlmostEqual(safepoint[2], 200.0, places=3)
        self.assertEqual(safepoint[0], 0)
        self.assertEqual(safepoint[3], 0)
        self.assertAlmostEqual(sum(pause_ms_per_window(pauses, "gc", origin, 4)), 300.5, places=3)
        self.assertEqual(pause_ms_per_window(pauses, "gc", origin, 1), [0.0])  # windows beyond the count left out

    def test_proc_stat_with_a_command_name_holding_spaces_and_parentheses(self):
        line = "4242 (fio (job) 1) S 4200 4242 4200 0 -1 4194560 500 0 0 0 170 30 0 0 20 0 1 0 999 0 0"
        self.assertEqual(parse_proc_stat(line), ProcessCpu(4242, 4200, 200))
        with self.assertRaises(ResultError):
            parse_proc_stat("4242 fio S")

    def test_a_process_tree_sums_the_live_descendants_only(self):
        processes = {pid: ProcessCpu(pid, parent, ticks) for pid, parent, ticks in
                     ((10, 1, 5), (11, 10, 7), (12, 11, 3), (20, 1, 100))}
        self.assertEqual(tree_cpu_ticks(processes, 10), 15)
        self.assertEqual(tree_cpu_ticks(processes, 20), 100)
        self.assertEqual(tree_cpu_ticks(processes, 99), 0)  # ended

    def test_machine_busy_ticks_and_runnable_threads(self):
        self.assertEqual(parse_cpu_busy_ticks("cpu  100 5 50 800 40 3 2 0 0 0\ncpu0 1 2 3 4\n"), (160, 1000))
        self.assertEqual(parse_runnable("7.52 6.10 5.00 9/1304 88211\n"), 9)
        with self.assertRaises(ResultError):
            parse_cpu_busy_ticks("intr 1 2 3")
        with self.assertRaises(ResultError):
            parse_runnable("7.52")

    def test_volume_id_from_xtfsutil(self):
        shown = "path:             /mnt/seq-a\nvolume:           seq-a (id 5f0c-77, MRC mrc-1)\nfile id:          5f0c-77:1\n"
        self.assertEqual(volume_id_of(shown), "5f0c-77")
        with self.assertRaises(ResultError):
            volume_id_of("path: x\n")

    def test_osd_windows_are_laid_on_the_benchmark_windows_by_wall_clock(self):
        # two OSD windows ending 1.5 s and 2.5 s after the origin: each half in two benchmark windows
        history = {"windowSeconds": 1.0, "volumes": [
            {"volumeId": "v1", "newestWindowEndUnixMs": 1000 + 2500, "achievedCostPerSecond": [10.0, 20.0]},
            {"volumeId": "v2", "newestWindowEndUnixMs": None, "achievedCostPerSecond": []}]}
        windows = osd_history_windows(history, 1000, 3)
        self.assertEqual(windows["v1"], [5.0, 15.0, 10.0])
        self.assertEqual(windows["v2"], [0.0, 0.0, 0.0])

    def test_a_byte_charged_osd_is_read_in_bytes_not_in_its_cost(self):
        # a sequential OSD charges positionings on top of the bytes: fio measures bytes, so the bytes count
        history = {"windowSeconds": 1.0, "volumes": [
            {"volumeId": "seq", "costUnit": "bytes", "newestWindowEndUnixMs": 1000 + 1000,
             "achievedCostPerSecond": [30.0], "achievedBytesPerSecond": [10.0]},
            {"volumeId": "rand", "costUnit": "4KiB-io", "newestWindowEndUnixMs": 1000 + 1000,
             "achievedCostPerSecond": [7.0], "achievedBytesPerSecond": [28672.0]}]}
        windows = osd_history_windows(history, 1000, 1)
        self.assertEqual(windows["seq"], [10.0])
        self.assertEqual(windows["rand"], [7.0])

    def test_continuity_is_cost_over_bytes_with_the_osds_totals_for_byte_charged_volumes_only(self):
        history = {"windowSeconds": 1.0, "volumes": [
            {"volumeId": "seq", "costUnit": "bytes", "achievedCostPerSecond": [30.0, 10.0],
             "achievedBytesPerSecond": [10.0, 10.0], "objectAccessRequestsTotal": 100,
             "positioningChargedRequestsTotal": 3, "outOfOrderRequestsTotal": 40},
            {"volumeId": "old", "costUnit": "bytes", "achievedCostPerSecond": [5.0], "achievedBytesPerSecond": [0.0]},
            {"volumeId": "rand", "costUnit": "4KiB-io", "achievedCostPerSecond": [7.0],
             "achievedBytesPerSecond": [28672.0]}]}
        continuity = osd_continuity(history)
        self.assertEqual(continuity["seq"], {"cost_per_byte": 2.0, "object_accesses": 100, "positioning_charged": 3,
                                             "out_of_order": 40})
        self.assertEqual(continuity["old"], {"cost_per_byte": None, "object_accesses": None,
                                             "positioning_charged": None, "out_of_order": None})
        self.assertNotIn("rand", continuity)

    def test_pauses_in_an_interval_are_clipped_to_it(self):
        pauses = [Pause(1000, 50, "safepoint"), Pause(1500, 10, "safepoint"), Pause(2100, 200, "safepoint"),
                  Pause(1500, 10, "gc")]
        # [1000, 2000): 0 of the first (it ended at the start), all 10 ms of the second, 100 of the third's 200
        figures = pauses_in_interval(pauses, "safepoint", 1000, 2000)
        self.assertAlmostEqual(figures.total_ms, 110)
        self.assertEqual(figures.count, 2)
        self.assertEqual(figures.longest_ms, 200)
        self.assertEqual(pauses_in_interval(pauses, "gc", 0, 1000).count, 0)


class CauseTest(unittest.TestCase):
    def test_an_osd_that_served_the_reservation_puts_the_shortfall_on_fio(self):
        causes = window_causes(WindowMeasures("seq0", osd_served=5.01, target=4.52, fio_cpu_wait_ms=725,
                                              volume_queue=4))
        self.assertEqual(causes, ["the OSD served it 111 % of its reservation: the shortfall is fio's (its completions "
                                  "late)", "fio starved: waited 725 ms for a CPU"])
        self.assertEqual(window_causes(WindowMeasures("seq0", osd_served=3.0, target=4.52, volume_queue=4)),
                         ["the OSD did not serve it: 4 of its requests queued there"])

    def test_a_gc_pause_is_named_first(self):
        causes = window_causes(WindowMeasures("seq0", osd_pause_ms=250, osd_gc_ms=240, volume_queue=3))
        self.assertEqual(causes, ["OSD seq0's JVM paused 250 ms (240 ms of it GC)"])

    def test_a_starved_mount_and_an_empty_queue_are_both_named(self):
        causes = window_causes(WindowMeasures("seq0", osd_pause_ms=5, mount_cpu_wait_ms=450, volume_queue=0))
        self.assertEqual(causes, ["mount starved: waited 450 ms for a CPU",
                                  "requests not reaching the OSD (none of the volume queued there)"])

    def test_requests_waiting_at_the_osd_without_other_cause_blame_the_osd(self):
        causes = window_causes(WindowMeasures("rand0", osd_cpu_wait_ms=20, mount_cpu_wait_ms=10, volume_queue=6))
        self.assertEqual(causes, ["the OSD did not serve it: 6 of its requests queued there"])
        self.assertEqual(window_causes(WindowMeasures("rand0")), ["none recorded"])

    def test_the_report_lines_carry_every_figure_and_the_tally_counts_kinds(self):
        measures = WindowMeasures("seq0", osd_served=3.8, osd_served_all=12.0, osd_queue=64, volume_queue=0,
                                  osd_pause_ms=0, osd_gc_ms=0, osd_cpu_ms=400, osd_cpu_wait_ms=30, mount_cpu_ms=90,
                                  mount_cpu_wait_ms=320, fio_cpu_ms=5, fio_cpu_wait_ms=1, load_1min=7.5, runnable=6,
                                  cpu_busy_percent=100)
        lines = miss_lines("fair seq-b second 19", 3.75, 4.07, "MiB/s", measures)
        self.assertEqual(lines[0], "fair seq-b second 19: 3.75 of 4.07 MiB/s (92 %)")
        self.assertIn("served it 3.80, all volumes 12.00 MiB/s; queue 64 (of it 0)", lines[1])
        self.assertIn("mount: CPU 90 ms, waited 320 ms", lines[2])
        self.assertIn("load 7.5, 6 runnable, 100 % busy", lines[2])
        self.assertEqual(lines[3], "    cause: mount starved: waited 320 ms for a CPU; requests not reaching the OSD "
                                   "(none of the volume queued there)")
        self.assertIn("queue - (of it -)", miss_lines("x", 1, 2, "IOPS", WindowMeasures("rand0"))[1])
        self.assertEqual(cause_tally([window_causes(measures), ["mount starved: waited 250 ms for a CPU"]]),
                         "mount starved: 2, requests not reaching the OSD: 1")


if __name__ == "__main__":
    unittest.main()
