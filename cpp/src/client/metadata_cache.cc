#include "client/metadata_cache.h"

#include <algorithm>
#include <iterator>

namespace xtreemfs::client {

namespace {
// Entries a listing stores per hold of the lock: other threads' look-ups wait at most this long.
constexpr int kListedEntriesPerLock = 1024;
}  // namespace

MetadataCache::MetadataCache(Clock& clock, std::uint32_t ttl_ms, std::size_t entries_max)
    : clock_(clock), ttl_ms_(ttl_ms), entries_max_(entries_max) {}

std::uint64_t MetadataCache::Generation() {
  std::lock_guard<std::mutex> lock(mutex_);
  return generation_;
}

MetadataCache::EntryMap::iterator MetadataCache::Find(std::string_view path) {
  auto found = by_path_.find(path);
  return found == by_path_.end() ? entries_.end() : found->second;
}

std::optional<xtreemfs::mrc::Stat> MetadataCache::Get(const std::string& path) {
  if (!enabled()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = Find(path);
  if (found == entries_.end()) return std::nullopt;
  if (clock_.MonotonicMs() >= found->second.expires_ms) {
    Erase(found);
    return std::nullopt;
  }
  recency_.splice(recency_.begin(), recency_, found->second.recency);
  return found->second.stat;
}

bool MetadataCache::Put(const std::string& path, const xtreemfs::mrc::Stat& stat,
                        std::uint64_t generation) {
  if (!enabled()) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (generation != generation_) return false;  // an invalidation raced with the fetch
  Store(path, stat, clock_.MonotonicMs() + ttl_ms_, entries_.end());
  EvictBeyondBound();
  return true;
}

std::size_t MetadataCache::PutListed(
    const std::string& directory,
    const google::protobuf::RepeatedPtrField<xtreemfs::mrc::DirectoryEntry>& entries,
    std::uint64_t generation) {
  if (!enabled()) return 0;
  const std::string prefix = directory == "/" ? "/" : directory + "/";
  std::string path = prefix;
  std::size_t stored = 0;
  int next = 0;
  while (next < entries.size()) {
    std::lock_guard<std::mutex> lock(mutex_);
    // An invalidation since the fetch (also one between two holds of the lock): the rest may be
    // older than it.
    if (generation != generation_) break;
    const std::int64_t expires_ms = clock_.MonotonicMs() + ttl_ms_;
    // Entries come in byte order of their names, which is the map's order: each goes right after
    // the previous one, found without comparing strings down the tree.
    auto hint = entries_.end();
    const int end = std::min(entries.size(), next + kListedEntriesPerLock);
    for (; next < end; ++next) {
      const auto& entry = entries.Get(next);
      if (!entry.has_stat() || entry.name() == "." || entry.name() == "..") continue;
      path.resize(prefix.size());
      path += entry.name();
      hint = std::next(Store(path, entry.stat(), expires_ms, hint));
      ++stored;
    }
    // Evicted once per hold, not per entry: `hint` stays valid within the hold.
    EvictBeyondBound();
  }
  return stored;
}

MetadataCache::EntryMap::iterator MetadataCache::Store(const std::string& path,
                                                       const xtreemfs::mrc::Stat& stat,
                                                       std::int64_t expires_ms,
                                                       EntryMap::iterator hint) {
  auto found = Find(path);
  if (found != entries_.end()) {
    // Refreshed in place (a directory listed again every TTL): no node freed and allocated again.
    Unindex(found);
    found->second.stat = stat;
    found->second.expires_ms = expires_ms;
    recency_.splice(recency_.begin(), recency_, found->second.recency);
  } else {
    // A wrong hint only costs the search it would have saved.
    found = entries_.emplace_hint(hint, path, Entry{stat, expires_ms, {}});
    recency_.push_front(&found->first);
    found->second.recency = recency_.begin();
    by_path_.emplace(found->first, found);
  }
  paths_by_inode_.emplace(stat.inode(), &found->first);
  return found;
}

void MetadataCache::EvictBeyondBound() {
  while (entries_.size() > entries_max_) Erase(Find(*recency_.back()));
}

void MetadataCache::Unindex(EntryMap::iterator entry) {
  auto range = paths_by_inode_.equal_range(entry->second.stat.inode());
  for (auto indexed = range.first; indexed != range.second; ++indexed) {
    if (indexed->second == &entry->first) {
      paths_by_inode_.erase(indexed);
      break;
    }
  }
}

MetadataCache::EntryMap::iterator MetadataCache::Erase(EntryMap::iterator entry) {
  Unindex(entry);
  by_path_.erase(entry->first);
  recency_.erase(entry->second.recency);
  return entries_.erase(entry);
}

void MetadataCache::Invalidate(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  BumpGeneration();
  auto found = Find(path);
  if (found != entries_.end()) Erase(found);
}

void MetadataCache::InvalidateSubtree(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  BumpGeneration();
  if (path == "/") {
    by_path_.clear();
    entries_.clear();
    recency_.clear();
    paths_by_inode_.clear();
    return;
  }
  auto found = Find(path);
  if (found != entries_.end()) Erase(found);
  // Strings sharing a prefix are one contiguous range of the ordered map, starting at the prefix.
  const std::string prefix = path + "/";
  for (auto entry = entries_.lower_bound(prefix);
       entry != entries_.end() && entry->first.compare(0, prefix.size(), prefix) == 0;) {
    entry = Erase(entry);
  }
}

void MetadataCache::InvalidateInode(std::uint64_t inode) {
  std::lock_guard<std::mutex> lock(mutex_);
  BumpGeneration();
  for (auto indexed = paths_by_inode_.find(inode); indexed != paths_by_inode_.end();
       indexed = paths_by_inode_.find(inode)) {
    Erase(Find(*indexed->second));
  }
}

std::optional<std::uint64_t> MetadataCache::CachedInode(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = Find(path);
  if (found == entries_.end()) return std::nullopt;
  return found->second.stat.inode();
}

std::size_t MetadataCache::size() {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

std::string MetadataCache::ParentOf(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace xtreemfs::client
