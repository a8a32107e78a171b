#!/usr/bin/env bash
# The FUSE client's data path against real servers: write-behind and read-ahead with large
# sequential files and fio --verify jobs (several jobs, queue depth, O_DIRECT), the size seen while
# writes are buffered, read-your-writes through a second descriptor, an OSD error of a buffered
# write surfacing on fsync and on close in bounded time, identity with the Java client, mtime/ctime
# moving when a close follows a rewrite that keeps the size, and a umount while the kernel's
# read-ahead still waits for a stopped OSD.
#
#   tests/system/fuse_io_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
start_cluster 2
mount_point="$state/mnt"
volume_url="pbrpc://127.0.0.1:$dir_port/io"

check "mkfs.xtreemfs creates the volume, striped over both OSDs" \
  "$repository/bin/mkfs.xtreemfs" -w 2 "127.0.0.1:$dir_port/io"
mount_volume io "$mount_point"

echo "== large sequential files"
big_bytes=$((64 * 1048576 + 4321))
head -c "$big_bytes" /dev/urandom > "$state/big.bin"
check "64 MiB written with dd bs=1M through the mount" \
  dd if="$state/big.bin" of="$mount_point/big.bin" bs=1M status=none
check "stat shows all $big_bytes bytes" test "$(stat -c %s "$mount_point/big.bin")" = "$big_bytes"
check "the 64 MiB file reads back identical (cmp)" cmp "$state/big.bin" "$mount_point/big.bin"
check "16 MiB written in 4 KiB writes reads back identical" bash -c "
  dd if='$state/big.bin' of='$mount_point/small-writes.bin' bs=4k count=4096 status=none &&
  cmp -n $((4096 * 4096)) '$state/big.bin' '$mount_point/small-writes.bin'"
check "a file written through FUSE reads back identical through the Java client (xtfscp get)" bash -c "
  '$repository/bin/xtfscp' get '$volume_url/big.bin' '$state/big.back' && cmp '$state/big.bin' '$state/big.back'"
head -c $((9 * 1048576 + 777)) /dev/urandom > "$state/java.bin"
check "a file written by the Java client reads back identical through FUSE (read-ahead)" bash -c "
  '$repository/bin/xtfscp' put '$state/java.bin' '$volume_url/java.bin' && cmp '$state/java.bin' '$mount_point/java.bin'"

echo "== fio with crc32c verification"
fio_verify=(--verify_state_save=0 --verify=crc32c --do_verify=1 --verify_fatal=1 --directory="$mount_point")
check "fio sequential 1 MiB writes" fio --name=seq --rw=write --bs=1M --size=32M --ioengine=psync \
  "${fio_verify[@]}" --output="$state/fio-seq.out"
check "fio random 4 KiB writes" fio --name=rand --rw=randwrite --bs=4k --size=4M --ioengine=psync \
  "${fio_verify[@]}" --output="$state/fio-rand.out"
check "fio random 4 KiB writes, 4 jobs at once" fio --name=jobs --rw=randwrite --bs=4k --size=4M \
  --numjobs=4 --ioengine=psync "${fio_verify[@]}" --output="$state/fio-jobs.out"
check "fio random 4 KiB writes, libaio iodepth 32, O_DIRECT" fio --name=depth --rw=randwrite --bs=4k \
  --size=4M --ioengine=libaio --iodepth=32 --direct=1 "${fio_verify[@]}" --output="$state/fio-depth.out"
check "fio sequential 1 MiB, 2 jobs, libaio iodepth 8" fio --name=seqjobs --rw=write --bs=1M --size=16M \
  --numjobs=2 --ioengine=libaio --iodepth=8 "${fio_verify[@]}" --output="$state/fio-seqjobs.out"
check "fio random mixed 4 KiB read/write" fio --name=mixed --rw=randrw --bs=4k --size=4M \
  --ioengine=psync "${fio_verify[@]}" --output="$state/fio-mixed.out"

echo "== buffered writes: size, read-your-writes, read-ahead invalidation"
check "the size shows while writes are buffered (fstat and stat before close)" /usr/bin/python3 -c '
import os, sys
path = sys.argv[1]
fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o644)
os.write(fd, b"a" * 100000)
assert os.fstat(fd).st_size == 100000, os.fstat(fd).st_size
assert os.stat(path).st_size == 100000, os.stat(path).st_size
os.close(fd)
assert os.stat(path).st_size == 100000' "$mount_point/growing"
check "a second descriptor reads bytes still buffered, and a write invalidates read-ahead" /usr/bin/python3 -c '
import os, sys
path, mib = sys.argv[1], 1048576
data = os.urandom(8 * mib)
with open(path, "wb") as f:
    f.write(data)
reader = os.open(path, os.O_RDONLY)
writer = os.open(path, os.O_WRONLY)
got = os.read(reader, mib) + os.read(reader, mib)  # sequential: the client prefetches ahead
os.pwrite(writer, b"X" * 1000, 3 * mib + 5)
while True:
    chunk = os.read(reader, mib)
    if not chunk:
        break
    got += chunk
expected = data[:3 * mib + 5] + b"X" * 1000 + data[3 * mib + 1005:]
assert got == expected, "reader did not see the write"
os.close(writer)
os.close(reader)' "$mount_point/rw.bin"

echo "== mtime/ctime after a rewrite that keeps the size"
check "close after rewriting the same bytes moves mtime and ctime, size unchanged" /usr/bin/python3 -c '
import os, sys, time
path = sys.argv[1]
with open(path, "wb") as f:
    f.write(b"same bytes")
before = os.stat(path)
time.sleep(1.5)
fd = os.open(path, os.O_WRONLY)
os.write(fd, b"same bytes")
os.close(fd)
after = os.stat(path)
assert after.st_size == before.st_size == 10, (before.st_size, after.st_size)
assert after.st_mtime_ns > before.st_mtime_ns, ("mtime", before.st_mtime_ns, after.st_mtime_ns)
assert after.st_ctime_ns > before.st_ctime_ns, ("ctime", before.st_ctime_ns, after.st_ctime_ns)' \
  "$mount_point/same"

echo "== OSD errors of buffered writes"
# The mount uses --timeout-ms 3000 --retries 1 (lib.sh), so a stopped OSD fails a call in ~12 s (two attempts,
# each followed by an unanswered 3 s ping; an OSD that answers its ping is slow, not stopped, and is waited for).
# OSD 0 is stopped; with stripe width 2 every file has objects on it: 2 MiB reach both OSDs of a file
# whatever its stripe order, also with the default 1 MiB objects (1 MiB reached only stripe position 0).
stopped_write_py='
import os, sys
path, how = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o644)
try:
    os.write(fd, b"z" * 2097152)  # buffered: may succeed
    if how == "fsync":
        os.fsync(fd)
    os.close(fd)
except OSError as error:
    print("%s failed as expected: %s" % (how, error))
    sys.exit(0)
print("%s succeeded although an OSD is stopped" % how, file=sys.stderr)
sys.exit(1)'
kill_osd 0 STOP
for how in fsync close; do
  started_s=$(date +%s)
  check "a write to a stopped OSD fails on $how" timeout 60 /usr/bin/python3 -c "$stopped_write_py" \
    "$mount_point/stopped-$how" "$how"
  elapsed_s=$(( $(date +%s) - started_s ))
  check "the $how failure came within 30 s (took ${elapsed_s} s)" test "$elapsed_s" -lt 30
done
kill_osd 0 CONT
check "after the OSD continues, a new file is written and read back" bash -c "
  head -c 3000000 '$state/big.bin' > '$mount_point/after.bin' && cmp -n 3000000 '$state/big.bin' '$mount_point/after.bin'"

echo "== umount while kernel read-ahead waits for a stopped OSD"
# The kernel reads ahead of a buffered reader (4 MiB by default) in requests sent concurrently, so a reader that
# got its bytes and closed can leave some of them waiting for an OSD that does not answer. They hold the mount's
# FUSE file, not the mount: the umount right after the reader must not find the mount busy (EBUSY), and the
# mount process must end with them in flight (they fail at once, the kernel is gone).
mount_pid="$(pgrep -n -f "mount.xtreemfs .*$mount_point\$")"
/usr/bin/python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' \
  "$mount_point/big.bin"
kill_osd 0 STOP
check "a buffered reader of 64 KiB at 1 MiB ends while an OSD is stopped (its bytes or an error)" \
  timeout 60 /usr/bin/python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    os.pread(fd, 65536, 1048576)
except OSError as error:
    print("read failed (its object is on the stopped OSD):", error)
os.close(fd)' "$mount_point/big.bin"
check "umount.xtreemfs right after the reader, its read-ahead still waiting for the stopped OSD" \
  "$cpp_build/umount.xtreemfs" "$mount_point"
check "the mount process ends within 30 s although requests wait for the stopped OSD" \
  timeout 30 bash -c "while kill -0 $mount_pid 2>/dev/null; do sleep 0.2; done"
kill_osd 0 CONT

echo "== a mount ended by SIGTERM sends what open files buffered"
# A second, foreground mount; a process keeps a file open with bytes buffered (less than one
# object, so nothing was sent yet) while the mount gets SIGTERM; the Java client then reads them.
mkdir -p "$state/mnt2"
mounts+=("$state/mnt2")
"$cpp_build/mount.xtreemfs" -f --log-file "$state/mount-mnt2.log" --log-level info --timeout-ms 3000 \
  --retries 1 "$volume_url" "$state/mnt2" &
mount2_pid=$!
pids+=("$mount2_pid")
for _ in $(seq 1 100); do mountpoint -q "$state/mnt2" && break; sleep 0.1; done
head -c 100000 "$state/big.bin" > "$state/held.bin"
/usr/bin/python3 -c '
import os, sys, time
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o644)
with open(sys.argv[2], "rb") as source:
    os.write(fd, source.read())
open(sys.argv[3], "w").close()
time.sleep(60)' "$state/mnt2/held.bin" "$state/held.bin" "$state/held.ready" &
holder_pid=$!
for _ in $(seq 1 100); do [ -e "$state/held.ready" ] && break; sleep 0.1; done
kill -TERM "$mount2_pid"
check "the mount process exits after SIGTERM" timeout 60 bash -c "while kill -0 $mount2_pid 2>/dev/null; do sleep 0.2; done"
kill "$holder_pid" 2>/dev/null || true
wait "$holder_pid" 2>/dev/null || true
check "bytes a still-open file buffered reached the OSDs and the MRC (xtfscp get)" bash -c "
  '$repository/bin/xtfscp' get '$volume_url/held.bin' '$state/held.back' && cmp '$state/held.bin' '$state/held.back'"
fusermount3 -uz "$state/mnt2" 2>/dev/null || true
echo "mount logs:"; tail -n 20 "$state/mount-mnt.log" "$state/mount-mnt2.log" || true
system_finish
