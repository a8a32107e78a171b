#!/usr/bin/env bash
# The bounded-failure side of server restarts (issue 10): a server that stays away longer than the mount's
# retry window makes the affected system calls fail with a clean errno (EIO) once the window is over, never
# hang, and the mount stays alive: other calls keep working, and once the server is back everything works
# again with earlier files intact. (restart_transparent_e2e.sh checks the other side: a restart inside the
# default 60 s window is only a pause.) An OSD is killed with SIGKILL while a file is written, another while
# a file is read (O_DIRECT), and the MRC while a metadata call is made; each stays down for 12 s, longer
# than the window plus one attempt's timeout, then starts again on the same port with the same data.
#
#   tests/system/restart_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
start_cluster 2
"$repository/bin/mkfs.xtreemfs" -w 2 "127.0.0.1:$dir_port/restart" >/dev/null
mount_point="$state/mnt"
# A short window decides (lib.sh's --retries 1 cap is lifted): attempts of 2 s, retried for 3 s, so a call
# gives up between 3 s and 3 + 2 s after the server went away (plus the time its first attempt waited).
timeout_ms=2000
window_ms=3000
mount_volume restart "$mount_point" --timeout-ms "$timeout_ms" --retry-window-ms "$window_ms" --retries 100
down_s=12
# The failing call must return within this long of the kill (window + timeout + slack for a loaded machine).
bound_s=30

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
  check "$1 finished within ${bound_s} s while the server was away (no hang)" bash -c "! kill -0 $2 2>/dev/null"
  wait "$2" 2>/dev/null || true
}


# check_failed_cleanly WHAT RESULT KILLED_NS: the I/O failed with EIO within $bound_s s of the kill (so it did
# not hang), and not before the window minus one attempt's timeout (a refused connection alone fails in
# milliseconds, so the client retried; the failing call's first attempt may have begun up to one timeout
# before the kill was noted, and the window counts from there).
check_failed_cleanly() {
  local outcome ended_ns elapsed_ms
  outcome="$(cat "$2" 2>/dev/null || echo missing)"
  ended_ns="$(awk '{print $NF}' "$2" 2>/dev/null || echo 0)"
  elapsed_ms=$(( (ended_ns - $3) / 1000000 ))
  echo "$1: $outcome"
  check "the $1 failed with EIO ($outcome)" bash -c "case '$outcome' in 'errno EIO '*) true ;; *) false ;; esac"
  check "the $1's failure came after retrying and within ${bound_s} s of the kill (${elapsed_ms} ms)" \
    test "$elapsed_ms" -ge $((window_ms - timeout_ms)) -a "$elapsed_ms" -lt $((bound_s * 1000))
}

# check_mount_alive: the mount answers while a server is away (no crash, no hang of other calls).
check_mount_alive() {
  check "the mount is alive while the server is away ($1)" bash -c "
    timeout 20 stat '$mount_point' >/dev/null && timeout 20 ls '$mount_point' >/dev/null"
}

# wait_down_until KILLED_NS: sleeps until $down_s s after the kill.
wait_down_until() {
  local now_ns; now_ns=$(date +%s%N)
  local left_ms=$(( down_s * 1000 - (now_ns - $1) / 1000000 ))
  [ "$left_ms" -gt 0 ] && sleep "$(echo "$left_ms / 1000" | bc -l)"
  return 0
}

head -c $((24 * 1048576)) /dev/urandom > "$state/data.bin"
cp "$state/data.bin" "$mount_point/readme"

echo "== OSD 0 killed while a file is written, away longer than the retry window"
/usr/bin/python3 "$state/writer.py" "$mount_point/written" "$state/data.bin" "$state/writer.result" &
writer=$!
check "the writer's first write returned before the kill" wait_started "$state/writer.result"
kill_now "$(osd_pid 0)"
check_finishes "the writer" "$writer"
check_overlap writer "$state/writer.result" "$killed_ns"
check_failed_cleanly writer "$state/writer.result" "$killed_ns"
check_mount_alive "OSD 0 down"
wait_down_until "$killed_ns"
start_osd 0
check "after the OSD's restart, a new file is written and read back through the mount" bash -c "
  cp '$state/data.bin' '$mount_point/after' && cmp '$state/data.bin' '$mount_point/after'"

echo "== OSD 1 killed while a file is read (O_DIRECT), away longer than the retry window"
/usr/bin/python3 "$state/reader.py" "$mount_point/readme" "$state/read.back" "$state/reader.result" &
reader=$!
check "the reader's first read returned before the kill" wait_started "$state/reader.result"
kill_now "$(osd_pid 1)"
check_finishes "the reader" "$reader"
check_overlap reader "$state/reader.result" "$killed_ns"
check_failed_cleanly reader "$state/reader.result" "$killed_ns"
check_mount_alive "OSD 1 down"
wait_down_until "$killed_ns"
start_osd 1
check "after the OSD's restart, the file reads back identical" cmp "$state/data.bin" "$mount_point/readme"

echo "== MRC killed during a metadata call, away longer than the retry window"
kill_mrc KILL
killed_ns=$(date +%s%N)
( rc=0; mkdir "$mount_point/while-down" 2> "$state/mkdir.err" || rc=$?
  echo "$rc $(date +%s%N)" > "$state/mkdir.result" ) &
check_finishes "the mkdir" $!
mkdir_result="$(cat "$state/mkdir.result" 2>/dev/null || echo "missing 0")"
elapsed_ms=$(( (${mkdir_result#* } - killed_ns) / 1000000 ))
check "mkdir while the MRC is down fails with EIO ($(cat "$state/mkdir.err"))" \
  bash -c "test '${mkdir_result%% *}' != 0 && grep -q 'Input/output error' '$state/mkdir.err'"
check "the mkdir failed after retrying and within ${bound_s} s (${elapsed_ms} ms)" \
  test "$elapsed_ms" -ge $((window_ms - timeout_ms)) -a "$elapsed_ms" -lt $((bound_s * 1000))
wait_down_until "$killed_ns"
start_mrc
check "after the MRC's restart, mkdir and a file in it work" bash -c "
  mkdir '$mount_point/after-mrc' && echo hello > '$mount_point/after-mrc/f' &&
  test \"\$(cat '$mount_point/after-mrc/f')\" = hello"
check "files written before the MRC's restart are intact" cmp "$state/data.bin" "$mount_point/after"

echo "mount log:"; tail -15 "$state/mount-mnt.log" || true
system_finish
