// The client's metadata cache: Stat by volume-relative path, each entry trusted for a TTL, at most
// `entries_max` entries (least recently used evicted first). Changes made through this client drop
// the entries they affect (Volume calls the Invalidate* methods after every mutating operation);
// changes by other clients become visible when an entry expires. Thread-safe.
//
// Invariant against lost invalidations: a Stat fetched from the MRC is stored only if no
// invalidation happened since the fetch started (Generation() taken before the call, passed to
// Put). Otherwise a getattr racing with a local chmod could store the pre-chmod Stat after the
// chmod's invalidation and serve it for a whole TTL.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "client/clock.h"
#include "mrc.pb.h"

namespace xtreemfs::client {

class MetadataCache {
 public:
  // `ttl_ms` 0 or `entries_max` 0 disables the cache (Get always misses, Put stores nothing).
  MetadataCache(Clock& clock, std::uint32_t ttl_ms, std::size_t entries_max);

  bool enabled() const { return ttl_ms_ > 0 && entries_max_ > 0; }
  std::uint32_t ttl_ms() const { return ttl_ms_; }

  // The invalidation counter; take it before asking the MRC, pass it to Put.
  std::uint64_t Generation();
  // The cached Stat of `path` if it is younger than the TTL.
  std::optional<xtreemfs::mrc::Stat> Get(const std::string& path);
  // Stores `stat` for `path` unless an invalidation happened since `generation` was taken; returns
  // whether it did.
  bool Put(const std::string& path, const xtreemfs::mrc::Stat& stat, std::uint64_t generation);
  // Put of every entry of a listing of `directory` that carries a Stat ("." and ".." excepted): a
  // stat-ahead page brings up to 10,000 entries at once. Stores nothing more once an invalidation
  // happened since `generation` was taken. Returns how many it stored.
  std::size_t PutListed(const std::string& directory,
                        const google::protobuf::RepeatedPtrField<xtreemfs::mrc::DirectoryEntry>& entries,
                        std::uint64_t generation);

  // Drops `path` only.
  void Invalidate(const std::string& path);
  // Drops `path` and every path below it (rename and rmdir of a directory).
  void InvalidateSubtree(const std::string& path);
  // Drops every path whose cached Stat has this inode (all names of a hard-linked file).
  void InvalidateInode(std::uint64_t inode);
  // The cached inode of `path`, even if expired; used to find a file's other names before it goes.
  std::optional<std::uint64_t> CachedInode(const std::string& path);

  std::size_t size();

  // "/a/b" -> "/a", "/a" -> "/", "/" -> "/".
  static std::string ParentOf(const std::string& path);

 private:
  // The recency list and the inode index name an entry by its key in entries_ (a map's keys stay in
  // place until erased): no second and third copy of the path per entry.
  struct Entry {
    xtreemfs::mrc::Stat stat;
    std::int64_t expires_ms;
    std::list<const std::string*>::iterator recency;  // position in recency_, front = most recent
  };
  using EntryMap = std::map<std::string, Entry>;

  // All private helpers expect mutex_ held.
  // The entry of `path`, or entries_.end().
  EntryMap::iterator Find(std::string_view path);
  // Stores or refreshes `path`'s entry, expiring at `expires_ms`, without evicting; `hint` is where
  // entries_ would place it if known (the position after the previous entry of a listing, which
  // comes in byte order), else entries_.end(). Returns the entry.
  EntryMap::iterator Store(const std::string& path, const xtreemfs::mrc::Stat& stat,
                           std::int64_t expires_ms, EntryMap::iterator hint);
  // Evicts the least recently used entries beyond entries_max_.
  void EvictBeyondBound();
  void Unindex(EntryMap::iterator entry);
  EntryMap::iterator Erase(EntryMap::iterator entry);
  void BumpGeneration() { ++generation_; }

  Clock& clock_;
  const std::uint32_t ttl_ms_;
  const std::size_t entries_max_;
  std::mutex mutex_;
  // Ordered by path so a subtree is one contiguous range.
  EntryMap entries_;
  // The same entries by path, hashed, for every look-up of one path (Get, Put, the invalidations):
  // in the ordered map a look-up compared ~14 strings sharing the directory's prefix, the largest
  // item of the mount's own CPU in a stat loop (perf: memcmp 8 %, the map's find 3.4 %). Keys are
  // views of entries_'s keys.
  std::unordered_map<std::string_view, EntryMap::iterator> by_path_;
  std::list<const std::string*> recency_;
  std::unordered_multimap<std::uint64_t, const std::string*> paths_by_inode_;
  std::uint64_t generation_ = 0;
};

}  // namespace xtreemfs::client
