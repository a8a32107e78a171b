#!/usr/bin/env bash
# Permission checks are not bypassed by a mount's caches. One mount (-o allow_other) shared by two users, uid
# 1001 and uid 1002, with attributes and entries cached for 30 s (so a cached entry outlives every check below):
# after 1001 looked up a file in its 0700 directory, 1002 still cannot stat, read or list it (the mount runs
# with the kernel's default_permissions, so each caller is checked against the cached modes instead of a
# cached lookup answering whoever asks next); after 1001 opens the directory up, 1002 can.
#
#   tests/system/cache_permissions_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
source "$(dirname "$(readlink -f "$0")")/lib.sh"
system_setup "$1" "$2"
umask 022
start_cluster 1

m="$state/mnt"
chmod 0711 "$state"  # lets the other uids reach the mount point (mktemp makes it 0700)
check "mkfs.xtreemfs creates the volume (mode 0777)" "$repository/bin/mkfs.xtreemfs" "127.0.0.1:$dir_port/shared"
check "the volume mounts shared by all users, caching for 30 s" \
  mount_volume shared "$m" -o allow_other --metadata-cache-ttl-ms 30000

as_owner() { setpriv --reuid=1001 --regid=1001 --clear-groups "$@"; }
as_other() { setpriv --reuid=1002 --regid=1002 --clear-groups "$@"; }
other_errno_is() { as_other /usr/bin/python3 -c "$errno_py" "$@"; }

check "uid 1001 makes a private folder (0700) with a file" as_owner bash -c "
  mkdir -m 0700 '$m/private' && echo secret > '$m/private/file' && test \"\$(stat -c %a '$m/private')\" = 700"
check "uid 1001 looks the file up (now in the mount's caches)" as_owner stat "$m/private/file"
check "uid 1002 cannot stat the file 1001 just looked up (EACCES)" \
  other_errno_is EACCES 'os.stat(a[0])' "$m/private/file"
check "uid 1002 cannot read it (EACCES)" other_errno_is EACCES 'open(a[0]).read()' "$m/private/file"
check "uid 1002 cannot list the folder (EACCES)" other_errno_is EACCES 'os.listdir(a[0])' "$m/private"
check "uid 1002 cannot stat it by a path through '..' either (EACCES)" \
  other_errno_is EACCES 'os.stat(a[0])' "$m/private/../private/file"
check "uid 1001 still reads its file" as_owner grep -qx secret "$m/private/file"
check "uid 1002 is refused again after 1001 read it (EACCES)" \
  other_errno_is EACCES 'os.stat(a[0])' "$m/private/file"
check "uid 1001 opens the folder for search (chmod 0711)" as_owner chmod 0711 "$m/private"
check "uid 1002 now stats and reads the 0644 file" as_other grep -qx secret "$m/private/file"
check "uid 1002 still cannot list the folder without read permission (EACCES)" \
  other_errno_is EACCES 'os.listdir(a[0])' "$m/private"
check "root can stat everything (root bypasses mode checks)" stat "$m/private/file"

system_finish
