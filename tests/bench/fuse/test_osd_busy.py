"""Tests of osd_busy.py's report on made-up samples (no cluster):

    python3 -m unittest discover -s tests/bench/fuse -p 'test_*.py'
"""
import contextlib
import io
import json
import tempfile
import types
import unittest
from pathlib import Path

import osd_busy


def job(side, pids, start, end, ios):
    return {"round": 0, "side": side, "rw": "write-direct", "mib_s": ios / (end - start), "ios": ios, "bs": "1M",
            "wall_s": end - start, "start_monotonic_s": start, "end_monotonic_s": end, "osd_pids": pids}


class ReportTest(unittest.TestCase):
    def report(self, rows, results):
        with tempfile.TemporaryDirectory() as folder:
            samples, results_file = Path(folder) / "s.jsonl", Path(folder) / "r.json"
            samples.write_text("".join(json.dumps(row) + "\n" for row in rows))
            results_file.write_text(json.dumps(results))
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                osd_busy.report(types.SimpleNamespace(samples=samples, results=results_file, busy_share=0.2,
                                                      idle_share=0.05))
            return out.getvalue()

    def test_osds_taking_turns_are_counted_and_working_together_is_not(self):
        ticks = osd_busy.TICKS
        # 1 s steps: OSD 1 works (half a core) in the first two, OSD 2 in the last two; the JIT of OSD 1 a tenth.
        cpu = [(0, 0), (ticks // 2, 0), (ticks, 0), (ticks, ticks // 2), (ticks, ticks)]
        rows = [{"t": float(t), "cpu": {"1": a, "2": b}, "jit": {"1": t * ticks // 10, "2": 0}}
                for t, (a, b) in enumerate(cpu)]
        turns = self.report(rows, [job("A", [1, 2], 0, 4, 100)])
        self.assertIn("one busy while another idle 100 %", turns)
        self.assertIn("all busy   0 %", turns)
        # 2 CPU-seconds over 100 MiB: 10,000 us per MiB each; the JIT 0.4 s of it.
        self.assertIn("OSD us/MiB 10000 / 10000 (of it JIT compiler threads 4000)", turns)
        together = [{"t": float(t), "cpu": {"1": t * ticks // 2, "2": t * ticks // 2}, "jit": {}} for t in range(5)]
        both = self.report(together, [job("B", [1, 2], 0, 4, 100)])
        self.assertIn("one busy while another idle   0 %", both)
        self.assertIn("all busy 100 %", both)


if __name__ == "__main__":
    unittest.main()
