#!/usr/bin/env bash
# Sequential throughput through a FUSE mount with and without TLS, in one run: two local clusters (one DIR, one
# MRC, two OSDs each; one plain, one with --tls), one volume striped over both OSDs on each, and ROUNDS rounds
# that each write SIZE_MIB MiB with dd (bs=1M, conv=fsync) and read it back after a remount (so the kernel's page
# cache of the mount does not answer), alternating which cluster goes first. Prints MiB/s per round and the
# TLS/plain ratio of the medians, with the load average before and after (the machine is shared).
#
#   tests/bench/tls/tls_speed.sh [SIZE_MIB=256] [ROUNDS=3]     (the Java build and cpp/build must exist)
set -euo pipefail
repository="$(cd "$(dirname "$(readlink -f "$0")")/../../.." && pwd)"
size_mib="${1:-256}"
rounds="${2:-3}"
mount_binary="$repository/cpp/build/mount.xtreemfs"
[ -x "$mount_binary" ] || { echo "tls_speed.sh: $mount_binary missing; run make cpp" >&2; exit 2; }
work="$(mktemp -d /tmp/xtreemfs-tls-speed.XXXXXX)"
cleanup() {
  for kind in plain tls; do
    mountpoint -q "$work/$kind/mnt/v" 2>/dev/null && fusermount3 -u "$work/$kind/mnt/v" || true
    [ -f "$work/$kind/cluster.properties" ] && "$repository/bin/xtreemfs-cluster" stop --state "$work/$kind" >/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
echo "load before: $(uptime)"
declare -A dir_port dir_url tls_options
for kind in plain tls; do
  flags=(); [ "$kind" = tls ] && flags=(--tls)
  "$repository/bin/xtreemfs-cluster" start --state "$work/$kind" --osds 2 "${flags[@]}" >/dev/null
  eval "$("$repository/bin/xtreemfs-cluster" status --state "$work/$kind" --shell)"
  dir_port[$kind]="$dir_port"
  dir_url[$kind]="$dir_scheme://127.0.0.1:$dir_port"  # pbrpcs for the TLS cluster's DIR
  tls_options[$kind]=""
  [ "$kind" = tls ] && tls_options[$kind]="--tls-ca $tls_ca --tls-cert $tls_cert --tls-key $tls_key"
  # shellcheck disable=SC2086
  "$repository/bin/mkfs.xtreemfs" ${tls_options[$kind]} -w 2 "${dir_url[$kind]}/v" >/dev/null
  mkdir -p "$work/$kind/mnt/v"
done
mount_kind() {  # shellcheck disable=SC2086
  "$mount_binary" ${tls_options[$1]} "${dir_url[$1]}/v" "$work/$1/mnt/v"
}
unmount_kind() { fusermount3 -u "$work/$1/mnt/v"; }
mib_per_second() { /usr/bin/python3 -c "import sys; print('%.1f' % ($size_mib / (float(sys.argv[2]) - float(sys.argv[1]))))" "$1" "$2"; }
declare -A writes reads
for round in $(seq 1 "$rounds"); do
  order=(plain tls); [ $((round % 2)) -eq 0 ] && order=(tls plain)
  for kind in "${order[@]}"; do
    mount_kind "$kind"
    rm -f "$work/$kind/mnt/v/f"
    start=$(date +%s.%N)
    dd if=/dev/zero of="$work/$kind/mnt/v/f" bs=1M count="$size_mib" conv=fsync status=none
    end=$(date +%s.%N)
    writes[$kind]+="$(mib_per_second "$start" "$end") "
    unmount_kind "$kind"; mount_kind "$kind"
    start=$(date +%s.%N)
    dd if="$work/$kind/mnt/v/f" of=/dev/null bs=1M status=none
    end=$(date +%s.%N)
    reads[$kind]+="$(mib_per_second "$start" "$end") "
    unmount_kind "$kind"
  done
done
median() { /usr/bin/python3 -c "import statistics, sys; print('%.1f' % statistics.median(map(float, sys.argv[1:])))" "$@"; }
for direction in write read; do
  if [ "$direction" = write ]; then plain_values=${writes[plain]}; tls_values=${writes[tls]}; else plain_values=${reads[plain]}; tls_values=${reads[tls]}; fi
  # shellcheck disable=SC2086
  plain_median=$(median $plain_values); tls_median=$(median $tls_values)
  echo "$direction MiB/s: plain [${plain_values% }] median $plain_median; tls [${tls_values% }] median $tls_median;" \
    "tls/plain $(/usr/bin/python3 -c "print('%.2f' % ($tls_median / $plain_median))")"
done
echo "load after: $(uptime)"
