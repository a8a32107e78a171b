#!/usr/bin/env bash
# The mount under ThreadSanitizer: builds mount.xtreemfs with -fsanitize=thread (CPP_BUILD_DIR-tsan, kept
# between runs), mounts a volume with it and runs concurrent work whose requests end each other's objects'
# lifetimes: two appenders (open-append-close per line), listers running `ls -l` in parallel on one
# directory, a `stat` loop, and an O_DIRECT fio job verified with crc32c whose answers come from the io
# thread. Any ThreadSanitizer report fails the test, and so does a lost line, a failed listing or a mount
# that died. Why: a readdir answered while it still held its listing's lock let the kernel release the
# directory first, and the lock's release then wrote into the freed listing (a heap corruption that crashed
# the mount about once in 25 rounds of fuse_posix's appenders; TSan names it at its first occurrence).
#
#   tests/system/fuse_tsan_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR   (or through tests/system/run)
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"

tsan_build="${cpp_build}-tsan"
echo "== building mount.xtreemfs with ThreadSanitizer in $tsan_build"
build_tsan_mount() {
  cmake -S "$repository/cpp" -B "$tsan_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" > "$state/tsan-build.log" 2>&1 &&
    cmake --build "$tsan_build" -j2 --target mount.xtreemfs >> "$state/tsan-build.log" 2>&1 ||
    { tail -20 "$state/tsan-build.log" >&2; return 1; }
}
check "mount.xtreemfs builds with -fsanitize=thread" build_tsan_mount
[ -x "$tsan_build/mount.xtreemfs" ] || system_finish

start_cluster 2
check "mkfs.xtreemfs creates a volume striped over 2 OSDs" \
  "$repository/bin/mkfs.xtreemfs" -w 2 "127.0.0.1:$dir_port/tsan"
m="$state/mnt"
mkdir -p "$m"
mounts+=("$m")
# halt_on_error=0: the run goes on, so every distinct report is in the log for the failure message.
check "the ThreadSanitizer mount mounts the volume" env \
  TSAN_OPTIONS="log_path=$state/tsan halt_on_error=0 second_deadlock_stack=1" \
  "$tsan_build/mount.xtreemfs" --log-file "$state/mount.log" --log-level info --timeout-ms 10000 --retries 3 \
  "pbrpc://127.0.0.1:$dir_port/tsan" "$m"

mkdir "$m/listed"
for i in $(seq 1 40); do echo "$i" > "$m/listed/f$i"; done
done_flag="$state/work.done"
list_until_done() {
  local listings=0
  while [ ! -e "$done_flag" ]; do
    ls -l "$m/listed" > /dev/null || { echo "lister $1: listing $listings failed" >&2; return 1; }
    ls -l "$m" > /dev/null || { echo "lister $1: listing of the root failed" >&2; return 1; }
    stat "$m/appended" > /dev/null 2>&1 || true  # absent until the first append
    listings=$((listings + 1))
  done
  echo "lister $1: $listings listings"
}
list_until_done 1 & lister_1=$!
list_until_done 2 & lister_2=$!
list_until_done 3 & lister_3=$!
fio --name=tsan --filename="$m/fio.dat" --rw=randrw --bs=4k --size=4M --direct=1 --ioengine=libaio \
  --iodepth=8 --verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 \
  --output="$state/fio.out" & fio_job=$!
append_lines a "$m/appended" & appender_a=$!
append_lines b "$m/appended" & appender_b=$!
check "appender a saw no error in any write or close" wait "$appender_a"
check "appender b saw no error in any write or close" wait "$appender_b"
check "fio's O_DIRECT random reads and writes verify (crc32c)" wait "$fio_job"
touch "$done_flag"
check "lister 1 saw no failed listing" wait "$lister_1"
check "lister 2 saw no failed listing" wait "$lister_2"
check "lister 3 saw no failed listing" wait "$lister_3"
check "the appenders lost no line" test "$(grep -c ' line ' "$m/appended")" = 400
check "the mount is alive" ls "$m/listed/f1"

tsan_reports() {
  local reports
  reports="$(cat "$state"/tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true)"
  [ "$reports" -eq 0 ] && return 0
  echo "ThreadSanitizer: $reports reports in $state/tsan.*; the first:" >&2
  cat "$state"/tsan.* | sed -n '/^WARNING: ThreadSanitizer/,/^SUMMARY/p' | head -40 >&2
  return 1
}
check "ThreadSanitizer reported nothing" tsan_reports
system_finish
