#!/usr/bin/env python3
"""What a server JVM's JIT compiled, and why, in each job of an ab_data_path.py run (issue 10: the OSDs' C2 compiler
threads were 31-61 % of their CPU in make bench's rows; is that warm-up, or deoptimisation and recompilation?).

  ab_data_path.py ... --java-opts "NAME=-XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile=DIR/jit%p.log"
  jit_log.py DIR/jitPID.log [--results OUT/results.json] [--top 8]
  jit_log.py DIR/jitPID.log --tree 'StorageStage answer' [--tree-depth 3]   (what each C2 compile of it inlined)

HotSpot writes the log's queue, deoptimisation and class-loading records as they happen and merges each compiler
thread's records (every compile task with its start and end) into the file when the JVM exits, so read the log after
the cluster stopped. Every server JVM of a side gets the flags (%p: one file per process); the log's header names
its process, and with --results only the jobs whose osd_pids hold it are windows (an MRC's or DIR's log: one
window). The header's start time (epoch ms) is placed on CLOCK_MONOTONIC, which the results use, with this machine's
current offset between the two clocks (the same boot: within a fraction of a second).

Per window: C2 compile tasks and their summed wall time (at load this is time waiting for a CPU too: compare with
ab_data_path's `C2 CompilerThre` CPU per io), split into first compiles of a method and recompiles (a method C2 had
compiled before: after a deoptimisation), OSR compiles; uncommon traps by reason and by the bytecode that trapped
(method and bci, and the compiled method it was inlined into); C2 code made not entrant, by the code cache sweeper
or not; class-hierarchy dependencies broken by a newly loaded class; the longest C2 compiles.
"""
import argparse
import collections
import json
import re
import sys
import time
from typing import Dict, List, NamedTuple, Optional, Tuple

ATTRIBUTE = re.compile(r"(\w+)='([^']*)'")


class Task(NamedTuple):
    start_s: float
    wall_s: float
    compile_id: str
    method: str
    level: str  # '4' is C2 (the log leaves the level out for C2 tasks)
    osr: bool
    inlined_bytes: int
    recompile: bool  # C2 compiled this method before


class Log(NamedTuple):
    process: int
    start_epoch_s: float
    tasks: List[Task]
    events: List[Tuple[float, str, dict]]  # (stamp s, kind: trap / not_entrant / dependency, attributes)
    methods: Dict[str, str]  # compile id -> method
    sweeper_threads: set


def attributes(line: str) -> dict:
    return dict(ATTRIBUTE.findall(line))


def parse(lines) -> Log:
    process, start_epoch_s = 0, 0.0
    tasks_raw, events, methods = [], [], {}
    task: Optional[dict] = None
    trap: Optional[dict] = None
    writer, sweeper_threads = None, set()
    for line in lines:
        if line.startswith("<writer "):
            writer = attributes(line).get("thread")  # the thread of the records that follow
        elif line.startswith("<sweeper "):
            sweeper_threads.add(writer)  # the code cache sweeper's own records name its thread
        elif line.startswith("<hotspot_log "):
            header = attributes(line)
            process, start_epoch_s = int(header.get("process", 0)), int(header.get("time_ms", 0)) / 1000.0
        elif line.startswith("<task_queued") or line.startswith("<nmethod"):
            record = attributes(line)
            if "compile_id" in record and "method" in record:
                methods.setdefault(record["compile_id"], record["method"])
        elif line.startswith("<uncommon_trap") and "thread=" in line and "stamp=" in line:
            trap = attributes(line)
            trap["jvms"] = []
            events.append((float(trap["stamp"]), "trap", trap))
        elif trap is not None and line.startswith("<jvms"):
            trap["jvms"].append(attributes(line))
        elif line.startswith("</uncommon_trap"):
            trap = None
        elif line.startswith("<make_not_entrant"):
            record = attributes(line)
            events.append((float(record["stamp"]), "not_entrant", record))
        elif line.startswith("<dependency_failed"):
            record = attributes(line)
            events.append((float(record.get("stamp", 0)), "dependency", record))
        elif line.startswith("<task "):
            task = attributes(line)
        elif line.startswith("<task_done") and task is not None:
            done = attributes(line)
            tasks_raw.append((task, done))
            task = None
    tasks, compiled = [], set()
    for task, done in sorted(tasks_raw, key=lambda pair: float(pair[0]["stamp"])):
        level = task.get("level", "4")
        start = float(task["stamp"])
        recompile = level == "4" and task["method"] in compiled
        if level == "4":
            compiled.add(task["method"])
        tasks.append(Task(start, float(done["stamp"]) - start, task["compile_id"], task["method"], level,
                          task.get("compile_kind") == "osr", int(done.get("inlined_bytes", 0)), recompile))
    return Log(process, start_epoch_s, tasks, events, methods, sweeper_threads)


def windows_of(log: Log, results: Optional[List[dict]], monotonic_to_epoch_s: float) -> List[Tuple[str, float, float]]:
    if not results:
        return [("whole log", 0.0, float("inf"))]
    windows = []
    for job in results:
        if log.process not in job.get("osd_pids", []):
            continue
        start = job["start_monotonic_s"] + monotonic_to_epoch_s - log.start_epoch_s
        end = job["end_monotonic_s"] + monotonic_to_epoch_s - log.start_epoch_s
        windows.append(("round %s %s %s" % (job.get("round", "?"), job.get("side", "?"), job.get("rw", "?")), start, end))
    return windows or [("whole log (no job of process %d in the results)" % log.process, 0.0, float("inf"))]


def short(method: str, width: int = 100) -> str:
    name = "::".join(method.split(" ")[:2])  # the log's "class method signature", without the signature
    return name if len(name) <= width else "..." + name[-width:]


def report(log: Log, windows: List[Tuple[str, float, float]], top: int) -> str:
    out = []
    for name, start, end in windows:
        tasks = [t for t in log.tasks if start <= t.start_s < end]
        c2 = [t for t in tasks if t.level == "4"]
        again = [t for t in c2 if t.recompile]
        osr = [t for t in c2 if t.osr]
        events = [e for e in log.events if start <= e[0] < end]
        traps = [r for _, kind, r in events if kind == "trap"]
        gone = [r for _, kind, r in events if kind == "not_entrant" and r.get("compiler") == "c2"]
        swept = [r for r in gone if r.get("thread") in log.sweeper_threads]
        dependencies = [r for _, kind, r in events if kind == "dependency"]
        out.append("== %s [%.1f s, %.1f s) of the JVM" % (name, start, end))
        out.append("  C2: %d tasks, %.2f s wall; recompiles %d (%.2f s); OSR %d (%.2f s). C1: %d tasks, %.2f s" % (
            len(c2), sum(t.wall_s for t in c2), len(again), sum(t.wall_s for t in again), len(osr),
            sum(t.wall_s for t in osr), len(tasks) - len(c2), sum(t.wall_s for t in tasks if t.level != "4")))
        out.append("  C2 code made not entrant: %d (by the sweeper %d); dependencies broken by class loading: %d" % (
            len(gone), len(swept), len(dependencies)))
        if traps:
            out.append("  traps by reason: " + ", ".join("%s %d" % pair for pair in
                                                       collections.Counter(r["reason"] for r in traps).most_common()))
            sites = collections.Counter()
            for r in traps:
                where = r["jvms"][0] if r["jvms"] else {}
                sites[(r["reason"], short(where.get("method", "?"), 70), where.get("bci", "?"),
                       short(log.methods.get(r.get("compile_id"), "?"), 60))] += 1
            for (reason, method, bci, compiled), count in sites.most_common(top):
                out.append("    %3d %s at %s bci %s (in %s)" % (count, reason, method, bci, compiled))
        for dependency in dependencies[:top]:
            out.append("    class loaded: %s %s broken by %s" % (dependency.get("type"), dependency.get("ctxk"),
                                                                dependency.get("witness", dependency.get("x", "?"))))
        for t in sorted(c2, key=lambda t: -t.wall_s)[:top]:
            out.append("    %6.2f s %s%s inlined %5d B  %s" % (t.wall_s, "recompile " if t.recompile else "",
                                                             "OSR " if t.osr else "", t.inlined_bytes, short(t.method)))
    return "\n".join(out)


class Inlined(NamedTuple):
    method: str  # "holder::name" as the log names the holder
    bytes: int  # the method's own bytecode
    callees: list  # the Inlined callees parsed into this one, in order
    refused: list  # (method, bytes, reason) of calls C2 did not inline here

    def subtree_bytes(self) -> int:
        return self.bytes + sum(callee.subtree_bytes() for callee in self.callees)


def inline_trees(lines, pattern: str) -> List[Tuple[str, str, List[Inlined]]]:
    """(compile id, method, top-level parses) of every C2 task whose method contains `pattern`: what the compile
    inlined where, to see which callees make a method's graph large and which compiled roots share them."""
    trees, task_line, body = [], None, []
    for line in lines:
        if line.startswith("<task ") and pattern in attributes(line).get("method", "") and "level=" not in line:
            task_line, body = attributes(line), []
        elif task_line is not None:
            if line.startswith("</task>"):
                trees.append((task_line["compile_id"], task_line["method"], parse_inlining(body)))
                task_line = None
            else:
                body.append(line)
    return trees


def parse_inlining(body) -> List[Inlined]:
    klasses, methods, roots, stack, call = {}, {}, [], [], None
    for line in body:
        record = attributes(line)
        if line.startswith("<klass "):
            klasses[record["id"]] = record["name"].split("/")[-1]
        elif line.startswith("<method "):
            methods[record["id"]] = (klasses.get(record.get("holder"), "?") + "::" + record["name"],
                                     int(record.get("bytes", 0)))
        elif line.startswith("<call "):
            call = record.get("method")
        elif line.startswith("<inline_fail") and stack and call in methods:
            stack[-1].refused.append(methods[call] + (record.get("reason", "?").replace("&gt;", ">"),))
        elif line.startswith("<parse ") and record.get("method") in methods:
            node = Inlined(*methods[record["method"]], [], [])
            (stack[-1].callees if stack else roots).append(node)
            stack.append(node)
        elif line.startswith("</parse>") and stack:
            stack.pop()
    return roots


def format_tree(node: Inlined, depth: int, min_bytes: int, indent: int = 0) -> List[str]:
    out = ["%s%s %d B (with what it inlined: %d B)" % ("  " * indent, node.method, node.bytes, node.subtree_bytes())]
    if indent < depth:
        for callee in sorted(node.callees, key=lambda c: -c.subtree_bytes()):
            if callee.subtree_bytes() >= min_bytes:
                out += format_tree(callee, depth, min_bytes, indent + 1)
        for method, size, reason in node.refused:
            if size >= min_bytes:
                out.append("%snot inlined: %s %d B (%s)" % ("  " * (indent + 1), method, size, reason))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("log", help="a -XX:LogFile of -XX:+LogCompilation, read after its JVM exited")
    parser.add_argument("--results", help="ab_data_path.py's results.json: one window per job of this process")
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--tree", metavar="TEXT", help="instead: the inline tree of every C2 compile of a method whose"
                        " name contains TEXT (e.g. 'StorageStage answer')")
    parser.add_argument("--tree-depth", type=int, default=3)
    parser.add_argument("--tree-min-bytes", type=int, default=200, help="leave out smaller subtrees")
    options = parser.parse_args(argv)
    if options.tree:
        with open(options.log, errors="replace") as lines:
            for compile_id, method, roots in inline_trees(lines, options.tree):
                print("== C2 task %s: %s" % (compile_id, short(method)))
                for root in roots:
                    if root.subtree_bytes() >= options.tree_min_bytes:
                        print("\n".join(format_tree(root, options.tree_depth, options.tree_min_bytes, 1)))
        return 0
    with open(options.log, errors="replace") as lines:
        log = parse(lines)
    results = json.load(open(options.results)) if options.results else None
    print(report(log, windows_of(log, results, time.time() - time.monotonic()), options.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
