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
# and closes, and writes "ok SECONDS" or "errno NAME SECONDS" to RESULT.
cat > "$state/writer.py" <<'PY'
import errno, os, sys, time
target, source, result = sys.argv[1:4]
started = time.monotonic()
try:
    data = open(source, "rb").read()
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for offset in range(0, len(data), 262144):
        os.write(fd, data[offset:offset + 262144])
        time.sleep(0.02)
    os.fsync(fd)
    os.close(fd)
    outcome = "ok"
except OSError as error:
    outcome = "errno " + errno.errorcode.get(error.errno, str(error.errno))
open(result, "w").write("%s %.1f\n" % (outcome, time.monotonic() - started))
PY

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
sleep 0.5
kill_osd 0 KILL
sleep 1
start_osd 0
check_finishes "the writer" "$writer"
outcome="$(cat "$state/writer.result" 2>/dev/null || echo missing)"
echo "writer: $outcome"
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
(
  started=$(date +%s)
  if dd if="$mount_point/readme" of="$state/read.back" bs=128k iflag=direct 2>/dev/null; then
    echo "ok $(( $(date +%s) - started ))" > "$state/reader.result"
  else
    echo "error $(( $(date +%s) - started ))" > "$state/reader.result"
  fi
) &
reader=$!
sleep 0.3
kill_osd 1 KILL
sleep 1
start_osd 1
check_finishes "the reader" "$reader"
outcome="$(cat "$state/reader.result" 2>/dev/null || echo missing)"
echo "reader: $outcome"
check "the read either succeeded with identical bytes or failed with an error ($outcome)" bash -c "
  case '$outcome' in
    ok*) cmp '$state/data.bin' '$state/read.back' ;;
    error\ *) true ;;
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
