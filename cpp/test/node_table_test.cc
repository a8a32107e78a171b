// NodeTable: the low-level FUSE adapter's node ids, names, lookup counts and hidden names.
#include "fuse/node_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace xtreemfs::fuse_adapter {
namespace {

constexpr std::uint64_t kRoot = NodeTable::kRootNodeId;

TEST(NodeTableTest, PathsAreBuiltFromNamesUpToTheRoot) {
  NodeTable nodes;
  EXPECT_EQ(nodes.PathOf(kRoot), "/");
  const auto dir = nodes.Remember(kRoot, "dir", 10, true, 2);
  const auto file = nodes.Remember(dir, "f", 11, false, 1);
  EXPECT_NE(dir, kRoot);
  EXPECT_NE(file, dir);
  EXPECT_EQ(nodes.PathOf(dir), "/dir");
  EXPECT_EQ(nodes.PathOf(file), "/dir/f");
  EXPECT_EQ(nodes.PathOf(dir, "new"), "/dir/new");
  EXPECT_EQ(nodes.PathOf(kRoot, "x"), "/x");
  EXPECT_EQ(nodes.NodeNamed(dir, "f"), file);
  EXPECT_EQ(nodes.NodeNamed(dir, "g"), 0u);
  EXPECT_EQ(nodes.InodeOf(file), 11u);
  EXPECT_FALSE(nodes.PathOf(12345).has_value());
}

// Paths are built on the stack up to some depth and on the heap beyond it: both give the same
// paths, at every depth around the boundary, also with a name appended and for a hidden name.
TEST(NodeTableTest, PathsOfDeepTreesAndOfNamesInThemAreWhole) {
  NodeTable nodes;
  std::uint64_t directory = kRoot;
  std::string expected;
  for (int depth = 1; depth <= 80; ++depth) {
    // Names longer than a short string's inline buffer, so each one is a separate allocation.
    const std::string name = "directory-with-a-long-name-" + std::to_string(depth);
    directory = nodes.Remember(directory, name, 1000 + depth, true, 2);
    expected += "/" + name;
    ASSERT_EQ(nodes.PathOf(directory), expected) << depth;
    ASSERT_EQ(nodes.PathOf(directory, "f"), expected + "/f") << depth;
  }
  const auto file = nodes.Remember(directory, "open", 5000, false, 1);
  nodes.Opened(file);
  nodes.MarkHidden(directory, "open");
  EXPECT_EQ(nodes.Released(file), std::vector<std::string>{expected + "/open"});
}

TEST(NodeTableTest, HardLinksShareOneNodeAndUnlinkOfOneNameKeepsTheOther) {
  NodeTable nodes;
  const auto a = nodes.Remember(kRoot, "a", 20, false, 2);
  const auto b = nodes.Remember(kRoot, "b", 20, false, 2);
  EXPECT_EQ(a, b);  // one kernel inode: attributes shared by both names
  EXPECT_TRUE(nodes.HasOtherName(a, kRoot, "a"));
  nodes.RemoveName(kRoot, "a");
  EXPECT_EQ(nodes.PathOf(a), "/b");
  EXPECT_FALSE(nodes.HasOtherName(a, kRoot, "b"));
}

TEST(NodeTableTest, AFileWithOneLinkFoundUnderANewNameLosesItsStaleName) {
  NodeTable nodes;
  const auto old_name = nodes.Remember(kRoot, "old", 30, false, 1);
  // Another client renamed it: the lookup of the new name finds the same inode with one link.
  const auto new_name = nodes.Remember(kRoot, "new", 30, false, 1);
  EXPECT_EQ(old_name, new_name);
  EXPECT_EQ(nodes.PathOf(new_name), "/new");
  EXPECT_EQ(nodes.NodeNamed(kRoot, "old"), 0u);
  // A name now naming another file moves to that file's node.
  const auto other = nodes.Remember(kRoot, "new", 31, false, 1);
  EXPECT_NE(other, new_name);
  EXPECT_EQ(nodes.NodeNamed(kRoot, "new"), other);
  EXPECT_FALSE(nodes.PathOf(new_name).has_value());  // no name left, still counted by the kernel
}

TEST(NodeTableTest, ForgetFreesANodeOnceNoLookupsOrChildNamesHoldIt) {
  NodeTable nodes;
  const auto dir = nodes.Remember(kRoot, "dir", 40, true, 2);
  const auto file = nodes.Remember(dir, "f", 41, false, 1);
  nodes.Remember(dir, "f", 41, false, 1);  // a second lookup of the same name
  EXPECT_EQ(nodes.size(), 3u);
  nodes.Forget(dir, 1);
  // The directory stays: its child's name needs it for the child's path.
  EXPECT_EQ(nodes.PathOf(file), "/dir/f");
  nodes.Forget(file, 1);
  EXPECT_EQ(nodes.PathOf(file), "/dir/f");  // one lookup left
  nodes.Forget(file, 1);
  EXPECT_EQ(nodes.size(), 1u);  // the file, then the directory it held, are gone; the root stays
  EXPECT_FALSE(nodes.PathOf(dir).has_value());
  nodes.Forget(kRoot, 5);
  EXPECT_EQ(nodes.PathOf(kRoot), "/");
}

TEST(NodeTableTest, RenameOfADirectoryMovesEverythingBelowIt) {
  NodeTable nodes;
  const auto dir = nodes.Remember(kRoot, "dir", 50, true, 2);
  const auto sub = nodes.Remember(dir, "sub", 51, true, 2);
  const auto file = nodes.Remember(sub, "f", 52, false, 1);
  const auto target = nodes.Remember(kRoot, "target", 53, true, 2);
  nodes.Rename(kRoot, "dir", target, "moved", false);
  EXPECT_EQ(nodes.PathOf(file), "/target/moved/sub/f");
  EXPECT_EQ(nodes.PathOf(dir), "/target/moved");
  EXPECT_EQ(nodes.NodeNamed(kRoot, "dir"), 0u);
}

TEST(NodeTableTest, RenameReplacesOrExchangesTheTarget) {
  NodeTable nodes;
  const auto x = nodes.Remember(kRoot, "x", 60, false, 1);
  const auto y = nodes.Remember(kRoot, "y", 61, false, 1);
  nodes.Rename(kRoot, "x", kRoot, "y", true);
  EXPECT_EQ(nodes.PathOf(x), "/y");
  EXPECT_EQ(nodes.PathOf(y), "/x");
  nodes.Rename(kRoot, "x", kRoot, "y", false);  // y's file (node y) is replaced
  EXPECT_EQ(nodes.PathOf(y), "/y");
  EXPECT_FALSE(nodes.PathOf(x).has_value());
  EXPECT_EQ(nodes.NodeNamed(kRoot, "x"), 0u);
}

TEST(NodeTableTest, ARenamedHardLinkKeepsItsPlaceAsThePathOfItsNode) {
  NodeTable nodes;
  const auto node = nodes.Remember(kRoot, "a", 70, false, 2);
  nodes.Remember(kRoot, "b", 70, false, 2);
  nodes.Rename(kRoot, "a", kRoot, "c", false);
  EXPECT_EQ(nodes.PathOf(node), "/c");
  nodes.RemoveName(kRoot, "c");
  EXPECT_EQ(nodes.PathOf(node), "/b");
}

TEST(NodeTableTest, HiddenNamesOfAnOpenFileAreHandedOutAtItsLastRelease) {
  NodeTable nodes;
  const auto node = nodes.Remember(kRoot, "f", 80, false, 1);
  nodes.Opened(node);
  nodes.Opened(node);
  EXPECT_TRUE(nodes.IsOpen(node));
  nodes.Rename(kRoot, "f", kRoot, ".fuse_hidden1", false);
  nodes.MarkHidden(kRoot, ".fuse_hidden1");
  nodes.Forget(node, 1);  // the kernel dropped the unlinked name; the open handles keep the node
  EXPECT_EQ(nodes.PathOf(node), "/.fuse_hidden1");
  EXPECT_TRUE(nodes.Released(node).empty());
  EXPECT_EQ(nodes.Released(node), std::vector<std::string>{"/.fuse_hidden1"});
  EXPECT_FALSE(nodes.IsOpen(node));
  nodes.RemoveName(kRoot, ".fuse_hidden1");
  EXPECT_EQ(nodes.size(), 1u);
}

}  // namespace
}  // namespace xtreemfs::fuse_adapter
