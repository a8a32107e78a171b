#!/usr/bin/env bash
# What one metadata operation through mount.xtreemfs costs in requests and hand-offs (issue 10): a private cluster
# (bin/xtreemfs-cluster, one OSD, status pages), a width-1 volume and a mount; metadata_ops creates and stats FILES
# files in one directory, waits PAUSE_S (the kernel's entries and the mount's cache expire, as between the phases of
# make bench), then runs OPERATION (unlink or stat) on them while counting:
#   - the MRC's calls by procedure and its store accesses (its status page, before and after);
#   - the mount's system calls (reads of /dev/fuse = kernel requests incl. FORGET, writev = replies, sendmsg = RPCs
#     sent, futex), and the context switches and CPU of mount, MRC and OSD (perf stat);
#   - with --trace N: a second mount with libfuse's -d runs OPERATION on N more files and prints the kernel's
#     requests by opcode, and the sequence of the last one.
# Needs root (perf), cc, fusermount3, curl. Stops its cluster and unmounts on exit.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: metadata_calls.sh [--files N] [--pause-s S] [--trace N] [--mount PATH] [--state DIR] [OPERATION]

  OPERATION      unlink (default) or stat: the loop that is counted
  --files N      files created in the directory and then counted (default 1000)
  --pause-s S    wait between the stat phase and the counted loop (default 3)
  --trace N      also print the kernel's FUSE requests by opcode for N files (mount -d; default 0: none)
  --mount PATH   mount.xtreemfs to use (default cpp/build/mount.xtreemfs of this repository)
  --state DIR    where cluster, mount point and logs go (default a fresh mktemp -d; kept at the end)

Per operation it prints the MRC's calls by procedure, its store gets, batches and iterators, and the mount's reads of
/dev/fuse, replies, RPC sends, futex calls, context switches and CPU, and the MRC's and OSD's context switches and CPU.
CPU and context switches include each process's idle background (heartbeats); compare at the same load.
EOF
}

repo=$(cd "$(dirname "$(readlink -f "$0")")/../../.." && pwd)
files=1000; pause_s=3; trace=0; mount_bin="$repo/cpp/build/mount.xtreemfs"; state=""; operation=unlink
while [ $# -gt 0 ]; do
  case "$1" in
    --files) files=$2; shift 2 ;;
    --pause-s) pause_s=$2; shift 2 ;;
    --trace) trace=$2; shift 2 ;;
    --mount) mount_bin=$2; shift 2 ;;
    --state) state=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    unlink|stat) operation=$1; shift ;;
    *) echo "metadata_calls.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$files$trace" in *[!0-9]*) echo "metadata_calls.sh: --files and --trace take whole numbers" >&2; exit 2 ;; esac
[ "$files" -gt 0 ] || { echo "metadata_calls.sh: --files must be at least 1, not $files" >&2; exit 2; }
[ -x "$mount_bin" ] || { echo "metadata_calls.sh: no mount.xtreemfs at $mount_bin (make build)" >&2; exit 2; }
state=${state:-$(mktemp -d /tmp/xtreemfs-metadata-calls.XXXXXX)}
mkdir -p "$state"
echo "state: $state" >&2

cluster() { "$repo/bin/xtreemfs-cluster" "$@" --state "$state/cluster"; }
mounts=()
cleanup() {
  for mnt in "${mounts[@]}"; do fusermount3 -u "$mnt" 2>/dev/null || true; done
  sleep 1
  cluster stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

cluster start --osds 1 --status-ports >/dev/null
shell=$(cluster status --shell)
dir_port=$(sed -n 's/^dir_port=//p' <<<"$shell")
mrc_pid=$(sed -n 's/^mrc_pid=//p' <<<"$shell")
osd_pid=$(sed -n 's/^osd_pids=(\([0-9]*\).*/\1/p' <<<"$shell")
status_port=$(sed -n 's/^mrc_status_port=//p' <<<"$shell")
url=pbrpc://127.0.0.1:$dir_port/calls
"$repo/bin/mkfs.xtreemfs" --striping-width 1 "$url" >/dev/null

metadata_ops="$state/metadata_ops"
cc -O2 -o "$metadata_ops" "$repo/tests/bench/fuse/metadata_ops.c"

# Mounts the volume at $state/$1 (extra mount arguments after it); sets mount_pid.
start_mount() {
  local mnt="$state/$1"; shift
  mkdir -p "$mnt"
  "$mount_bin" -f "$@" --log-file "$state/$(basename "$mnt").log" "$url" "$mnt" </dev/null \
    >"$state/$(basename "$mnt").stderr" 2>&1 &
  mount_pid=$!
  mounts+=("$mnt")
  for _ in $(seq 300); do mountpoint -q "$mnt" && return 0; sleep 0.1; done
  echo "metadata_calls.sh: $mnt did not mount (see $state/$(basename "$mnt").stderr)" >&2
  exit 1
}

mrc_counts() {
  curl -s "http://127.0.0.1:$status_port/" | grep -o -E 'MRC_[A-Z_]+=\{[^}]*\}|store(Gets|Batches|Iterators): [0-9]+' \
    | sed -E 's/=\{errors=([0-9]+), calls=([0-9]+)\}/ \2/; s/=\{calls=([0-9]+), errors=([0-9]+)\}/ \1/; s/: / /'
}

start_mount mnt
mnt="$state/mnt"
# Warm-up: the JVMs compile the path before it is counted.
mkdir "$mnt/warm-up"
for phase in create stat unlink; do "$metadata_ops" "$phase" "$mnt/warm-up" "$files" >/dev/null; done
rmdir "$mnt/warm-up"
mkdir "$mnt/d"
"$metadata_ops" create "$mnt/d" "$files" >/dev/null
"$metadata_ops" stat "$mnt/d" "$files" >/dev/null
sleep "$pause_s"

mrc_counts >"$state/mrc.before"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
perf stat -x, -e context-switches,task-clock,syscalls:sys_enter_read,syscalls:sys_enter_writev,syscalls:sys_enter_sendmsg,syscalls:sys_enter_futex \
  -p "$mount_pid" -o "$state/mount.perfstat" &
perf_mount=$!
perf stat -x, -e context-switches,task-clock -p "$mrc_pid" -o "$state/mrc.perfstat" &
perf_mrc=$!
perf stat -x, -e context-switches,task-clock -p "$osd_pid" -o "$state/osd.perfstat" &
perf_osd=$!
sleep 0.5  # perf attached
"$metadata_ops" "$operation" "$mnt/d" "$files"
kill -INT "$perf_mount" "$perf_mrc" "$perf_osd"
wait "$perf_mount" "$perf_mrc" "$perf_osd" || true
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
mrc_counts >"$state/mrc.after"

echo "per $operation (of $files):"
join -a2 -e 0 -o 0,1.2,2.2 <(sort "$state/mrc.before") <(sort "$state/mrc.after") \
  | awk -v n="$files" '$3 != $2 { printf "  mrc %-20s %8.3f\n", $1, ($3 - $2) / n }'
for process in mount mrc osd; do
  awk -F, -v n="$files" -v p="$process" '/^[0-9.]/ {
      name = $3; sub(/^syscalls:sys_enter_/, "", name)
      if (name == "task-clock") printf "  %-5s cpu-us              %8.1f\n", p, $1 * 1000 / n
      else printf "  %-5s %-20s %8.3f\n", p, name, $1 / n }' "$state/$process.perfstat"
done
if [ "$operation" = unlink ]; then rmdir "$mnt/d"; fi

if [ "$trace" -gt 0 ]; then
  start_mount traced -d
  traced="$state/traced"
  mkdir "$traced/t"
  "$metadata_ops" create "$traced/t" "$trace" >/dev/null
  "$metadata_ops" stat "$traced/t" "$trace" >/dev/null
  sleep "$pause_s"
  mark=$(wc -l <"$state/traced.stderr")
  "$metadata_ops" "$operation" "$traced/t" "$trace" >/dev/null
  sleep 0.5
  echo "kernel requests for $trace x $operation (mount -d):"
  tail -n +"$((mark + 1))" "$state/traced.stderr" | grep -o -E 'opcode: [A-Z_]+' | sort | uniq -c | sed 's/^/  /'
  echo "the last one:"
  tail -n +"$((mark + 1))" "$state/traced.stderr" | grep -E 'opcode: ' | tail -n 5 | sed 's/^/  /'
  if [ "$operation" = unlink ]; then rmdir "$traced/t"; fi
fi
