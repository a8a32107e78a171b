#include "fuse/caller_groups.h"

#include <algorithm>

namespace xtreemfs::fuse_adapter {

CallerGroups::CallerGroups(client::Clock& clock, std::uint32_t ttl_ms, std::size_t entries_max)
    : clock_(clock), ttl_ms_(ttl_ms), entries_max_(std::max<std::size_t>(entries_max, 1)) {}

std::vector<gid_t> CallerGroups::Of(pid_t thread_id, uid_t uid, gid_t gid, int groups_max,
                                    const Reader& read) {
  if (ttl_ms_ > 0) {
    const std::int64_t now_ms = clock_.MonotonicMs();
    std::lock_guard<std::mutex> lock(mutex_);
    auto kept = entries_.find(thread_id);
    if (kept != entries_.end() && kept->second.uid == uid && kept->second.gid == gid &&
        now_ms - kept->second.read_at_ms < ttl_ms_) {
      return kept->second.groups;
    }
  }
  // Read outside the lock: /proc is slow, and two threads reading at once is harmless.
  const std::int64_t read_at_ms = clock_.MonotonicMs();
  std::vector<gid_t> groups(static_cast<std::size_t>(std::max(groups_max, 0)));
  const int count = read(groups_max, groups.data());
  groups.resize(static_cast<std::size_t>(std::clamp(count, 0, std::max(groups_max, 0))));
  std::lock_guard<std::mutex> lock(mutex_);
  ++reads_;
  if (ttl_ms_ == 0 || count < 0) return groups;
  if (entries_.size() >= entries_max_ && entries_.find(thread_id) == entries_.end()) entries_.clear();
  entries_[thread_id] = Entry{uid, gid, read_at_ms, groups};
  return groups;
}

std::uint64_t CallerGroups::reads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reads_;
}

}  // namespace xtreemfs::fuse_adapter
