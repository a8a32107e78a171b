"""Tests of osd_inflight.py on a made-up cluster.properties and made-up samples (no cluster):

    python3 -m unittest discover -s tests/bench/fuse -p 'test_*.py'
"""
import tempfile
import unittest
from pathlib import Path

import osd_inflight


def samples(counts, step_s=0.1):
    """One sample per step: counts[i] = (pending at OSD pid 1, pending at OSD pid 2)."""
    return [{"t": i * step_s, "osds": {"1": {"pending": a, "name": "osd0"}, "2": {"pending": b, "name": "osd1"}}}
            for i, (a, b) in enumerate(counts)]


class WindowFiguresTest(unittest.TestCase):
    def test_osds_working_together_are_never_one_idle(self):
        per_osd, one_idle, count = osd_inflight.window_figures(samples([(3, 2)] * 5), [1, 2], 0.0, 1.0)
        self.assertEqual(count, 5)
        self.assertAlmostEqual(per_osd[1][0], 3.0)
        self.assertAlmostEqual(per_osd[2][0], 2.0)
        self.assertAlmostEqual(per_osd[1][1], 0.0)
        self.assertAlmostEqual(one_idle, 0.0)

    def test_a_stream_taking_turns_is_one_idle_all_the_time(self):
        # Four spans: OSD 1 has the requests in the first two, OSD 2 in the last two (the last sample ends the
        # window and weighs nothing).
        per_osd, one_idle, _ = osd_inflight.window_figures(
            samples([(2, 0), (2, 0), (0, 3), (0, 3), (0, 0)]), [1, 2], 0.0, 1.0)
        self.assertAlmostEqual(one_idle, 1.0)
        self.assertAlmostEqual(per_osd[1][0], 1.0)
        self.assertAlmostEqual(per_osd[2][1], 0.5)

    def test_both_idle_is_not_one_idle_and_gaps_are_left_out(self):
        rows = samples([(0, 0), (1, 1), (1, 1)])
        rows.append({"t": 5.0, "osds": rows[-1]["osds"]})  # 4.8 s later: the side was not sampled meanwhile
        per_osd, one_idle, _ = osd_inflight.window_figures(rows, [1, 2], 0.0, 10.0)
        self.assertAlmostEqual(one_idle, 0.0)
        self.assertAlmostEqual(per_osd[1][0], 0.5)  # (0 + 1) over the two 0.1-s spans, not the gap

    def test_samples_outside_the_window_or_without_every_osd_are_not_used(self):
        rows = samples([(1, 1)] * 3)
        rows.insert(1, {"t": 0.05, "osds": {"1": {"pending": 9}}})
        per_osd, _, count = osd_inflight.window_figures(rows, [1, 2], 0.0, 0.15)
        self.assertEqual(count, 2)
        self.assertAlmostEqual(per_osd[1][0], 1.0)
        self.assertIsNone(osd_inflight.window_figures(rows, [1, 2], 3.0, 4.0))


class ClusterPropertiesTest(unittest.TestCase):
    def test_the_osds_pids_and_status_ports(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "cluster.properties"
            path.write_text("#written by the cluster launcher\n"
                            "server.dir.kind=dir\nserver.dir.pid=10\nserver.dir.setting.dir.status.port=1000\n"
                            "server.osd1.kind=osd\nserver.osd1.pid=12\nserver.osd1.setting.osd.status.port=1002\n"
                            "server.osd0.kind=osd\nserver.osd0.pid=11\nserver.osd0.setting.osd.status.port=1001\n"
                            "server.osd2.kind=osd\nserver.osd2.pid=13\n")  # no status port: not sampled
            self.assertEqual(osd_inflight.osds_of(path), [("osd0", 11, 1001), ("osd1", 12, 1002)])
        self.assertEqual(osd_inflight.osds_of(Path(folder) / "missing"), [])


if __name__ == "__main__":
    unittest.main()
