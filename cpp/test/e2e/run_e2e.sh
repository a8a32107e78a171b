#!/usr/bin/env bash
# End-to-end check of the C++ client against real servers: starts a DIR, an MRC and two OSDs from a
# repository whose servers are built (BUILD_SUFFIX selects target<suffix>/), runs the client-core
# smoke test, then mounts the volume with mount.xtreemfs and checks a few POSIX behaviours through
# the mount. Cleans up (unmounts, stops exactly the processes it started) on exit.
#
#   cpp/test/e2e/run_e2e.sh REPOSITORY_WITH_BUILT_SERVERS CPP_BUILD_DIR
#   e.g. BUILD_SUFFIX=-cpp cpp/test/e2e/run_e2e.sh /tmp/e2e-cpp cpp/build
set -euo pipefail
repository="$(cd "$1" && pwd)"
cpp_build="$(cd "$2" && pwd)"
state="$(mktemp -d /tmp/xtreemfs-e2e.XXXXXX)"
# Ports from a per-run base so parallel runs on one machine do not collide.
base=$(( 41000 + ($$ % 400) * 10 ))
dir_port=$base; mrc_port=$((base + 1)); osd0_port=$((base + 2)); osd1_port=$((base + 3))
secret="e2e-secret-$$-0123456789abcdef"
pids=()
mount_point="$state/mnt"

cleanup() {
  if mountpoint -q "$mount_point" 2>/dev/null; then fusermount3 -u "$mount_point" || true; fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  echo "logs and state kept in $state"
}
trap cleanup EXIT

# start NAME LOG COMMAND...: runs a service in the background and waits (bounded) for its READY line.
start() {
  local name="$1" log="$2"; shift 2
  "$@" >"$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do
    if grep -q "^READY" "$log"; then echo "started $name: $(grep -m1 '^READY' "$log")"; return 0; fi
    if ! kill -0 "${pids[-1]}" 2>/dev/null; then echo "$name exited:"; cat "$log"; return 1; fi
    sleep 0.1
  done
  echo "$name not READY within 30 s:"; cat "$log"; return 1
}

export BUILD_SUFFIX="${BUILD_SUFFIX:-}"
common=(-Dcapability.secret="$secret")
start dir "$state/dir.log" "$repository/bin/xtreemfs-dir" -Ddir.port=$dir_port -Ddir.status.port=0 \
  -Ddir.database.path="$state/dir" -Ddir.bindAddress=127.0.0.1
start mrc "$state/mrc.log" "$repository/bin/xtreemfs-mrc" "${common[@]}" -Dmrc.port=$mrc_port \
  -Dmrc.status.port=0 -Dmrc.database.path="$state/mrc" -Dmrc.dir.address=127.0.0.1:$dir_port \
  -Dmrc.bindAddress=127.0.0.1 -Dmrc.advertisedAddress=127.0.0.1 -Dmrc.heartbeat.periodMs=500 \
  -Dmrc.placement.osdCacheTtlMs=100
for i in 0 1; do
  port_var="osd${i}_port"
  start "osd$i" "$state/osd$i.log" "$repository/bin/xtreemfs-osd" "${common[@]}" \
    -Dosd.port=${!port_var} -Dosd.status.port=0 -Dosd.object.path="$state/osd$i" \
    -Dosd.dir.address=127.0.0.1:$dir_port -Dosd.listen.address=127.0.0.1 \
    -Dosd.advertised.address=127.0.0.1 -Dosd.heartbeat.periodMs=500 -Dosd.deletion.delayMs=0
done
sleep 1  # let both OSDs heartbeat so the MRC's placement sees them

echo "== client core smoke test"
"$cpp_build/xtreemfs_e2e_smoke" "127.0.0.1:$dir_port/smoke" 2

echo "== FUSE mount"
mkdir -p "$mount_point"
"$cpp_build/mount.xtreemfs" --log-file "$state/mount.log" --log-level info --timeout-ms 10000 \
  "pbrpc://127.0.0.1:$dir_port/smoke" "$mount_point"
failures=0
check() {  # check DESCRIPTION COMMAND...: runs COMMAND, prints PASS/FAIL
  local what="$1"; shift
  if "$@"; then echo "PASS $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
head -c 3000000 /dev/urandom > "$state/random.bin"
check "cp of 3 MB into the mount" cp "$state/random.bin" "$mount_point/random.bin"
check "file reads back identical" cmp "$state/random.bin" "$mount_point/random.bin"
check "stat size is 3000000" test "$(stat -c %s "$mount_point/random.bin")" = 3000000
check "mkdir" mkdir "$mount_point/d"
check "mkdir again fails with EEXIST" bash -c "mkdir '$mount_point/d' 2>&1 | grep -q 'File exists'"
check "ls lists both entries" bash -c "ls '$mount_point' | sort | tr '\n' ' ' | grep -q '^d random.bin $'"
check "append through >>" bash -c "echo one > '$mount_point/d/log' && echo two >> '$mount_point/d/log' && test \"\$(cat '$mount_point/d/log')\" = \"\$(printf 'one\ntwo')\""
check "truncate -s shrinks" bash -c "truncate -s 1000 '$mount_point/random.bin' && test \$(stat -c %s '$mount_point/random.bin') = 1000 && cmp -n 1000 '$state/random.bin' '$mount_point/random.bin'"
check "rename" mv "$mount_point/random.bin" "$mount_point/d/moved.bin"
check "rmdir of a non-empty directory fails" bash -c "! rmdir '$mount_point/d' 2>/dev/null"
check "rm -r" rm -r "$mount_point/d"
check "missing file is ENOENT" bash -c "cat '$mount_point/nothing' 2>&1 | grep -q 'No such file'"
check "umount.xtreemfs" "$cpp_build/umount.xtreemfs" "$mount_point"
echo "mount log:"; tail -20 "$state/mount.log" || true
if [ "$failures" -ne 0 ]; then echo "FAILED: $failures FUSE check(s)"; exit 1; fi
echo "OK: FUSE checks passed"
