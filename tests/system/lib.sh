#!/usr/bin/env bash
# Shared pieces of the system tests (tests/system/*_e2e.sh), sourced, not run:
#   source "$(dirname "$0")/lib.sh"; system_setup REPOSITORY CPP_BUILD; start_cluster 2; ...; system_finish
# Provides: $repository $cpp_build $state $dir_port $mrc_port $osd_ports[] $secret $pids[],
#   start NAME LOG COMMAND...      run a service in the background and wait for its READY line
#   start_cluster OSD_COUNT [OSD_ARGS...]  a DIR, an MRC and OSD_COUNT OSDs on free loopback ports
#   kill_osd I [SIGNAL], start_osd I, osd_pid I   stop, restart (same port and data) and find OSD I
#   kill_mrc [SIGNAL], start_mrc   the same for the MRC
#   mount_volume VOLUME MOUNTPOINT [mount.xtreemfs options...]   mount (and unmount at exit)
#   check DESCRIPTION COMMAND...   run COMMAND, print PASS/FAIL, count
#   errno_is ERRNO PYTHON_CODE ARG...   pass only if the python code raises OSError with that errno
#   system_finish                  print the summary line and exit 1 on any failure
# Cleanup on exit unmounts every mount it made and stops exactly the processes it started; a passing
# run removes its state folder, a failing one keeps it (XTREEMFS_E2E_KEEP=1 always keeps it).
set -euo pipefail

system_setup() {
  repository="$(cd "$1" && pwd)"
  cpp_build="$(cd "$2" && pwd)"
  state="$(mktemp -d /tmp/xtreemfs-e2e.XXXXXX)"
  secret="e2e-secret-$$-0123456789abcdef"
  pids=()
  mounts=()
  failures=0
  passes=0
  export BUILD_SUFFIX="${BUILD_SUFFIX:-}"
  trap system_cleanup EXIT
  trap 'exit 130' INT TERM  # makes the EXIT trap run on signals too
}

system_cleanup() {
  local status=$?
  local mounted pid
  for mounted in "${mounts[@]}"; do
    if mountpoint -q "$mounted" 2>/dev/null; then fusermount3 -u "$mounted" 2>/dev/null || fusermount3 -uz "$mounted" || true; fi
  done
  for pid in "${pids[@]}"; do kill -CONT "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$status" -eq 0 ] && [ "${XTREEMFS_E2E_KEEP:-0}" != 1 ]; then
    rm -rf "$state"
  else
    echo "logs and state kept in $state"
  fi
}

# free_ports N: N TCP ports the kernel reports free right now (bound to port 0, then released), so
# parallel runs and other services do not collide; the servers bind them a moment later.
free_ports() {
  /usr/bin/python3 -c '
import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))' "$1"
}

start() {
  local name="$1" log="$2"; shift 2
  "$@" >"$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do
    if grep -q "^READY" "$log"; then echo "started $name: $(grep -m1 '^READY' "$log")"; return 0; fi
    if ! kill -0 "${pids[-1]}" 2>/dev/null; then echo "$name exited:"; cat "$log"; return 1; fi
    sleep 0.1
  done
  echo "$name not READY within 30 s:"; cat "$log"; return 1
}

start_cluster() {
  local osd_count="$1"; shift
  local ports
  read -r -a ports < <(free_ports $((osd_count + 2)))
  dir_port="${ports[0]}"
  mrc_port="${ports[1]}"
  osd_ports=("${ports[@]:2}")
  start dir "$state/dir.log" "$repository/bin/xtreemfs-dir" -Ddir.port="$dir_port" -Ddir.status.port=0 \
    -Ddir.database.path="$state/dir" -Ddir.bindAddress=127.0.0.1
  start_mrc
  osd_extra_args=("$@")
  osd_pid_index=()
  local i
  for ((i = 0; i < osd_count; i++)); do
    start_osd "$i"
  done
  sleep 1  # let the OSDs heartbeat so the MRC's placement sees them
}

# start_mrc: starts the MRC (again, after kill_mrc: same port and database). $mrc_pid_index is its
# index in $pids.
start_mrc() {
  mrc_pid_index=${#pids[@]}
  keep_previous_log "$state/mrc.log"
  start mrc "$state/mrc.log" "$repository/bin/xtreemfs-mrc" -Dcapability.secret="$secret" -Dmrc.port="$mrc_port" \
    -Dmrc.status.port=0 -Dmrc.database.path="$state/mrc" -Dmrc.dir.address="127.0.0.1:$dir_port" \
    -Dmrc.bindAddress=127.0.0.1 -Dmrc.advertisedAddress=127.0.0.1 -Dmrc.heartbeat.periodMs=500 \
    -Dmrc.placement.osdCacheTtlMs=100
}

# kill_mrc [SIGNAL]: stops the MRC (default SIGKILL) and waits for it to exit.
kill_mrc() {
  local pid="${pids[$mrc_pid_index]}"
  kill "-${1:-KILL}" "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# A restarted service writes a fresh log; the previous one is kept beside it as LOG.N.
keep_previous_log() {
  local log="$1" n=1
  [ -e "$log" ] || return 0
  while [ -e "$log.$n" ]; do n=$((n + 1)); done
  mv "$log" "$log.$n"
}

# start_osd I: starts OSD number I (again, after kill_osd: same port, UUID and object folder; the
# previous log is kept as osdI.log.N). $osd_pid_index[I] is its index in $pids.
start_osd() {
  local i="$1"
  osd_pid_index[$i]=${#pids[@]}
  keep_previous_log "$state/osd$i.log"
  start "osd$i" "$state/osd$i.log" "$repository/bin/xtreemfs-osd" -Dcapability.secret="$secret" \
    -Dosd.port="${osd_ports[$i]}" -Dosd.status.port=0 -Dosd.object.path="$state/osd$i" \
    -Dosd.dir.address="127.0.0.1:$dir_port" -Dosd.bindAddress=127.0.0.1 \
    -Dosd.advertised.address=127.0.0.1 -Dosd.heartbeat.periodMs=500 -Dosd.deletion.delayMs=0 \
    "${osd_extra_args[@]}"
}

# osd_pid I: the process id of OSD number I.
osd_pid() { echo "${pids[${osd_pid_index[$1]}]}"; }

# kill_osd I [SIGNAL]: stops OSD number I (default SIGKILL) and waits for it to exit.
kill_osd() {
  local pid
  pid="$(osd_pid "$1")"
  kill "-${2:-KILL}" "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

mount_volume() {
  local volume="$1" mount_point="$2"; shift 2
  mkdir -p "$mount_point"
  mounts+=("$mount_point")
  "$cpp_build/mount.xtreemfs" --log-file "$state/mount-$(basename "$mount_point").log" --log-level info \
    --timeout-ms 3000 --retries 1 "$@" "pbrpc://127.0.0.1:$dir_port/$volume" "$mount_point"
}

check() {
  local what="$1"; shift
  if "$@"; then echo "PASS $what"; passes=$((passes + 1)); else echo "FAIL $what"; failures=$((failures + 1)); fi
}

# Errno values checked by number (not by message text): errno_is ERRNO CODE ARG... runs CODE (python;
# ARGs are a[0], a[1], ...) and passes only if it raises OSError with exactly that errno.
errno_py='
import ctypes, errno, os, sys
expected, code, a = sys.argv[1], sys.argv[2], sys.argv[3:]
def renameat2(source, target, flags):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.renameat2(-100, os.fsencode(source), -100, os.fsencode(target), flags) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))
try:
    exec(code)
except OSError as error:
    if error.errno == getattr(errno, expected):
        sys.exit(0)
    print("expected %s, got %s (%s)" % (expected, errno.errorcode.get(error.errno), error), file=sys.stderr)
    sys.exit(1)
print("expected %s, the call succeeded" % expected, file=sys.stderr)
sys.exit(1)'
errno_is() { /usr/bin/python3 -c "$errno_py" "$@"; }
# The same as uid/gid 65534 (nobody) without supplementary groups.
nobody_errno_is() { setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c "$errno_py" "$@"; }

system_finish() {
  echo "system $(basename "$0"): $passes passed, $failures failed"
  if [ "$failures" -ne 0 ]; then exit 1; fi
  exit 0
}
