#!/usr/bin/env bash
# Advisory locks across two mounts of one volume (two clients): flock(1) and fcntl byte-range locks
# taken through mount A are seen through mount B; a blocking F_SETLKW is granted after the unlock;
# killing a lock holder releases its locks (close), a live mount's lock outlasts the lease (renewals),
# and killing mount A's process (SIGKILL) frees its locks once the OSD lease (osd.locks.leaseMs, 6 s
# here) runs out. About 35 s.
#
#   tests/system/locks_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR   (or through tests/system/run)
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
lease_ms=6000
start_cluster 2 -Dosd.locks.leaseMs="$lease_ms"
"$repository/bin/mkfs.xtreemfs" "127.0.0.1:$dir_port/locks" >/dev/null

a="$state/a"
b="$state/b"
# Mount A in the foreground (in the background of this script) so its pid is known for the SIGKILL.
mkdir -p "$a"
mounts+=("$a")
"$cpp_build/mount.xtreemfs" -f --log-file "$state/mount-a.log" --log-level info --timeout-ms 3000 \
  --retries 1 "pbrpc://127.0.0.1:$dir_port/locks" "$a" &
mount_a_pid=$!
pids+=("$mount_a_pid")
mount_volume locks "$b"
for _ in $(seq 1 100); do mountpoint -q "$a" && break; sleep 0.1; done
check "mount A is up" mountpoint -q "$a"
echo "shared file" > "$a/f"
check "mount B sees the file written through mount A" test "$(cat "$b/f")" = "shared file"

# wait_for FILE SECONDS: true once FILE exists.
wait_for() { local _; for _ in $(seq 1 $(($2 * 10))); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }
# holds MARKER PID: true once the holder PID wrote MARKER.held (it has its locks); false at once, naming
# its exit status, when it ended before (its acquire failed), so that shows as itself, not as a later check.
holds() {
  local _ status
  for _ in $(seq 1 100); do
    [ -e "$1.held" ] && return 0
    if ! kill -0 "$2" 2>/dev/null; then
      [ -e "$1.held" ] && return 0
      status=0; wait "$2" || status=$?
      echo "the lock holder ended with status $status before it held its locks" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "the lock holder took no lock within 10 s" >&2
  return 1
}
# ended_well PID: the holder PID exits with status 0 (after it was told to release).
ended_well() { local status=0; wait "$1" || status=$?; [ "$status" -eq 0 ] || echo "it ended with status $status" >&2; [ "$status" -eq 0 ]; }

echo "== flock"
( exec 9<"$a/f"; flock -n 9 || exit 3; touch "$state/flock.held"; wait_for "$state/flock.release" 60 ) &
flock_holder=$!
check "flock -n through mount A holds the lock" holds "$state/flock" "$flock_holder"
check "flock -n through mount B fails with exit 1 while A holds" bash -c "flock -n '$b/f' true; test \$? = 1"
check "flock -n of another open file on mount A fails too" bash -c "flock -n '$a/f' true; test \$? = 1"
check "a POSIX lock is independent of the flock" /usr/bin/python3 -c "
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)" "$b/f"
touch "$state/flock.release"
check "mount A's flock holder ended normally after the release" ended_well "$flock_holder"
check "flock -n through mount B succeeds after A released (closed) it" flock -n "$b/f" true
check "flock -s through both mounts at once (shared locks coexist)" bash -c "
  flock -s -n '$a/f' flock -s -n '$b/f' true"
# close(2) returns before the kernel's RELEASE has carried a closed file's flock unlock to the OSD, so
# a flock -n right after another holder's close may meet that lock for a moment: the mount retries a
# conflict for --flock-nonblocking-wait-ms (500 ms). Before that (session 14) one CI run in several
# failed the check above, and this loop showed 1-16 refusals in 200 rounds at load 20-27.
check "200 rounds of flock -n through B, then at once flock -s -n through A and through B" bash -c "
  for round in \$(seq 1 200); do
    flock -n '$b/f' true || { echo \"round \$round: B's exclusive lock refused\" >&2; exit 1; }
    flock -s -n '$a/f' true || { echo \"round \$round: A's shared lock refused after B's close\" >&2; exit 1; }
    flock -s -n '$b/f' true || { echo \"round \$round: B's shared lock refused after B's close\" >&2; exit 1; }
  done"

echo "== fcntl byte-range locks"
cat > "$state/holder.py" <<'PYTHON'
# holder.py PATH MARKER: exclusive lock on [0, 100), shared lock on [200, 300) through F_SETLK; writes
# its pid to MARKER.held, then waits until MARKER.release exists and exits (closing releases all).
import fcntl, os, sys, time
path, marker = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 100, 0)
fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 100, 200)
with open(marker + ".held", "w") as out:
    out.write(str(os.getpid()))
deadline = time.time() + 120
while not os.path.exists(marker + ".release") and time.time() < deadline:
    time.sleep(0.05)
PYTHON
cat > "$state/getlk.py" <<'PYTHON'
# getlk.py PATH START LENGTH: prints "type start length pid" of F_GETLK for a write lock on the range.
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDWR)
layout = "hhqqi4x"  # struct flock on x86_64 Linux: l_type, l_whence, l_start, l_len, l_pid
query = struct.pack(layout, fcntl.F_WRLCK, os.SEEK_SET, int(sys.argv[2]), int(sys.argv[3]), 0)
kind, _, start, length, pid = struct.unpack(layout, fcntl.fcntl(fd, fcntl.F_GETLK, query))
names = {fcntl.F_RDLCK: "F_RDLCK", fcntl.F_WRLCK: "F_WRLCK", fcntl.F_UNLCK: "F_UNLCK"}
print(names.get(kind, kind), start, length, pid)
PYTHON
/usr/bin/python3 "$state/holder.py" "$a/f" "$state/range" &
range_holder=$!
check "mount A holds [0,100) exclusive and [200,300) shared" holds "$state/range" "$range_holder"
holder_pid="$(cat "$state/range.held" 2>/dev/null || echo none)"
check "a non-overlapping exclusive lock [100,200) through mount B succeeds" /usr/bin/python3 -c "
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 100, 100)" "$b/f"
check "an overlapping exclusive lock [50,60) through mount B fails with EAGAIN" errno_is EAGAIN "
import fcntl
fd = os.open(a[0], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 50)" "$b/f"
check "a shared lock [250,260) through mount B coexists with A's shared lock" /usr/bin/python3 -c "
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 10, 250)" "$b/f"
check "an exclusive lock [250,260) through mount B fails with EAGAIN" errno_is EAGAIN "
import fcntl
fd = os.open(a[0], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 250)" "$b/f"
getlk="$(/usr/bin/python3 "$state/getlk.py" "$b/f" 10 5 2>&1 || true)"
echo "F_GETLK [10,15) through mount B: $getlk (holder pid $holder_pid)"
check "F_GETLK through mount B reports A's lock: F_WRLCK 0 100 and A's pid (same host)" \
  test "$getlk" = "F_WRLCK 0 100 $holder_pid"
check "F_GETLK of a free range [100,200) through mount B reports F_UNLCK" \
  bash -c "/usr/bin/python3 '$state/getlk.py' '$b/f' 100 100 | grep -q '^F_UNLCK '"

check "a blocking F_SETLKW through mount B ends when its process gets a signal (FUSE interrupt)" \
  timeout 20 /usr/bin/python3 -c "
import fcntl, os, signal, sys
class Alarm(Exception):
    pass
def ring(number, frame):
    raise Alarm()
signal.signal(signal.SIGALRM, ring)
fd = os.open(sys.argv[1], os.O_RDWR)
signal.alarm(1)
try:
    fcntl.lockf(fd, fcntl.LOCK_EX, 10, 20)
except Alarm:
    sys.exit(0)
sys.exit(1)" "$b/f"

cat > "$state/waiter.py" <<'PYTHON'
# waiter.py PATH MARKER: F_SETLKW (blocking) for [50,60); writes MARKER.granted when it has it.
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX, 10, 50)
open(sys.argv[2] + ".granted", "w").close()
PYTHON
/usr/bin/python3 "$state/waiter.py" "$b/f" "$state/wait" &
waiter=$!
sleep 1.5
check "a blocking F_SETLKW [50,60) through mount B waits while A holds the range" test ! -e "$state/wait.granted"
released_at=$(date +%s%N)
touch "$state/range.release"
check "mount A's range holder ended normally after the release" ended_well "$range_holder"
check "the blocking F_SETLKW through mount B is granted after A unlocks (within 10 s)" \
  wait_for "$state/wait.granted" 10
granted_at=$(date +%s%N)
echo "F_SETLKW granted $(( (granted_at - released_at) / 1000000 )) ms after A's holder was told to close"
check "the waiter through mount B ended normally" ended_well "$waiter"

/usr/bin/python3 -c "
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
start = time.monotonic()
for i in range(200):
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 1000 + 10 * i)
    fcntl.lockf(fd, fcntl.LOCK_UN, 10, 1000 + 10 * i)
print('200 F_SETLK lock/unlock pairs through mount B: %.2f ms per pair' % ((time.monotonic() - start) * 5))" "$b/f"

echo "== killed holders"
rm -f "$state/range.held" "$state/range.release"
/usr/bin/python3 "$state/holder.py" "$a/f" "$state/range" &
range_holder=$!
check "mount A's holder takes its locks again" holds "$state/range" "$range_holder"
check "while A's holder lives, [0,100) is locked for mount B" errno_is EAGAIN "
import fcntl
fd = os.open(a[0], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 100, 0)" "$b/f"
kill -KILL "$range_holder"
wait "$range_holder" 2>/dev/null || true  # killed: status 137
check "SIGKILL of A's holder process releases its locks (its files are closed)" /usr/bin/python3 -c "
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 100, 0)" "$b/f"

rm -f "$state/range.held" "$state/range.release"
/usr/bin/python3 "$state/holder.py" "$a/f" "$state/range" &
range_holder=$!
check "mount A's holder takes its locks a third time" holds "$state/range" "$range_holder"
sleep $((lease_ms / 1000 + 2))
check "a lock of a live mount A outlasts the lease (the mount renews it)" errno_is EAGAIN "
import fcntl
fd = os.open(a[0], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 100, 0)" "$b/f"
kill -KILL "$mount_a_pid"
killed_at=$(date +%s%N)
check "right after SIGKILL of mount A, its lock still holds (lease $lease_ms ms)" errno_is EAGAIN "
import fcntl
fd = os.open(a[0], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 100, 0)" "$b/f"
check "after SIGKILL of mount A, mount B gets the lock once the lease ran out (within lease + 10 s)" \
  /usr/bin/python3 -c "
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
deadline = time.time() + int(sys.argv[2]) / 1000 + 10
while True:
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 100, 0)
        break
    except OSError:
        if time.time() > deadline:
            raise
        time.sleep(0.2)" "$b/f" "$lease_ms"
echo "mount B got the lock $(( ($(date +%s%N) - killed_at) / 1000000 )) ms after mount A was killed (lease $lease_ms ms)"
touch "$state/range.release"
wait "$range_holder" 2>/dev/null || true  # its mount was killed under it: its exit status says nothing
fusermount3 -u "$a" 2>/dev/null || fusermount3 -uz "$a" || true
system_finish
