"""Unit tests of the FAST benchmark's own logic (tenants, device places, fio jobs, the simulator's scenario and the
report); run by make bench-test."""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run_fast_bench as bench  # noqa: E402

REGION_OF_A = 140          # DeviceLayout.regionStartBytes("a", 1L << 40) >> 30
REGION_OF_FILE_ID = 292    # the same for the file id below


class FastBenchTest(unittest.TestCase):
    def options(self, *arguments: str):
        return bench.parse_arguments(list(arguments))

    def test_tenant_ids_and_sizes_follow_the_simulator(self):
        tenants = bench.tenants_of({"rr": 2, "sr": 10, "rw": 1, "sw": 0}, 0.125)
        ids = [t.tenant_id for t in tenants]
        # ScenarioConfig.tenants: a group of one is its name, of 2-9 name1.., of 10 or more name01..
        self.assertEqual(ids[:3], ["rr1", "rr2", "sr01"])
        self.assertEqual(ids[-2:], ["sr10", "rw"])
        self.assertEqual(tenants[0].bytes, 2 << 20)                    # 16 MiB / 8
        self.assertEqual(tenants[2].bytes, (19 << 20) // 8 // 4096 * 4096)  # whole 4 KiB requests
        self.assertEqual(tenants[-1].bytes, (20 << 20) // 8)

    def test_region_start_matches_device_layout(self):
        # qos.device.DeviceLayout.regionStartBytes(id, 1 TiB) / 1 GiB, as the Java code computes it (jshell).
        self.assertEqual(bench.region_start_gib("a"), REGION_OF_A)
        self.assertEqual(bench.region_start_gib("6f3b0c1e-0d4e-4c3a-9a57-2f1d3c4b5a69:12"), REGION_OF_FILE_ID)

    def test_readers_start_in_declaration_order(self):
        options = self.options("--queue-depth", "4", "--stagger-ms", "100")
        tenants = bench.tenants_of({"rr": 2, "sr": 2, "rw": 1, "sw": 1}, 0.125)
        paths = {t.tenant_id: Path("/m") / (t.tenant_id + ".dat") for t in tenants}
        jobs = bench.job_file(tenants, paths, options)
        self.assertIn("iodepth=4", jobs)
        self.assertIn("[sr2]\nfilename=/m/sr2.dat\nrw=read\nio_size=%d\nrandseed=1003\nstartdelay=300ms" % (
            (19 << 20) // 8 // 4096 * 4096), jobs)
        self.assertNotIn("startdelay", jobs.split("[rw]")[1])
        self.assertEqual(bench.start_delay_s(tenants, options), {"rr1": 0.0, "rr2": 0.1, "sr1": 0.2, "sr2": 0.3,
                                                                 "rw": 0.0, "sw": 0.0})

    def test_the_scenario_overrides_fast_properties(self):
        options = self.options("--chunk-mib", "16", "--queue-depth", "4")
        tenants = bench.tenants_of({"rr": 1, "sr": 1, "rw": 0, "sw": 1}, 0.25)
        text = bench.sim_scenario(tenants, {"rr": "a", "sr": "b", "sw": "c"}, options)
        self.assertTrue(text.startswith(bench.SIM_BASE_SCENARIO.read_text()))
        appended = text[len(bench.SIM_BASE_SCENARIO.read_text()):]
        for line in ("tenants=rr*1,sr*1,sw*1", "chunk.mib=16", "queue.depths=4",
                     "variants=baseline,pattern,pattern-steal", "tenant.rr.bytes.mib=4.000000",
                     "tenant.rr.chunk.start.gib=%d" % REGION_OF_A):
            self.assertIn("\n" + line + "\n", appended)
        self.assertNotIn("tenant.rw.", appended)

    def test_a_scale_beyond_the_chunk_is_refused(self):
        with self.assertRaises(SystemExit):
            self.options("--scale", "1", "--chunk-mib", "16")
        with self.assertRaises(SystemExit):
            self.options("--variants", "pattern,sideways")

    def test_report_ratios_are_to_round_robin(self):
        tenants = bench.tenants_of({"rr": 2, "sr": 0, "rw": 0, "sw": 0}, 0.125)
        sim = {"seconds": {"baseline": {"rr1": 10.0, "rr2": 30.0}, "pattern": {"rr1": 40.0, "rr2": 40.0},
                           "pattern-steal": {"rr1": 20.0, "rr2": 20.0}}, "exit_code": 0, "failed_checks": []}
        entry = {"reads_head_middle_tail": [1, 2, 3], "wall_s": 1.0, "load_average_before": [1, 1, 1],
                 "load_average_after": [2, 2, 2], "sim": sim}
        measured = [dict(entry, variant="round-robin", completion_s={"rr1": 4.0, "rr2": 8.0}),
                    dict(entry, variant="pattern", completion_s={"rr1": 9.0, "rr2": 9.0})]
        lines = bench.report(tenants, measured).splitlines()
        self.assertRegex(lines[2], r"random readers\s+round-robin\s+6\.00 \( 4\.00-  8\.00\)\s+20\.00\s+1\.00\s+1\.00")
        self.assertRegex(lines[3], r"random readers\s+pattern\s+9\.00 \( 9\.00-  9\.00\)\s+20\.00\s+1\.50\s+1\.00")


if __name__ == "__main__":
    unittest.main()
