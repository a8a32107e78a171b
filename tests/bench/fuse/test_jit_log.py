"""Tests of jit_log.py on a made-up -XX:+LogCompilation log (no JVM):

    python3 -m unittest discover -s tests/bench/fuse -p 'test_*.py'
"""
import unittest

import jit_log

ANSWER = "org.xtreemfs.osd.stages.StorageStage answer (Lorg/xtreemfs/osd/stages/StorageWork$AuthorizedRequest;)V"
# The JVM started at epoch 1000 s. Queue and deoptimisation records as they happen; the compiler threads' task
# records (merged when the JVM exits) after them: the method C2 compiled at 2 s is deoptimised at 12 s by a trap
# and compiled again at 12.5 s; the sweeper makes another method's C2 code not entrant at 13 s.
LOG = f"""<?xml version='1.0' encoding='UTF-8'?>
<hotspot_log version='160 1' process='4242' time_ms='1000000'>
<writer thread='7'/>
<task_queued compile_id='10' method='{ANSWER}' bytes='784' stamp='2.000' comment='tiered'/>
<task_queued compile_id='11' method='java.util.HashMap getNode (Ljava/lang/Object;)Ljava/util/HashMap$Node;' bytes='150' stamp='3.000'/>
<task_queued compile_id='9' method='java.lang.String hashCode ()I' bytes='49' level='3' stamp='1.000'/>
<uncommon_trap thread='7' reason='null_assert_or_unreached0' action='make_not_entrant' compile_id='10' compiler='c2' level='4' stamp='12.000'>
<jvms bci='150' method='{ANSWER}' bytes='784'/>
</uncommon_trap>
<make_not_entrant thread='7' compile_id='10' compiler='c2' level='4' stamp='12.000'/>
<dependency_failed type='leaf_type' ctxk='io/netty/channel/DefaultFileRegion' witness='org/xtreemfs/foundation/rpc/FileSegment' stamp='12.100'/>
<task_queued compile_id='20' method='{ANSWER}' bytes='784' stamp='12.400' comment='tiered'/>
<writer thread='99'/>
<sweeper state='finished' traversals='1' stamp='13.000'/>
<make_not_entrant thread='99' compile_id='11' compiler='c2' level='4' stamp='13.000'/>
<writer thread='5'/>
<task compile_id='9' method='java.lang.String hashCode ()I' bytes='49' level='3' stamp='1.000'>
<task_done success='1' nmsize='400' count='100' stamp='1.010'/>
</task>
<task compile_id='10' method='{ANSWER}' bytes='784' stamp='2.000'>
<task_done success='1' nmsize='40000' count='9000' inlined_bytes='8000' stamp='3.000'/>
</task>
<task compile_id='11' method='java.util.HashMap getNode (Ljava/lang/Object;)Ljava/util/HashMap$Node;' bytes='150' stamp='3.000'>
<task_done success='1' nmsize='900' count='9000' inlined_bytes='10' stamp='3.100'/>
</task>
<task compile_id='20' method='{ANSWER}' bytes='784' stamp='12.500'>
<task_done success='1' nmsize='60000' count='9000' inlined_bytes='9000' stamp='15.000'/>
</task>
</hotspot_log>
"""


class JitLogTest(unittest.TestCase):
    def setUp(self):
        self.log = jit_log.parse(LOG.splitlines(keepends=True))

    def test_header_tasks_and_recompiles(self):
        self.assertEqual(self.log.process, 4242)
        self.assertEqual(self.log.start_epoch_s, 1000.0)
        c2 = [t for t in self.log.tasks if t.level == "4"]
        self.assertEqual([(t.compile_id, t.recompile) for t in c2], [("10", False), ("11", False), ("20", True)])
        self.assertEqual([t.level for t in self.log.tasks if t.compile_id == "9"], ["3"])
        self.assertAlmostEqual(c2[2].wall_s, 2.5)
        self.assertEqual(self.log.sweeper_threads, {"99"})

    def test_windows_from_the_jobs_of_this_process(self):
        results = [{"round": 0, "side": "M", "rw": "read-direct", "osd_pids": [4242],
                    "start_monotonic_s": 510.0, "end_monotonic_s": 520.0},
                   {"round": 0, "side": "N", "rw": "read-direct", "osd_pids": [1],
                    "start_monotonic_s": 520.0, "end_monotonic_s": 530.0}]
        # CLOCK_MONOTONIC 500 s is epoch 1000 s, the JVM's start: the job of process 4242 is [10 s, 20 s).
        windows = jit_log.windows_of(self.log, results, 500.0)
        self.assertEqual(windows, [("round 0 M read-direct", 10.0, 20.0)])
        text = jit_log.report(self.log, windows, 5)
        self.assertIn("C2: 1 tasks, 2.50 s wall; recompiles 1 (2.50 s)", text)
        self.assertIn("null_assert_or_unreached0 at org.xtreemfs.osd.stages.StorageStage::answer bci 150", text)
        self.assertIn("C2 code made not entrant: 2 (by the sweeper 1); dependencies broken by class loading: 1", text)
        self.assertIn("DefaultFileRegion broken by org/xtreemfs/foundation/rpc/FileSegment", text)

    def test_without_results_one_window(self):
        text = jit_log.report(self.log, jit_log.windows_of(self.log, None, 0.0), 5)
        self.assertIn("C2: 3 tasks, 3.60 s wall; recompiles 1 (2.50 s); OSR 0 (0.00 s). C1: 1 tasks, 0.01 s", text)

TREE_LOG = f"""<task_queued compile_id='30' method='{ANSWER}' bytes='784' stamp='1.000'/>
<task compile_id='31' method='{ANSWER}' bytes='784' count='600' level='3' stamp='1.000'>
<parse method='1'/>
</task>
<task compile_id='30' method='{ANSWER}' bytes='784' stamp='2.000'>
<klass id='1' name='org.xtreemfs.osd.stages.StorageStage' flags='17'/>
<method id='2' holder='1' name='answer' return='3' arguments='4' flags='2' bytes='784' iicount='9000'/>
<parse method='2' uses='9000' stamp='2.001'>
<klass id='5' name='org.xtreemfs.osd.stages.StorageStage' flags='17'/>
<method id='6' holder='5' name='answerRead' return='3' arguments='4' flags='2' bytes='150' iicount='9000'/>
<call method='6' count='9000' prof_factor='1' inline='1'/>
<inline_success reason='inline (hot)'/>
<parse method='6' uses='9000' stamp='2.002'>
<method id='7' holder='5' name='sendRegion' return='3' arguments='4' flags='2' bytes='400' iicount='10'/>
<call method='7' count='10' prof_factor='1' inline='1'/>
<inline_fail reason='too big'/>
</parse>
<method id='8' holder='5' name='loadReport' return='3' arguments='4' flags='2' bytes='13' iicount='9000'/>
<call method='8' count='9000' prof_factor='1' inline='1'/>
<parse method='8' uses='9000' stamp='2.003'>
</parse>
</parse>
<task_done success='1' nmsize='4000' inlined_bytes='163' stamp='2.100'/>
</task>
"""


class InlineTreeTest(unittest.TestCase):
    def test_what_each_c2_compile_inlined_where(self):
        trees = jit_log.inline_trees(TREE_LOG.splitlines(keepends=True), "StorageStage answer")
        self.assertEqual([compile_id for compile_id, _, _ in trees], ["30"], "C2 tasks only (no level attribute)")
        (root,) = trees[0][2]
        self.assertEqual((root.method, root.bytes, root.subtree_bytes()),
                         ("org.xtreemfs.osd.stages.StorageStage::answer", 784, 784 + 150 + 13))
        self.assertEqual([c.method.split("::")[1] for c in root.callees], ["answerRead", "loadReport"])
        self.assertEqual(root.callees[0].refused,
                         [("org.xtreemfs.osd.stages.StorageStage::sendRegion", 400, "too big")])
        lines = jit_log.format_tree(root, depth=3, min_bytes=100)
        self.assertEqual(lines[0], "org.xtreemfs.osd.stages.StorageStage::answer 784 B (with what it inlined: 947 B)")
        self.assertIn("    not inlined: org.xtreemfs.osd.stages.StorageStage::sendRegion 400 B (too big)", lines)
        self.assertNotIn("loadReport", "\n".join(lines), "subtrees under min_bytes left out")


if __name__ == "__main__":
    unittest.main()
