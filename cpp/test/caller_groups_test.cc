#include "fuse/caller_groups.h"

#include <gtest/gtest.h>

#include "fake_cluster.h"

namespace xtreemfs::fuse_adapter {
namespace {

using xtreemfs::client::testing::FakeClock;

constexpr std::uint32_t kTtlMs = 1000;
constexpr int kGroupsMax = 64;

// A /proc stand-in: answers `groups` and counts how often it was read.
struct FakeProc {
  std::vector<gid_t> groups;
  int reads = 0;
  int failing = 0;  // the next this many reads fail (-1), as for a caller that exited meanwhile
  CallerGroups::Reader reader() {
    return [this](int size, gid_t* out) {
      ++reads;
      if (failing > 0) {
        --failing;
        return -1;
      }
      for (int i = 0; i < size && i < static_cast<int>(groups.size()); ++i) out[i] = groups[i];
      return static_cast<int>(groups.size());
    };
  }
};

TEST(CallerGroupsTest, OneThreadsGroupsAreReadOncePerTtl) {
  FakeClock clock;
  CallerGroups cache(clock, kTtlMs);
  FakeProc proc{{10, 20}};
  EXPECT_EQ(cache.Of(100, 1000, 1000, kGroupsMax, proc.reader()), (std::vector<gid_t>{10, 20}));
  proc.groups = {30};  // setgroups(2): seen only after the TTL
  clock.Advance(kTtlMs - 1);
  EXPECT_EQ(cache.Of(100, 1000, 1000, kGroupsMax, proc.reader()), (std::vector<gid_t>{10, 20}));
  EXPECT_EQ(proc.reads, 1);
  clock.Advance(1);
  EXPECT_EQ(cache.Of(100, 1000, 1000, kGroupsMax, proc.reader()), (std::vector<gid_t>{30}));
  EXPECT_EQ(proc.reads, 2);
  EXPECT_EQ(cache.reads(), 2u);
}

TEST(CallerGroupsTest, AnotherThreadOrAnotherUidOrGidIsReadAgain) {
  FakeClock clock;
  CallerGroups cache(clock, kTtlMs);
  FakeProc proc{{10}};
  cache.Of(100, 1000, 1000, kGroupsMax, proc.reader());
  cache.Of(101, 1000, 1000, kGroupsMax, proc.reader());  // another thread
  cache.Of(100, 1001, 1000, kGroupsMax, proc.reader());  // setuid: another caller
  cache.Of(100, 1001, 1001, kGroupsMax, proc.reader());  // setgid
  EXPECT_EQ(proc.reads, 4);
  cache.Of(101, 1000, 1000, kGroupsMax, proc.reader());
  EXPECT_EQ(proc.reads, 4);
}

TEST(CallerGroupsTest, AFailedReadGivesNoGroupsAndIsNotKept) {
  FakeClock clock;
  CallerGroups cache(clock, kTtlMs);
  FakeProc proc{{10}};
  proc.failing = 1;
  EXPECT_TRUE(cache.Of(100, 1000, 1000, kGroupsMax, proc.reader()).empty());
  EXPECT_EQ(cache.Of(100, 1000, 1000, kGroupsMax, proc.reader()), (std::vector<gid_t>{10}));
  EXPECT_EQ(proc.reads, 2);
}

TEST(CallerGroupsTest, MoreGroupsThanAskedForAreCutAtTheMaximum) {
  FakeClock clock;
  CallerGroups cache(clock, kTtlMs);
  FakeProc proc{{1, 2, 3, 4, 5}};
  EXPECT_EQ(cache.Of(100, 0, 0, 3, proc.reader()), (std::vector<gid_t>{1, 2, 3}));
}

TEST(CallerGroupsTest, TtlZeroReadsEveryTime) {
  FakeClock clock;
  CallerGroups cache(clock, 0);
  FakeProc proc{{10}};
  cache.Of(100, 1000, 1000, kGroupsMax, proc.reader());
  cache.Of(100, 1000, 1000, kGroupsMax, proc.reader());
  EXPECT_EQ(proc.reads, 2);
}

TEST(CallerGroupsTest, BoundedByForgettingAllWhenOneMoreThreadComes) {
  FakeClock clock;
  CallerGroups cache(clock, kTtlMs, 2);
  FakeProc proc{{10}};
  cache.Of(1, 0, 0, kGroupsMax, proc.reader());
  cache.Of(2, 0, 0, kGroupsMax, proc.reader());
  cache.Of(1, 0, 0, kGroupsMax, proc.reader());  // kept
  EXPECT_EQ(proc.reads, 2);
  cache.Of(3, 0, 0, kGroupsMax, proc.reader());  // a third thread: the two kept ones go
  cache.Of(1, 0, 0, kGroupsMax, proc.reader());
  EXPECT_EQ(proc.reads, 4);
}

}  // namespace
}  // namespace xtreemfs::fuse_adapter
