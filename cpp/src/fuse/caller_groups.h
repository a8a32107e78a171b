// The supplementary groups of the threads calling into the mount, kept for a short time.
//
// The MRC checks permissions with the caller's uid, gid and supplementary groups. libfuse reads the
// groups from /proc/PID/task/TID/status for every request that asks (fuse_req_getgroups: an open,
// a read that makes the kernel format the whole status file, a close), which was about 7 % of the
// mount's CPU during a create loop (perf, tests/bench/fuse/README.md) for an answer that did not
// change between two creates of one thread.
//
// An answer is kept per (thread id, uid, gid) for at most `ttl_ms` after it was read. What that
// may get wrong, and why it is acceptable: a thread that changes its supplementary groups
// (setgroups(2)) is seen by the MRC with the old ones for at most `ttl_ms`; the kernel checks every
// request against the thread's current credentials first (the mount always runs with
// default_permissions, cpp/README.md), so stale groups can make the MRC refuse what the kernel
// allowed but never let through what the kernel refused. A thread id reused by another thread with
// the same uid and gid within `ttl_ms` would need the kernel to cycle through pid_max ids in that time.
// `ttl_ms` 0 turns the cache off (every request reads /proc). Thread-safe; bounded: at most
// `entries_max` threads are kept (all are forgotten when one more comes, as AbsentNames does).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "client/clock.h"

namespace xtreemfs::fuse_adapter {

class CallerGroups {
 public:
  static constexpr std::size_t kEntriesMax = 4096;
  // Reads up to `size` groups of the caller into `groups` and returns how many the caller has (may
  // exceed `size`), or a negative value when they cannot be read (fuse_req_getgroups' contract).
  using Reader = std::function<int(int size, gid_t* groups)>;

  CallerGroups(client::Clock& clock, std::uint32_t ttl_ms, std::size_t entries_max = kEntriesMax);

  // The caller's supplementary groups (at most `groups_max`): kept ones when read for the same
  // (thread, uid, gid) less than `ttl_ms` ago, otherwise those `read` returns now. An answer that
  // could not be read (negative) is not kept and gives no groups.
  std::vector<gid_t> Of(pid_t thread_id, uid_t uid, gid_t gid, int groups_max, const Reader& read);

  // How many answers were read through `read` since start (for tests and the log).
  std::uint64_t reads() const;

 private:
  struct Entry {
    uid_t uid = 0;
    gid_t gid = 0;
    std::int64_t read_at_ms = 0;
    std::vector<gid_t> groups;
  };

  client::Clock& clock_;
  const std::uint32_t ttl_ms_;
  const std::size_t entries_max_;
  mutable std::mutex mutex_;
  std::unordered_map<pid_t, Entry> entries_;  // guarded by mutex_
  std::uint64_t reads_ = 0;                   // guarded by mutex_
};

}  // namespace xtreemfs::fuse_adapter
