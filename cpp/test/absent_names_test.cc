#include "client/absent_names.h"

#include <gtest/gtest.h>

#include "fake_cluster.h"

namespace xtreemfs::client {
namespace {

using testing::FakeClock;

constexpr std::uint32_t kTtlMs = 1000;

TEST(AbsentNamesTest, AListingTakenAfterEnoughMissesAnswersOtherNamesForOneTtlFromItsStart) {
  FakeClock clock;
  AbsentNames absent(clock, kTtlMs, 3, 100);
  EXPECT_EQ(absent.NoteMiss("/d"), 0u);
  EXPECT_EQ(absent.NoteMiss("/d"), 0u);
  const std::uint64_t ticket = absent.NoteMiss("/d");
  ASSERT_NE(ticket, 0u);
  EXPECT_EQ(absent.NoteMiss("/d"), 0u);  // one listing at a time
  EXPECT_FALSE(absent.KnownAbsent("/d", "new"));  // nothing known before the listing arrives
  clock.Advance(200);                             // the listing took 200 ms
  absent.Listed("/d", ticket, {"a", "b"}, true);
  EXPECT_TRUE(absent.KnownAbsent("/d", "new"));
  EXPECT_FALSE(absent.KnownAbsent("/d", "a"));
  EXPECT_FALSE(absent.KnownAbsent("/other", "new"));
  clock.Advance(kTtlMs - 200 - 1);
  EXPECT_TRUE(absent.KnownAbsent("/d", "new"));
  clock.Advance(1);  // trusted from the listing's start, not its end
  EXPECT_FALSE(absent.KnownAbsent("/d", "new"));
}

TEST(AbsentNamesTest, MissesSpreadOverMoreThanOneTtlListNothing) {
  FakeClock clock;
  AbsentNames absent(clock, kTtlMs, 2, 100);
  EXPECT_EQ(absent.NoteMiss("/d"), 0u);
  clock.Advance(kTtlMs);
  EXPECT_EQ(absent.NoteMiss("/d"), 0u);
  EXPECT_NE(absent.NoteMiss("/d"), 0u);
}

TEST(AbsentNamesTest, NamesChangedHereAreNeverAnsweredAbsentAlsoWhenChangedDuringTheListing) {
  FakeClock clock;
  AbsentNames absent(clock, kTtlMs, 1, 100);
  const std::uint64_t ticket = absent.NoteMiss("/d");
  absent.NoteChanged("/d/during");  // created while the listing ran, after the MRC read
  absent.Listed("/d", ticket, {}, true);
  EXPECT_FALSE(absent.KnownAbsent("/d", "during"));
  EXPECT_TRUE(absent.KnownAbsent("/d", "later"));
  absent.NoteChanged("/d/later");
  EXPECT_FALSE(absent.KnownAbsent("/d", "later"));
  absent.NoteChanged("/d/gone/");  // a trailing slash names the same entry
  EXPECT_FALSE(absent.KnownAbsent("/d", "gone"));
  // A miss while the listing is trusted is a name changed here: it lists nothing.
  EXPECT_EQ(absent.NoteMiss("/d"), 0u);
}

TEST(AbsentNamesTest, IncompleteOrForgottenListingsAreNotTrusted) {
  FakeClock clock;
  AbsentNames absent(clock, kTtlMs, 1, 100);
  absent.Listed("/d", absent.NoteMiss("/d"), {"a"}, false);  // an error or too many names
  EXPECT_FALSE(absent.KnownAbsent("/d", "new"));
  const std::uint64_t renamed = absent.NoteMiss("/d/sub");
  absent.ForgetSubtree("/d");  // renamed or removed while its listing ran
  absent.Listed("/d/sub", renamed, {}, true);
  EXPECT_FALSE(absent.KnownAbsent("/d/sub", "new"));
  const std::uint64_t ticket = absent.NoteMiss("/e/sub");
  absent.Listed("/e/sub", ticket, {}, true);
  absent.Listed("/dx", absent.NoteMiss("/dx"), {}, true);
  ASSERT_TRUE(absent.KnownAbsent("/e/sub", "new"));
  absent.ForgetSubtree("/e");
  EXPECT_FALSE(absent.KnownAbsent("/e/sub", "new"));
  EXPECT_TRUE(absent.KnownAbsent("/dx", "new"));  // not below /d
  absent.ForgetSubtree("/");
  EXPECT_FALSE(absent.KnownAbsent("/dx", "new"));
}

TEST(AbsentNamesTest, DisabledByAZeroTtlOrMissCount) {
  FakeClock clock;
  AbsentNames no_ttl(clock, 0, 1, 100);
  AbsentNames no_misses(clock, kTtlMs, 0, 100);
  EXPECT_EQ(no_ttl.NoteMiss("/d"), 0u);
  EXPECT_EQ(no_misses.NoteMiss("/d"), 0u);
  EXPECT_FALSE(no_ttl.KnownAbsent("/d", "x"));
}

}  // namespace
}  // namespace xtreemfs::client
