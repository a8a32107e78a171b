#!/usr/bin/env bash
# Shared pieces of the system tests (tests/system/*_e2e.sh), sourced, not run:
#   source "$(dirname "$0")/lib.sh"; system_setup REPOSITORY CPP_BUILD; start_cluster 2; ...; system_finish
# The cluster is bin/xtreemfs-cluster's (the project's one launcher), with its state in $state: servers as
# processes on free loopback ports, ready (READY line, MRC and OSDs registered at the DIR) when start returns.
# Provides: $repository $cpp_build $state $dir_port $mrc_port $osd_names[] $osd_ports[] $osd_uuids[] $pids[],
#   $dir_status_port $mrc_status_port $osd_status_ports[] (the ports the servers announced; 0 unless the cluster
#   was started with --status-ports), all from xtreemfs-cluster status --shell,
#   start_cluster OSD_COUNT [-Dkey=value...]   a DIR, an MRC and OSD_COUNT OSDs (osd0..), the settings on every OSD
#   start_typed_cluster LAUNCHER_OPTIONS...   the same from xtreemfs-cluster start options (--osd SPEC, ...)
#   cluster VERB [ARGS...]          bin/xtreemfs-cluster VERB --state $state ARGS (run through $cluster_prefix[],
#                                   e.g. nsenter --net=... to run the launcher on a network host of the test's making)
#   kill_osd I [SIGNAL], start_osd I, osd_pid I   signal (default KILL), restart (same port and data), pid of OSD I
#   kill_mrc [SIGNAL], start_mrc   the same for the MRC
#   kill_now PID                    SIGKILL straight to a server's process (e.g. $(osd_pid I), $mrc_pid, $dir_pid),
#                                   returning once it is dead, with that time in $killed_ns
#   check_overlap WHAT RESULT KILLED_NS [MIN_MS]   the I/O behind RESULT (last field: when it ended, ns) ended
#                                   more than MIN_MS (default 0) after the kill: fails loudly when it did not
#   mount_volume VOLUME MOUNTPOINT [mount.xtreemfs options...]   mount (and unmount at exit)
#   check DESCRIPTION COMMAND...   run COMMAND, print PASS/FAIL, count (announced in $checks_log before it runs
#                                   and recorded there when it ends)
#   refused_saying TEXT COMMAND... COMMAND fails within 90 s and its output contains TEXT (case-insensitive)
#   errno_is ERRNO PYTHON_CODE ARG...   pass only if the python code raises OSError with that errno
#   system_finish                  print the summary line and exit 1 on any failure, when nothing was checked, when
#                                   a check started but its end did not reach this shell, or when the script's file
#                                   changed while it ran; a script that ends before system_finish fails too
# $pids[] holds processes a script starts itself (e.g. a mount in the foreground); cleanup on exit stops them,
# unmounts every mount it made, stops the cluster and then runs the commands in $cleanups[] (e.g. removing
# network namespaces the script made). A passing run removes its state folder, a failing one
# keeps it (XTREEMFS_E2E_KEEP=1 always keeps it).
set -euo pipefail

system_setup() {
  repository="$(cd "$1" && pwd)"
  cpp_build="$(cd "$2" && pwd)"
  state="$(mktemp -d /tmp/xtreemfs-e2e.XXXXXX)"
  pids=()
  mounts=()
  cleanups=()
  cluster_prefix=()
  failures=0
  passes=0
  finished=0
  # Every check is announced here before it runs and recorded when it ends, in a file rather than only in this
  # shell's variables, so that one whose end this shell never saw (run in a subshell or the background, or a
  # shell that left mid-check) still shows up, and system_finish fails the run (see there).
  checks_log="$state/checks.log"
  : > "$checks_log"
  # Bash reads a script as it runs it (again after every command it forks), so a script edited in place during
  # a run goes on from its old byte offset in the new text: checks are skipped or mixed without an error.
  # The text bash is reading is the file open on fd 255; system_finish compares its digest with this one.
  script_text="$(readlink -f "$0")"
  if [ /proc/$$/fd/255 -ef "$script_text" ]; then script_text="/proc/$$/fd/255"; fi
  script_digest="$(sha256sum < "$script_text")"
  export BUILD_SUFFIX="${BUILD_SUFFIX:-}"
  trap system_cleanup EXIT
  trap 'exit 130' INT TERM  # makes the EXIT trap run on signals too
}

system_cleanup() {
  local status=$?
  local mounted pid
  if [ "$finished" != 1 ] && [ "$status" -eq 0 ]; then
    # An exit 0 before the summary (from a check's command run in this shell, or a script cut short) would
    # otherwise pass with the remaining checks never run.
    echo "system $(basename "$0"): ended with status 0 before system_finish: the checks after that point never ran" >&2
    status=1
  fi
  for mounted in "${mounts[@]}"; do
    if mountpoint -q "$mounted" 2>/dev/null; then fusermount3 -u "$mounted" 2>/dev/null || fusermount3 -uz "$mounted" || true; fi
  done
  for pid in "${pids[@]}"; do kill -CONT "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -f "$state/cluster.properties" ]; then cluster stop >/dev/null || status=1; fi
  local cleanup
  for cleanup in "${cleanups[@]}"; do $cleanup || status=1; done
  if [ "$status" -eq 0 ] && [ "${XTREEMFS_E2E_KEEP:-0}" != 1 ]; then
    rm -rf "$state"
  else
    echo "logs and state kept in $state (server logs in $state/log)"
  fi
  exit "$status"
}

cluster() { "${cluster_prefix[@]}" "$repository/bin/xtreemfs-cluster" "$1" --state "$state" "${@:2}"; }

# Reads ports, names, UUIDs and pids of the running cluster into the shell's variables.
load_cluster() { eval "$(cluster status --shell)"; }

start_cluster() {
  local osd_count="$1"; shift
  local options=(--osds "$osd_count") setting
  for setting in "$@"; do
    case "$setting" in
      -D?*=*) options+=(--osd-setting "${setting#-D}") ;;
      *) echo "start_cluster: OSD settings are -Dkey=value, not '$setting'" >&2; return 2 ;;
    esac
  done
  start_typed_cluster "${options[@]}"
}

start_typed_cluster() {
  cluster start "$@"
  load_cluster
}

# start_mrc: starts the MRC again after kill_mrc (same port and database) and waits until it is registered.
start_mrc() { cluster restart mrc >/dev/null; load_cluster; }

# kill_mrc [SIGNAL]: signals the MRC (default SIGKILL; KILL and TERM wait for it to exit).
kill_mrc() { cluster kill mrc --signal "${1:-KILL}"; }

# start_osd I: starts OSD number I again (same port, UUID and object folder; the previous log is kept as
# log/osdI.log.N) and waits until it is registered at the DIR.
start_osd() { cluster restart "${osd_names[$1]}" >/dev/null; load_cluster; }

# osd_pid I: the process id of OSD number I.
osd_pid() { echo "${osd_pids[$1]}"; }

# kill_osd I [SIGNAL]: signals OSD number I (default SIGKILL; KILL and TERM wait for it to exit).
kill_osd() { cluster kill "${osd_names[$1]}" --signal "${2:-KILL}"; }

# kill_now PID: SIGKILL straight to a server's process, returning once it is gone, with that time in killed_ns
# (the launcher's kill starts a JVM first, which takes seconds under load, so its return says little about
# when the server died, and a kill meant to land during I/O may land after it).
kill_now() {
  local pid="$1"
  kill -KILL "$pid"
  # Dead once gone or a zombie (state Z: its parent, not this shell, reaps it, maybe much later).
  while [ -r "/proc/$pid/stat" ] && ! awk '{ exit ($3 == "Z") ? 0 : 1 }' "/proc/$pid/stat" 2>/dev/null; do
    sleep 0.01
  done
  killed_ns=$(date +%s%N)
}

# check_overlap WHAT RESULT KILLED_NS [MIN_MS]: the I/O behind RESULT (a file whose last field is the
# wall-clock time in ns when its last call returned; the caller checks that it had begun before the kill)
# ended more than MIN_MS after the kill, so the run tested a server's failure during I/O (MIN_MS: that the
# I/O still ran when the server came back). Otherwise the outcome checks could pass without testing anything.
check_overlap() {
  local ended_ns min_ms="${4:-0}"
  ended_ns="$(awk '{print $NF}' "$2" 2>/dev/null || echo 0)"
  case "$ended_ns" in ''|*[!0-9]*) ended_ns=0 ;; esac
  check "the kill overlapped the $1's I/O (its last call returned $(( (ended_ns - $3) / 1000000 )) ms after the kill, more than $min_ms ms needed)" \
    test "$(( (ended_ns - $3) / 1000000 ))" -gt "$min_ms"
}

mount_volume() {
  local volume="$1" mount_point="$2"; shift 2
  mkdir -p "$mount_point"
  mounts+=("$mount_point")
  "$cpp_build/mount.xtreemfs" --log-file "$state/mount-$(basename "$mount_point").log" --log-level info \
    --timeout-ms 3000 --retries 1 "$@" "pbrpc://127.0.0.1:$dir_port/$volume" "$mount_point"
}

# append_lines WHO FILE: 200 lines "WHO line N", each its own open(O_APPEND), write and close as `>>` does. dd
# writes them because it fails on an error of its write or its close; bash ignores the close of a redirection,
# where the error of a buffered write is reported, so such an error would show only as a missing line.
append_lines() {
  local i
  for i in $(seq 1 200); do
    printf '%s line %d\n' "$1" "$i" | dd of="$2" oflag=append conv=notrunc status=none ||
      { echo "appender $1: line $i failed" >&2; return 1; }
  done
}

check() {
  local what="${1//$'\n'/ }"; shift
  printf 'start %s\n' "$what" >> "$checks_log"
  if "$@"; then
    echo "PASS $what"; passes=$((passes + 1)); printf 'PASS %s\n' "$what" >> "$checks_log"
  else
    echo "FAIL $what"; failures=$((failures + 1)); printf 'FAIL %s\n' "$what" >> "$checks_log"
  fi
}

refused_saying() {
  local text="$1" output; shift
  if output="$(timeout 90 "$@" 2>&1)"; then echo "succeeded, expected a refusal: $*" >&2; return 1; fi
  grep -qi -- "$text" <<<"$output" || { echo "refused without saying '$text': $output" >&2; return 1; }
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

# The run fails, saying why, unless every check that started ended and was counted by this shell (a check
# run in a subshell or the background counts only in its own copy of the variables; started and ended are
# read from $checks_log), the script bash read did not change meanwhile, at least one check ran and none failed.
system_finish() {
  local name started ended counted=$((passes + failures)) verdict=0
  name="$(basename "$0")"
  finished=1
  started="$(grep -c '^start ' "$checks_log" || true)"
  ended="$(grep -c -E '^(PASS|FAIL) ' "$checks_log" || true)"
  echo "system $name: $passes passed, $failures failed ($started started)"
  if [ "$failures" -ne 0 ]; then verdict=1; fi
  if [ "$started" -ne "$counted" ] || [ "$ended" -ne "$counted" ]; then
    echo "system $name: $started checks started and $ended ended, but this shell counted $counted:" \
      "a check ran where its result does not reach the summary (a subshell, the background) or never ended" >&2
    awk '$1 == "start" { sub(/^start /, ""); open[$0]++; next }
         { sub(/^(PASS|FAIL) /, ""); open[$0]-- }
         END { for (what in open) if (open[what] > 0) print "  started, never ended: " what }' "$checks_log" >&2
    verdict=1
  fi
  if [ "$(sha256sum < "$script_text")" != "$script_digest" ]; then
    echo "system $name: the script's file changed while it ran; bash went on reading the new text from its old" \
      "position, so checks may have been skipped or mixed: run it again" >&2
    verdict=1
  fi
  if [ "$counted" -eq 0 ]; then echo "system $name: no check ran" >&2; verdict=1; fi
  exit "$verdict"
}
