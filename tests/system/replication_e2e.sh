#!/usr/bin/env bash
# Replicated volumes through the FUSE mount (issue 12): a volume made with mkfs.xtreemfs --replicas 3 on
# three OSDs; data written through the mount (dd, fio --verify, O_DIRECT at queue depth 32 and 8) reads back
# identical through the mount and through the Java client, xtfsutil shows the chain, truncate and rm work,
# and too many replicas for the OSDs or a count past the bound are refused naming the numbers. Then kill -9 of
# a file's tail during an fio write through the mount: the MRC re-forms the chain once the DIR shows the OSD
# dead (3 s without a heartbeat here), fio finishes and verifies every byte, the file has XLoc version 2 with
# two replicas, and it still reads back identical after the killed OSD came back.
#
#   tests/system/replication_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
# Short heartbeats and DIR timeout, so a killed chain member is declared dead (and removed) within seconds.
start_typed_cluster --osds 3 --status-ports --osd-setting osd.heartbeat.periodMs=300 --mrc-setting mrc.heartbeat.periodMs=300 \
  --dir-setting dir.heartbeat.timeoutMs=3000
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
  mount_reads[${osd_uuids[$index]}]="$(curl -sS "http://127.0.0.1:${osd_status_ports[$index]}/status.json" |
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
# 1 MiB requests span 8 objects of 128 KiB: the mount answers them from its io thread, one call per object.
check "fio sequential 1 MiB writes, libaio iodepth 8, O_DIRECT, verify" fio --name=direct --rw=write \
  --bs=1M --size=16M --ioengine=libaio --iodepth=8 --direct=1 "${fio_verify[@]}" --output="$state/fio-direct.out"

echo "== truncate and delete"
check "truncate to 1 MiB + 3 keeps the prefix" bash -c "
  truncate -s $((1048576 + 3)) '$mount_point/big.bin' &&
  test \"\$(stat -c %s '$mount_point/big.bin')\" = $((1048576 + 3)) &&
  cmp -n $((1048576 + 3)) '$state/big.bin' '$mount_point/big.bin'"
check "after truncate the Java client reads the same $((1048576 + 3)) bytes (routed reads, any replica)" bash -c "
  '$repository/bin/xtfscp' get '$volume_url/big.bin' '$state/cut.back' &&
  test \"\$(stat -c %s '$state/cut.back')\" = $((1048576 + 3)) && cmp -n $((1048576 + 3)) '$state/big.bin' '$state/cut.back'"
check "rm removes the replicated file" bash -c "rm '$mount_point/big.bin' && ! test -e '$mount_point/big.bin'"

echo "== kill -9 of the tail during writes: the chain is re-formed and writing goes on"
# The file is made first, at its full size (fio would unlink a smaller one and create another file), and its
# tail looked up (xtfsutil starts a JVM: seconds under load); then fio writes 24 MiB into it at 4 MiB/s
# (about 6 s) and the tail is killed straight by its pid 1.5 s after fio's first bytes, so the kill lands in
# the middle; fio then reads all of it back verified. check_overlap fails the run loudly if fio had ended
# before the kill (then nothing here would test a kill during writes).
killed_file="$mount_point/killed.0.0"
truncate -s 24M "$killed_file"
"$repository/bin/xtfsutil" "$volume_url/killed.0.0" > "$state/killed-before.out"
tail_uuid=$(grep -A1 'replica 3 (tail)' "$state/killed-before.out" | grep -o 'OSD [^ ]*' | cut -d' ' -f2)
tail_index=-1
for index in "${!osd_uuids[@]}"; do
  if [ "${osd_uuids[$index]}" = "$tail_uuid" ]; then tail_index=$index; fi
done
check "the file's tail ($tail_uuid) is one of the three OSDs" test "$tail_index" -ge 0
( rc=0; fio --name=killed --rw=write --bs=64k --size=24M --rate=4m --ioengine=psync --fsync_on_close=1 \
    "${fio_verify[@]}" --output="$state/fio-killed.out" || rc=$?
  echo "$rc $(date +%s%N)" > "$state/fio-killed.rc" ) &
fio_pid=$!
# fio's first bytes: the file's first 64 KiB are no longer zeros (truncate made it sparse).
fio_began() { ! cmp -s -n 65536 "$killed_file" /dev/zero; }
for _ in $(seq 1 200); do fio_began && break; sleep 0.05; done
check "fio's first bytes reached the file before the kill" fio_began
sleep 1.5
kill_now "$(osd_pid "$tail_index")"
wait "$fio_pid" || true
check "fio goes on after the kill and verifies every byte it wrote" test "$(cut -d' ' -f1 "$state/fio-killed.rc")" = 0
check_overlap "fio job" "$state/fio-killed.rc" "$killed_ns"
echo "fio finished $(( ($(date +%s%N) - killed_ns) / 1000000 )) ms after the kill (load $(cut -d' ' -f1-3 /proc/loadavg))"
check "xtfsutil shows XLoc version 2 with 2 replicas, without the killed OSD" bash -c "
  '$repository/bin/xtfsutil' '$volume_url/killed.0.0' > '$state/killed-after.out' &&
  grep -q 'version 2, 2 replica(s)' '$state/killed-after.out' && ! grep -q 'OSD $tail_uuid at' '$state/killed-after.out' ||
  { cat '$state/killed-after.out' >&2; false; }"
cp "$killed_file" "$state/killed.copy"
start_osd "$tail_index"
check "with the killed OSD back, the file reads back unchanged through the mount and the Java client" bash -c "
  cmp '$state/killed.copy' '$killed_file' &&
  '$repository/bin/xtfscp' get '$volume_url/killed.0.0' '$state/killed.back' && cmp '$state/killed.copy' '$state/killed.back'"

system_finish
