#include "fuse/node_table.h"

#include <algorithm>
#include <utility>

namespace xtreemfs::fuse_adapter {

NodeTable::NodeTable() {
  Node root;
  root.is_directory = true;
  nodes_.emplace(kRootNodeId, std::move(root));
}

std::uint64_t NodeTable::Remember(std::uint64_t parent, const std::string& name,
                                  std::uint64_t inode, bool is_directory, std::uint32_t nlink) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  const Name key(parent, name);
  std::uint64_t node_id = 0;
  auto named = node_by_name_.find(key);
  if (named != node_by_name_.end()) {
    auto node = nodes_.find(named->second);
    if (node != nodes_.end() && node->second.inode == inode) node_id = named->second;
  }
  if (node_id == 0) {
    auto by_inode = node_by_inode_.find(inode);
    if (by_inode != node_by_inode_.end()) {
      node_id = by_inode->second;
    } else {
      node_id = next_node_id_++;
      Node node;
      node.inode = inode;
      node.is_directory = is_directory;
      nodes_.emplace(node_id, std::move(node));
      node_by_inode_.emplace(inode, node_id);
    }
  }
  Node& node = nodes_.at(node_id);
  // Counted first, so detaching stale names below never frees the node itself.
  ++node.lookups;
  if (auto current = node_by_name_.find(key);
      current == node_by_name_.end() || current->second != node_id) {
    Detach(key);  // the name named another (older) file
    if (is_directory || nlink <= 1) {
      // Only this name is real now; the others were renamed or removed elsewhere.
      std::vector<Name> stale = node.names;
      for (const Name& old : stale) Detach(old);
    }
    Attach(node_id, key);
  }
  return node_id;
}

void NodeTable::Forget(std::uint64_t node_id, std::uint64_t count) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto node = nodes_.find(node_id);
  if (node == nodes_.end() || node_id == kRootNodeId) return;
  node->second.lookups -= std::min(count, node->second.lookups);
  FreeIfUnused(node_id);
}

std::optional<std::string> NodeTable::PathOf(std::uint64_t node_id) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  return PathLocked(node_id);
}

std::optional<std::string> NodeTable::PathOf(std::uint64_t parent, const std::string& name) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  return PathLocked(parent, &name);
}

std::uint64_t NodeTable::NodeNamed(std::uint64_t parent, const std::string& name) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto named = node_by_name_.find(Name(parent, name));
  return named == node_by_name_.end() ? 0 : named->second;
}

std::uint64_t NodeTable::InodeOf(std::uint64_t node_id) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto node = nodes_.find(node_id);
  return node == nodes_.end() ? 0 : node->second.inode;
}

bool NodeTable::HasOtherName(std::uint64_t node_id, std::uint64_t parent,
                             const std::string& name) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto node = nodes_.find(node_id);
  if (node == nodes_.end()) return false;
  for (const Name& other : node->second.names) {
    if (other != Name(parent, name)) return true;
  }
  return false;
}

void NodeTable::RemoveName(std::uint64_t parent, const std::string& name) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  Detach(Name(parent, name));
}

void NodeTable::Rename(std::uint64_t parent, const std::string& name, std::uint64_t new_parent,
                       const std::string& new_name, bool exchange) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  const Name source(parent, name);
  const Name target(new_parent, new_name);
  if (source == target) return;
  auto source_named = node_by_name_.find(source);
  const std::uint64_t moved = source_named == node_by_name_.end() ? 0 : source_named->second;
  auto target_named = node_by_name_.find(target);
  const std::uint64_t replaced = target_named == node_by_name_.end() ? 0 : target_named->second;
  // Keep both nodes alive while their names move (Detach may free a node without other holds).
  if (moved != 0) ++nodes_.at(moved).lookups;
  if (replaced != 0) ++nodes_.at(replaced).lookups;
  // A moved name keeps its place among the node's names, so the node's path stays its first name.
  auto rename_in_place = [&](std::uint64_t node_id, const Name& from, const Name& to) {
    Node& node = nodes_.at(node_id);
    const auto index = static_cast<std::size_t>(
        std::find(node.names.begin(), node.names.end(), from) - node.names.begin());
    Attach(node_id, to);  // before Detach: the old parent may lose its last hold
    Detach(from);
    auto attached = std::find(node.names.begin(), node.names.end(), to);
    if (attached != node.names.end() && index < node.names.size()) {
      std::rotate(node.names.begin() + static_cast<std::ptrdiff_t>(index), attached, attached + 1);
    }
  };
  if (replaced != 0) Detach(target);
  if (moved != 0) rename_in_place(moved, source, target);
  if (exchange && replaced != 0) Attach(replaced, source);
  if (moved != 0) {
    --nodes_.at(moved).lookups;
    FreeIfUnused(moved);
  }
  if (replaced != 0) {
    --nodes_.at(replaced).lookups;
    FreeIfUnused(replaced);
  }
}

void NodeTable::Opened(std::uint64_t node_id) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto node = nodes_.find(node_id);
  if (node != nodes_.end()) ++node->second.open_count;
}

std::vector<std::string> NodeTable::Released(std::uint64_t node_id) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  std::vector<std::string> hidden_paths;
  auto node = nodes_.find(node_id);
  if (node == nodes_.end()) return hidden_paths;
  if (node->second.open_count > 0) --node->second.open_count;
  if (node->second.open_count == 0) {
    for (const Name& hidden : node->second.hidden_names) {
      if (auto path = PathLocked(hidden.first, &hidden.second)) hidden_paths.push_back(std::move(*path));
    }
    // The names go with the unlink; the caller removes them (RemoveName) once it is done.
    node->second.hidden_names.clear();
    FreeIfUnused(node_id);
  }
  return hidden_paths;
}

bool NodeTable::IsOpen(std::uint64_t node_id) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto node = nodes_.find(node_id);
  return node != nodes_.end() && node->second.open_count > 0;
}

void NodeTable::MarkHidden(std::uint64_t parent, const std::string& name) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto named = node_by_name_.find(Name(parent, name));
  if (named != node_by_name_.end()) {
    nodes_.at(named->second).hidden_names.emplace_back(parent, name);
  }
}

std::size_t NodeTable::size() const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  return nodes_.size();
}

void NodeTable::Attach(std::uint64_t node_id, const Name& name) {
  auto parent = nodes_.find(name.first);
  if (parent == nodes_.end()) return;  // a parent the kernel forgot: the name cannot become a path
  ++parent->second.child_names;
  nodes_.at(node_id).names.push_back(name);
  node_by_name_[name] = node_id;
}

void NodeTable::Detach(const Name& name) {
  auto named = node_by_name_.find(name);
  if (named == node_by_name_.end()) return;
  const std::uint64_t node_id = named->second;
  node_by_name_.erase(named);
  auto node = nodes_.find(node_id);
  if (node != nodes_.end()) {
    auto& names = node->second.names;
    names.erase(std::remove(names.begin(), names.end(), name), names.end());
    auto& hidden = node->second.hidden_names;
    hidden.erase(std::remove(hidden.begin(), hidden.end(), name), hidden.end());
  }
  auto parent = nodes_.find(name.first);
  if (parent != nodes_.end() && parent->second.child_names > 0) {
    --parent->second.child_names;
    FreeIfUnused(name.first);
  }
  if (node != nodes_.end()) FreeIfUnused(node_id);
}

void NodeTable::FreeIfUnused(std::uint64_t node_id) {
  if (node_id == kRootNodeId) return;
  auto node = nodes_.find(node_id);
  if (node == nodes_.end()) return;
  const Node& held = node->second;
  if (held.lookups > 0 || held.child_names > 0 || held.open_count > 0) return;
  if (held.names.empty()) {
    auto by_inode = node_by_inode_.find(held.inode);
    if (by_inode != node_by_inode_.end() && by_inode->second == node_id) {
      node_by_inode_.erase(by_inode);
    }
    nodes_.erase(node);
    return;
  }
  // Dropping the names frees the node through Detach once the last one is gone (recursion depth:
  // one level per ancestor that loses its last hold).
  std::vector<Name> names = held.names;
  for (const Name& name : names) Detach(name);
}

std::optional<std::string> NodeTable::PathLocked(std::uint64_t node_id,
                                                 const std::string* leaf) const {
  // The names from `node_id` up to the root, deepest first, on the stack for the usual depths: a path
  // is asked on every request (perf of a create loop: this vector and the joined copy of a
  // (parent, name) path were 2 of the mount's ~66 mallocs per create).
  constexpr std::size_t kInlineDepth = 32;
  const std::string* inline_components[kInlineDepth];
  std::vector<const std::string*> deep_components;  // all of them, once deeper than kInlineDepth
  std::size_t depth = 0;
  std::size_t length = leaf == nullptr ? 0 : leaf->size() + 1;
  std::uint64_t current = node_id;
  // Each step goes one level up; more steps than nodes means a cycle of stale names.
  for (std::size_t steps = 0; current != kRootNodeId; ++steps) {
    if (steps > nodes_.size()) return std::nullopt;
    auto node = nodes_.find(current);
    if (node == nodes_.end() || node->second.names.empty()) return std::nullopt;
    const Name& name = node->second.names.front();
    if (depth == kInlineDepth) deep_components.assign(inline_components, inline_components + kInlineDepth);
    if (depth < kInlineDepth) {
      inline_components[depth] = &name.second;
    } else {
      deep_components.push_back(&name.second);
    }
    ++depth;
    length += name.second.size() + 1;
    current = name.first;
  }
  if (depth == 0 && leaf == nullptr) return std::string("/");
  const std::string* const* components = depth > kInlineDepth ? deep_components.data() : inline_components;
  std::string path;
  path.reserve(length);
  for (std::size_t i = depth; i-- > 0;) {
    path += '/';
    path += *components[i];
  }
  if (leaf != nullptr) {
    path += '/';
    path += *leaf;
  }
  return path;
}

}  // namespace xtreemfs::fuse_adapter
