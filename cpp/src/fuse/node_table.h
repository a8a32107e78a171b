// The mount's inode table for libfuse's low-level API: kernel node ids <-> the MRC's files and their
// names (the MRC protocol is path-based, so every request on a node id needs one of its paths).
//
// One node per MRC file (keyed by the MRC's inode number), so the kernel keeps one inode, with one set
// of cached attributes, per file: a change through one name of a hard-linked file shows through every
// name at once. A node has one or more names (parent node id, name); its path is built from its first
// name up to the root. Node ids are never reused within a mount, so the kernel's (node id, generation)
// is unique without generations.
//
// Lifetime (the FUSE protocol's lookup count): every reply that hands the kernel a node (lookup,
// create, mknod, mkdir, symlink, link, readdirplus entries) counts one lookup; FORGET lowers it. A
// node stays while the kernel counts lookups of it, while one of its names is the parent of another
// node's name (so every remembered name can still be turned into a path), or while it is open. The
// root (node id 1) is never forgotten. Bounded by what the kernel holds: the kernel forgets inodes
// under memory pressure, and a forgotten node drops its names.
//
// Names the table remembers may be stale when another client renamed or removed them; operations on
// such a name fail with the MRC's ENOENT, and a lookup that finds the file elsewhere moves the name.
// Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace xtreemfs::fuse_adapter {

class NodeTable {
 public:
  static constexpr std::uint64_t kRootNodeId = 1;  // FUSE_ROOT_ID

  NodeTable();

  // The kernel is given (`parent`, `name`) naming the MRC file `inode`: returns its node id and
  // counts one lookup. A directory or a file with one link has only this name afterwards (any other
  // remembered name of it is stale); a file with more links keeps its other names.
  std::uint64_t Remember(std::uint64_t parent, const std::string& name, std::uint64_t inode,
                         bool is_directory, std::uint32_t nlink);
  // The kernel dropped `count` lookups of `node` (FORGET, or a reply that never reached it).
  void Forget(std::uint64_t node, std::uint64_t count);

  // The volume-relative path of `node` ("/" for the root); nullopt for an unknown node or one whose
  // names are all gone.
  std::optional<std::string> PathOf(std::uint64_t node) const;
  // The path of `name` in directory `parent`; nullopt when `parent` has no path.
  std::optional<std::string> PathOf(std::uint64_t parent, const std::string& name) const;
  // The node `name` in `parent` names, 0 when none is remembered.
  std::uint64_t NodeNamed(std::uint64_t parent, const std::string& name) const;
  // The MRC inode number of `node`, 0 when unknown (also for the root before its first getattr).
  std::uint64_t InodeOf(std::uint64_t node) const;
  // Whether `node` has a remembered name other than (`parent`, `name`).
  bool HasOtherName(std::uint64_t node, std::uint64_t parent, const std::string& name) const;

  // unlink(2), rmdir(2): (`parent`, `name`) names nothing now.
  void RemoveName(std::uint64_t parent, const std::string& name);
  // rename(2): the node named (`parent`, `name`) is now named (`new_parent`, `new_name`); what that
  // name named loses it, or, with `exchange` (RENAME_EXCHANGE), takes the old name.
  void Rename(std::uint64_t parent, const std::string& name, std::uint64_t new_parent,
              const std::string& new_name, bool exchange);

  // Open handles of a node (the kernel holds a lookup while a file is open; the count decides
  // whether an unlink must keep the file under a hidden name, as libfuse's high-level API does).
  void Opened(std::uint64_t node);
  // Returns the hidden names (paths) to unlink when the last handle of `node` closed.
  std::vector<std::string> Released(std::uint64_t node);
  bool IsOpen(std::uint64_t node) const;
  // (`parent`, `name`) is a hidden name of an open, unlinked file, to unlink at its last close.
  void MarkHidden(std::uint64_t parent, const std::string& name);

  std::size_t size() const;

 private:
  using Name = std::pair<std::uint64_t, std::string>;  // (parent node id, name)
  // Names are only ever looked up whole (no range of them is needed), so they are hashed: an ordered
  // map compared the long common prefixes of a directory's names on every lookup (perf of a stat
  // loop: the map's find 3.4 % of the mount's CPU, plus its share of memcmp's 8 %).
  struct NameHash {
    std::size_t operator()(const Name& name) const noexcept {
      return std::hash<std::string>{}(name.second) ^ (name.first * 0x9e3779b97f4a7c15ULL);
    }
  };
  struct Node {
    std::uint64_t inode = 0;
    bool is_directory = false;
    std::uint64_t lookups = 0;
    std::uint64_t child_names = 0;  // names whose parent is this node
    std::uint32_t open_count = 0;
    std::vector<Name> names;        // names.front() makes the path
    std::vector<Name> hidden_names;  // MarkHidden, unlinked at the last close
  };

  // All private helpers expect mutex_ held exclusively (PathLocked: at least shared).
  void Attach(std::uint64_t node_id, const Name& name);
  void Detach(const Name& name);
  void FreeIfUnused(std::uint64_t node_id);
  // The path of `node_id`, or with `leaf` that of the name `*leaf` in directory `node_id`; built in
  // one allocation.
  std::optional<std::string> PathLocked(std::uint64_t node_id, const std::string* leaf = nullptr) const;

  mutable std::shared_mutex mutex_;
  std::uint64_t next_node_id_ = kRootNodeId + 1;
  std::unordered_map<std::uint64_t, Node> nodes_;
  std::unordered_map<Name, std::uint64_t, NameHash> node_by_name_;
  std::unordered_map<std::uint64_t, std::uint64_t> node_by_inode_;  // MRC inode -> node id
};

}  // namespace xtreemfs::fuse_adapter
