#!/usr/bin/env bash
# Replicated volumes through the FUSE mount (issue 12): a volume made with mkfs.xtreemfs --replicas 3 on
# three OSDs; data written through the mount (dd, fio --verify, O_DIRECT at queue depth 32) reads back
# identical through the mount and through the Java client, xtfsutil shows the chain, truncate and rm work,
# and too many replicas for the OSDs or a count past the bound are refused naming the numbers.
#
#   tests/system/replication_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
start_typed_cluster --osds 3 --status-ports
mount_point="$state/mnt"
volume_url="pbrpc://127.0.0.1:$dir_port/chain"

check "mkfs.xtreemfs --replicas 3 creates the volume and says so" bash -c "
  '$repository/bin/mkfs.xtreemfs' --replicas 3 '127.0.0.1:$dir_port/chain' | grep -q 'chain of 3 replicas (writes enter at the head), read routing pattern'"
check "lsfs.xtreemfs lists 3 replicas per file" bash -c "
  '$repository/bin/lsfs.xtreemfs' '127.0.0.1:$dir_port' | grep -E '^chain ' | grep -qE ' 3 +pattern +none'"
check "mkfs.xtreemfs --replicas 4 with 3 OSDs is refused naming 4 replicas, 4 OSDs and 3 OSDs" bash -c "
  ! '$repository/bin/mkfs.xtreemfs' --replicas 4 '127.0.0.1:$dir_port/four' > '$state/four.out' 2>&1 &&
  grep -q \"4 replicas of striping width 1 need 4 distinct OSDs but there are only the 3 OSD(s)\" '$state/four.out'"
check "mkfs.xtreemfs --replicas 9 is refused naming 9" bash -c "
  ! '$repository/bin/mkfs.xtreemfs' --replicas 9 '127.0.0.1:$dir_port/nine' > '$state/nine.out' 2>&1 &&
  grep -q \"replicas: '9' is not a valid replica count\" '$state/nine.out'"
mount_volume chain "$mount_point"

echo "== data through the chain"
big_bytes=$((16 * 1048576 + 4321))
head -c "$big_bytes" /dev/urandom > "$state/big.bin"
check "16 MiB written with dd bs=1M through the mount" \
  dd if="$state/big.bin" of="$mount_point/big.bin" bs=1M conv=fsync status=none
check "it reads back identical through the mount (cmp)" cmp "$state/big.bin" "$mount_point/big.bin"
# Reads each OSD served from its own copy (status.json storageReadsServed) so far: those of the cmp above.
declare -A mount_reads
for index in "${!osd_names[@]}"; do
  port="$(grep "^server.${osd_names[$index]}.setting.osd.status.port=" "$state/cluster.properties" | cut -d= -f2)"
  mount_reads[${osd_uuids[$index]}]="$(curl -sS "http://127.0.0.1:$port/status.json" |
    grep -o '"storageReadsServed":[0-9]*' | cut -d: -f2 || true)"
done
check "it reads back identical through the Java client (xtfscp get)" bash -c "
  '$repository/bin/xtfscp' get '$volume_url/big.bin' '$state/big.back' && cmp '$state/big.bin' '$state/big.back'"
check "xtfsutil shows the file's chain: head, middle and tail on three OSDs" bash -c "
  '$repository/bin/xtfsutil' '$volume_url/big.bin' > '$state/xtfsutil.out' &&
  grep -q '3 replica(s)' '$state/xtfsutil.out' && grep -q 'replica 1 (head)' '$state/xtfsutil.out' &&
  grep -q 'replica 2 (middle)' '$state/xtfsutil.out' && grep -q 'replica 3 (tail)' '$state/xtfsutil.out' &&
  grep -q 'replication: *chain of 3 replicas' '$state/xtfsutil.out' &&
  test \"\$(grep -o 'position 0: OSD [^ ]*' '$state/xtfsutil.out' | sort -u | wc -l)\" = 3"

middle_uuid="$(grep -A1 'replica 2 (middle)' "$state/xtfsutil.out" | grep -o 'position 0: OSD [^ ]*' | cut -d' ' -f4 || true)"
tail_uuid="$(grep -A1 'replica 3 (tail)' "$state/xtfsutil.out" | grep -o 'position 0: OSD [^ ]*' | cut -d' ' -f4 || true)"
echo "reads served from their own copy by the sequential cmp through the mount: middle ${mount_reads[${middle_uuid:-none}]:-none}, tail ${mount_reads[${tail_uuid:-none}]:-none}"
check "pattern routing in the C++ client: the mount's sequential reads (cmp) went to the middle, not the tail" \
  test "${mount_reads[${middle_uuid:-none}]:-0}" -ge 32 -a "${mount_reads[${middle_uuid:-none}]:-0}" -gt "${mount_reads[${tail_uuid:-none}]:-0}"

fio_verify=(--verify_state_save=0 --verify=crc32c --do_verify=1 --verify_fatal=1 --directory="$mount_point")
check "fio sequential 1 MiB writes verify" fio --name=seq --rw=write --bs=1M --size=16M --ioengine=psync \
  "${fio_verify[@]}" --output="$state/fio-seq.out"
check "fio random 4 KiB writes verify" fio --name=rand --rw=randwrite --bs=4k --size=2M --ioengine=psync \
  "${fio_verify[@]}" --output="$state/fio-rand.out"
check "fio random 4 KiB writes, libaio iodepth 32, O_DIRECT, verify" fio --name=depth --rw=randwrite \
  --bs=4k --size=2M --ioengine=libaio --iodepth=32 --direct=1 "${fio_verify[@]}" --output="$state/fio-depth.out"

echo "== truncate and delete"
check "truncate to 1 MiB + 3 keeps the prefix" bash -c "
  truncate -s $((1048576 + 3)) '$mount_point/big.bin' &&
  test \"\$(stat -c %s '$mount_point/big.bin')\" = $((1048576 + 3)) &&
  cmp -n $((1048576 + 3)) '$state/big.bin' '$mount_point/big.bin'"
check "after truncate the Java client reads the same $((1048576 + 3)) bytes (routed reads, any replica)" bash -c "
  '$repository/bin/xtfscp' get '$volume_url/big.bin' '$state/cut.back' &&
  test \"\$(stat -c %s '$state/cut.back')\" = $((1048576 + 3)) && cmp -n $((1048576 + 3)) '$state/big.bin' '$state/cut.back'"
check "rm removes the replicated file" bash -c "rm '$mount_point/big.bin' && ! test -e '$mount_point/big.bin'"

system_finish
