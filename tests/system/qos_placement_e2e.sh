#!/usr/bin/env bash
# Placement of files by a volume's reservation, seen through FUSE mounts (issue 8): with typed OSDs, every
# file written through the mount of a reserved volume has its objects only on the OSDs its volume was
# placed on (`xtfsutil VOLUME-URL` prints the placement, `xtfsutil PATH` a file's OSDs), and those are OSDs
# of the reservation's type; an unreserved volume's files are only on best-effort OSDs.
#
#   tests/system/qos_placement_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
# Two OSDs of each type, so a placement is a real choice; names say the type (the UUID starts with the name).
start_typed_cluster \
  --osd name=seq0,usage=sequential,device=hdd --osd name=seq1,usage=sequential,device=hdd \
  --osd name=rand0,usage=random,device=ssd --osd name=rand1,usage=random,device=ssd \
  --osd name=be0,usage=best_effort,device=hdd --osd name=be1,usage=best_effort,device=hdd
dir="127.0.0.1:$dir_port"
files=6

# placement_uuids URL: the OSD UUIDs under "placement:" in xtfsutil's answer for a volume.
placement_uuids() {
  "$repository/bin/xtfsutil" "$1" | awk '/^placement:/ {p = 1; next} p && /stripe position/ {print $5}' | sort -u
}
# file_uuids PATH: the OSD UUIDs of the file's XLoc (the lines before its reservation and placement).
file_uuids() {
  "$repository/bin/xtfsutil" "$1" | awk '/^(reservation|placement):/ {exit} /stripe position/ {print $5}' | sort -u
}

# check_volume VOLUME UUID_PREFIX_PATTERN: writes $files files through the mount and checks each one's OSDs.
check_volume() {
  local volume="$1" pattern="$2" mount_point="$state/mnt-$1" placed i osds outside
  mount_volume "$volume" "$mount_point"
  placed="$(placement_uuids "$dir/$volume")"
  echo "$volume placed on: $(echo $placed)"
  if [ "$pattern" != best_effort ]; then
    check "$volume: the volume has a placement" test -n "$placed"
    check "$volume: its placement holds only OSDs of its type ($(echo $placed))" \
      bash -c "! grep -vE '^$pattern' <<< '$placed'"
  fi
  for ((i = 0; i < files; i++)); do
    head -c $((300000 + i * 70000)) /dev/urandom > "$state/$volume-$i.bin"
    cp "$state/$volume-$i.bin" "$mount_point/f$i"
  done
  sync
  for ((i = 0; i < files; i++)); do
    osds="$(file_uuids "$mount_point/f$i")"
    check "$volume: f$i reads back identical" cmp "$state/$volume-$i.bin" "$mount_point/f$i"
    check "$volume: f$i has OSDs ($(echo $osds))" test -n "$osds"
    if [ "$pattern" = best_effort ]; then
      outside="$(grep -vE '^be[01]-' <<< "$osds" || true)"
      check "$volume: f$i is only on best-effort OSDs (not on: $(echo $outside))" test -z "$outside"
    else
      outside="$(comm -23 <(echo "$osds") <(echo "$placed"))"
      check "$volume: f$i is only on the volume's placed OSDs (outside: $(echo $outside))" test -z "$outside"
    fi
  done
}

"$repository/bin/mkfs.xtreemfs" --qos sequential --throughput 5MiB/s --capacity 1GiB "$dir/streams"
"$repository/bin/mkfs.xtreemfs" --qos random --iops 50 --capacity 1GiB "$dir/lookups"
"$repository/bin/mkfs.xtreemfs" -w 2 "$dir/plain"
check_volume streams 'seq[01]-'
check_volume lookups 'rand[01]-'
check_volume plain best_effort
system_finish
