"""Unit tests of qos_overhead_profile.py: JFR times and laying samples on the policies' intervals."""
import unittest

from qos_overhead_profile import epoch_ms, summarise


def event(time: str, *stack: str) -> dict:
    return {"values": {"startTime": time, "stackTrace": {"frames": [
        {"method": {"type": {"name": frame.rsplit(".", 1)[0].replace(".", "/")}, "name": frame.rsplit(".", 1)[1]}}
        for frame in stack]}}}


class ProfileTest(unittest.TestCase):
    def test_jfr_times_with_nanoseconds_and_zones_are_epoch_milliseconds(self):
        self.assertAlmostEqual(epoch_ms("1970-01-01T00:00:01.500000001Z"), 1500.000001, places=6)
        self.assertEqual(epoch_ms("1970-01-01T01:00:00+01:00"), 0.0)
        self.assertEqual(epoch_ms("1970-01-01T00:00:02Z"), 2000.0)
        with self.assertRaises(ValueError):
            epoch_ms("yesterday")

    def test_samples_are_counted_per_label_of_the_interval_they_fall_in(self):
        rows = [{"workload": "w", "policy": "fifo-1", "start_unix_ms": "1000", "elapsed_ms": "1000", "requests": "10"},
                {"workload": "w", "policy": "fair", "start_unix_ms": "2000", "elapsed_ms": "1000", "requests": "20"}]
        events = [
            event("1970-01-01T00:00:01.100Z", "java.lang.Object.wait"),
            event("1970-01-01T00:00:02.100Z", "org.xtreemfs.qos.wfq.FairQueue.dequeue",
                  "org.xtreemfs.osd.stages.QosStage.submit"),
            event("1970-01-01T00:00:02.900Z", "java.util.HashMap.getNode", "org.xtreemfs.osd.stages.QosStage.answered"),
            event("1970-01-01T00:00:03.500Z", "java.lang.Object.wait"),  # between intervals
        ]
        per_label, requests, outside, top = summarise(events, rows)
        self.assertEqual(per_label, {"fifo-1": [1, 0, 0], "fair": [2, 2, 1]})
        self.assertEqual(requests, {"fifo-1": 10, "fair": 20})
        self.assertEqual(outside, 1)
        self.assertEqual(top[("fair", "org.xtreemfs.qos.wfq.FairQueue.dequeue",
                              "org.xtreemfs.qos.wfq.FairQueue.dequeue")], 1)


if __name__ == "__main__":
    unittest.main()
