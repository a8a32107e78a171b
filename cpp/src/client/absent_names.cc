#include "client/absent_names.h"

#include <utility>

#include "client/metadata_cache.h"

namespace xtreemfs::client {
namespace {

// "/a/b/" -> "/a/b": FUSE never sends trailing slashes, callers of the Volume API may.
std::string WithoutTrailingSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

AbsentNames::AbsentNames(Clock& clock, std::uint32_t ttl_ms, std::uint32_t misses,
                         std::size_t names_max)
    : clock_(clock), ttl_ms_(ttl_ms), misses_(misses), names_max_(names_max) {}

bool AbsentNames::KnownAbsent(const std::string& directory, const std::string& name) {
  if (!enabled()) return false;
  const std::int64_t now_ms = clock_.MonotonicMs();
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = directories_.find(directory);
  if (found == directories_.end() || now_ms >= found->second.trusted_until_ms) return false;
  return found->second.names.count(name) == 0;
}

std::uint64_t AbsentNames::NoteMiss(const std::string& directory) {
  if (!enabled()) return 0;
  const std::int64_t now_ms = clock_.MonotonicMs();
  std::lock_guard<std::mutex> lock(mutex_);
  if (directories_.size() >= kDirectoriesMax && directories_.count(directory) == 0) {
    directories_.clear();  // tickets of listings in flight no longer match: they are dropped
  }
  Directory& state = directories_[directory];
  // A listing runs, or one is trusted (then this name was changed here since and is asked for).
  if (state.listing_ticket != 0 || now_ms < state.trusted_until_ms) return 0;
  if (now_ms - state.window_start_ms >= ttl_ms_) {
    state.window_start_ms = now_ms;
    state.misses = 0;
  }
  if (++state.misses < misses_) return 0;
  state.misses = 0;
  state.listing_ticket = next_ticket_++;
  state.listing_started_ms = now_ms;
  state.changed_during_listing.clear();
  return state.listing_ticket;
}

void AbsentNames::Listed(const std::string& directory, std::uint64_t ticket,
                         std::vector<std::string> names, bool complete) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = directories_.find(directory);
  // Forgotten meanwhile (renamed, removed, or the bound cleared everything): the changes noted
  // during the listing are lost with it, so it must not be trusted.
  if (found == directories_.end() || found->second.listing_ticket != ticket) return;
  Directory& state = found->second;
  state.listing_ticket = 0;
  state.names.clear();
  state.trusted_until_ms = 0;
  if (complete) {
    state.names.insert(std::make_move_iterator(names.begin()), std::make_move_iterator(names.end()));
    state.names.insert(state.changed_during_listing.begin(), state.changed_during_listing.end());
    state.trusted_until_ms = state.listing_started_ms + ttl_ms_;
  }
  state.changed_during_listing.clear();
  state.changed_during_listing.shrink_to_fit();
}

void AbsentNames::NoteChanged(const std::string& changed_path) {
  const std::string path = WithoutTrailingSlashes(changed_path);
  if (!enabled() || path == "/") return;
  const std::string directory = MetadataCache::ParentOf(path);
  std::string name = path.substr(path.rfind('/') + 1);
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = directories_.find(directory);
  if (found == directories_.end()) return;  // nothing known: nothing to correct
  if (found->second.listing_ticket != 0) found->second.changed_during_listing.push_back(name);
  found->second.names.insert(std::move(name));
}

void AbsentNames::ForgetSubtree(const std::string& subtree) {
  if (!enabled()) return;
  const std::string path = WithoutTrailingSlashes(subtree);
  const std::string prefix = path == "/" ? "/" : path + "/";
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = directories_.begin(); it != directories_.end();) {
    if (it->first == path || it->first.compare(0, prefix.size(), prefix) == 0) {
      it = directories_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace xtreemfs::client
