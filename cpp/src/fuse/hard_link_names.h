// The names of multiply-linked files whose attributes this mount gave the kernel.
//
// libfuse's high-level API gives every name its own kernel inode (node id), so the kernel caches
// attributes per name, not per file: after chmod, chown, link or unlink through one name, the other
// names of the same file would show the old mode, owner or link count until the attribute timeout.
// The FUSE adapter notes every name it answers attributes for (getattr, readdirplus) and, after a
// change through one name, invalidates the kernel's and the client's cached attributes of the others.
//
// Only names of non-directories with nlink > 1 are kept (a file with one name has no other name to
// refresh; a file gaining a second name through this mount is noted when the kernel looks the names up
// again, which the link operation forces). At most `names_max` names: past that the oldest noted name is
// forgotten, and it may show stale attributes for at most the attribute timeout, as a change by another
// client does. Thread-safe.
#pragma once

#include <cstdint>
#include <iterator>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace xtreemfs::fuse_adapter {

class HardLinkNames {
 public:
  explicit HardLinkNames(std::size_t names_max);

  // The file's other names that may need refreshing after a change through one of them.
  struct OtherNames {
    std::uint64_t inode = 0;
    std::vector<std::string> paths;
  };

  // `path` was just answered with these attributes: remembered while the file has other names,
  // forgotten when it has none (or is a directory).
  void Note(const std::string& path, std::uint64_t inode, std::uint32_t nlink, bool is_directory);
  // The other remembered names of the file named `path`; nullopt when `path` is not remembered.
  std::optional<OtherNames> OthersOf(const std::string& path);
  // `path` is gone (unlink).
  void Forget(const std::string& path);
  // rename(2): names at and below `source` now live at and below `target`; names at and below `target`
  // are replaced, or, with `exchange` (RENAME_EXCHANGE), move to `source`.
  void Rename(const std::string& source, const std::string& target, bool exchange);

  std::size_t size();

 private:
  struct Entry {
    std::uint64_t inode;
    std::list<std::string>::iterator age;  // position in ages_, front = oldest
  };
  using EntryMap = std::map<std::string, Entry>;

  // All private helpers expect mutex_ held.
  void Insert(const std::string& path, std::uint64_t inode);
  EntryMap::iterator Erase(EntryMap::iterator entry);
  // Removes the names at and below `path` and returns them (relative to `path`) with their inodes.
  std::vector<std::pair<std::string, std::uint64_t>> TakeSubtree(const std::string& path);

  const std::size_t names_max_;
  std::mutex mutex_;
  EntryMap by_path_;  // ordered, so the names below a directory are one contiguous range
  std::multimap<std::uint64_t, std::string> paths_by_inode_;
  std::list<std::string> ages_;
};

}  // namespace xtreemfs::fuse_adapter
