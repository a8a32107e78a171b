#include "fuse/hard_link_names.h"

namespace xtreemfs::fuse_adapter {

HardLinkNames::HardLinkNames(std::size_t names_max) : names_max_(names_max) {}

void HardLinkNames::Note(const std::string& path, std::uint64_t inode, std::uint32_t nlink,
                         bool is_directory) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = by_path_.find(path);
  if (found != by_path_.end()) {
    if (found->second.inode == inode && nlink > 1 && !is_directory) return;
    Erase(found);
  }
  if (nlink > 1 && !is_directory) Insert(path, inode);
}

std::optional<HardLinkNames::OtherNames> HardLinkNames::OthersOf(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = by_path_.find(path);
  if (found == by_path_.end()) return std::nullopt;
  OtherNames others;
  others.inode = found->second.inode;
  auto range = paths_by_inode_.equal_range(others.inode);
  for (auto indexed = range.first; indexed != range.second; ++indexed) {
    if (indexed->second != path) others.paths.push_back(indexed->second);
  }
  return others;
}

void HardLinkNames::Forget(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = by_path_.find(path);
  if (found != by_path_.end()) Erase(found);
}

void HardLinkNames::Rename(const std::string& source, const std::string& target, bool exchange) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto moved = TakeSubtree(source);
  auto replaced = TakeSubtree(target);
  for (const auto& [suffix, inode] : moved) Insert(target + suffix, inode);
  if (exchange) {
    for (const auto& [suffix, inode] : replaced) Insert(source + suffix, inode);
  }
}

std::size_t HardLinkNames::size() {
  std::lock_guard<std::mutex> lock(mutex_);
  return by_path_.size();
}

void HardLinkNames::Insert(const std::string& path, std::uint64_t inode) {
  if (names_max_ == 0) return;
  auto found = by_path_.find(path);
  if (found != by_path_.end()) Erase(found);
  while (by_path_.size() >= names_max_) Erase(by_path_.find(ages_.front()));
  ages_.push_back(path);
  by_path_.emplace(path, Entry{inode, std::prev(ages_.end())});
  paths_by_inode_.emplace(inode, path);
}

HardLinkNames::EntryMap::iterator HardLinkNames::Erase(EntryMap::iterator entry) {
  auto range = paths_by_inode_.equal_range(entry->second.inode);
  for (auto indexed = range.first; indexed != range.second; ++indexed) {
    if (indexed->second == entry->first) {
      paths_by_inode_.erase(indexed);
      break;
    }
  }
  ages_.erase(entry->second.age);
  return by_path_.erase(entry);
}

std::vector<std::pair<std::string, std::uint64_t>> HardLinkNames::TakeSubtree(
    const std::string& path) {
  std::vector<std::pair<std::string, std::uint64_t>> taken;
  auto found = by_path_.find(path);
  if (found != by_path_.end()) {
    taken.emplace_back("", found->second.inode);
    Erase(found);
  }
  // Strings sharing a prefix are one contiguous range of the ordered map, starting at the prefix.
  const std::string prefix = path == "/" ? "/" : path + "/";
  for (auto entry = by_path_.lower_bound(prefix);
       entry != by_path_.end() && entry->first.compare(0, prefix.size(), prefix) == 0;) {
    taken.emplace_back(entry->first.substr(path == "/" ? 0 : path.size()), entry->second.inode);
    entry = Erase(entry);
  }
  return taken;
}

}  // namespace xtreemfs::fuse_adapter
