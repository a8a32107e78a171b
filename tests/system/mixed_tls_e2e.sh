#!/usr/bin/env bash
# A mixed cluster: TLS on the MRC and osd0, plain TCP on the DIR and osd1 (xtreemfs-cluster start --tls
# --plain-server dir --plain-server osd1; the plain servers trust the test CA for their calls to the TLS ones).
# Every server registers the scheme it serves (pbrpcs or pbrpc, read back from the DIR's status page), and every
# caller speaks each server's own scheme: the OSDs and the MRC at the plain DIR, the OSDs at the TLS MRC, a chain
# head at its successor, the mount and the Java client at all of them. A mount (C++) and xtfscp (Java) each write
# files striped over both OSDs and replicated on both, and read the other's back identical; a mount and a tool
# without a TLS configuration are refused at once, naming the TLS MRC and why. (MixedTlsClusterTest is the
# opposite layout: a TLS DIR and a plain MRC.)
#
#   tests/system/mixed_tls_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
start_typed_cluster --osds 2 --tls --plain-server dir --plain-server osd1 --status-ports
tls=(--tls-ca "$tls_ca" --tls-cert "$tls_cert" --tls-key "$tls_key")
dir_url="$dir_scheme://127.0.0.1:$dir_port"

check "the DIR is plain: its URL is pbrpc://" test "$dir_scheme" = pbrpc
dir_status_url="$(cluster status | awk '$1 == "dir"' | grep -o 'http://[0-9.:]*/')"
registered() {  # registered TEXT: the DIR's status page lists the address mapping TEXT
  curl -sf "$dir_status_url" | grep -qF "$1" || { echo "the DIR's status page lists no $1" >&2; return 1; }
}
check "the TLS MRC registered as pbrpcs" registered "pbrpcs://127.0.0.1:$mrc_port"
check "the TLS OSD registered as pbrpcs" registered "pbrpcs://127.0.0.1:${osd_ports[0]}"
check "the plain OSD registered as pbrpc" registered "pbrpc://127.0.0.1:${osd_ports[1]}"
check "mkfs.xtreemfs (the plain DIR, the TLS MRC) creates a volume striped over both OSDs" \
  "$repository/bin/mkfs.xtreemfs" "${tls[@]}" -w 2 "$dir_url/striped"
check "mkfs.xtreemfs creates a volume replicated on both OSDs" \
  "$repository/bin/mkfs.xtreemfs" "${tls[@]}" -r 2 "$dir_url/chain"

mkdir -p "$state/mnt/no-tls"
# With a retry window of 120 s, a refusal within 60 s (JVM start-up included, on a loaded machine) was not retried.
refusal_start=$SECONDS
check "a mount without --tls-ca is refused, naming the TLS MRC and why" \
  refused_saying "pbrpcs://127.0.0.1:$mrc_port speaks TLS but this client has no TLS configuration" \
  "$cpp_build/mount.xtreemfs" --timeout-ms 3000 --retry-window-ms 120000 "$dir_url/striped" "$state/mnt/no-tls"
check "... at once, not retried (retry window 120 s): $((SECONDS - refusal_start)) s" \
  test $((SECONDS - refusal_start)) -lt 60
refusal_start=$SECONDS
check "a tool without --tls-ca is refused the same way" \
  refused_saying "pbrpcs://127.0.0.1:$mrc_port speaks TLS (pbrpcs) but this client has no TLS configuration" \
  "$repository/bin/xtfscp" get --retry-window-ms 120000 "$dir_url/striped/nothing" "$state/nothing"
check "... at once too: $((SECONDS - refusal_start)) s" test $((SECONDS - refusal_start)) -lt 60
check "a pbrpcs:// URL without --tls-ca is a usage error" \
  refused_saying "needs --tls-ca" "$cpp_build/mount.xtreemfs" "pbrpcs://127.0.0.1:$dir_port/striped" "$state/mnt/no-tls"

for volume in striped chain; do
  m="$state/mnt/$volume"
  mkdir -p "$m"
  mounts+=("$m")
  check "$volume mounts with the CA (the plain DIR by pbrpc://, the other servers by their schemes)" \
    "$cpp_build/mount.xtreemfs" --log-file "$state/mount-$volume.log" --timeout-ms 5000 "${tls[@]}" \
    "$dir_url/$volume" "$m"
  head -c $((9 * 1048576 + 4321)) /dev/urandom > "$state/$volume-mount.bin"
  check "9 MiB written through the $volume mount" \
    dd if="$state/$volume-mount.bin" of="$m/a.bin" bs=1M conv=fsync status=none
  check "the Java client reads the mount's file on $volume back identical" bash -c "
    '$repository/bin/xtfscp' get ${tls[*]} '$dir_url/$volume/a.bin' '$state/$volume-a.back' \
      && cmp '$state/$volume-mount.bin' '$state/$volume-a.back'"
  head -c $((5 * 1048576 + 99)) /dev/urandom > "$state/$volume-java.bin"
  check "the Java client writes a file on $volume" \
    "$repository/bin/xtfscp" put "${tls[@]}" "$state/$volume-java.bin" "$dir_url/$volume/b.bin"
  check "the mount reads the Java client's file on $volume back identical" cmp "$state/$volume-java.bin" "$m/b.bin"
  check "the files on $volume lie on both OSDs (the TLS and the plain one)" bash -c "
    '$repository/bin/xtfsutil' ${tls[*]} '$m/a.bin' | grep -c '${osd_uuids[0]}\|${osd_uuids[1]}' | grep -qv '^[01]$'"
done

system_finish
