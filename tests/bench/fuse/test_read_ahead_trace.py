"""Tests of read_ahead_trace.py's arithmetic on made-up requests (no perf, no cluster):

    python3 -m unittest discover -s tests/bench/fuse -p 'test_*.py'
"""
import unittest

import read_ahead_trace


class MeanInFlightTest(unittest.TestCase):
    def test_requests_are_counted_over_the_window_only(self):
        requests = [(0.0, 1.0, "ra"), (0.5, 1.5, "ra"), (0.0, 2.0, "other")]
        self.assertAlmostEqual(read_ahead_trace.mean_in_flight(requests, 0.0, 1.0), 2.5)
        self.assertAlmostEqual(read_ahead_trace.mean_in_flight(requests, 1.0, 2.0), 1.5)

    def test_a_submitter_filter_keeps_its_requests(self):
        requests = [(0.0, 1.0, "ra"), (0.0, 1.0, "storage")]
        self.assertAlmostEqual(read_ahead_trace.mean_in_flight(requests, 0.0, 1.0, lambda s: s == "ra"), 1.0)

    def test_thread_names_map_to_groups(self):
        self.assertEqual(read_ahead_trace.group("osd-read-ahead-"), "ra")
        self.assertEqual(read_ahead_trace.group("stage-storage-3"), "storage")
        self.assertEqual(read_ahead_trace.group("osd-net-4-1"), "net")
        self.assertEqual(read_ahead_trace.group("cc1plus"), "other")


if __name__ == "__main__":
    unittest.main()
