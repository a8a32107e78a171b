#include "fuse/posix_conversion.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace xtreemfs::fuse_adapter {
namespace {

TEST(PosixConversionTest, StatFieldsAndNanosecondTimesCarryOver) {
  // Every Stat field lands in struct stat; nanosecond times split into seconds and nanoseconds.
  xtreemfs::mrc::Stat stat;
  stat.set_inode(77);
  stat.set_mode(0100640);
  stat.set_nlink(2);
  stat.set_uid(1000);
  stat.set_gid(100);
  stat.set_size_bytes(1025);
  stat.set_mtime_ns(1'700'000'000'123'456'789ull);
  stat.set_rdev(0x0801);
  struct stat out;
  StatToPosix(stat, &out);
  EXPECT_EQ(out.st_ino, 77u);
  EXPECT_EQ(out.st_mode, 0100640u);
  EXPECT_EQ(out.st_nlink, 2u);
  EXPECT_EQ(out.st_uid, 1000u);
  EXPECT_EQ(out.st_gid, 100u);
  EXPECT_EQ(out.st_size, 1025);
  EXPECT_EQ(out.st_mtim.tv_sec, 1'700'000'000);
  EXPECT_EQ(out.st_mtim.tv_nsec, 123'456'789);
  EXPECT_EQ(out.st_rdev, 0x0801u);
  EXPECT_EQ(out.st_blocks, 3);  // 1025 bytes round up to three 512-byte blocks when the MRC says 0
}

TEST(PosixConversionTest, XattrBufferFollowsPosixSizeProtocol) {
  // Size 0 asks for the length; a short buffer is ERANGE; names are NUL-terminated in a list.
  char buffer[8];
  EXPECT_EQ(CopyToXattrBuffer("value", buffer, 0), 5);
  EXPECT_EQ(CopyToXattrBuffer("value", buffer, 4), -ERANGE);
  EXPECT_EQ(CopyToXattrBuffer("value", buffer, sizeof buffer), 5);
  EXPECT_EQ(std::string(buffer, 5), "value");
  EXPECT_EQ(JoinXattrNames({"user.a", "user.bc"}), std::string("user.a\0user.bc\0", 15));
}

TEST(PosixConversionTest, UtimensMapsNowOmitAndExplicitTimes) {
  // UTIME_NOW asks the MRC for its clock, UTIME_OMIT changes nothing, explicit times are sent in ns.
  struct timespec times[2] = {{0, UTIME_OMIT}, {5, 6}};
  TimesUpdate update = TimesUpdateOf(times);
  EXPECT_EQ(update.to_set, static_cast<std::uint32_t>(xtreemfs::mrc::SETATTR_MTIME));
  EXPECT_EQ(update.stat.mtime_ns(), 5'000'000'006ull);
  struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
  EXPECT_EQ(TimesUpdateOf(now).to_set,
            static_cast<std::uint32_t>(xtreemfs::mrc::SETATTR_ATIME_NOW |
                                       xtreemfs::mrc::SETATTR_MTIME_NOW));
  EXPECT_EQ(TimesUpdateOf(nullptr).to_set, TimesUpdateOf(now).to_set);
}

}  // namespace
}  // namespace xtreemfs::fuse_adapter
