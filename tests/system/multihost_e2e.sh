#!/usr/bin/env bash
# Several hosts on one machine: the DIR, the MRC, three OSDs and two clients each get a network namespace of their
# own, with one veth link each to a bridge in a further namespace (10.77.0.0/24, made here; nothing is connected to
# this machine's own network, and no host has a route beyond the subnet). The launcher (xtreemfs-cluster --netns)
# starts each server in its host's namespace bound to 0.0.0.0, so what it registers at the DIR is its host's
# address as foundation.rpc.AdvertisedAddress finds it (checked on the DIR's status page, read from client host c2).
# A mount on host c1 and the Java client (xtfscp) on host c2 write and read each other's files (sha256 compared).
# Then OSD osd1's link is cut (ip link set down on its bridge port) for CUT_SECONDS during I/O through the mount and
# restored: with the mount's retry window (RETRY_WINDOW_MS, attempts of TIMEOUT_MS) longer than the cut, the I/O ends
# without an application error and reads back identical from c2. Cut for longer than a Java client's window, a read
# fails with an error within the window plus one attempt (bounded, not a hang).
# Needs ip (iproute2) and nsenter (util-linux), and root: without network namespaces it fails, it does not skip.
#
#   tests/system/multihost_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"

readonly CUT_SECONDS=6
readonly RETRY_WINDOW_MS=30000   # the mount's --retry-window-ms: every cut shorter than this is a pause
readonly TIMEOUT_MS=2000         # the mount's --timeout-ms per attempt
readonly SHORT_WINDOW_MS=3000    # the Java client's window in the too-long-cut check
readonly SUBNET=10.77.0

tag="xtmh$$"                     # namespace names unique to this run
switch="$tag-switch"             # the namespace holding the bridge every host's link plugs into
hosts=(dir mrc osd0 osd1 osd2 c1 c2)
declare -A address=([dir]=$SUBNET.1 [mrc]=$SUBNET.2 [osd0]=$SUBNET.10 [osd1]=$SUBNET.11 [osd2]=$SUBNET.12
  [c1]=$SUBNET.21 [c2]=$SUBNET.22)
made_namespaces=()

on_host() { local host="$1"; shift; nsenter --net="/run/netns/$tag-$host" "$@"; }

# Cleanup (after lib.sh unmounted and stopped the cluster): a process still in one of the namespaces 10 s later
# (an unmounted mount's daemon takes a moment to end) is one this script started and failed to stop; it is named,
# fails the run and is killed; then the namespaces go.
remove_hosts() {
  local namespace pid leaked=0 deadline=$((SECONDS + 10)) remaining
  while [ "$SECONDS" -lt "$deadline" ]; do
    remaining=0
    for namespace in "${made_namespaces[@]}"; do
      [ -z "$(ip netns pids "$namespace" 2>/dev/null)" ] || remaining=1
    done
    [ "$remaining" = 1 ] || break
    sleep 0.2
  done
  for namespace in "${made_namespaces[@]}"; do
    for pid in $(ip netns pids "$namespace" 2>/dev/null); do
      echo "multihost: process $pid ($(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-120)) still in $namespace" >&2
      kill -KILL "$pid" 2>/dev/null || true
      leaked=1
    done
  done
  for namespace in "${made_namespaces[@]}"; do ip netns del "$namespace" || leaked=1; done
  return "$leaked"
}
cleanups+=(remove_hosts)

make_hosts() {
  local host namespace
  command -v ip >/dev/null && command -v nsenter >/dev/null || {
    echo "ip (iproute2) and nsenter (util-linux) are needed: bin/install-deps" >&2; return 1; }
  ip netns add "$switch" && made_namespaces+=("$switch") || return 1
  ip -n "$switch" link add switch type bridge && ip -n "$switch" link set switch up || return 1
  for host in "${hosts[@]}"; do
    namespace="$tag-$host"
    ip netns add "$namespace" && made_namespaces+=("$namespace") || return 1
    ip -n "$namespace" link set lo up || return 1
    # The host's eth0 and its port on the bridge (named after the host) are made in their namespaces directly.
    ip link add eth0 netns "$namespace" type veth peer name "$host" netns "$switch" || return 1
    ip -n "$namespace" addr add "${address[$host]}/24" dev eth0 && ip -n "$namespace" link set eth0 up || return 1
    ip -n "$switch" link set "$host" master switch up || return 1
  done
}
check "seven hosts (network namespaces) linked by a bridge of their own" make_hosts
if [ "$failures" -ne 0 ]; then echo "multihost: no network namespaces, so nothing could be tested" >&2; system_finish; fi
check "a host has no route beyond the test's subnet (nothing reaches the outside)" bash -c "
  ! nsenter --net=/run/netns/$tag-c1 ip route get 1.1.1.1 >/dev/null 2>&1 &&
  [ \"\$(nsenter --net=/run/netns/$tag-c1 ip -4 route | grep -vc '^$SUBNET.0/24 ')\" = 0 ]"

# The launcher runs on client host c2, where it reaches every server's address.
cluster_prefix=(nsenter --net="/run/netns/$tag-c2")
placement=()
for host in dir mrc osd0 osd1 osd2; do placement+=(--netns "$host=$tag-$host@${address[$host]}"); done
# --status-ports: the DIR binds a free status port in its namespace and announces it ($dir_status_port).
start_typed_cluster --osds 3 "${placement[@]}" --status-ports

in_namespace() {  # in_namespace PID HOST: the process is in HOST's network namespace
  [ "$(stat -L -c %i "/proc/$1/ns/net")" = "$(stat -L -c %i "/run/netns/$tag-$2")" ]
}
export -f in_namespace
export tag
check "every server runs in its own host's network namespace" bash -c "
  in_namespace $dir_pid dir && in_namespace $mrc_pid mrc && in_namespace ${osd_pids[0]} osd0 &&
  in_namespace ${osd_pids[1]} osd1 && in_namespace ${osd_pids[2]} osd2"

# What the DIR lists for each service, as another host sees it: every address of the MRC and of each OSD must be
# its own host's address (not 127.0.0.1 or another host's).
registered_py='
import json, sys
status = json.load(sys.stdin)
expected = dict(pair.split("=") for pair in sys.argv[1:])
seen = {service["uuid"]: service["addresses"] for service in status["services"]}
bad = []
for uuid, host in expected.items():
    addresses = seen.get(uuid, [])
    if not addresses or any(not address.startswith("pbrpc://" + host + ":") for address in addresses):
        bad.append("%s registered %s, expected %s" % (uuid, addresses, host))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)'
check "the MRC and the OSDs, bound to 0.0.0.0, registered their hosts' addresses (the DIR's status page from c2)" \
  bash -c "nsenter --net=/run/netns/$tag-c2 curl -sf --max-time 10 http://${address[dir]}:$dir_status_port/status.json |
  /usr/bin/python3 -c '$registered_py' $mrc_uuid=${address[mrc]} ${osd_uuids[0]}=${address[osd0]} \
    ${osd_uuids[1]}=${address[osd1]} ${osd_uuids[2]}=${address[osd2]}"

dir_url="${address[dir]}:$dir_port"
volume_url="pbrpc://$dir_url/shared"
xtfscp_c2() { on_host c2 "$repository/bin/xtfscp" "$@"; }
same_content() { [ "$(sha256sum < "$1")" = "$(sha256sum < "$2")" ]; }
export -f on_host xtfscp_c2 same_content
export repository
check "mkfs.xtreemfs on host c2 creates a volume striped over the three OSD hosts" \
  on_host c2 "$repository/bin/mkfs.xtreemfs" -w 3 -s 128KiB "$dir_url/shared"

m="$state/mnt/shared"
mkdir -p "$m"
mounts+=("$m")
# The mount's daemon lives on host c1 (nsenter --net only: the mount itself is in this machine's mount table).
check "the volume mounts on host c1 (retry window ${RETRY_WINDOW_MS} ms, ${TIMEOUT_MS} ms per attempt)" \
  on_host c1 "$cpp_build/mount.xtreemfs" --log-file "$state/mount-c1.log" --log-level info \
  --timeout-ms "$TIMEOUT_MS" --retry-window-ms "$RETRY_WINDOW_MS" "$volume_url" "$m"

head -c $((20 * 1048576 + 4321)) /dev/urandom > "$state/from-c1.bin"
check "20 MiB written through the mount on host c1" \
  dd if="$state/from-c1.bin" of="$m/from-c1.bin" bs=1M conv=fsync status=none
check "the Java client on host c2 reads the mount's file back identical (sha256)" bash -c "
  xtfscp_c2 get '$volume_url/from-c1.bin' '$state/from-c1.c2' && same_content '$state/from-c1.bin' '$state/from-c1.c2'"
head -c $((13 * 1048576 + 77)) /dev/urandom > "$state/from-c2.bin"
check "the Java client on host c2 writes a file" xtfscp_c2 put "$state/from-c2.bin" "$volume_url/from-c2.bin"
check "the mount on host c1 reads it back identical (sha256)" same_content "$state/from-c2.bin" "$m/from-c2.bin"

# I/O through the mount while osd1's link is down: a verified sequential writer (fio, 16 MiB at 2 MiB/s, O_DIRECT)
# and a reader of from-c1.bin (random 128 KiB O_DIRECT reads, 20 a second, 14 s): a third of each job's blocks
# are osd1's, so both must wait for it (their largest latency shows it) and neither may see an error.
fio --output-format=json --output="$state/fio-cut.json" \
  --name=writer --filename="$m/during-cut.bin" --rw=write --bs=128k --size=16m --rate=2m --direct=1 \
  --ioengine=psync --verify=crc32c --do_verify=1 --verify_state_save=0 \
  --name=reader --filename="$m/from-c1.bin" --rw=randread --bs=128k --size=20m --direct=1 --ioengine=psync \
  --rate_iops=20 --time_based --runtime=14 > "$state/fio-cut.out" 2>&1 &
fio_pid=$!
pids+=("$fio_pid")
sleep 2
check "the I/O runs when osd1's link is cut" kill -0 "$fio_pid"
ip -n "$switch" link set osd1 down
sleep "$CUT_SECONDS"
check "the I/O still runs when the link is restored after ${CUT_SECONDS} s" kill -0 "$fio_pid"
ip -n "$switch" link set osd1 up
fio_status=0
wait "$fio_pid" || fio_status=$?
check "the writer and the reader end without an error, every written block verified (fio exit 0)" \
  bash -c "[ $fio_status = 0 ] || { cat '$state/fio-cut.out' >&2; false; }"
waited_py='
import json, sys
jobs = {job["jobname"]: job for job in json.load(open(sys.argv[1]))["jobs"]}
waits = {name: max(jobs[name]["write"]["clat_ns"]["max"], jobs[name]["read"]["clat_ns"]["max"]) / 1e9
         for name in ("writer", "reader")}
print("largest latency during the cut: " + ", ".join("%s %.1f s" % item for item in sorted(waits.items())))
sys.exit(0 if all(wait >= float(sys.argv[2]) for wait in waits.values()) else 1)'
check "both jobs waited out the cut (a call took >= 2 s in each: the cut was felt, then retried)" \
  /usr/bin/python3 -c "$waited_py" "$state/fio-cut.json" 2
check "host c2 reads the file written during the cut identical to what the mount reads" bash -c "
  xtfscp_c2 get '$volume_url/during-cut.bin' '$state/during-cut.c2' && same_content '$m/during-cut.bin' '$state/during-cut.c2'"

# A cut longer than the client's window: the Java client on c2 gives up with an error, within its window plus one
# attempt (and the JVM's start), instead of hanging.
ip -n "$switch" link set osd1 down
started_ns=$(date +%s%N)
copy_status=0
copy_output="$(xtfscp_c2 get --timeout-ms "$TIMEOUT_MS" --retry-window-ms "$SHORT_WINDOW_MS" \
  "$volume_url/from-c1.bin" "$state/from-c1.cut" 2>&1)" || copy_status=$?
elapsed_ms=$(( ($(date +%s%N) - started_ns) / 1000000 ))
ip -n "$switch" link set osd1 up
echo "multihost: xtfscp get with osd1 cut off: exit $copy_status after $elapsed_ms ms: $(tail -n 1 <<<"$copy_output")"
check "a read of osd1's objects fails while osd1 is cut off for longer than the window" test "$copy_status" -ne 0
check "it failed no sooner than the window minus one attempt (it retried) and within 30 s" \
  test "$elapsed_ms" -ge $((SHORT_WINDOW_MS - TIMEOUT_MS)) -a "$elapsed_ms" -lt 30000
check "its error names osd1's address" grep -q "${address[osd1]}" <<<"$copy_output"

system_finish
