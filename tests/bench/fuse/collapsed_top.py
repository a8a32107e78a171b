#!/usr/bin/env python3
"""Top frames of async-profiler's collapsed stacks (the profiles `ab_data_path.py --profile --async-profiler LIB`
records, one line per distinct stack: `[thread tid=N];frame;...;frame COUNT`, root first): share of CPU samples per
thread, per method as the top (self) frame, and per method anywhere on the stack (inclusive, counted once per stack).

  collapsed_top.py OUT/B/profile/osd-*-randread.collapsed              # top 25 of each table
  collapsed_top.py --top 40 --match org/xtreemfs FILE...               # only frames whose name contains the text

Several files are summed. Frame names are async-profiler's: Java methods as `package/Class.method` (`_[j]` JIT,
`_[i]` inlined, `_[0]` interpreted, `_[1]` C1 suffixes are dropped), native and kernel symbols as they are
(`_[k]`: kernel).
"""
import argparse
import collections
import re
import sys
from pathlib import Path

SUFFIX = re.compile(r"_\[[a-z0-9]\]$")
THREAD = re.compile(r"^\[(.*?)(?: tid=\d+)?\]$")


def thread_group(name: str) -> str:
    """Pool threads differ only in their numbers: osd-net-3-1, stage-storage-7 -> osd-net, stage-storage."""
    return re.sub(r"[-#]?\d+(-\d+)*$", "", name) or name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--match", default="", help="only list frames whose name contains this text")
    options = parser.parse_args()
    total = 0
    threads = collections.Counter()
    self_counts = collections.Counter()
    inclusive = collections.Counter()
    for path in options.files:
        for line in path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            samples = int(count)
            frames = [SUFFIX.sub("", frame) for frame in stack.split(";")]
            thread = THREAD.match(frames[0])
            if thread:
                threads[thread_group(thread.group(1))] += samples
                frames = frames[1:]
            else:
                threads["?"] += samples
            total += samples
            if frames:
                self_counts[frames[-1]] += samples
            for frame in set(frames):
                inclusive[frame] += samples
    if total == 0:
        sys.exit("no samples in %s" % ", ".join(map(str, options.files)))
    print("%d samples" % total)
    for title, counter in (("thread", threads), ("self", self_counts), ("inclusive", inclusive)):
        print("\n%s:" % title)
        rows = [(name, n) for name, n in counter.most_common() if options.match in name or title == "thread"]
        for name, n in rows[:options.top]:
            print("  %5.1f %%  %s" % (100.0 * n / total, name))


if __name__ == "__main__":
    main()
