// Conversions between the MRC's messages and POSIX structures, kept apart from libfuse so they are
// unit-testable.
#pragma once

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mrc.pb.h"

namespace xtreemfs::fuse_adapter {

void StatToPosix(const xtreemfs::mrc::Stat& stat, struct stat* out);
void StatvfsToPosix(const xtreemfs::mrc::StatvfsResponse& response, struct statvfs* out);

// Fills a getxattr/listxattr buffer the POSIX way: with size 0 returns the needed size; with a
// buffer too small returns -ERANGE; otherwise copies and returns the length.
int CopyToXattrBuffer(const std::string& value, char* buffer, std::size_t size);
// The listxattr format: names each followed by '\0'.
std::string JoinXattrNames(const std::vector<std::string>& names);

// SETATTR fields and values for utimens(2) times; UTIME_OMIT sets nothing, UTIME_NOW asks the MRC
// to use its clock.
struct TimesUpdate {
  std::uint32_t to_set = 0;
  xtreemfs::mrc::Stat stat;
};
TimesUpdate TimesUpdateOf(const struct timespec times[2]);

}  // namespace xtreemfs::fuse_adapter
