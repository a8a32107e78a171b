#include "client/metadata_cache.h"

namespace xtreemfs::client {

MetadataCache::MetadataCache(Clock& clock, std::uint32_t ttl_ms, std::size_t entries_max)
    : clock_(clock), ttl_ms_(ttl_ms), entries_max_(entries_max) {}

std::uint64_t MetadataCache::Generation() {
  std::lock_guard<std::mutex> lock(mutex_);
  return generation_;
}

std::optional<xtreemfs::mrc::Stat> MetadataCache::Get(const std::string& path) {
  if (!enabled()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = entries_.find(path);
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
  auto found = entries_.find(path);
  if (found != entries_.end()) Erase(found);
  recency_.push_front(path);
  entries_.emplace(path, Entry{stat, clock_.MonotonicMs() + ttl_ms_, recency_.begin()});
  paths_by_inode_.emplace(stat.inode(), path);
  while (entries_.size() > entries_max_) {
    Erase(entries_.find(recency_.back()));
  }
  return true;
}

MetadataCache::EntryMap::iterator MetadataCache::Erase(EntryMap::iterator entry) {
  auto range = paths_by_inode_.equal_range(entry->second.stat.inode());
  for (auto indexed = range.first; indexed != range.second; ++indexed) {
    if (indexed->second == entry->first) {
      paths_by_inode_.erase(indexed);
      break;
    }
  }
  recency_.erase(entry->second.recency);
  return entries_.erase(entry);
}

void MetadataCache::Invalidate(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  BumpGeneration();
  auto found = entries_.find(path);
  if (found != entries_.end()) Erase(found);
}

void MetadataCache::InvalidateSubtree(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  BumpGeneration();
  if (path == "/") {
    entries_.clear();
    recency_.clear();
    paths_by_inode_.clear();
    return;
  }
  auto found = entries_.find(path);
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
    Erase(entries_.find(indexed->second));
  }
}

std::optional<std::uint64_t> MetadataCache::CachedInode(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = entries_.find(path);
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
