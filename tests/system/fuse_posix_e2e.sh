#!/usr/bin/env bash
# End-to-end check of the C++ client against real servers: starts a DIR, an MRC and two OSDs from a
# repository whose servers are built (BUILD_SUFFIX selects target<suffix>/), runs the client-core
# smoke test, then mounts the volume with mount.xtreemfs and checks a few POSIX behaviours through
# the mount. Cleans up (unmounts, stops exactly the processes it started) on exit.
#
#   tests/system/fuse_posix_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
#   e.g. tests/system/fuse_posix_e2e.sh . cpp/build   (make system-test runs it through tests/system/run)
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
mount_point="$state/mnt"
mounts+=("$state/mnt2" "$state/mnt3")
start_cluster 2

echo "== client core smoke test"
"$cpp_build/xtreemfs_e2e_smoke" "127.0.0.1:$dir_port/smoke" 2

echo "== FUSE mount"
mkdir -p "$mount_point"
"$cpp_build/mount.xtreemfs" --log-file "$state/mount.log" --log-level info --timeout-ms 3000 --retries 1 \
  "pbrpc://127.0.0.1:$dir_port/smoke" "$mount_point"
mounts+=("$mount_point")
head -c 3000000 /dev/urandom > "$state/random.bin"
check "cp of 3 MB into the mount" cp "$state/random.bin" "$mount_point/random.bin"
check "file reads back identical" cmp "$state/random.bin" "$mount_point/random.bin"
check "stat size is 3000000" test "$(stat -c %s "$mount_point/random.bin")" = 3000000
check "mkdir" mkdir "$mount_point/d"
check "mkdir again fails with EEXIST" bash -c "mkdir '$mount_point/d' 2>&1 | grep -q 'File exists'"
check "ls lists both entries" bash -c "ls '$mount_point' | sort | tr '\n' ' ' | grep -q '^d random.bin $'"
check "append through >>" bash -c "echo one > '$mount_point/d/log' && echo two >> '$mount_point/d/log' && test \"\$(cat '$mount_point/d/log')\" = \"\$(printf 'one\ntwo')\""
check "truncate -s shrinks" bash -c "truncate -s 1000 '$mount_point/random.bin' && test \$(stat -c %s '$mount_point/random.bin') = 1000 && cmp -n 1000 '$state/random.bin' '$mount_point/random.bin'"
check "rename" mv "$mount_point/random.bin" "$mount_point/d/moved.bin"
check "rmdir of a non-empty directory fails" bash -c "! rmdir '$mount_point/d' 2>/dev/null"
check "rm -r" rm -r "$mount_point/d"
check "missing file is ENOENT" bash -c "cat '$mount_point/nothing' 2>&1 | grep -q 'No such file'"

check "tar of cpp/src into the mount and back has identical checksums" bash -c "
  tar -C '$repository/cpp' -cf - src | tar -C '$mount_point' -xf - &&
  mkdir '$state/untar' && tar -C '$mount_point' -cf - src | tar -C '$state/untar' -xf - &&
  diff <(cd '$repository/cpp' && find src -type f -print0 | sort -z | xargs -0 md5sum) \
       <(cd '$state/untar' && find src -type f -print0 | sort -z | xargs -0 md5sum)"

# Two processes append 200 lines each (lib.sh's append_lines) while a third lists and stats the file: those
# answers (readdirplus, getattr) carry its size, and the kernel takes it as the end of the file for the next
# append, so an answer below a size the mount had already accepted made an append overwrite the line before it
# (two lines lost in a CI run).
watch_appended() {
  while [ ! -e "$state/appenders.done" ]; do
    ls -l "$mount_point" >/dev/null 2>&1 || true
    stat "$mount_point/appended" >/dev/null 2>&1 || true
  done
}
watch_appended & watcher=$!
append_lines a "$mount_point/appended" & appender_a=$!
append_lines b "$mount_point/appended" & appender_b=$!
check "appender a saw no error in any write or close" wait "$appender_a"
check "appender b saw no error in any write or close" wait "$appender_b"
touch "$state/appenders.done"
wait "$watcher"
check "two processes appending concurrently lose no lines" \
  test "$(grep -c ' line ' "$mount_point/appended")" = 400

fio_common=(--verify_state_save=0 --ioengine=psync --verify=crc32c --do_verify=1 --verify_fatal=1 --output="$state/fio.out")
check "fio sequential 1 MiB writes verified with crc32c" fio --name=seq --filename="$mount_point/fio.seq" \
  --rw=write --bs=1M --size=16M "${fio_common[@]}"
check "fio random 4 KiB writes verified with crc32c" fio --name=rand --filename="$mount_point/fio.rand" \
  --rw=randwrite --bs=4k --size=2M "${fio_common[@]}"
check "fio random 4 KiB mixed read/write verified with crc32c" fio --name=mixed \
  --filename="$mount_point/fio.mixed" --rw=randrw --bs=4k --size=2M "${fio_common[@]}"

check "chmod changes the permission bits only" bash -c "
  echo x > '$mount_point/meta' && chmod 0640 '$mount_point/meta' &&
  test \$(stat -c %f:%a '$mount_point/meta') = 81a0:640"
check "chown to another uid and gid" bash -c "
  chown 1234:4321 '$mount_point/meta' && test \$(stat -c %u:%g '$mount_point/meta') = 1234:4321"
check "touch -d sets mtime" bash -c "
  touch -m -d '2001-02-03 04:05:06 UTC' '$mount_point/meta' &&
  test \$(stat -c %Y '$mount_point/meta') = 981173106"
check "symlink and readlink" bash -c "
  ln -s meta '$mount_point/link' && test \$(readlink '$mount_point/link') = meta &&
  test \$(cat '$mount_point/link') = x"
check "hard link shares content and counts links" bash -c "
  ln '$mount_point/meta' '$mount_point/hard' && test \$(stat -c %h '$mount_point/meta') = 2 &&
  test \$(cat '$mount_point/hard') = x"
check "user xattr set, get, list, remove" bash -c "
  setfattr -n user.color -v blue '$mount_point/meta' &&
  test \$(getfattr --only-values -n user.color '$mount_point/meta') = blue &&
  getfattr -d '$mount_point/meta' | grep -q user.color &&
  setfattr -x user.color '$mount_point/meta' && ! getfattr -n user.color '$mount_point/meta' 2>/dev/null"
check "df shows the volume" bash -c "df '$mount_point' | tail -1 | grep -q xtreemfs"
check "fallocate -l extends the size and reads as zeros" bash -c "
  fallocate -l 1048576 '$mount_point/falloc' && test \$(stat -c %s '$mount_point/falloc') = 1048576 &&
  cmp '$mount_point/falloc' <(head -c 1048576 /dev/zero)"
check "fallocate --punch-hole zeroes the range and keeps the size" bash -c "
  head -c 65536 /dev/urandom > '$state/punch.src' && cp '$state/punch.src' '$mount_point/punch' &&
  fallocate -p -o 4096 -l 8192 '$mount_point/punch' && test \$(stat -c %s '$mount_point/punch') = 65536 &&
  cmp -n 4096 '$state/punch.src' '$mount_point/punch' &&
  cmp <(dd if='$mount_point/punch' bs=4096 skip=1 count=2 2>/dev/null) <(head -c 8192 /dev/zero) &&
  cmp <(tail -c +12289 '$mount_point/punch') <(tail -c +12289 '$state/punch.src')"
check "O_DIRECT writes and reads round-trip" bash -c "
  head -c 524288 /dev/urandom > '$state/direct.src' &&
  dd if='$state/direct.src' of='$mount_point/direct' bs=128k oflag=direct 2>/dev/null &&
  dd if='$mount_point/direct' of='$state/direct.back' bs=128k iflag=direct 2>/dev/null &&
  cmp '$state/direct.src' '$state/direct.back'"

RENAME_NOREPLACE=1

e="$mount_point/errno"
mkdir "$e" "$e/full" "$e/empty" "$e/empty2"
echo data > "$e/file"
echo data > "$e/full/inner"
check "stat of a missing name is ENOENT" errno_is ENOENT 'os.stat(a[0])' "$e/missing"
check "open O_RDONLY of a missing file is ENOENT" errno_is ENOENT 'os.open(a[0], os.O_RDONLY)' "$e/missing"
check "create under a missing directory is ENOENT" errno_is ENOENT \
  'os.open(a[0], os.O_WRONLY | os.O_CREAT, 0o644)' "$e/missing/new"
check "unlink of a missing name is ENOENT" errno_is ENOENT 'os.unlink(a[0])' "$e/missing"
check "rmdir of a missing name is ENOENT" errno_is ENOENT 'os.rmdir(a[0])' "$e/missing"
check "rename of a missing source is ENOENT" errno_is ENOENT 'os.rename(a[0], a[1])' "$e/missing" "$e/new"
check "mkdir of an existing directory is EEXIST" errno_is EEXIST 'os.mkdir(a[0])' "$e/full"
check "mkdir over an existing file is EEXIST" errno_is EEXIST 'os.mkdir(a[0])' "$e/file"
check "open O_CREAT|O_EXCL of an existing file is EEXIST" errno_is EEXIST \
  'os.open(a[0], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)' "$e/file"
check "link onto an existing name is EEXIST" errno_is EEXIST 'os.link(a[0], a[1])' "$e/file" "$e/full/inner"
check "symlink onto an existing name is EEXIST" errno_is EEXIST 'os.symlink("x", a[0])' "$e/file"
check "renameat2 RENAME_NOREPLACE onto an existing name is EEXIST and keeps both" bash -c "
  errno_py=\"\$1\"; /usr/bin/python3 -c \"\$errno_py\" EEXIST 'renameat2(a[0], a[1], $RENAME_NOREPLACE)' \
    '$e/file' '$e/full/inner' && test \"\$(cat '$e/file')\" = data && test \"\$(cat '$e/full/inner')\" = data" \
  _ "$errno_py"
check "rmdir of a non-empty directory is ENOTEMPTY" errno_is ENOTEMPTY 'os.rmdir(a[0])' "$e/full"
check "rename of a directory onto a non-empty directory is ENOTEMPTY" errno_is ENOTEMPTY \
  'os.rename(a[0], a[1])' "$e/empty" "$e/full"
check "open O_WRONLY of a directory is EISDIR" errno_is EISDIR 'os.open(a[0], os.O_WRONLY)' "$e/full"
check "read(2) of a directory (as cat does) is EISDIR" errno_is EISDIR \
  'os.read(os.open(a[0], os.O_RDONLY), 1)' "$e/full"
check "unlink of a directory is EISDIR" errno_is EISDIR 'os.unlink(a[0])' "$e/empty"
check "rename of a file onto a directory is EISDIR" errno_is EISDIR 'os.rename(a[0], a[1])' "$e/file" "$e/empty"
check "stat through a file as a path component is ENOTDIR" errno_is ENOTDIR 'os.stat(a[0])' "$e/file/x"
check "create through a file as a path component is ENOTDIR" errno_is ENOTDIR \
  'os.open(a[0], os.O_WRONLY | os.O_CREAT, 0o644)' "$e/file/x"
check "mkdir through a file as a path component is ENOTDIR" errno_is ENOTDIR 'os.mkdir(a[0])' "$e/file/x"
check "opendir of a file is ENOTDIR" errno_is ENOTDIR 'os.listdir(a[0])' "$e/file"
check "rmdir of a file is ENOTDIR" errno_is ENOTDIR 'os.rmdir(a[0])' "$e/file"
check "rename of a directory onto a file is ENOTDIR" errno_is ENOTDIR 'os.rename(a[0], a[1])' "$e/empty2" "$e/file"

name255=$(printf 'n%.0s' $(seq 1 255))
name256=$(printf 'n%.0s' $(seq 1 256))
check "create of a 256-byte name is ENAMETOOLONG" errno_is ENAMETOOLONG \
  'os.open(a[0], os.O_WRONLY | os.O_CREAT, 0o644)' "$e/$name256"
check "mkdir of a 256-byte name is ENAMETOOLONG" errno_is ENAMETOOLONG 'os.mkdir(a[0])' "$e/$name256"
check "stat of a 256-byte name is ENAMETOOLONG" errno_is ENAMETOOLONG 'os.stat(a[0])' "$e/$name256"
check "a 255-byte name: create, write, read back, listed, renamed, removed" bash -c "
  echo named > '$e/$name255' && test \"\$(cat '$e/$name255')\" = named &&
  ls '$e' | grep -qx '$name255' && mv '$e/$name255' '$e/${name255%n}m' &&
  test \"\$(cat '$e/${name255%n}m')\" = named && rm '$e/${name255%n}m' && ! ls '$e' | grep -q '^nnnn'"
# 16 nested directories of 250 bytes: a path of 4029 bytes inside the volume (plus the mount point,
# still under PATH_MAX 4096 for the system calls that carry the whole path).
check "a path of 4029 bytes inside the volume: mkdir -p, write, read back, stat, list, remove" \
  /usr/bin/python3 -c '
import os, shutil, sys
top = os.path.join(sys.argv[1], "deep")
inside = "/".join(["deep"] + [("%02d" % i) + "d" * 248 for i in range(16)]) + "/f"
path = os.path.join(sys.argv[1], inside)
assert len("/errno/" + inside) == 4029 and len(path) < 4095, (len(inside), len(path))
os.makedirs(os.path.dirname(path))
with open(path, "wb") as out:
    out.write(b"deep data")
with open(path, "rb") as back:
    assert back.read() == b"deep data"
assert os.stat(path).st_size == 9
assert os.listdir(os.path.dirname(path)) == ["f"]
shutil.rmtree(top)
assert not os.path.exists(top)' "$e"

# PATH_MAX bounds the path of one system call (relative to the working directory), not the depth of a
# tree: 24 directories of 250 bytes are over 6,000 bytes from the volume root, entered one cd at a time.
# At the bottom a file is written, read, stat'ed, renamed and removed by relative names, and the tree goes
# away by relative (fd-based) removal; absolute paths that deep are too long for the kernel, not for us.
check "a tree over 6,000 bytes deep below the volume root, used with relative paths (cd step by step)" \
  /usr/bin/python3 -c '
import errno, os, shutil, sys
os.chdir(sys.argv[1])
names = [("%02d" % level) + "d" * 248 for level in range(24)]
os.mkdir("deeper")
os.chdir("deeper")
for name in names:
    os.mkdir(name)
    os.chdir(name)
depth = len("/errno/deeper/" + "/".join(names))
assert depth > 6000, depth
assert os.stat(".").st_mode & 0o170000 == 0o040000
with open("f", "wb") as out:
    out.write(b"deep data")
with open("f", "rb") as back:
    assert back.read() == b"deep data"
assert os.stat("f").st_size == 9
os.rename("f", "g")
assert os.listdir(".") == ["g"] and open("g", "rb").read() == b"deep data"
os.mkdir("sub"); os.rmdir("sub")
os.unlink("g")
assert os.listdir(".") == []
absolute = os.path.join(sys.argv[1], "deeper", *names)
try:
    os.stat(absolute)
    raise SystemExit("an absolute path of %d bytes was accepted by the kernel" % len(absolute))
except OSError as error:
    assert error.errno == errno.ENAMETOOLONG, error
os.chdir(sys.argv[1])
shutil.rmtree("deeper")
assert not os.path.exists("deeper")' "$e"

# A second volume, created with mkfs.xtreemfs against the same DIR and mounted with -o allow_other:
# a rename or link between two volumes is EXDEV, and another uid can enter it to get EACCES.
other="$state/mnt3"
mkdir -p "$other"
chmod 0711 "$state"  # lets uid 65534 reach the mount point (the state directory is 0700 by mktemp)
check "mkfs.xtreemfs creates a second volume" "$repository/bin/mkfs.xtreemfs" "127.0.0.1:$dir_port/other"
check "the second volume mounts with -o allow_other" "$cpp_build/mount.xtreemfs" -o allow_other \
  --log-file "$state/mount3.log" --log-level info --timeout-ms 3000 --retries 1 \
  "pbrpc://127.0.0.1:$dir_port/other" "$other"
check "rename between two mounted volumes is EXDEV" errno_is EXDEV 'os.rename(a[0], a[1])' "$e/file" "$other/file"
check "link between two mounted volumes is EXDEV" errno_is EXDEV 'os.link(a[0], a[1])' "$e/file" "$other/file"
check "mv between two volumes copies and removes the source" bash -c "
  echo moving > '$e/moving' && mv '$e/moving' '$other/moved' && test \"\$(cat '$other/moved')\" = moving &&
  ! test -e '$e/moving'"

mkdir -m 0700 "$other/private"
echo secret > "$other/private/inner"
echo secret > "$other/secret" && chmod 0700 "$other/secret"
echo public > "$other/public" && chmod 0644 "$other/public"
mkdir -m 0755 "$other/shared"
echo kept > "$other/shared/kept"
check "root's files are owned by uid 0 as created" test "$(stat -c %u:%a "$other/private"):$(stat -c %u:%a "$other/secret")" = "0:700:0:700"
check "nobody can read a 0644 file of root (allow_other lets other uids in)" \
  test "$(setpriv --reuid=65534 --regid=65534 --clear-groups cat "$other/public")" = public
check "nobody opening root's 0700 file for reading is EACCES" nobody_errno_is EACCES \
  'os.open(a[0], os.O_RDONLY)' "$other/secret"
check "nobody opening root's 0700 file for writing is EACCES" nobody_errno_is EACCES \
  'os.open(a[0], os.O_WRONLY)' "$other/secret"
check "nobody listing root's 0700 directory is EACCES" nobody_errno_is EACCES 'os.listdir(a[0])' "$other/private"
check "nobody stat through root's 0700 directory is EACCES" nobody_errno_is EACCES \
  'os.stat(a[0])' "$other/private/inner"
check "nobody creating in root's 0755 directory is EACCES" nobody_errno_is EACCES \
  'os.open(a[0], os.O_WRONLY | os.O_CREAT, 0o644)' "$other/shared/new"
check "nobody mkdir in root's 0755 directory is EACCES" nobody_errno_is EACCES 'os.mkdir(a[0])' "$other/shared/new"
check "nobody unlinking in root's 0755 directory is EACCES" nobody_errno_is EACCES \
  'os.unlink(a[0])' "$other/shared/kept"
check "nobody chmod of root's file is EPERM" nobody_errno_is EPERM 'os.chmod(a[0], 0o777)' "$other/public"

# Cross-client identity: the C++ FUSE client and the Java client (xtfscp) see the same bytes.
# 5 MiB + 12345 bytes: several 128 KiB objects and a partial last one.
volume_url="pbrpc://127.0.0.1:$dir_port/smoke"
head -c $((5 * 1048576 + 12345)) /dev/urandom > "$state/cross.fuse"
head -c $((3 * 1048576 + 777)) /dev/urandom > "$state/cross.java"
check "a file written through FUSE reads back identical through the Java client (xtfscp get)" bash -c "
  cp '$state/cross.fuse' '$mount_point/cross.fuse' &&
  '$repository/bin/xtfscp' get '$volume_url/cross.fuse' '$state/cross.fuse.back' &&
  cmp '$state/cross.fuse' '$state/cross.fuse.back'"
check "a file written by the Java client (xtfscp put) reads back identical through FUSE" bash -c "
  '$repository/bin/xtfscp' put '$state/cross.java' '$volume_url/cross.java' &&
  test \$(stat -c %s '$mount_point/cross.java') = $((3 * 1048576 + 777)) &&
  cmp '$state/cross.java' '$mount_point/cross.java'"
check "umount.xtreemfs of the second volume" "$cpp_build/umount.xtreemfs" "$other"

# A stopped OSD must give an error within the RPC timeout, never a hang. This check is why the mount uses
# --timeout-ms 3000 --retries 1: two attempts of 3 s, each followed by an unanswered ping of 3 s (a stopped
# OSD answers neither), about 12 s. The checks before it do not depend on the short timeout: an OSD that is
# only slow (a loaded machine) answers its ping, so its attempts count neither as retries nor against the
# window (cpp/README.md, "Slow is not dead"), and the concurrent appenders no longer fail at a load of 35.
kill_osd 0 STOP
started_s=$(date +%s)
check "a write to a stopped OSD fails instead of hanging" bash -c \
  "! timeout 60 dd if=/dev/zero of='$mount_point/stalled' bs=128k count=8 2>/dev/null"
elapsed_s=$(( $(date +%s) - started_s ))
kill_osd 0 CONT
check "the failure came within 20 s (took ${elapsed_s} s)" test "$elapsed_s" -lt 20

check "umount.xtreemfs" "$cpp_build/umount.xtreemfs" "$mount_point"
# Killing the mount process must leave an erroring mount point (no hang) that umount cleans up.
mkdir -p "$state/mnt2"
"$cpp_build/mount.xtreemfs" -f "pbrpc://127.0.0.1:$dir_port/smoke" "$state/mnt2" 2>"$state/mount2.log" &
mount2_pid=$!
pids+=("$mount2_pid")
for _ in $(seq 1 100); do mountpoint -q "$state/mnt2" && break; sleep 0.1; done
check "second mount in the foreground (-f) serves the volume" ls "$state/mnt2/meta"
kill -9 "$mount2_pid"
wait "$mount2_pid" 2>/dev/null || true
check "a killed mount answers with an error, not a hang" bash -c "
  timeout 10 stat '$state/mnt2/meta' >/dev/null 2>&1; status=\$?; test \$status -ne 0 -a \$status -ne 124"
check "umount.xtreemfs cleans up the dead mount" bash -c "'$cpp_build/umount.xtreemfs' '$state/mnt2' && ! mountpoint -q '$state/mnt2'"

echo "mount log:"; tail -20 "$state/mount.log" || true
system_finish
