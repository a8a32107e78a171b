#!/usr/bin/env bash
# TLS across a whole cluster: the launcher makes a test CA (openssl) and starts the DIR, the MRC and two OSDs
# with TLS on every RPC port and client certificates required (xtreemfs-cluster start --tls-client-certificates),
# so the OSDs' and the MRC's registrations and heartbeats at the DIR go over TLS with the servers' own
# certificates. A mount (mount.xtreemfs pbrpcs://... --tls-ca/--tls-cert/--tls-key) and the Java client (xtfscp
# with the same options) each write a file the other reads back; plain clients, and TLS clients without a client
# certificate, are refused with a message saying why.
#
#   tests/system/tls_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
start_typed_cluster --osds 2 --tls-client-certificates
tls=(--tls-ca "$tls_ca" --tls-cert "$tls_cert" --tls-key "$tls_key")
volume_url="pbrpcs://127.0.0.1:$dir_port/secure"  # the DIR speaks TLS: pbrpcs (see mixed_tls_e2e.sh)
m="$state/mnt/secure"

check "the launcher made a CA and gave every server a certificate" \
  test -s "$tls_ca" -a -s "$state/tls/dir.pem" -a -s "$state/tls/mrc.pem" -a -s "$state/tls/osd0.pem"
check "private keys are the user's alone (0600)" test "$(stat -c %a "$state/tls/osd0.key" "$tls_key" | sort -u)" = 600
check "the OSDs registered at the DIR over TLS (lsfs.xtreemfs --osds lists both)" bash -c "
  '$repository/bin/lsfs.xtreemfs' ${tls[*]} --osds '127.0.0.1:$dir_port' | grep -c '${osd_uuids[0]}\|${osd_uuids[1]}' | grep -qx 2"
check "mkfs.xtreemfs over TLS creates a volume striped over both OSDs" \
  "$repository/bin/mkfs.xtreemfs" "${tls[@]}" -w 2 "127.0.0.1:$dir_port/secure"

check "a plain tool is refused with 'speaks TLS only'" \
  refused_saying "speaks TLS only" "$repository/bin/lsfs.xtreemfs" --retry-window-ms 0 "127.0.0.1:$dir_port"
mkdir -p "$state/mnt/plain" "$state/mnt/anonymous"
check "a plain mount that dials the TLS DIR as pbrpc:// is refused with 'speaks TLS only'" \
  refused_saying "speaks TLS only" "$cpp_build/mount.xtreemfs" --retry-window-ms 0 \
  "pbrpc://127.0.0.1:$dir_port/secure" "$state/mnt/plain"
check "a TLS mount without a client certificate is refused (the DIR's TLS answers 'certificate required')" \
  refused_saying "certificate required" "$cpp_build/mount.xtreemfs" --retry-window-ms 0 --timeout-ms 3000 \
  --tls-ca "$tls_ca" "pbrpcs://127.0.0.1:$dir_port/secure" "$state/mnt/anonymous"
check "a mount that does not trust the CA is refused naming the certificate check" \
  refused_saying "certificate verify failed" "$cpp_build/mount.xtreemfs" --retry-window-ms 0 \
  --tls-ca "$tls_cert" --tls-cert "$tls_cert" --tls-key "$tls_key" "pbrpcs://127.0.0.1:$dir_port/secure" \
  "$state/mnt/anonymous"

mkdir -p "$m"
mounts+=("$m")
check "the volume mounts over TLS (pbrpcs:// with the CA and the administrator's certificate)" \
  "$cpp_build/mount.xtreemfs" --log-file "$state/mount-secure.log" --timeout-ms 5000 "${tls[@]}" \
  "pbrpcs://127.0.0.1:$dir_port/secure" "$m"
head -c $((24 * 1048576 + 4321)) /dev/urandom > "$state/through-mount.bin"
check "24 MiB written through the TLS mount" dd if="$state/through-mount.bin" of="$m/a.bin" bs=1M conv=fsync status=none
check "the Java client reads the mount's file back identical over TLS (xtfscp get)" bash -c "
  '$repository/bin/xtfscp' get ${tls[*]} '$volume_url/a.bin' '$state/a.back' && cmp '$state/through-mount.bin' '$state/a.back'"
head -c $((17 * 1048576 + 99)) /dev/urandom > "$state/through-java.bin"
check "the Java client writes over TLS (xtfscp put)" \
  "$repository/bin/xtfscp" put "${tls[@]}" "$state/through-java.bin" "$volume_url/b.bin"
check "the mount reads the Java client's file back identical" cmp "$state/through-java.bin" "$m/b.bin"
check "both files are striped over both OSDs" bash -c "
  '$repository/bin/xtfsutil' ${tls[*]} '$m/b.bin' | grep -c '${osd_uuids[0]}\|${osd_uuids[1]}' | grep -qv '^[01]$'"

system_finish
