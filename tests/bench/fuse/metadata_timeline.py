#!/usr/bin/env python3
"""Where one metadata operation through mount.xtreemfs spends its time, step by step (issue 10).

  metadata_timeline.py --mount-pid P --mrc-pid Q [--seconds S] [--after-s A] -- COMMAND...

Starts COMMAND (e.g. tests/bench/fuse/metadata_ops create DIR 3000), waits --after-s (default 1.5) so
that it is in its loop, and records --seconds (default 1) with perf: the scheduler's wake-ups and
switches (whole machine), the kernel's FUSE requests (fuse:fuse_request_send/end) and the system calls
of the threads of COMMAND, the mount and the MRC. Then prints, per kind of FUSE request, the 10th
percentile and the median of every step in microseconds:

  1  the kernel queues the request -> a mount worker's read of /dev/fuse returns (1a: of it, the
     worker waiting in the run queue after its wake-up);
  2  the worker's own work before the RPC (read returns -> sendmsg), or all of it when no RPC is made;
  3  the sendmsg (on loopback it also runs the MRC's receive path and wakes its thread);
  4  the MRC's network thread wakes (its epoll_wait returns);
  5  the MRC's work until it sends the answer (5a: its other writes meanwhile, the RocksDB log);
  6  the mount's io thread wakes after the MRC's sendto (6a: the sendto itself; 6b: the io thread
     waiting in the run queue; 6c: the MRC thread running on after its answer until it sleeps);
  7  the io thread receives and decodes the answer until it wakes the worker (futex);
  8  the worker wakes (futex wake -> its futex wait returns);
  9  the worker's work after the RPC until the reply is written to /dev/fuse;
  R  the round trip as the mount sees it (sendmsg -> the worker resumes) against the MRC's own time
     (its receive returns -> its answer's sendto);
  z  the reply -> the application's next system call or request.

The shares are measured on a machine shared with other work: compare the 10th percentiles for what a
quiet machine would see, the medians for the machine as it was. Needs root (perf) and the kernel's fuse
tracepoints. Stepping is by system calls (x86_64 numbers), so an MRC that answers with another call
than sendto/write/writev/sendmsg on the request's socket shows no steps 5-9.
"""
import argparse
import bisect
import collections
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

READ, WRITE, WRITEV, SENDTO, RECVFROM, SENDMSG, FUTEX, EPOLL_WAIT, EPOLL_PWAIT = 0, 1, 20, 44, 45, 46, 202, 232, 281
APP_CALLS = {257: "openat", 3: "close", 87: "unlink", 263: "unlinkat", 4: "stat", 262: "newfstatat", 332: "statx"}
LINE = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$")


def record(options, command):
    work = Path(tempfile.mkdtemp(prefix="metadata-timeline."))
    app = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    time.sleep(options.after_s)
    threads = []
    for pid in (options.mount_pid, options.mrc_pid, app.pid):
        threads += [task.name for task in Path("/proc/%d/task" % pid).iterdir()]
    only_ours = " || ".join("common_pid == %s" % tid for tid in threads)
    data = work / "perf.data"
    subprocess.run(["perf", "record", "-a", "-m", "1024", "-o", str(data),
                    "-e", "sched:sched_switch,sched:sched_wakeup,fuse:fuse_request_send,fuse:fuse_request_end",
                    "-e", "raw_syscalls:sys_enter", "--filter", only_ours,
                    "-e", "raw_syscalls:sys_exit", "--filter", only_ours,
                    "--", "sleep", str(options.seconds)], check=True, stderr=subprocess.DEVNULL)
    app.wait()
    script = subprocess.run(["perf", "script", "-i", str(data), "-F", "comm,tid,pid,cpu,time,event,trace"],
                            check=True, capture_output=True, text=True).stdout
    return app.pid, script


class Trace:
    def __init__(self, text, mount_pid, mrc_pid):
        events = []
        for line in text.splitlines():
            match = LINE.match(line)
            if match:
                _, pid, tid, _, seconds, name, rest = match.groups()
                events.append((float(seconds) * 1e6, int(pid), int(tid), name, rest))
        events.sort(key=lambda event: event[0])
        self.calls = collections.defaultdict(list)  # tid -> [(enter, exit, nr, result, pid, first argument)]
        self.sends, self.ends = {}, {}              # request -> (time, opcode, sender tid) / (time, worker tid)
        self.wakeups = collections.defaultdict(list)
        self.switches_in = collections.defaultdict(list)
        entered = {}
        for at, pid, tid, name, rest in events:
            if name == "raw_syscalls:sys_enter":
                argument = re.search(r"\((\w+),", rest)
                entered[tid] = (at, int(rest.split()[1]), int(argument.group(1), 16) if argument else -1)
            elif name == "raw_syscalls:sys_exit":
                number, result = int(rest.split()[1]), int(rest.split("=")[1])
                if tid in entered and entered[tid][1] == number:
                    self.calls[tid].append((entered[tid][0], at, number, result, pid, entered[tid][2]))
                    del entered[tid]
            elif name == "fuse:fuse_request_send":
                match = re.search(r"req (\d+) opcode \d+ \(FUSE_(\w+)\)", rest)
                self.sends[int(match.group(1))] = (at, match.group(2), tid)
            elif name == "fuse:fuse_request_end":
                self.ends[int(re.search(r"req (\d+)", rest).group(1))] = (at, tid)
            elif name == "sched:sched_wakeup":
                self.wakeups[int(re.search(r"pid=(\d+)", rest).group(1))].append(at)
            elif name == "sched:sched_switch":
                self.switches_in[int(re.search(r"next_pid=(\d+)", rest).group(1))].append(at)
        self.mount_threads = {tid for tid, calls in self.calls.items() if calls and calls[0][4] == mount_pid}
        self.mrc_threads = {tid for tid, calls in self.calls.items() if calls and calls[0][4] == mrc_pid}


def first_at_or_after(times, at):
    index = bisect.bisect_left(times, at)
    return times[index] if index < len(times) else None


def first_call(calls, numbers, at, key, condition=lambda call: True):
    return next((call for call in calls if call[2] in numbers and key(call) >= at and condition(call)), None)


def last_call(calls, numbers, at, key, condition=lambda call: True):
    found = None
    for call in calls:
        if key(call) > at:
            break
        if call[2] in numbers and condition(call):
            found = call
    return found


def steps(trace, app_pid):
    out = collections.defaultdict(list)

    def add(name, value):
        if value is not None and value >= 0:
            out[name].append(value)

    exit_time, enter_time = (lambda call: call[1]), (lambda call: call[0])
    app_sends = sorted(at for at, _, tid in trace.sends.values() if tid == app_pid)
    for request, (sent, opcode, sender) in sorted(trace.sends.items()):
        # Only the application's own requests: the tracepoints see every FUSE mount of the machine.
        if request not in trace.ends or sender != app_pid:
            continue
        ended, worker = trace.ends[request]
        calls = trace.calls[worker]
        add(opcode + " total (queued -> reply)", ended - sent)
        received = last_call(calls, (READ,), ended, exit_time, lambda call: call[3] > 0)
        if received is None or received[1] < sent:
            continue
        add(opcode + " 1 worker wakes (queued -> read returns)", received[1] - sent)
        woken, running = first_at_or_after(trace.wakeups[worker], sent), first_at_or_after(trace.switches_in[worker], sent)
        if woken is not None and running is not None and running <= received[1]:
            add(opcode + " 1a  of it in the run queue", running - woken)
        rpc = first_call(calls, (SENDMSG,), received[1], enter_time, lambda call: call[0] <= ended)
        if rpc is None:
            add(opcode + " 2 worker, no RPC (read returns -> reply)", ended - received[1])
        else:
            add(opcode + " 2 worker before the RPC (read returns -> sendmsg)", rpc[0] - received[1])
            add(opcode + " 3 sendmsg", rpc[1] - rpc[0])
            rpc_steps(trace, opcode, worker, rpc, ended, add)
        resumed = first_call(trace.calls[sender], set(range(512)), ended, exit_time)
        next_send = first_at_or_after(app_sends, ended)
        candidates = [at for at in (resumed[1] if resumed else None, next_send) if at is not None]
        if candidates:
            add(opcode + " z the application resumes", min(candidates) - ended)
    operations = [call for call in trace.calls[app_pid] if call[2] in APP_CALLS and call[2] != 3]
    for call in trace.calls[app_pid]:
        if call[2] in APP_CALLS:
            add("application " + APP_CALLS[call[2]] + "(2)", call[1] - call[0])
    for before, after in zip(operations, operations[1:]):
        add("application: one operation (start to start)", after[0] - before[0])
    return out


def rpc_steps(trace, opcode, worker, rpc, ended, add):
    exit_time, enter_time = (lambda call: call[1]), (lambda call: call[0])
    received, receiver = None, None
    for tid in trace.mrc_threads:
        call = first_call(trace.calls[tid], (RECVFROM, READ), rpc[0], exit_time, lambda call: call[3] > 0)
        if call and (received is None or call[1] < received[1]):
            received, receiver = call, tid
    if received is None:
        return
    mrc_calls = trace.calls[receiver]
    polled = last_call(mrc_calls, (EPOLL_WAIT, EPOLL_PWAIT), received[0], exit_time)
    started = received[0]
    if polled and polled[1] >= rpc[0]:
        add(opcode + " 4 the MRC's network thread wakes", polled[1] - rpc[0])
        started = polled[1]
    answer = first_call(mrc_calls, (SENDTO, WRITE, WRITEV, SENDMSG), received[1], enter_time,
                        lambda call: call[5] == received[5])
    if answer is None or answer[0] >= ended:
        return
    add(opcode + " 5 the MRC's work until its answer", answer[0] - started)
    other = [call[1] - call[0] for call in mrc_calls
             if call[2] in (WRITE, WRITEV, 18) and call[5] != received[5] and received[1] <= call[0] <= answer[0]]
    if other:
        add(opcode + " 5a  of it other writes (RocksDB log)", sum(other))
    io, io_thread = None, None
    for tid in trace.mount_threads - {worker}:
        call = first_call(trace.calls[tid], (EPOLL_WAIT, EPOLL_PWAIT), answer[0], exit_time)
        if call and call[1] <= ended and (io is None or call[1] < io[1]):
            io, io_thread = call, tid
    if io is None:
        return
    add(opcode + " 6 the mount's io thread wakes (MRC sendto -> epoll returns)", io[1] - answer[0])
    add(opcode + " 6a  the MRC's sendto", answer[1] - answer[0])
    woken, running = first_at_or_after(trace.wakeups[io_thread], answer[0]), first_at_or_after(trace.switches_in[io_thread], answer[0])
    if woken is not None and running is not None and running <= io[1]:
        add(opcode + " 6b  the io thread in the run queue", running - woken)
    sleeps = first_call(mrc_calls, (EPOLL_WAIT, EPOLL_PWAIT), answer[1], enter_time)
    if sleeps:
        add(opcode + " 6c  the MRC thread runs on after its answer", sleeps[0] - answer[1])
    wake = first_call(trace.calls[io_thread], (FUTEX,), io[1], enter_time)
    if wake is None or wake[0] >= ended:
        return
    add(opcode + " 7 the io thread receives and decodes (epoll -> futex wake)", wake[0] - io[1])
    waited = last_call(trace.calls[worker], (FUTEX,), ended, exit_time)
    if waited is None or waited[1] < wake[0]:
        return
    add(opcode + " 8 the worker wakes (futex wake -> its wait returns)", waited[1] - wake[0])
    add(opcode + " 9 the worker after the RPC (-> reply)", ended - waited[1])
    add(opcode + " R the round trip the mount sees (sendmsg -> worker resumes)", waited[1] - rpc[0])
    add(opcode + " R the MRC's own time (receive returns -> answer sent)", answer[0] - received[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mount-pid", type=int, required=True)
    parser.add_argument("--mrc-pid", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--after-s", type=float, default=1.5)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("a COMMAND after -- is needed")
    app_pid, script = record(options, command)
    trace = Trace(script, options.mount_pid, options.mrc_pid)
    steps_found = steps(trace, app_pid)
    print("load average after: %s" % open("/proc/loadavg").read().split()[0])
    for name, values in sorted(steps_found.items()):
        ordered = sorted(values)
        print("%-66s n=%5d  p10 %7.1f  median %7.1f us" % (name, len(values), ordered[len(ordered) // 10],
                                                          statistics.median(values)))
    print("the application's requests:",
          dict(collections.Counter(opcode for _, opcode, sender in trace.sends.values() if sender == app_pid)))


if __name__ == "__main__":
    sys.exit(main())
