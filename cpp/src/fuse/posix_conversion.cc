#include "fuse/posix_conversion.h"

#include <cerrno>
#include <cstring>

namespace xtreemfs::fuse_adapter {
namespace {

struct timespec TimespecOf(std::uint64_t time_ns) {
  struct timespec result{};
  result.tv_sec = static_cast<time_t>(time_ns / 1'000'000'000ull);
  result.tv_nsec = static_cast<long>(time_ns % 1'000'000'000ull);
  return result;
}

std::uint64_t NanosecondsOf(const struct timespec& time) {
  return static_cast<std::uint64_t>(time.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(time.tv_nsec);
}

}  // namespace

void StatToPosix(const xtreemfs::mrc::Stat& stat, struct stat* out) {
  std::memset(out, 0, sizeof *out);
  out->st_ino = static_cast<ino_t>(stat.inode());
  out->st_mode = static_cast<mode_t>(stat.mode());
  out->st_nlink = static_cast<nlink_t>(stat.nlink());
  out->st_uid = static_cast<uid_t>(stat.uid());
  out->st_gid = static_cast<gid_t>(stat.gid());
  out->st_size = static_cast<off_t>(stat.size_bytes());
  out->st_atim = TimespecOf(stat.atime_ns());
  out->st_mtim = TimespecOf(stat.mtime_ns());
  out->st_ctim = TimespecOf(stat.ctime_ns());
  out->st_blksize = static_cast<blksize_t>(stat.blksize() == 0 ? 4096 : stat.blksize());
  out->st_rdev = static_cast<dev_t>(stat.rdev());
  // An MRC that does not count blocks still gets du(1) roughly right.
  out->st_blocks = static_cast<blkcnt_t>(stat.blocks() != 0 ? stat.blocks()
                                                             : (stat.size_bytes() + 511) / 512);
}

void StatvfsToPosix(const xtreemfs::mrc::StatvfsResponse& response, struct statvfs* out) {
  std::memset(out, 0, sizeof *out);
  out->f_bsize = response.block_size();
  out->f_frsize = response.block_size();
  out->f_blocks = response.total_blocks();
  out->f_bfree = response.free_blocks();
  out->f_bavail = response.available_blocks();
  out->f_files = response.total_inodes();
  out->f_ffree = response.free_inodes();
  out->f_favail = response.free_inodes();
  out->f_namemax = response.name_max() == 0 ? 255 : response.name_max();
}

int CopyToXattrBuffer(const std::string& value, char* buffer, std::size_t size) {
  if (size == 0) return static_cast<int>(value.size());
  if (size < value.size()) return -ERANGE;
  std::memcpy(buffer, value.data(), value.size());
  return static_cast<int>(value.size());
}

std::string JoinXattrNames(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) {
    joined += name;
    joined.push_back('\0');
  }
  return joined;
}

TimesUpdate TimesUpdateOf(const struct timespec times[2]) {
  TimesUpdate update;
  if (times == nullptr) {
    update.to_set = xtreemfs::mrc::SETATTR_ATIME_NOW | xtreemfs::mrc::SETATTR_MTIME_NOW;
    return update;
  }
  if (times[0].tv_nsec == UTIME_NOW) {
    update.to_set |= xtreemfs::mrc::SETATTR_ATIME_NOW;
  } else if (times[0].tv_nsec != UTIME_OMIT) {
    update.to_set |= xtreemfs::mrc::SETATTR_ATIME;
    update.stat.set_atime_ns(NanosecondsOf(times[0]));
  }
  if (times[1].tv_nsec == UTIME_NOW) {
    update.to_set |= xtreemfs::mrc::SETATTR_MTIME_NOW;
  } else if (times[1].tv_nsec != UTIME_OMIT) {
    update.to_set |= xtreemfs::mrc::SETATTR_MTIME;
    update.stat.set_mtime_ns(NanosecondsOf(times[1]));
  }
  return update;
}

}  // namespace xtreemfs::fuse_adapter
