#!/usr/bin/env bash
# POSIX metadata semantics through a FUSE mount, end to end with the MRC: ctime after every metadata
# change, a directory's link count, setuid/setgid cleared by writes of others and by chown, setgid
# directories, and the atime policy (relatime). Other uids act as 65534 (nobody) on a volume mounted
# with -o allow_other. The kernel caches attributes for 1 s (attr_timeout), so every check that reads
# times after a change waits 1.1 s first; times are compared in nanoseconds.
#
#   tests/system/posix_metadata_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
umask 022  # the modes checked below assume it (uid 65534's commands inherit it)
start_cluster 1

m="$state/mnt"
chmod 0711 "$state"  # lets uid 65534 reach the mount point (mktemp makes it 0700)
check "mkfs.xtreemfs creates the volume" "$repository/bin/mkfs.xtreemfs" "127.0.0.1:$dir_port/posix"
check "the volume mounts with -o allow_other" mount_volume posix "$m" -o allow_other

as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
settle() { sleep 1.1; }  # past the kernel's attribute cache (1 s)
time_ns() { /usr/bin/python3 -c 'import os, sys; print(getattr(os.stat(sys.argv[2]), "st_" + sys.argv[1] + "_ns"))' "$1" "$2"; }
mode_is() { local mode; mode="$(stat -c %a "$1")"; [ "$mode" = "$2" ] || { echo "mode of $1 is $mode, expected $2" >&2; return 1; }; }
nlink_is() { local links; links="$(stat -c %h "$1")"; [ "$links" = "$2" ] || { echo "nlink of $1 is $links, expected $2" >&2; return 1; }; }

# ctime_advances PATH_BEFORE PATH_AFTER COMMAND...: the inode's ctime (read through PATH_BEFORE, then
# PATH_AFTER) is newer after COMMAND. The previous check already waited out the attribute cache.
ctime_advances() {
  local before_path="$1" after_path="$2"; shift 2
  local before after
  before="$(time_ns ctime "$before_path")"
  sleep 0.01  # the MRC stamps milliseconds
  "$@" || { echo "command failed: $*" >&2; return 1; }
  settle
  after="$(time_ns ctime "$after_path")"
  [ "$after" -gt "$before" ] || { echo "ctime of $after_path: $before before, $after after '$*'" >&2; return 1; }
}

echo "== ctime changes on every metadata change"
echo data > "$m/c"
settle
check "ctime advances after chmod" ctime_advances "$m/c" "$m/c" chmod 0600 "$m/c"
check "ctime advances after chown" ctime_advances "$m/c" "$m/c" chown 65534:65534 "$m/c"
check "ctime advances after link (the linked inode)" ctime_advances "$m/c" "$m/c" ln "$m/c" "$m/c.link"
check "st_nlink is 2 after link" nlink_is "$m/c" 2
check "ctime advances after unlink of another link" ctime_advances "$m/c" "$m/c" rm "$m/c.link"
check "ctime advances after rename (the renamed inode)" ctime_advances "$m/c" "$m/renamed" mv "$m/c" "$m/renamed"
check "ctime advances after truncate" ctime_advances "$m/renamed" "$m/renamed" truncate -s 2 "$m/renamed"
check "ctime advances after utimens (touch -m -d)" ctime_advances "$m/renamed" "$m/renamed" \
  touch -m -d @981173106 "$m/renamed"
check "utimens set mtime as asked" test "$(stat -c %Y "$m/renamed")" = 981173106
check "ctime advances after setfattr" ctime_advances "$m/renamed" "$m/renamed" setfattr -n user.k -v v "$m/renamed"
check "ctime advances after setfattr -x" ctime_advances "$m/renamed" "$m/renamed" setfattr -x user.k "$m/renamed"
overwrite_py='import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.pwrite(fd, b"xy", 0)
os.close(fd)'
check "ctime advances after a write that keeps the size" ctime_advances "$m/renamed" "$m/renamed" \
  /usr/bin/python3 -c "$overwrite_py" "$m/renamed"
check "the write that kept the size set mtime too (was 2001)" test "$(stat -c %Y "$m/renamed")" -gt 981173106
check "the overwrite kept the size and wrote the bytes" test "$(stat -c %s "$m/renamed"):$(cat "$m/renamed")" = 2:xy
ctime_before_reading="$(time_ns ctime "$m/renamed")"
cat "$m/renamed" > /dev/null
settle
check "reading leaves ctime" test "$(time_ns ctime "$m/renamed")" = "$ctime_before_reading"

echo "== a directory's link count is 2 plus its subdirectories"
mkdir -p "$m/a/x" "$m/a/y" "$m/b"
echo f > "$m/a/file"
settle
check "mkdir: a has 2 + 2 links, b 2" bash -c "$(declare -f nlink_is); nlink_is '$m/a' 4 && nlink_is '$m/b' 2"
mv "$m/a/x" "$m/b/x"
settle
check "rename of a directory across parents adjusts both parents (a 3, b 3)" \
  bash -c "$(declare -f nlink_is); nlink_is '$m/a' 3 && nlink_is '$m/b' 3"
exchange_py='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.renameat2(-100, os.fsencode(sys.argv[1]), -100, os.fsencode(sys.argv[2]), 2) != 0:
    number = ctypes.get_errno()
    raise OSError(number, os.strerror(number))'
check "RENAME_EXCHANGE of a directory with a file in another directory" \
  /usr/bin/python3 -c "$exchange_py" "$m/b/x" "$m/a/file"
settle
check "after the exchange a has 4 links, b 2, and the types swapped" bash -c "$(declare -f nlink_is)
  nlink_is '$m/a' 4 && nlink_is '$m/b' 2 && test -d '$m/a/file' && test -f '$m/b/x'"
rmdir "$m/a/file" "$m/a/y"
settle
check "rmdir drops the parent's link count (a 2)" nlink_is "$m/a" 2
check "the volume root counts a and b (4)" nlink_is "$m" 4

echo "== setuid/setgid are cleared by writes of others and by chown"
echo data > "$m/suid" && chmod 06777 "$m/suid"
echo root >> "$m/suid"
settle
check "a write by root (CAP_FSETID) keeps 6777" mode_is "$m/suid" 6777
check "uid 65534 may write root's 06777 file" as_nobody bash -c "echo nobody >> '$m/suid'"
settle
check "the write by uid 65534 cleared setuid and setgid (0777)" mode_is "$m/suid" 777
check "the data of the non-owner write is there" test "$(tail -n 1 "$m/suid")" = nobody
check "the owner is still root" test "$(stat -c %u "$m/suid")" = 0
echo data > "$m/suid-truncate" && chmod 04777 "$m/suid-truncate"
check "uid 65534 may truncate root's 04777 file" as_nobody truncate -s 1 "$m/suid-truncate"
settle
check "the truncate by uid 65534 cleared setuid and set the size" \
  test "$(stat -c %a:%s "$m/suid-truncate")" = 777:1
chmod 06777 "$m/suid-truncate"
check "uid 65534 adding bits with chmod is still EPERM" nobody_errno_is EPERM 'os.chmod(a[0], 0o7777)' \
  "$m/suid-truncate"
echo data > "$m/suid-readonly" && chmod 06755 "$m/suid-readonly"
check "uid 65534 without write access cannot clear the bits (EPERM)" nobody_errno_is EPERM \
  'os.chmod(a[0], 0o755)' "$m/suid-readonly"
check "uid 65534 cannot write a 06755 file of root (EACCES)" nobody_errno_is EACCES \
  'os.open(a[0], os.O_WRONLY)' "$m/suid-readonly"
echo data > "$m/chown-exec" && chmod 06755 "$m/chown-exec"
chown 65534 "$m/chown-exec"
settle
check "chown by root clears setuid and setgid with group-execute (0755)" mode_is "$m/chown-exec" 755
echo data > "$m/chown-lockmark" && chmod 06745 "$m/chown-lockmark"
chown 65534 "$m/chown-lockmark"
settle
check "chown by root keeps setgid without group-execute (2745)" mode_is "$m/chown-lockmark" 2745
mkdir "$m/open" && chmod 0777 "$m/open"
as_nobody bash -c "echo mine > '$m/open/mine' && chmod 06755 '$m/open/mine'"
settle
check "uid 65534 owns its 06755 file" test "$(stat -c %u:%a "$m/open/mine")" = 65534:6755
check "chgrp by the (non-root) owner to its own group succeeds" as_nobody /usr/bin/python3 -c \
  'import os, sys; os.chown(sys.argv[1], -1, 65534)' "$m/open/mine"
settle
check "chgrp by the owner cleared setuid and setgid (0755)" mode_is "$m/open/mine" 755

echo "== setgid directories pass their group on"
mkdir "$m/sg" && chgrp 4242 "$m/sg" && chmod 2777 "$m/sg"
check "uid 65534 creates a file in the setgid directory" as_nobody bash -c "echo f > '$m/sg/file'"
check "uid 65534 creates a subdirectory in the setgid directory" as_nobody mkdir "$m/sg/sub"
settle
check "the new file has the directory's group 4242, owner 65534, no setgid" \
  test "$(stat -c %u:%g:%a "$m/sg/file")" = 65534:4242:644
check "the new subdirectory has group 4242 and inherited setgid (2755)" \
  test "$(stat -c %u:%g:%a "$m/sg/sub")" = 65534:4242:2755
mkdir "$m/sg/sub/deeper"
settle
check "setgid passes down further (root's mkdir in the subdirectory)" \
  test "$(stat -c %g:%a "$m/sg/sub/deeper")" = 4242:2755

echo "== atime: relatime (open for reading updates atime when atime <= mtime, else once in 24 h)"
echo content > "$m/at"
settle
atime_created="$(time_ns atime "$m/at")"
check "a new file's atime is not newer than its mtime" test "$atime_created" -le "$(time_ns mtime "$m/at")"
cat "$m/at" > /dev/null
settle
atime_first="$(time_ns atime "$m/at")"
check "the first open for reading updates atime" test "$atime_first" -gt "$atime_created"
check "atime after the read is newer than mtime" test "$atime_first" -gt "$(time_ns mtime "$m/at")"
cat "$m/at" > /dev/null
settle
check "a second read within 24 h leaves atime" test "$(time_ns atime "$m/at")" = "$atime_first"
echo more >> "$m/at"
settle
check "a write leaves atime" test "$(time_ns atime "$m/at")" = "$atime_first"
cat "$m/at" > /dev/null
settle
check "the first read after a write updates atime again" test "$(time_ns atime "$m/at")" -gt "$atime_first"
mkdir "$m/listed" && touch "$m/listed/entry"
settle
atime_directory="$(time_ns atime "$m/listed")"
ls "$m/listed" > /dev/null
settle
check "listing a changed directory updates its atime" test "$(time_ns atime "$m/listed")" -gt "$atime_directory"
touch -a -d @981173106 "$m/at"
settle
check "touch -a sets atime explicitly" test "$(stat -c %X "$m/at")" = 981173106
cat "$m/at" > /dev/null
settle
check "a read after atime was set back to 2001 updates it" test "$(stat -c %X "$m/at")" -gt 981173106

system_finish
