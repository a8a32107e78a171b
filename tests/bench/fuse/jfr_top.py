#!/usr/bin/env python3
"""Top frames of JFR recordings (the profiles ab_data_path.py --profile records): share of execution samples per
method as the top (self) frame and anywhere on the stack (inclusive), optionally per thread.

  jfr_top.py OUT/B/profile/mrc-*-create.jfr                     # top 20 self and inclusive frames
  jfr_top.py --top 30 --threads --match org.xtreemfs FILE...    # per-thread sample shares; only frames matching

Reads the recordings with the JDK's `jfr print --json --events jdk.ExecutionSample` (a JDK 17 `jfr` on PATH);
several files are summed. A method counts once per sample for "inclusive" even when it recurses.
"""
import argparse
import collections
import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable, List


def samples(path: Path, stack_depth: int) -> List[dict]:
    output = subprocess.run(["jfr", "print", "--json", "--stack-depth", str(stack_depth), "--events",
                             "jdk.ExecutionSample", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    if output.returncode != 0:
        raise SystemExit("jfr print %s failed: %s" % (path, output.stderr.strip()))
    return json.loads(output.stdout)["recording"]["events"]


def frame_name(frame: dict) -> str:
    method = frame["method"]
    type_name = method["type"]["name"].replace("/", ".")
    return "%s.%s" % (type_name.rsplit(".", 1)[-1], method["name"])  # the class's simple name (with $Inner)


def thread_name(event: dict) -> str:
    thread = event["values"].get("sampledThread") or {}
    name = thread.get("javaName") or thread.get("osName") or "?"
    # Pool threads differ only in their number: osd-net-3-1, storage-7 -> osd-net, storage.
    return name.rstrip("0123456789-").rstrip("-") or name


def summarize(events: Iterable[dict], match: str) -> Dict[str, collections.Counter]:
    own: collections.Counter = collections.Counter()
    inclusive: collections.Counter = collections.Counter()
    threads: collections.Counter = collections.Counter()
    total = 0
    for event in events:
        frames = (event["values"].get("stackTrace") or {}).get("frames") or []
        if not frames:
            continue
        total += 1
        threads[thread_name(event)] += 1
        names = [frame_name(frame) for frame in frames]
        own[names[0]] += 1
        for name in set(names):
            if match in name or not match:
                inclusive[name] += 1
    return {"own": own, "inclusive": inclusive, "threads": threads, "total": collections.Counter(total=total)}


def main(arguments: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("recordings", nargs="+", type=Path, help="JFR files (summed)")
    parser.add_argument("--top", type=int, default=20, help="rows per table")
    parser.add_argument("--stack-depth", type=int, default=64, help="frames read per sample")
    parser.add_argument("--match", default="", help="inclusive table: only methods whose name contains this")
    parser.add_argument("--threads", action="store_true", help="also print the samples' share per thread")
    options = parser.parse_args(arguments)
    events: List[dict] = []
    for path in options.recordings:
        events += samples(path, options.stack_depth)
    summary = summarize(events, options.match)
    total = summary["total"]["total"]
    if total == 0:
        print("no execution samples in %s" % ", ".join(map(str, options.recordings)))
        return 1
    print("%d execution samples in %d recording(s)" % (total, len(options.recordings)))
    tables = [("self (top frame)", summary["own"]), ("inclusive", summary["inclusive"])]
    if options.threads:
        tables.insert(0, ("thread", summary["threads"]))
    for title, counter in tables:
        print("\n%-8s %s" % ("share", title))
        for name, count in counter.most_common(options.top):
            print("%6.1f %%  %s" % (100.0 * count / total, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
