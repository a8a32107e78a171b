#!/usr/bin/env bash
# Server restarts are invisible to applications beyond the pause (issue 10): while fio --verify jobs and a
# loop of metadata changes run through a FUSE mount, each server in turn is killed with SIGKILL and started
# again on the same port and data, and the MRC is also frozen (SIGSTOP) longer than a request's timeout so
# answers are lost and changes are repeated. The mount uses its default retry window (60 s); every
# application call must succeed with correct data: fio exits 0 with its crc32c verification, and the
# metadata loop (create with O_EXCL, rename, mkdir, link, unlink, symlink, rmdir, chmod) sees no error at
# all, which a repeated create or rename applied twice would turn into EEXIST or ENOENT. Each phase checks
# that the kill really fell inside the I/O and fails loudly when it did not: the server is killed straight
# by its pid (the launcher's kill starts a JVM first, which under load once landed after fio had ended), the
# job's I/O had begun before the kill, and the job ended only after the server was started again.
#
#   tests/system/restart_transparent_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
start_cluster 2
"$repository/bin/mkfs.xtreemfs" -w 2 "127.0.0.1:$dir_port/transparent" >/dev/null
mount_point="$state/mnt"
# lib.sh's defaults cap retries (--retries 1); here the window decides, as in a plain mount: 5 s per
# attempt, at most 60 s of retries (the cap of 101 attempts is not reached inside the window: at most 31 with the 2 s backoff).
# The mount asks the DIR for the OSDs' addresses every second (default 60 s), so the DIR's restart
# falls on lookups the I/O waits for.
mount_volume transparent "$mount_point" --timeout-ms 5000 --retries 100 --retry-window-ms 60000 \
  --uuid-cache-ttl-ms 1000
down_s=4

# fio_job NAME FIO_OPTIONS...: starts a rate-limited fio job with crc32c verification in the background
# (so it runs long enough for a restart to fall inside it); its pid is in $fio_pid, its output in
# $state/fio-NAME.out, its file in $mount_point/NAME.0.0, and "EXIT_CODE ENDED_NS" (when fio ended) in
# $state/fio-NAME.rc.
fio_job() {
  local name="$1"; shift
  ( rc=0; fio --name="$name" --directory="$mount_point" --verify_state_save=0 --verify=crc32c \
      --do_verify=1 --verify_fatal=1 --output="$state/fio-$name.out" "$@" || rc=$?
    echo "$rc $(date +%s%N)" > "$state/fio-$name.rc" ) &
  fio_pid=$!
}

# fio_done NAME: waits for the job (fio itself bounds nothing; the mount's window does) and checks that it
# exited 0 and that it still ran when the server came back ($down_s s after the kill at $killed_ns).
fio_done() {
  wait "$fio_pid" || true
  check "fio $1 exited 0 with every block verified ($(grep -o 'err= *[0-9]*' "$state/fio-$1.out" | head -1))" \
    test "$(cut -d' ' -f1 "$state/fio-$1.rc" 2>/dev/null)" = 0
  check_overlap "fio job $1" "$state/fio-$1.rc" "$killed_ns" $((down_s * 1000))
}

# restart_during NAME PID STARTED VICTIM_PID RESTART: waits until the job's I/O has begun (the file STARTED has
# data; at most 30 s: under load fio takes seconds to start) and 1 s more, checks that the job runs, kills the
# server VICTIM_PID straight (kill_now, $killed_ns),
# keeps it down until $down_s s after the kill and restarts it ($written_while_down: the bytes the job's
# processes wrote in those $down_s s). The caller then checks with check_overlap
# that the job ran past the outage, so its I/O waited for the dead server (its exit status says whether
# that wait was invisible). Whether it still runs once the restart command returns depends on how long a JVM
# takes to start and register under load (25 s at load 25 here): the job may rightly finish while the
# launcher still waits for the registration, so that is not required.
# tree_written_bytes PID: bytes the process PID and its descendants have passed to write(2) so far
# (/proc/PID/io wchar; a buffered write through the mount counts once the mount accepted it).
tree_written_bytes() {
  local total child
  total="$(awk '/^wchar:/ { print $2 }' "/proc/$1/io" 2>/dev/null || true)"
  total="${total:-0}"
  for child in $(pgrep -P "$1" || true); do
    total=$(( total + $(tree_written_bytes "$child") ))
  done
  echo "$total"
}

restart_during() {
  local name="$1" pid="$2" started="$3" victim="$4" restart_command="$5"
  local _
  for _ in $(seq 1 300); do test -s "$started" && break; sleep 0.1; done
  check "$name: the job's I/O had begun before the kill ($started has data)" test -s "$started"
  sleep 1
  check "$name: the job runs when the server is killed" kill -0 "$pid"
  written_at_kill="$(tree_written_bytes "$pid")"
  kill_now "$victim"
  local left_ms=$(( down_s * 1000 - ($(date +%s%N) - killed_ns) / 1000000 ))
  if [ "$left_ms" -gt 0 ]; then sleep "$(echo "$left_ms / 1000" | bc -l)"; fi
  written_while_down=$(( $(tree_written_bytes "$pid") - written_at_kill ))
  $restart_command
  echo "$name: the server was away $(( ($(date +%s%N) - killed_ns) / 1000000 )) ms"
}

echo "== OSD 0 killed and restarted during fio sequential writes (psync, 1 MiB, verify)"
fio_job osd-write --rw=write --bs=1M --size=96M --rate=8m --ioengine=psync
restart_during "OSD 0 during writes" "$fio_pid" "$mount_point/osd-write.0.0" "$(osd_pid 0)" "start_osd 0"
fio_done osd-write

echo "== OSD 1 killed and restarted during fio random reads and writes (libaio, O_DIRECT, iodepth 8)"
fio_job osd-mixed --rw=randrw --bs=64k --size=64M --rate=3m --ioengine=libaio --iodepth=8 --direct=1
restart_during "OSD 1 during random I/O" "$fio_pid" "$mount_point/osd-mixed.0.0" "$(osd_pid 1)" "start_osd 1"
fio_done osd-mixed

# meta.py ROOT STOPFILE RESULT: repeats a round of metadata changes until STOPFILE exists; writes
# "ok ROUNDS" or "error ROUNDS MESSAGE" to RESULT (and ROUNDS so far to RESULT.rounds after every round).
cat > "$state/meta.py" <<'PY'
import os, sys
root, stop, result = sys.argv[1:4]
os.makedirs(root, exist_ok=True)
rounds = 0
try:
    while not os.path.exists(stop) and rounds < 100000:
        i = rounds
        path = os.path.join(root, "f%d" % i)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, b"%08d" % i * 512)
        os.close(fd)
        os.mkdir(os.path.join(root, "d%d" % i))
        os.rename(path, os.path.join(root, "d%d" % i, "g"))
        os.link(os.path.join(root, "d%d" % i, "g"), os.path.join(root, "h%d" % i))
        os.symlink("d%d/g" % i, os.path.join(root, "s%d" % i))
        os.chmod(os.path.join(root, "h%d" % i), 0o600)
        os.unlink(os.path.join(root, "d%d" % i, "g"))
        os.rmdir(os.path.join(root, "d%d" % i))
        os.unlink(os.path.join(root, "s%d" % i))
        rounds += 1
        # Replaced whole (the shell reads it meanwhile: a truncated file read "" and failed the check).
        with open(result + ".rounds.new", "w") as counter:
            counter.write("%d\n" % rounds)
        os.replace(result + ".rounds.new", result + ".rounds")
    open(result, "w").write("ok %d\n" % rounds)
except OSError as error:
    open(result, "w").write("error %d %s\n" % (rounds, error))
PY

# check_metadata_result: the loop ended without error and left exactly h0..h(N-1), each with its bytes.
check_metadata_result() {
  local outcome; outcome="$(cat "$state/meta.result" 2>/dev/null || echo missing)"
  check "the metadata loop saw no error across the restart ($outcome)" bash -c "case '$outcome' in ok*) true ;; *) false ;; esac"
  local rounds="${outcome#ok }"
  check "the loop's namespace is exact: $rounds files h0..h$((rounds - 1)), mode 600, right contents" \
    /usr/bin/python3 - "$mount_point/meta" "$rounds" <<'PY'
import os, stat, sys
root, rounds = sys.argv[1], int(sys.argv[2])
names = sorted(os.listdir(root))
expected = sorted("h%d" % i for i in range(rounds))
if names != expected:
    sys.exit("names differ: extra %s, missing %s" % (sorted(set(names) - set(expected))[:5],
                                                     sorted(set(expected) - set(names))[:5]))
for i in range(rounds):
    path = os.path.join(root, "h%d" % i)
    st = os.stat(path)
    if stat.S_IMODE(st.st_mode) != 0o600 or st.st_nlink != 1:
        sys.exit("%s: mode %o, %d links" % (path, stat.S_IMODE(st.st_mode), st.st_nlink))
    if open(path, "rb").read() != b"%08d" % i * 512:
        sys.exit("%s: wrong contents" % path)
PY
}

echo "== MRC frozen (SIGSTOP) past the request timeout, then killed and restarted, during metadata changes and fio"
rm -f "$state/meta.stop" "$state/meta.result"
/usr/bin/python3 "$state/meta.py" "$mount_point/meta" "$state/meta.stop" "$state/meta.result" &
meta_pid=$!
# 128 MiB at 4 MiB/s: at least 32 s, so fio still runs $down_s s after the MRC's kill (about 14 s in). The
# freeze signals go straight to the pid: the launcher's kill starts a JVM first, seconds each under load,
# which once moved the kill past the end of a 24 s job (load 33: "its last call returned -398 ms after the kill").
fio_job mrc-write --rw=write --bs=1M --size=128M --rate=4m --ioengine=psync
sleep 2
check "the metadata loop runs when the MRC is frozen" kill -0 "$meta_pid"
kill -STOP "$mrc_pid"
# Longer than the 5 s per attempt: requests in the socket are answered after SIGCONT, their retries too.
sleep 8
kill -CONT "$mrc_pid"
sleep 2
restart_during "MRC during metadata changes and fio" "$meta_pid" "$state/meta.result.rounds" "$mrc_pid" "start_mrc"
rounds_at_restart="$(cat "$state/meta.result.rounds" 2>/dev/null || echo 0)"
sleep 3
touch "$state/meta.stop"
wait "$meta_pid" || true
rounds_after="$(cat "$state/meta.result.rounds" 2>/dev/null || echo 0)"
check "metadata changes went on after the restart ($rounds_at_restart -> $rounds_after rounds)" \
  test "$rounds_after" -gt "$rounds_at_restart"
check_metadata_result
fio_done mrc-write
# How often the MRC answered a repeat from its record (depends on which requests the freeze caught:
# mostly the lookups before each change, which are simply repeated; the next phase forces a change).
echo "MRC: $(cat "$state"/log/mrc.log* 2>/dev/null | grep -c 'answered with its outcome recorded' || true) repeated changes answered from their record"

# replays: how many repeats the MRC answered from its outcome record so far (its logs survive restarts).
replays() { cat "$state"/log/mrc.log* 2>/dev/null | grep -c 'answered with its outcome recorded' || true; }

echo "== A rename whose answer is lost (MRC frozen past the request timeout) is applied once and succeeds"
echo first > "$mount_point/lost-a"
echo second > "$mount_point/lost-b"
replays_before="$(replays)"
# Both names were just looked up, so the kernel sends the rename without a lookup (entry timeout 1 s): the
# RENAME itself reaches the frozen MRC, times out after 5 s and is sent again; on SIGCONT the first attempt
# renames and the repeat must be answered from the record (applied again it would be ENOENT).
stat "$mount_point/lost-a" "$mount_point/lost-b" >/dev/null
kill -STOP "$mrc_pid"
( /usr/bin/python3 -c 'import os, sys; os.rename(sys.argv[1], sys.argv[2])' "$mount_point/lost-a" \
    "$mount_point/lost-b" 2> "$state/rename.err"; echo $? > "$state/rename.rc" ) &
rename_pid=$!
sleep 8
check "the rename waits for the frozen MRC" kill -0 "$rename_pid"
kill -CONT "$mrc_pid"
wait "$rename_pid" || true
check "the rename succeeded ($(cat "$state/rename.err"))" test "$(cat "$state/rename.rc")" = 0
check "the target has the source's bytes and the source is gone" bash -c "
  test \"\$(cat '$mount_point/lost-b')\" = first && ! test -e '$mount_point/lost-a'"
check "the MRC answered the repeated rename from its record ($replays_before -> $(replays) repeats)" \
  test "$(replays)" -gt "$replays_before"

echo "== A create (O_CREAT|O_TRUNC) whose answer is lost (MRC frozen past the request timeout) is applied once"
replays_before="$(replays)"
# The creator looks the name up in vain first, so the kernel holds a negative entry (1 s) and sends the CREATE
# without a lookup: it reaches the frozen MRC, times out after 5 s and is sent again; on SIGCONT the first attempt
# creates the file and the repeat must be answered from the record (the mount numbers an O_TRUNC or O_EXCL open as
# a change, so this is the path of an O_EXCL create's repeat, which applied again would be EEXIST). Not O_EXCL
# itself: for it FUSE always looks the name up first (fuse_dentry_revalidate drops a negative entry under
# LOOKUP_EXCL), so the freeze caught the lookup and the create went to the thawed MRC (tried: no repeat in two
# runs); ExactlyOnceMetadataTest repeats an O_EXCL open at the MRC.
# The lookup and the create are one process, the MRC frozen between them (a python started after the freeze
# could miss the entry's 1 s under load).
rm -f "$state/create.ready" "$state/create.go"
( /usr/bin/python3 -c '
import os, sys, time
path, ready, go = sys.argv[1:4]
try:
    os.stat(path)
    sys.exit("%s exists before the create" % path)
except FileNotFoundError:
    pass
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.005)
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640)
os.write(fd, b"created once")
os.close(fd)' "$mount_point/lost-created" "$state/create.ready" "$state/create.go" 2> "$state/create.err"
  echo $? > "$state/create.rc" ) &
create_pid=$!
for _ in $(seq 1 300); do [ -e "$state/create.ready" ] && break; sleep 0.01; done
kill -STOP "$mrc_pid"
touch "$state/create.go"
sleep 8
check "the create waits for the frozen MRC" kill -0 "$create_pid"
kill -CONT "$mrc_pid"
wait "$create_pid" || true
check "the create succeeded ($(cat "$state/create.err"))" test "$(cat "$state/create.rc")" = 0
check "the created file has its bytes and mode 640" bash -c "
  test \"\$(cat '$mount_point/lost-created')\" = 'created once' && test \"\$(stat -c %a '$mount_point/lost-created')\" = 640"
check "the MRC answered the repeated create from its record ($replays_before -> $(replays) repeats)" \
  test "$(replays)" -gt "$replays_before"

# The DIR is needed only to find servers that moved: while it is down, the mount's lookups (every second
# here) fall back to the addresses they knew (client::UuidResolver), so buffered writes to the OSDs, which
# stayed where they were, are no pause at all, however long the DIR's restart takes (at load 33 it took 88 s,
# longer than the retry window, and a buffered write failed with EIO before this fallback). Down 8 s, the
# job's 2 MiB/s of random buffered writes must pass more than the mount's write-behind window (4 MiB, which
# a writer fills without waiting for any server) through the mount, and the mount must log that lookups met
# the dead DIR: otherwise the outage did not overlap buffered writes that needed it, and the phase fails.
echo "== DIR killed and restarted during fio (the mount asks it for OSD addresses every second)"
down_s=8
write_behind_window_bytes=4194304
dir_warnings_before="$(grep -c 'the DIR at .* did not answer' "$state/mount-mnt.log" || true)"
fio_job dir-write --rw=randwrite --bs=16k --size=48M --rate=2m --ioengine=psync
restart_during "DIR during writes" "$fio_pid" "$mount_point/dir-write.0.0" "$dir_pid" "cluster restart dir"
load_cluster
dir_warnings_after="$(grep -c 'the DIR at .* did not answer' "$state/mount-mnt.log" || true)"
check "the mount's lookups met the dead DIR and took the servers' last known addresses ($dir_warnings_before -> $dir_warnings_after warnings)" \
  test "$dir_warnings_after" -gt "$dir_warnings_before"
check "buffered writes went on while the DIR was down ($written_while_down bytes in $down_s s, more than the $write_behind_window_bytes-byte write-behind window)" \
  test "$written_while_down" -gt "$write_behind_window_bytes"
fio_done dir-write

check "after every restart, a new file is written and read back through the mount" bash -c "
  head -c 3000000 /dev/urandom > '$state/after.bin' && cp '$state/after.bin' '$mount_point/after' &&
  cmp '$state/after.bin' '$mount_point/after'"

echo "mount log:"; tail -15 "$state/mount-mnt.log" || true
system_finish
