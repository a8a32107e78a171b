#include "fuse/fuse_operations.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/file.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <string>

#include "client/file_handle.h"
#include "fuse/posix_conversion.h"

namespace xtreemfs::fuse_adapter {
namespace {

constexpr int kSupplementaryGroupsMax = 64;
// Entries asked from the MRC per readdir batch; the loop below is bounded by the directory size.
constexpr std::uint32_t kReaddirBatchEntries = 1024;

MountContext& Context() { return *static_cast<MountContext*>(fuse_get_context()->private_data); }

// The calling process's identity, as the MRC checks permissions with it.
client::UserCredentials CallerCredentials() {
  const struct fuse_context* context = fuse_get_context();
  client::UserCredentials user;
  user.set_uid(context->uid);
  user.set_gid(context->gid);
  user.set_username(std::to_string(context->uid));
  gid_t groups[kSupplementaryGroupsMax];
  const int group_count = fuse_getgroups(kSupplementaryGroupsMax, groups);
  for (int i = 0; i < group_count && i < kSupplementaryGroupsMax; ++i) {
    user.add_supplementary_gids(groups[i]);
  }
  return user;
}

// Runs one operation; RpcError becomes its errno, anything else EIO. Expected POSIX answers are
// logged at debug level, failures of the system (I/O, timeouts, overload) at warn.
template <typename Operation>
int Run(const char* name, const char* path, Operation operation) {
  MountContext& context = Context();
  try {
    return operation(context);
  } catch (const rpc::RpcError& error) {
    const bool system_failure = error.kind() != rpc::ErrorKind::kErrno;
    context.log.Log(system_failure ? LogLevel::kWarn : LogLevel::kDebug,
                    std::string(name) + " " + (path == nullptr ? "" : path) + ": " + error.what());
    return -error.posix_errno();
  } catch (const std::exception& error) {
    context.log.Log(LogLevel::kError, std::string(name) + " " + (path == nullptr ? "" : path) +
                                          ": unexpected: " + error.what());
    return -EIO;
  }
}

// Gives an opened handle to the kernel (info->fh) and keeps track of it until Release (or Destroy).
// O_DIRECT: every read and write goes to the OSDs, bypassing the kernel's page cache and the
// client's write-behind and read-ahead.
void HandOver(MountContext& context, std::unique_ptr<client::FileHandle> handle,
              struct fuse_file_info* info) {
  info->direct_io = (info->flags & O_DIRECT) != 0 ? 1 : 0;
  if (info->direct_io) handle->DisableBuffering();
  std::lock_guard<std::mutex> lock(context.open_handles_mutex);
  context.open_handles.insert(handle.get());
  info->fh = reinterpret_cast<std::uintptr_t>(handle.release());
}

client::FileHandle* HandleOf(struct fuse_file_info* info) {
  return reinterpret_cast<client::FileHandle*>(static_cast<std::uintptr_t>(info->fh));
}

// Notes a name the kernel is given attributes of (see HardLinkNames).
void NoteName(MountContext& context, const std::string& path, const xtreemfs::mrc::Stat& stat) {
  context.hard_link_names.Note(path, stat.inode(), stat.nlink(), (stat.mode() & S_IFMT) == S_IFDIR);
}

// After a change through one name of a file (mode, owner, times, size or link count), its other names
// show it at once: the client's cached Stats of the file and the kernel's attributes of each other name
// (its own node in libfuse's high-level API) are dropped, so the next stat asks again.
void RefreshOtherNames(MountContext& context,
                       const std::optional<HardLinkNames::OtherNames>& others) {
  if (!others || others->paths.empty()) return;
  context.volume->metadata_cache().InvalidateInode(others->inode);
  for (const std::string& other : others->paths) {
    fuse_invalidate_path(fuse_get_context()->fuse, other.c_str());  // -ENOENT: not cached, fine
  }
}

// The size and mtime of a file changed through `path` (its data was written and reported to the MRC,
// or it was truncated): its other names show them at once, as after chmod.
void RefreshOtherNamesOfFile(MountContext& context, const char* path) {
  if (path != nullptr) RefreshOtherNames(context, context.hard_link_names.OthersOf(path));
}

// The path of `name` in directory `directory`.
std::string ChildPath(const char* directory, const std::string& name) {
  const std::string parent(directory);
  return parent == "/" ? "/" + name : parent + "/" + name;
}

// The kernel trusts attributes and names as long as the client's metadata cache does (so a change
// by another client shows after at most twice the TTL: kernel entry plus cache entry). Negative
// lookups are not cached, by the kernel or the client: a name created elsewhere is seen at once.
void ApplyCacheTimeouts(struct fuse_config* config) {
  const double ttl_seconds = Context().options.metadata_cache_ttl_ms / 1000.0;
  config->attr_timeout = ttl_seconds;
  config->entry_timeout = ttl_seconds;
  config->negative_timeout = 0;
}

// Requests of up to 1 MiB (8 objects of the default 128 KiB) let one FUSE write or read reach every
// OSD of the stripe at once; libfuse sizes its buffers before init, so this only ever lowers.
constexpr unsigned kFuseRequestBytesMax = 1 << 20;
// Kernel read-ahead and asynchronous direct I/O requests in flight (the kernel default is 12).
constexpr unsigned kFuseBackgroundRequestsMax = 64;

void* Init(struct fuse_conn_info* connection, struct fuse_config* config) {
  // Inode numbers come from the MRC; permissions are checked by the MRC, not by the kernel.
  config->use_ino = 1;
  config->nullpath_ok = 0;
  ApplyCacheTimeouts(config);
  connection->max_write = std::min(connection->max_write, kFuseRequestBytesMax);
  connection->max_background = kFuseBackgroundRequestsMax;
  connection->congestion_threshold = kFuseBackgroundRequestsMax * 3 / 4;
  // Concurrent reads of one file (kernel read-ahead) are fine: handles are thread-safe.
  if ((connection->capable & FUSE_CAP_ASYNC_READ) != 0) connection->want |= FUSE_CAP_ASYNC_READ;
  // No FUSE_CAP_WRITEBACK_CACHE: the kernel would then decide file sizes and batch writes itself,
  // which the client's size tracking and write-behind do not expect (see cpp/README.md).
  connection->want &= ~static_cast<unsigned>(FUSE_CAP_WRITEBACK_CACHE);
  MountContext& context = *static_cast<MountContext*>(fuse_get_context()->private_data);
  context.log.Log(LogLevel::kInfo,
                  "fuse init: max_write=" + std::to_string(connection->max_write) +
                      " max_readahead=" + std::to_string(connection->max_readahead) +
                      " max_background=" + std::to_string(connection->max_background) +
                      " async_read=" +
                      std::to_string((connection->want & FUSE_CAP_ASYNC_READ) != 0 ? 1 : 0));
  return fuse_get_context()->private_data;
}

// Called once after the request loop ended (unmount or a signal): handles the kernel never
// released still hold buffered writes; they are sent and the sizes reported now.
void Destroy(void* private_data) {
  MountContext& context = *static_cast<MountContext*>(private_data);
  std::set<client::FileHandle*> handles;
  {
    std::lock_guard<std::mutex> lock(context.open_handles_mutex);
    handles.swap(context.open_handles);
  }
  for (client::FileHandle* raw : handles) {
    std::unique_ptr<client::FileHandle> handle(raw);
    try {
      handle->Close();
    } catch (const std::exception& error) {
      context.log.Log(LogLevel::kError, "unmount: buffered data of file " + handle->file_id() +
                                            " not stored: " + error.what());
    }
  }
}

int Getattr(const char* path, struct stat* out, struct fuse_file_info* info) {
  return Run("getattr", path, [&](MountContext& context) {
    // Right after create libfuse asks with the new handle: the create's answer is that Stat.
    std::optional<xtreemfs::mrc::Stat> known;
    if (info != nullptr && info->fh != 0) known = HandleOf(info)->TakeCreatedStat();
    // The caller's credentials (its groups, read from /proc) only when the MRC is asked.
    if (!known) known = context.volume->CachedStat(path);
    const xtreemfs::mrc::Stat stat =
        known ? *known : context.volume->Getattr(CallerCredentials(), path);
    StatToPosix(stat, out);
    NoteName(context, path, stat);
    return 0;
  });
}

int Readlink(const char* path, char* buffer, size_t size) {
  return Run("readlink", path, [&](MountContext& context) {
    if (size == 0) return -EINVAL;
    const std::string target = context.volume->Readlink(CallerCredentials(), path);
    // readlink(2) through FUSE wants a NUL-terminated string, truncated if needed.
    const std::size_t copied = std::min(target.size(), size - 1);
    std::memcpy(buffer, target.data(), copied);
    buffer[copied] = '\0';
    return 0;
  });
}

int Mknod(const char* path, mode_t mode, dev_t rdev) {
  return Run("mknod", path, [&](MountContext& context) {
    context.volume->Mknod(CallerCredentials(), path, mode, rdev);
    return 0;
  });
}

int Mkdir(const char* path, mode_t mode) {
  return Run("mkdir", path, [&](MountContext& context) {
    context.volume->Mkdir(CallerCredentials(), path, mode);
    return 0;
  });
}

int Unlink(const char* path) {
  return Run("unlink", path, [&](MountContext& context) {
    const auto others = context.hard_link_names.OthersOf(path);
    context.volume->Unlink(CallerCredentials(), path);
    context.hard_link_names.Forget(path);
    RefreshOtherNames(context, others);
    return 0;
  });
}

int Rmdir(const char* path) {
  return Run("rmdir", path, [&](MountContext& context) {
    context.volume->Rmdir(CallerCredentials(), path);
    return 0;
  });
}

int Symlink(const char* target, const char* link_path) {
  return Run("symlink", link_path, [&](MountContext& context) {
    context.volume->Symlink(CallerCredentials(), target, link_path);
    return 0;
  });
}

int Rename(const char* source_path, const char* target_path, unsigned int flags) {
  return Run("rename", source_path, [&](MountContext& context) {
    // A replaced target that was one name of a multiply-linked file: its other names lose a link.
    const auto others = context.hard_link_names.OthersOf(target_path);
    context.volume->Rename(CallerCredentials(), source_path, target_path, flags);
    context.hard_link_names.Rename(source_path, target_path, (flags & RENAME_EXCHANGE) != 0);
    if ((flags & RENAME_EXCHANGE) == 0) RefreshOtherNames(context, others);
    return 0;
  });
}

int Link(const char* existing_path, const char* link_path) {
  return Run("link", link_path, [&](MountContext& context) {
    context.volume->Link(CallerCredentials(), existing_path, link_path);
    // The high-level API gives each path its own kernel inode, so the existing name's cached
    // attributes (link count, ctime) would stay stale for attr_timeout; drop them now.
    fuse_invalidate_path(fuse_get_context()->fuse, existing_path);
    RefreshOtherNames(context, context.hard_link_names.OthersOf(existing_path));
    return 0;
  });
}

int Chmod(const char* path, mode_t mode, struct fuse_file_info*) {
  return Run("chmod", path, [&](MountContext& context) {
    xtreemfs::mrc::Stat stat;
    stat.set_mode(mode);
    context.volume->Setattr(CallerCredentials(), path, stat, xtreemfs::mrc::SETATTR_MODE);
    RefreshOtherNames(context, context.hard_link_names.OthersOf(path));
    return 0;
  });
}

int Chown(const char* path, uid_t uid, gid_t gid, struct fuse_file_info*) {
  return Run("chown", path, [&](MountContext& context) {
    xtreemfs::mrc::Stat stat;
    std::uint32_t to_set = 0;
    // (uid_t)-1 and (gid_t)-1 mean "leave unchanged", as in chown(2).
    if (uid != static_cast<uid_t>(-1)) {
      stat.set_uid(uid);
      to_set |= xtreemfs::mrc::SETATTR_UID;
    }
    if (gid != static_cast<gid_t>(-1)) {
      stat.set_gid(gid);
      to_set |= xtreemfs::mrc::SETATTR_GID;
    }
    if (to_set != 0) context.volume->Setattr(CallerCredentials(), path, stat, to_set);
    RefreshOtherNames(context, context.hard_link_names.OthersOf(path));
    return 0;
  });
}

int Truncate(const char* path, off_t size, struct fuse_file_info* info) {
  return Run("truncate", path, [&](MountContext& context) {
    if (size < 0) return -EINVAL;
    if (info != nullptr && info->fh != 0) {
      HandleOf(info)->Truncate(static_cast<std::uint64_t>(size));
    } else {
      auto handle = context.volume->OpenFile(CallerCredentials(), path, O_WRONLY, 0);
      handle->Truncate(static_cast<std::uint64_t>(size));
      handle->Close();
    }
    RefreshOtherNamesOfFile(context, path);
    return 0;
  });
}

int Open(const char* path, struct fuse_file_info* info) {
  return Run("open", path, [&](MountContext& context) {
    auto handle = context.volume->OpenFile(CallerCredentials(), path,
                                           static_cast<std::uint32_t>(info->flags), 0);
    HandOver(context, std::move(handle), info);
    if ((info->flags & O_TRUNC) != 0) RefreshOtherNamesOfFile(context, path);
    return 0;
  });
}

int Create(const char* path, mode_t mode, struct fuse_file_info* info) {
  return Run("create", path, [&](MountContext& context) {
    auto handle = context.volume->OpenFile(
        CallerCredentials(), path, static_cast<std::uint32_t>(info->flags) | O_CREAT, mode);
    HandOver(context, std::move(handle), info);
    if ((info->flags & O_TRUNC) != 0) RefreshOtherNamesOfFile(context, path);
    return 0;
  });
}

// fallocate(2): plain allocation extends the size (objects are allocated lazily by the OSDs);
// KEEP_SIZE alone does nothing; PUNCH_HOLE and ZERO_RANGE write real zeros, inside the file size
// when KEEP_SIZE is set. Other modes (collapse, insert, unshare) are EOPNOTSUPP: Linux never forwards
// them to FUSE, and shifting striped objects is not possible in place (cpp/README.md).
int Fallocate(const char* path, int mode, off_t offset, off_t length, struct fuse_file_info* info) {
  return Run("fallocate", path, [&](MountContext&) {
    if (offset < 0 || length <= 0) return -EINVAL;
    const int supported = FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE;
    if ((mode & ~supported) != 0) return -EOPNOTSUPP;
    const bool keep_size = (mode & FALLOC_FL_KEEP_SIZE) != 0;
    if ((mode & FALLOC_FL_PUNCH_HOLE) != 0 && !keep_size) return -EOPNOTSUPP;  // as in Linux
    client::FileHandle* handle = HandleOf(info);
    const std::uint64_t start = static_cast<std::uint64_t>(offset);
    const std::uint64_t end = start + static_cast<std::uint64_t>(length);
    const std::uint64_t size = handle->KnownSizeBytes();
    if ((mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) != 0) {
      const std::uint64_t zero_end = keep_size ? std::min(end, size) : end;
      if (zero_end > start) handle->WriteZeros(start, zero_end - start);
      return 0;
    }
    if (!keep_size && end > size) handle->Truncate(end);
    return 0;
  });
}

int Read(const char* path, char* buffer, size_t size, off_t offset, struct fuse_file_info* info) {
  return Run("read", path, [&](MountContext&) {
    if (offset < 0) return -EINVAL;
    const std::string data = HandleOf(info)->Read(static_cast<std::uint64_t>(offset), size);
    std::memcpy(buffer, data.data(), data.size());
    return static_cast<int>(data.size());
  });
}

int Write(const char* path, const char* buffer, size_t size, off_t offset,
          struct fuse_file_info* info) {
  return Run("write", path, [&](MountContext&) {
    if (offset < 0) return -EINVAL;
    HandleOf(info)->Write(static_cast<std::uint64_t>(offset), std::string_view(buffer, size));
    return static_cast<int>(size);
  });
}

int Statfs(const char* path, struct statvfs* out) {
  return Run("statfs", path, [&](MountContext& context) {
    StatvfsToPosix(context.volume->Statvfs(CallerCredentials()), out);
    return 0;
  });
}

// close(2) of a descriptor: buffered writes are sent and their errors returned here (release
// cannot report errors to the application).
int Flush(const char* path, struct fuse_file_info* info) {
  return Run("flush", path, [&](MountContext& context) {
    HandleOf(info)->Flush();
    // The MRC has the written size and mtime now (the size report of the flush).
    RefreshOtherNamesOfFile(context, path);
    return 0;
  });
}

void ReleaseFlockOfClosedFile(const char* path, struct fuse_file_info* info);

int Release(const char* path, struct fuse_file_info* info) {
  ReleaseFlockOfClosedFile(path, info);
  std::unique_ptr<client::FileHandle> handle(HandleOf(info));
  info->fh = 0;
  {
    MountContext& context = Context();
    std::lock_guard<std::mutex> lock(context.open_handles_mutex);
    context.open_handles.erase(handle.get());
  }
  return Run("release", path, [&](MountContext& context) {
    handle->Close();
    RefreshOtherNamesOfFile(context, path);
    return 0;
  });
}

int Fsync(const char* path, int, struct fuse_file_info* info) {
  return Run("fsync", path, [&](MountContext& context) {
    HandleOf(info)->Fsync();
    RefreshOtherNamesOfFile(context, path);
    return 0;
  });
}

int Setxattr(const char* path, const char* name, const char* value, size_t size, int flags) {
  return Run("setxattr", path, [&](MountContext& context) {
    context.volume->Setxattr(CallerCredentials(), path, name, std::string(value, size),
                             static_cast<std::uint32_t>(flags));
    return 0;
  });
}

int Getxattr(const char* path, const char* name, char* buffer, size_t size) {
  return Run("getxattr", path, [&](MountContext& context) {
    // The kernel asks security.capability before every write: answered without the caller's groups.
    if (!client::Volume::MayHaveXattr(name)) return -ENODATA;
    return CopyToXattrBuffer(context.volume->Getxattr(CallerCredentials(), path, name), buffer, size);
  });
}

int Listxattr(const char* path, char* buffer, size_t size) {
  return Run("listxattr", path, [&](MountContext& context) {
    return CopyToXattrBuffer(JoinXattrNames(context.volume->Listxattr(CallerCredentials(), path)),
                             buffer, size);
  });
}

int Removexattr(const char* path, const char* name) {
  return Run("removexattr", path, [&](MountContext& context) {
    context.volume->Removexattr(CallerCredentials(), path, name);
    return 0;
  });
}

int Readdir(const char* path, void* buffer, fuse_fill_dir_t filler, off_t offset,
            struct fuse_file_info*, enum fuse_readdir_flags flags) {
  return Run("readdir", path, [&](MountContext& context) {
    const bool plus = (flags & FUSE_READDIR_PLUS) != 0;
    std::uint64_t next_offset = static_cast<std::uint64_t>(offset);
    // Each batch either makes progress or ends the loop, so it ends after at most
    // (entries / batch + 1) round trips.
    for (;;) {
      const std::uint64_t batch_start_offset = next_offset;
      const auto batch = context.volume->Readdir(CallerCredentials(), path, next_offset,
                                                 kReaddirBatchEntries, !plus);
      for (const auto& entry : batch.entries()) {
        struct stat entry_stat;
        StatToPosix(entry.stat(), &entry_stat);
        // readdirplus hands the kernel a name with attributes without a getattr of its own.
        if (plus && entry.name() != "." && entry.name() != "..") {
          NoteName(context, ChildPath(path, entry.name()), entry.stat());
        }
        const bool buffer_full =
            filler(buffer, entry.name().c_str(), plus ? &entry_stat : nullptr,
                   static_cast<off_t>(entry.next_offset()),
                   plus ? FUSE_FILL_DIR_PLUS : static_cast<enum fuse_fill_dir_flags>(0)) != 0;
        if (buffer_full) return 0;  // the kernel asks again from the last offset it received
        next_offset = entry.next_offset();
      }
      if (batch.end_of_directory() || batch.entries_size() == 0) return 0;
      if (next_offset <= batch_start_offset) {
        throw rpc::RpcError::Of(rpc::ErrorKind::kInternal,
                                "MRC readdir offsets do not advance past " +
                                    std::to_string(next_offset));
      }
    }
  });
}

int Access(const char* path, int mode) {
  return Run("access", path, [&](MountContext& context) {
    context.volume->Access(CallerCredentials(), path, static_cast<std::uint32_t>(mode));
    return 0;
  });
}

int Utimens(const char* path, const struct timespec times[2], struct fuse_file_info*) {
  return Run("utimens", path, [&](MountContext& context) {
    const TimesUpdate update = TimesUpdateOf(times);
    if (update.to_set != 0) {
      context.volume->Setattr(CallerCredentials(), path, update.stat, update.to_set);
      RefreshOtherNames(context, context.hard_link_names.OthersOf(path));
    }
    return 0;
  });
}

// --- advisory locks across mounts (client::LockClient; the head OSD keeps the lock table) -------

// F_GETLK, F_SETLK and F_SETLKW. libfuse's high-level layer also sends an unlock of the whole file
// through here on every flush (close(2) of a descriptor): POSIX drops all of a process's locks on a
// file when it closes any descriptor of it. The range arrives with l_whence = SEEK_SET.
int Lock(const char* path, struct fuse_file_info* info, int command, struct flock* lock) {
  return Run("lock", path, [&](MountContext& context) {
    if (lock->l_start < 0 || lock->l_len < 0) return -EINVAL;
    client::FileHandle& file = *HandleOf(info);
    client::LockSpec spec;
    spec.owner = info->lock_owner;
    spec.pid = static_cast<std::uint32_t>(lock->l_pid > 0 ? lock->l_pid : fuse_get_context()->pid);
    spec.offset_bytes = static_cast<std::uint64_t>(lock->l_start);
    spec.length_bytes = static_cast<std::uint64_t>(lock->l_len);
    spec.exclusive = lock->l_type == F_WRLCK;
    spec.kind = client::LockKind::kPosix;
    if (command == F_GETLK) {
      const auto holder = context.locks->Check(file, spec);
      if (!holder) {
        lock->l_type = F_UNLCK;
        return 0;
      }
      // The holder's pid as its own client saw it: the kernel maps it into the caller's pid
      // namespace, so a holder on another host (or a pid unknown here) shows as 0.
      lock->l_type = holder->exclusive() ? F_WRLCK : F_RDLCK;
      lock->l_whence = SEEK_SET;
      lock->l_start = static_cast<off_t>(holder->offset_bytes());
      lock->l_len = static_cast<off_t>(holder->length_bytes());
      lock->l_pid = static_cast<pid_t>(holder->pid());
      return 0;
    }
    if (command != F_SETLK && command != F_SETLKW) return -EINVAL;
    if (lock->l_type == F_UNLCK) {
      context.locks->Release(file, client::LockKind::kPosix, spec.owner, spec.offset_bytes,
                             spec.length_bytes);
      return 0;
    }
    if (command == F_SETLKW) {
      context.locks->Acquire(file, spec, [] { return fuse_interrupted() != 0; });
      return 0;
    }
    return context.locks->TryAcquire(file, spec) ? 0 : -EAGAIN;
  });
}

// flock(2): LOCK_SH, LOCK_EX (waiting unless LOCK_NB) and LOCK_UN; the owner is the open file.
int Flock(const char* path, struct fuse_file_info* info, int operation) {
  return Run("flock", path, [&](MountContext& context) {
    client::FileHandle& file = *HandleOf(info);
    const int mode = operation & (LOCK_SH | LOCK_EX | LOCK_UN);
    if (mode == LOCK_UN) {
      context.locks->Release(file, client::LockKind::kFlock, info->lock_owner);
      return 0;
    }
    if (mode != LOCK_SH && mode != LOCK_EX) return -EINVAL;
    client::LockSpec spec;
    spec.owner = info->lock_owner;
    spec.pid = static_cast<std::uint32_t>(fuse_get_context()->pid);
    spec.exclusive = mode == LOCK_EX;
    spec.kind = client::LockKind::kFlock;
    if ((operation & LOCK_NB) != 0) return context.locks->TryAcquire(file, spec) ? 0 : -EWOULDBLOCK;
    context.locks->Acquire(file, spec, [] { return fuse_interrupted() != 0; });
    return 0;
  });
}

// The last close of an open file that used flock: the kernel marks the release (flock_release),
// and libfuse's high-level layer leaves the unlock to the file system.
void ReleaseFlockOfClosedFile(const char* path, struct fuse_file_info* info) {
  if (!info->flock_release || info->fh == 0) return;
  Run("release flock", path, [&](MountContext& context) {
    context.locks->Release(*HandleOf(info), client::LockKind::kFlock, info->lock_owner);
    return 0;
  });
}

}  // namespace

struct fuse_operations MakeFuseOperations() {
  struct fuse_operations operations;
  std::memset(&operations, 0, sizeof operations);
  operations.init = Init;
  operations.destroy = Destroy;
  operations.getattr = Getattr;
  operations.readlink = Readlink;
  operations.mknod = Mknod;
  operations.mkdir = Mkdir;
  operations.unlink = Unlink;
  operations.rmdir = Rmdir;
  operations.symlink = Symlink;
  operations.rename = Rename;
  operations.link = Link;
  operations.chmod = Chmod;
  operations.chown = Chown;
  operations.truncate = Truncate;
  operations.open = Open;
  operations.create = Create;
  operations.read = Read;
  operations.write = Write;
  operations.statfs = Statfs;
  operations.flush = Flush;
  operations.release = Release;
  operations.fsync = Fsync;
  operations.setxattr = Setxattr;
  operations.getxattr = Getxattr;
  operations.listxattr = Listxattr;
  operations.removexattr = Removexattr;
  operations.readdir = Readdir;
  operations.access = Access;
  operations.utimens = Utimens;
  operations.fallocate = Fallocate;
  operations.lock = Lock;
  operations.flock = Flock;
  return operations;
}

}  // namespace xtreemfs::fuse_adapter
