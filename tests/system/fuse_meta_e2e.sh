#!/usr/bin/env bash
# System test of the mount's metadata side: the read-only xtreemfs.* xattrs (values against the
# volume's striping policy and the OSDs), `xtfsutil` on a mounted path, changes made through the
# mount visible at once despite the metadata cache, and changes made by another client (a second
# mount, the Java client) visible after at most 2 x the cache TTL (kernel entry plus client entry).
#
#   tests/system/fuse_meta_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR   (or through tests/system/run)
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
start_cluster 2

ttl_ms=500
bound_s=$(python3 -c "print(2 * $ttl_ms / 1000 + 0.5)")  # the documented bound plus a margin
volume_url="pbrpc://127.0.0.1:$dir_port/meta"
object_size=65536
check "mkfs.xtreemfs creates a volume striped over 2 OSDs with 64 KiB objects" \
  "$repository/bin/mkfs.xtreemfs" -w 2 -s 64KiB "127.0.0.1:$dir_port/meta"
m="$state/mnt"        # the mount under test
other="$state/mnt2"   # another client of the same volume, same TTL
slow="$state/mnt3"    # another client with a TTL far beyond this test's run time
mount_volume meta "$m" --metadata-cache-ttl-ms "$ttl_ms"
mount_volume meta "$other" --metadata-cache-ttl-ms "$ttl_ms"
mount_volume meta "$slow" --metadata-cache-ttl-ms 600000
nonegative="$state/mnt4"  # another client that keeps no negative entries
mount_volume meta "$nonegative" --metadata-cache-ttl-ms "$ttl_ms" --negative-cache-ttl-ms 0

echo "== xtreemfs.* attributes"
head -c $((3 * object_size + 100)) /dev/urandom > "$m/f"   # objects on both OSDs
mkdir "$m/dir"
value() { getfattr --only-values --absolute-names -n "$1" "$2"; }
check "xtreemfs.url is the mounted volume's URL" test "$(value xtreemfs.url "$m/f")" = "$volume_url"
check "xtreemfs.file_id is volume-id:inode" bash -c "
  id=\$(getfattr --only-values --absolute-names -n xtreemfs.file_id '$m/f') &&
  test \"\${id##*:}\" = \$(stat -c %i '$m/f') && test -n \"\${id%:*}\""
check "xtreemfs.object_size is the volume's object size" test "$(value xtreemfs.object_size "$m/f")" = "$object_size"
check "xtreemfs.stripe_width is the volume's width" test "$(value xtreemfs.stripe_width "$m/f")" = 2
check "xtreemfs.locations is JSON naming two distinct OSDs with the striping policy" python3 -c '
import json, subprocess, sys
value = subprocess.run(["getfattr", "--only-values", "--absolute-names", "-n", "xtreemfs.locations", sys.argv[1]],
                       check=True, capture_output=True).stdout
replica = json.loads(value)["replicas"][0]
assert len(set(replica["osds"])) == 2, replica
assert replica["striping_policy"] == {"type": "RAID0", "object_size_bytes": int(sys.argv[2]), "width": 2}, replica
' "$m/f" "$object_size"
check "xtreemfs.reservation is JSON (this volume has none)" python3 -c '
import json, subprocess, sys
value = subprocess.run(["getfattr", "--only-values", "--absolute-names", "-n", "xtreemfs.reservation", sys.argv[1]],
                       check=True, capture_output=True).stdout
assert json.loads(value)["type"] == "QOS_TYPE_UNSPECIFIED", value
' "$m/f"
setfattr -n user.note -v hello "$m/f"
check "getfattr -d -m - lists user.* and the six xtreemfs.* names" bash -c "
  names=\$(getfattr --absolute-names -d -m - '$m/f' | sed -n 's/=.*//p' | sort | tr '\n' ' ') &&
  test \"\$names\" = 'user.note xtreemfs.file_id xtreemfs.locations xtreemfs.object_size xtreemfs.reservation xtreemfs.stripe_width xtreemfs.url '"
check "a directory lists url, file_id and reservation only" bash -c "
  names=\$(getfattr --absolute-names -d -m - '$m/dir' | sed -n 's/=.*//p' | sort | tr '\n' ' ') &&
  test \"\$names\" = 'xtreemfs.file_id xtreemfs.reservation xtreemfs.url '"
check "xtreemfs.stripe_width of a directory is ENODATA" errno_is ENODATA 'os.getxattr(a[0], "xtreemfs.stripe_width")' "$m/dir"
check "setting an xtreemfs.* attribute is EPERM" errno_is EPERM 'os.setxattr(a[0], "xtreemfs.stripe_width", b"4")' "$m/f"
check "setfattr on xtreemfs.url fails" bash -c "! setfattr -n xtreemfs.url -v x '$m/f' 2>/dev/null"
check "removing an xtreemfs.* attribute is EPERM" errno_is EPERM 'os.removexattr(a[0], "xtreemfs.file_id")' "$m/f"
check "a trusted.* attribute is not supported" errno_is ENOTSUP 'os.setxattr(a[0], "trusted.x", b"1")' "$m/f"

echo "== xtfsutil on a mounted path"
check "xtfsutil <mounted path> exits 0 and shows the file id, width 2 and both stripe positions" bash -c "
  '$repository/bin/xtfsutil' '$m/f' > '$state/xtfsutil.out' &&
  grep -q \"file id: *\$(getfattr --only-values --absolute-names -n xtreemfs.file_id '$m/f')\" '$state/xtfsutil.out' &&
  grep -q 'striping RAID0 width 2' '$state/xtfsutil.out' &&
  grep -q 'stripe position 0: OSD ' '$state/xtfsutil.out' && grep -q 'stripe position 1: OSD ' '$state/xtfsutil.out'"
check "xtfsutil names the same OSDs as xtreemfs.locations" python3 -c '
import json, re, subprocess, sys
locations = json.loads(subprocess.run(["getfattr", "--only-values", "--absolute-names", "-n", "xtreemfs.locations",
                                       sys.argv[1]], check=True, capture_output=True).stdout)
shown = re.findall(r"stripe position \d+: OSD (\S+)", open(sys.argv[2]).read())
assert shown == locations["replicas"][0]["osds"], (shown, locations)
' "$m/f" "$state/xtfsutil.out"
# The attainment lines, printed last, are live figures (heartbeat ages, rates) and differ between two runs.
check "xtfsutil prints the same for the mounted path and for its URL (up to the live attainment)" bash -c "
  diff <(sed '/^attainment:/,\$d' '$state/xtfsutil.out') <('$repository/bin/xtfsutil' '$volume_url/f' | sed '/^attainment:/,\$d')"
check "xtfsutil of a directory inside the mount works" bash -c "
  '$repository/bin/xtfsutil' '$m/dir' | grep -q 'type: *directory'"
touch "$state/not-mounted"
check "xtfsutil of a local file outside XtreemFS exits 2 naming it" bash -c "
  '$repository/bin/xtfsutil' '$state/not-mounted' 2> '$state/xtfsutil.err'; test \$? = 2 &&
  grep -q \"'$state/not-mounted' is not on an XtreemFS mount\" '$state/xtfsutil.err'"

echo "== changes through this mount are visible at once"
echo x > "$m/g"
stat "$m/g" > /dev/null
check "chmod then stat shows the new mode" bash -c "chmod 0600 '$m/g' && test \$(stat -c %a '$m/g') = 600"
check "chown then stat shows the new owner" bash -c "chown 123:456 '$m/g' && test \$(stat -c %u:%g '$m/g') = 123:456"
check "touch -d then stat shows the new mtime" bash -c "touch -d '2001-02-03 04:05:06 UTC' '$m/g' && test \$(stat -c %Y '$m/g') = 981173106"
check "truncate then stat shows the new size" bash -c "truncate -s 12345 '$m/g' && test \$(stat -c %s '$m/g') = 12345"
check "rename then stat: the old name is gone, the new one is there" bash -c "
  mv '$m/g' '$m/g2' && ! stat '$m/g' 2>/dev/null && test \$(stat -c %s '$m/g2') = 12345"
mkdir -p "$m/tree/sub" && echo leaf > "$m/tree/sub/leaf" && stat "$m/tree/sub/leaf" > /dev/null
check "rename of a directory: nothing is found under the old name" bash -c "
  mv '$m/tree' '$m/tree2' && ! stat '$m/tree/sub/leaf' 2>/dev/null && test \"\$(cat '$m/tree2/sub/leaf')\" = leaf"
check "unlink then stat is ENOENT" bash -c "stat '$m/g2' >/dev/null && rm '$m/g2' && ! stat '$m/g2' 2>/dev/null"
# POSIX: an unlinked file open in a process keeps its data until the last close. The MRC deletes an unlinked
# file's objects within milliseconds here (osd.deletion.delayMs = 0), so the mount must not let it: it hides
# the name instead until the last release. The page cache is dropped, so the read reaches the OSD.
check "a file unlinked while open keeps its data until closed" python3 -c '
import os, sys, time
path = os.path.join(sys.argv[1], "open-unlinked")
with open(path, "wb") as f:
    f.write(b"kept" * 4096)
fd = os.open(path, os.O_RDONLY)
os.unlink(path)
gone = not os.path.exists(path)
time.sleep(2)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
data = os.pread(fd, 65536, 0)
os.close(fd)
sys.exit(0 if gone and data == b"kept" * 4096 else 1)
' "$m"
check "creating a file updates the directory's mtime and a subdirectory its link count at once" python3 -c '
import os, sys, time
d = sys.argv[1]
before = os.stat(d)
time.sleep(0.01)
open(os.path.join(d, "new"), "w").close()
os.mkdir(os.path.join(d, "subdir"))
after = os.stat(d)
assert after.st_mtime_ns > before.st_mtime_ns, (before, after)
assert after.st_nlink == before.st_nlink + 1, (before.st_nlink, after.st_nlink)
' "$m/dir"
check "a hard link shows link count 2 on both names at once" bash -c "
  echo h > '$m/h' && stat '$m/h' >/dev/null && ln '$m/h' '$m/h2' &&
  test \$(stat -c %h '$m/h') = 2 && test \$(stat -c %h '$m/h2') = 2"
check "user xattr set then get through the same mount" bash -c "
  setfattr -n user.k -v v1 '$m/h' && test \$(getfattr --only-values --absolute-names -n user.k '$m/h') = v1"

echo "== changes by another client are visible after at most 2 x TTL ($ttl_ms ms)"
echo y > "$m/shared"
stat "$other/shared" > /dev/null && stat "$slow/shared" > /dev/null   # now cached by both clients
chmod 0600 "$m/shared"
check "a client with a long TTL still shows the old mode (its cache is in use)" test "$(stat -c %a "$slow/shared")" = 644
sleep "$bound_s"
check "the other client shows the chmod after 2 x TTL" test "$(stat -c %a "$other/shared")" = 600
head -c 5000 /dev/urandom > "$state/java.bin"
stat "$other/shared" > /dev/null
check "the Java client replaces the file (xtfscp put)" "$repository/bin/xtfscp" put "$state/java.bin" "$volume_url/shared"
sleep "$bound_s"
check "the mount shows the Java client's size after 2 x TTL" test "$(stat -c %s "$other/shared")" = 5000
check "and reads its bytes" cmp "$state/java.bin" "$other/shared"
stat "$other/dir/new" > /dev/null
rm "$m/dir/new"
sleep "$bound_s"
check "a name unlinked by another client is gone after 2 x TTL" bash -c "! stat '$other/dir/new' 2>/dev/null"
# The kernel keeps "no such name" for the negative TTL (the metadata TTL unless set otherwise).
check "a name created by another client is seen after at most the negative TTL" bash -c "
  ! stat '$other/late' 2>/dev/null && echo z > '$m/late' && sleep $bound_s &&
  test \"\$(cat '$other/late')\" = z"
check "a missing name created through the same mount is seen at once (its negative entry replaced)" bash -c "
  ! stat '$slow/late2' 2>/dev/null && echo z > '$slow/late2' && test \"\$(cat '$slow/late2')\" = z &&
  ! stat '$slow/late3' 2>/dev/null && mkdir '$slow/late3' && test -d '$slow/late3' &&
  ! stat '$slow/late4' 2>/dev/null && mv '$slow/late2' '$slow/late4' && test -f '$slow/late4' &&
  ! stat '$slow/late5' 2>/dev/null && ln '$slow/late4' '$slow/late5' && test -f '$slow/late5' &&
  ! stat '$slow/late6' 2>/dev/null && ln -s late4 '$slow/late6' && test -L '$slow/late6'"
check "a mount with --negative-cache-ttl-ms 0 sees another client's new name at once" bash -c "
  ! stat '$nonegative/late7' 2>/dev/null && echo z > '$m/late7' && test \"\$(cat '$nonegative/late7')\" = z"

echo "== every name of a hard-linked file shows a change made through another name at once"
# Through the mount with the 600 s TTL, so a stale kernel or client entry could not expire during the
# test: each name is stat'ed first (its attributes now cached by the kernel), then changed by another name.
hl="$slow/hardlinks"
mkdir "$hl" && echo data > "$hl/a" && ln "$hl/a" "$hl/b"
stat "$hl/a" "$hl/b" >/dev/null
check "chmod through one name shows on the other at once" bash -c "
  chmod 0640 '$hl/b' && test \"\$(stat -c '%a' '$hl/a') \$(stat -c '%a' '$hl/b')\" = '640 640'"
check "chown through one name shows on the other at once" bash -c "
  chown 4242:4343 '$hl/a' && test \"\$(stat -c '%u:%g' '$hl/b')\" = 4242:4343"
check "link through one name raises the link count of every name at once" bash -c "
  ln '$hl/b' '$hl/c' && test \"\$(stat -c %h '$hl/a') \$(stat -c %h '$hl/b') \$(stat -c %h '$hl/c')\" = '3 3 3'"
check "unlink of one name lowers the link count of the others at once" bash -c "
  rm '$hl/c' && test \"\$(stat -c %h '$hl/a') \$(stat -c %h '$hl/b')\" = '2 2'"
# Names the kernel learnt from a directory listing (readdirplus, no lookup of their own).
mkdir "$hl/listed" && echo x > "$hl/listed/p" && ln "$hl/listed/p" "$hl/listed/q"
ls -l "$hl/listed" >/dev/null
check "a name learnt from a listing shows a chmod through the other name at once" bash -c "
  chmod 0604 '$hl/listed/p' && test \"\$(stat -c %a '$hl/listed/q')\" = 604"
# Size and mtime: data written or cut through one name (set to 2001 first, then cached by both names).
printf 12345 > "$hl/w1" && ln "$hl/w1" "$hl/w2" && touch -d 2001-01-01 "$hl/w1" && stat "$hl/w1" "$hl/w2" >/dev/null
check "an append and close through one name shows the new size and mtime on the other at once" bash -c "
  printf 'more bytes' >> '$hl/w1' &&
  test \"\$(stat -c '%s' '$hl/w2')\" = 15 && test \"\$(stat -c '%Y' '$hl/w2')\" -gt 1000000000 &&
  test \"\$(stat -c '%s %Y' '$hl/w2')\" = \"\$(stat -c '%s %Y' '$hl/w1')\""
# Each change below first sets the mtime back to 2001 (978307200 s) and caches it under the other name, so the
# other name's mtime after the change shows whether its cached attributes were replaced.
touch -d 2001-01-01 "$hl/w1" && stat "$hl/w1" "$hl/w2" >/dev/null
check "a write and fsync through an open descriptor show the new size and mtime on the other name before the close" \
  python3 - "$hl/w1" "$hl/w2" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.pwrite(fd, b"x" * 100, 1000)
os.fsync(fd)
other = os.stat(sys.argv[2])
os.close(fd)
sys.exit(0 if (other.st_size, other.st_mtime > 1000000000) == (1100, True)
         else "other name's size %d and mtime %d, not 1100 and now" % (other.st_size, other.st_mtime))
PY
touch -d 2001-01-01 "$hl/w2" && stat "$hl/w1" "$hl/w2" >/dev/null
check "O_TRUNC through one name shows size 0 and the new mtime on the other at once" bash -c "
  : > '$hl/w2' && test \"\$(stat -c %s '$hl/w1')\" = 0 && test \"\$(stat -c %Y '$hl/w1')\" -gt 1000000000"
touch -d 2001-01-01 "$hl/w1" && stat "$hl/w1" "$hl/w2" >/dev/null
check "truncate through one name shows the new size and mtime on the other at once" bash -c "
  truncate -s 77 '$hl/w1' && test \"\$(stat -c %s '$hl/w2')\" = 77 && test \"\$(stat -c %Y '$hl/w2')\" -gt 1000000000"
check "a rename keeps the moved name's link to its other names" bash -c "
  mv '$hl/b' '$hl/renamed' && chmod 0660 '$hl/a' &&
  test \"\$(stat -c %a '$hl/renamed')\" = 660"
check "unlink down to one name shows link count 1 at once" bash -c "
  rm '$hl/a' && test \"\$(stat -c %h '$hl/renamed')\" = 1"

system_finish
