// HardLinkNames: which other names of a multiply-linked file the FUSE adapter refreshes after a change
// through one name, across notes, unlinks, renames (also of directories and RENAME_EXCHANGE) and the bound.
#include "fuse/hard_link_names.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace xtreemfs::fuse_adapter {
namespace {

std::vector<std::string> OthersOf(HardLinkNames& names, const std::string& path) {
  auto others = names.OthersOf(path);
  if (!others) return {"<not remembered>"};
  std::sort(others->paths.begin(), others->paths.end());
  return others->paths;
}

TEST(HardLinkNamesTest, RemembersOnlyNamesOfFilesWithSeveralLinks) {
  HardLinkNames names(100);
  names.Note("/single", 1, 1, false);
  names.Note("/dir", 2, 3, true);
  names.Note("/a", 7, 2, false);
  names.Note("/b", 7, 2, false);
  EXPECT_EQ(names.size(), 2u);
  EXPECT_EQ(OthersOf(names, "/a"), std::vector<std::string>{"/b"});
  EXPECT_EQ(OthersOf(names, "/b"), std::vector<std::string>{"/a"});
  EXPECT_FALSE(names.OthersOf("/single").has_value());
  EXPECT_EQ(names.OthersOf("/a")->inode, 7u);
  // Down to one link (or another file under the name): forgotten or re-indexed.
  names.Note("/b", 7, 1, false);
  EXPECT_EQ(OthersOf(names, "/a"), std::vector<std::string>{});
  names.Note("/a", 9, 2, false);
  EXPECT_EQ(names.OthersOf("/a")->inode, 9u);
}

TEST(HardLinkNamesTest, ForgetRemovesOneName) {
  HardLinkNames names(100);
  names.Note("/a", 7, 3, false);
  names.Note("/b", 7, 3, false);
  names.Note("/c", 7, 3, false);
  names.Forget("/c");
  EXPECT_EQ(OthersOf(names, "/a"), std::vector<std::string>{"/b"});
  names.Forget("/never");
  EXPECT_EQ(names.size(), 2u);
}

TEST(HardLinkNamesTest, RenameMovesNamesAtAndBelowTheSource) {
  HardLinkNames names(100);
  names.Note("/a", 7, 2, false);
  names.Note("/d/b", 7, 2, false);
  names.Note("/d/e/c", 8, 2, false);
  names.Note("/x", 8, 2, false);
  names.Note("/dd", 9, 2, false);  // shares the prefix "/d" but is not below "/d"
  names.Note("/z", 9, 2, false);
  names.Rename("/d", "/n", false);
  EXPECT_EQ(OthersOf(names, "/a"), std::vector<std::string>{"/n/b"});
  EXPECT_EQ(OthersOf(names, "/x"), std::vector<std::string>{"/n/e/c"});
  EXPECT_EQ(OthersOf(names, "/z"), std::vector<std::string>{"/dd"});
  // A replaced target's names go; the source's take its place.
  names.Rename("/a", "/x", false);
  EXPECT_EQ(OthersOf(names, "/x"), std::vector<std::string>{"/n/b"});
  EXPECT_EQ(OthersOf(names, "/n/e/c"), std::vector<std::string>{});
  EXPECT_FALSE(names.OthersOf("/a").has_value());
}

TEST(HardLinkNamesTest, ExchangeSwapsBothSides) {
  HardLinkNames names(100);
  names.Note("/p", 1, 2, false);
  names.Note("/q", 2, 2, false);
  names.Note("/p2", 1, 2, false);
  names.Note("/q2", 2, 2, false);
  names.Rename("/p", "/q", true);
  EXPECT_EQ(names.OthersOf("/q")->inode, 1u);
  EXPECT_EQ(names.OthersOf("/p")->inode, 2u);
  EXPECT_EQ(OthersOf(names, "/p2"), std::vector<std::string>{"/q"});
}

TEST(HardLinkNamesTest, BoundForgetsTheOldestName) {
  HardLinkNames names(3);
  names.Note("/a", 1, 2, false);
  names.Note("/b", 1, 2, false);
  names.Note("/c", 1, 2, false);
  names.Note("/d", 1, 2, false);
  EXPECT_EQ(names.size(), 3u);
  EXPECT_FALSE(names.OthersOf("/a").has_value());
  EXPECT_EQ(OthersOf(names, "/d"), (std::vector<std::string>{"/b", "/c"}));
  HardLinkNames none(0);
  none.Note("/a", 1, 2, false);
  EXPECT_EQ(none.size(), 0u);
}

}  // namespace
}  // namespace xtreemfs::fuse_adapter
