#!/usr/bin/env bash
# Server restarts during I/O through a FUSE mount (issue 3: "a server restart during I/O gives an
# error or a retry, never a hang longer than the configured timeout"). An OSD and then the MRC are
# killed with SIGKILL while a writer or readers are busy, and started again on the same port with
# the same data. Each affected system call must either succeed (the client reconnected and retried)
# with correct data, or fail with an errno, within a bound derived from the mount's timeout.
#
#   tests/system/restart_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
start_cluster 2
"$repository/bin/mkfs.xtreemfs" -w 2 "127.0.0.1:$dir_port/restart" >/dev/null
mount_point="$state/mnt"
# 3 s per attempt and 2 retries with backoff: no call may take longer than a few attempts.
timeout_ms=3000
mount_volume restart "$mount_point" --retries 2 --timeout-ms "$timeout_ms"
bound_s=40

# writer.py TARGET SOURCE RESULT: copies SOURCE to TARGET in 256 KiB writes with short pauses, fsyncs
# and closes; creates RESULT.started once the first write returned, and writes "ok SECONDS ENDED" or
# "errno NAME SECONDS ENDED" to RESULT (ENDED: the wall-clock time in ns when the last call returned).
# reader.py SOURCE COPY RESULT: the same for reading SOURCE with O_DIRECT in 128 KiB reads into COPY.
cat > "$state/writer.py" <<'PY'
import errno, os, sys, time
target, source, result = sys.argv[1:4]
started = time.monotonic()
try:
    data = open(source, "rb").read()
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for offset in range(0, len(data), 262144):
        os.write(fd, data[offset:offset + 262144])
        if offset == 0:
            open(result + ".started", "w").close()
        time.sleep(0.02)
    os.fsync(fd)
    os.close(fd)
    outcome = "ok"
except OSError as error:
    outcome = "errno " + errno.errorcode.get(error.errno, str(error.errno))
open(result, "w").write("%s %.1f %d\n" % (outcome, time.monotonic() - started, time.time_ns()))
PY
cat > "$state/reader.py" <<'PY'
import errno, mmap, os, sys, time
source, copy, result = sys.argv[1:4]
started = time.monotonic()
try:
    fd = os.open(source, os.O_RDONLY | os.O_DIRECT)
    buffer = mmap.mmap(-1, 131072)  # page-aligned, as O_DIRECT needs
    with open(copy, "wb") as out:
        offset = 0
        while True:
            count = os.preadv(fd, [buffer], offset)
            if count == 0:
                break
            out.write(buffer[:count])
            if offset == 0:
                open(result + ".started", "w").close()
            offset += count
            time.sleep(0.01)
    os.close(fd)
    outcome = "ok"
except OSError as error:
    outcome = "errno " + errno.errorcode.get(error.errno, str(error.errno))
open(result, "w").write("%s %.1f %d\n" % (outcome, time.monotonic() - started, time.time_ns()))
PY

# check_overlap WHAT RESULT KILLED_NS: the I/O had begun before the kill (RESULT.started existed when the
# server was killed) and its last call returned after it, so the run tested a restart during I/O;
# otherwise the outcome checks below would pass without testing anything.
check_overlap() {
  local ended_ns
  ended_ns="$(awk '{print $NF}' "$2" 2>/dev/null || echo 0)"
  check "the kill overlapped the $1's I/O (begun before, last call returned $(( (ended_ns - $3) / 1000000 )) ms after)" \
    test "$ended_ns" -gt "$3"
}

# kill_osd_now I: SIGKILL straight to OSD I's process, returning once it is gone, with that time in
# killed_ns (the launcher's kill starts a JVM first, so its return says little about when the OSD died).
kill_osd_now() {
  local pid
  pid="$(osd_pid "$1")"
  kill -KILL "$pid"
  # Dead once gone or a zombie (state Z: its parent, not this shell, reaps it, maybe much later).
  while [ -r "/proc/$pid/stat" ] && ! awk '{ exit ($3 == "Z") ? 0 : 1 }' "/proc/$pid/stat" 2>/dev/null; do
    sleep 0.01
  done
  killed_ns=$(date +%s%N)
}

# wait_started RESULT: waits (at most 20 s) until the I/O behind RESULT has begun; false if it never did.
wait_started() {
  local _
  for _ in $(seq 1 200); do [ -e "$1.started" ] && return 0; sleep 0.1; done
  return 1
}

# check_finishes WHAT PID: waits at most $bound_s for PID to end; counts whether it did.
check_finishes() {
  local waited=0
  while kill -0 "$2" 2>/dev/null && [ "$waited" -lt $((bound_s * 10)) ]; do sleep 0.1; waited=$((waited + 1)); done
  check "$1 finished within ${bound_s} s of the OSD's restart (no hang)" bash -c "! kill -0 $2 2>/dev/null"
  wait "$2" 2>/dev/null || true
}

head -c $((24 * 1048576)) /dev/urandom > "$state/data.bin"

echo "== OSD 0 killed and restarted while a file is written"
/usr/bin/python3 "$state/writer.py" "$mount_point/written" "$state/data.bin" "$state/writer.result" &
writer=$!
check "the writer's first write returned before the kill" wait_started "$state/writer.result"
kill_osd_now 0
sleep 1
start_osd 0
check_finishes "the writer" "$writer"
outcome="$(cat "$state/writer.result" 2>/dev/null || echo missing)"
echo "writer: $outcome"
check_overlap writer "$state/writer.result" "$killed_ns"
# Success must come with identical bytes; otherwise the writer must have reported an errno.
check "the write either succeeded with identical bytes or failed with an errno ($outcome)" bash -c "
  case '$outcome' in
    ok*) cmp '$state/data.bin' '$mount_point/written' ;;
    errno\ E*) true ;;
    *) false ;;
  esac"
check "after the restart, a new file is written and read back through the mount" bash -c "
  cp '$state/data.bin' '$mount_point/after' && cmp '$state/data.bin' '$mount_point/after'"

echo "== OSD 1 killed and restarted while a file is read"
cp "$state/data.bin" "$mount_point/readme"
echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
/usr/bin/python3 "$state/reader.py" "$mount_point/readme" "$state/read.back" "$state/reader.result" &
reader=$!
check "the reader's first read returned before the kill" wait_started "$state/reader.result"
kill_osd_now 1
sleep 1
start_osd 1
check_finishes "the reader" "$reader"
outcome="$(cat "$state/reader.result" 2>/dev/null || echo missing)"
echo "reader: $outcome"
check_overlap reader "$state/reader.result" "$killed_ns"
check "the read either succeeded with identical bytes or failed with an error ($outcome)" bash -c "
  case '$outcome' in
    ok*) cmp '$state/data.bin' '$state/read.back' ;;
    errno\ E*) true ;;
    *) false ;;
  esac"

echo "== MRC killed: metadata calls fail within the timeout; after its restart they work again"
kill_mrc KILL
started_s=$(date +%s)
check "mkdir while the MRC is down fails" bash -c "! timeout $bound_s mkdir '$mount_point/while-down' 2>/dev/null"
elapsed_s=$(( $(date +%s) - started_s ))
check "the failure came within ${bound_s} s (took ${elapsed_s} s)" test "$elapsed_s" -lt "$bound_s"
start_mrc
sleep 1
check "after the MRC's restart, mkdir and a file in it work" bash -c "
  mkdir '$mount_point/after-mrc' && echo hello > '$mount_point/after-mrc/f' &&
  test \"\$(cat '$mount_point/after-mrc/f')\" = hello"
check "files written before the MRC's restart are intact" cmp "$state/data.bin" "$mount_point/after"

echo "mount log:"; tail -15 "$state/mount-mnt.log" || true
system_finish
