#include "fuse/fuse_operations.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/file.h>
#include <sys/uio.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <future>
#include <sstream>
#include <optional>
#include <string>
#include <vector>

#include "client/directory_listing.h"
#include "client/file_handle.h"
#include "fuse/posix_conversion.h"
#include "rpc/wait_notice.h"

namespace xtreemfs::fuse_adapter {
namespace {

constexpr int kSupplementaryGroupsMax = 64;
// Entries asked from the MRC per page of an open directory's listing (client::DirectoryListing),
// which serves the kernel's readdir requests of a few KiB each from it.
constexpr std::uint32_t kReaddirBatchEntries = 1024;
// An operation returns this when it has answered the kernel itself; any other value is an errno.
constexpr int kAnswered = 0;

MountContext& ContextOf(fuse_req_t request) {
  return *static_cast<MountContext*>(fuse_req_userdata(request));
}

// The calling thread's identity, as the MRC checks permissions with it. Its supplementary groups
// come from /proc through libfuse, reused for --caller-groups-ttl-ms (caller_groups.h says why
// that is safe with default_permissions).
client::UserCredentials CallerCredentials(fuse_req_t request) {
  const struct fuse_ctx* caller = fuse_req_ctx(request);
  client::UserCredentials user;
  user.set_uid(caller->uid);
  user.set_gid(caller->gid);
  user.set_username(std::to_string(caller->uid));
  const std::vector<gid_t> groups = ContextOf(request).caller_groups->Of(
      caller->pid, caller->uid, caller->gid, kSupplementaryGroupsMax,
      [request](int size, gid_t* list) { return fuse_req_getgroups(request, size, list); });
  for (const gid_t group : groups) user.add_supplementary_gids(group);
  return user;
}

// The errno to answer for the exception being handled: RpcError's own, anything else EIO. Expected
// POSIX answers are logged at debug level, failures of the system (I/O, timeouts, overload) at warn.
int ErrnoOfCurrentException(MountContext& context, const char* name, fuse_ino_t node) {
  try {
    throw;
  } catch (const rpc::RpcError& failure) {
    const bool system_failure = failure.kind() != rpc::ErrorKind::kErrno;
    context.log.Log(system_failure ? LogLevel::kWarn : LogLevel::kDebug,
                    std::string(name) + " node " + std::to_string(node) + ": " + failure.what());
    return failure.posix_errno();
  } catch (const std::exception& failure) {
    context.log.Log(LogLevel::kError, std::string(name) + " node " + std::to_string(node) +
                                          ": unexpected: " + failure.what());
  } catch (...) {
    context.log.Log(LogLevel::kError, std::string(name) + " node " + std::to_string(node) +
                                          ": unexpected exception");
  }
  return EIO;
}

// Runs one operation, which answers the kernel itself (returning kAnswered) or returns an errno;
// an exception is answered with ErrnoOfCurrentException.
template <typename Operation>
void Run(fuse_req_t request, const char* name, fuse_ino_t node, Operation operation) {
  MountContext& context = ContextOf(request);
  int error = EIO;
  try {
    error = operation(context);
    if (error == kAnswered) return;
  } catch (...) {
    error = ErrnoOfCurrentException(context, name, node);
  }
  fuse_reply_err(request, error);
}

// The errno of an asynchronous operation's error (see ErrnoOfCurrentException).
int ErrnoOf(MountContext& context, const char* name, fuse_ino_t node, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (...) {
    return ErrnoOfCurrentException(context, name, node);
  }
}

int AnswerSuccess(fuse_req_t request) {
  fuse_reply_err(request, 0);
  return kAnswered;
}

// The path of a node, or ENOENT when the table has none (a name removed by another client and
// forgotten since).
std::string PathOf(MountContext& context, fuse_ino_t node) {
  auto path = context.nodes.PathOf(node);
  if (!path) throw rpc::RpcError::Errno(ENOENT, "node " + std::to_string(node) + " has no path");
  return *path;
}

std::string PathOf(MountContext& context, fuse_ino_t parent, const char* name) {
  auto path = context.nodes.PathOf(parent, name);
  if (!path) throw rpc::RpcError::Errno(ENOENT, "directory node " + std::to_string(parent) + " has no path");
  return *path;
}

double SecondsOf(std::uint32_t milliseconds) { return milliseconds / 1000.0; }

// Hands the kernel (`parent`, `name`) naming the file of `stat` (one lookup of its node, dropped
// again when the answer does not arrive). Attributes and the name are trusted for the metadata TTL.
int AnswerEntry(fuse_req_t request, MountContext& context, fuse_ino_t parent, const char* name,
                const xtreemfs::mrc::Stat& stat) {
  struct fuse_entry_param entry;
  std::memset(&entry, 0, sizeof entry);
  entry.ino = context.nodes.Remember(parent, name, stat.inode(),
                                     (stat.mode() & S_IFMT) == S_IFDIR, stat.nlink());
  entry.generation = 1;  // node ids are never reused within a mount
  xtreemfs::mrc::Stat newest = stat;  // the kernel takes the size as the file's end
  context.volume->ApplyLocalSize(newest);
  StatToPosix(newest, &entry.attr);
  entry.attr_timeout = SecondsOf(context.options.metadata_cache_ttl_ms);
  entry.entry_timeout = entry.attr_timeout;
  if (fuse_reply_entry(request, &entry) != 0) context.nodes.Forget(entry.ino, 1);
  return kAnswered;
}

// The kernel keeps the attributes of `node` no longer (they changed at the MRC by a close, fsync
// or truncate that the kernel did not see the result of); -ENOENT (not cached) is fine. Attributes
// only: the page cache stays.
void InvalidateAttributes(MountContext& context, fuse_ino_t node) {
  if (context.session == nullptr) return;
  // The kernel may wait here for requests of this node still to be read, so this thread stops
  // reading kernel requests before (fuse/request_loop.h).
  rpc::NoteWait();
  fuse_lowlevel_notify_inval_inode(context.session, node, -1, 0);
}

// Gives an opened handle to the kernel (info->fh) and keeps track of it until Release (or Destroy).
// O_DIRECT: every read and write goes to the OSDs, bypassing the kernel's page cache and the
// client's write-behind and read-ahead.
void HandOver(MountContext& context, fuse_ino_t node, std::unique_ptr<client::FileHandle> handle,
              struct fuse_file_info* info) {
  info->direct_io = (info->flags & O_DIRECT) != 0 ? 1 : 0;
  if (info->direct_io) {
    handle->DisableBuffering();
  } else if (context.kernel_reads_ahead.load()) {
    handle->DisableReadAhead();
  }
  context.nodes.Opened(node);
  std::lock_guard<std::mutex> lock(context.open_handles_mutex);
  context.open_handles.insert(handle.get());
  info->fh = reinterpret_cast<std::uintptr_t>(handle.release());
}

client::FileHandle* HandleOf(struct fuse_file_info* info) {
  return reinterpret_cast<client::FileHandle*>(static_cast<std::uintptr_t>(info->fh));
}

// The owner of an open file's flock lock: this mount's handle of it (fh), not the kernel's
// lock_owner, which is derived from the address of the kernel's struct file: the kernel sends the
// unlock of a closed file's flock in RELEASE without waiting, so a file opened meanwhile may get
// the same struct file and lock_owner, and that late unlock would then drop the new file's lock.
// A handle lives until its RELEASE has sent the unlock (Release takes it back afterwards), so no
// live handle shares its address with one whose unlock is still to come.
std::uint64_t FlockOwnerOf(const struct fuse_file_info* info) { return info->fh; }

// Takes a handle back from the kernel (release, or a create whose answer did not arrive).
std::unique_ptr<client::FileHandle> TakeBack(MountContext& context, struct fuse_file_info* info) {
  std::unique_ptr<client::FileHandle> handle(HandleOf(info));
  info->fh = 0;
  std::lock_guard<std::mutex> lock(context.open_handles_mutex);
  context.open_handles.erase(handle.get());
  return handle;
}

// Requests of up to 1 MiB (8 objects of the default 128 KiB) let one FUSE write or read reach every
// OSD of the stripe at once; libfuse sizes its buffers before init, so this only ever lowers.
constexpr unsigned kFuseRequestBytesMax = 1 << 20;
// Kernel read-ahead and asynchronous direct I/O requests in flight (the kernel default is 12).
constexpr unsigned kFuseBackgroundRequestsMax = 64;

void Init(void* private_data, struct fuse_conn_info* connection) {
  MountContext& context = *static_cast<MountContext*>(private_data);
  connection->max_write = std::min(connection->max_write, kFuseRequestBytesMax);
  connection->max_background = kFuseBackgroundRequestsMax;
  connection->congestion_threshold = kFuseBackgroundRequestsMax * 3 / 4;
  // Concurrent reads of one file (kernel read-ahead) are fine: handles are thread-safe.
  if ((connection->capable & FUSE_CAP_ASYNC_READ) != 0) connection->want |= FUSE_CAP_ASYNC_READ;
  // No FUSE_CAP_WRITEBACK_CACHE: the kernel would then decide file sizes and batch writes itself,
  // which the client's size tracking and write-behind do not expect (see cpp/README.md).
  connection->want &= ~static_cast<unsigned>(FUSE_CAP_WRITEBACK_CACHE);
  context.log.Log(LogLevel::kInfo,
                  "fuse init: max_write=" + std::to_string(connection->max_write) +
                      " max_readahead=" + std::to_string(connection->max_readahead) +
                      " max_background=" + std::to_string(connection->max_background) +
                      " async_read=" +
                      std::to_string((connection->want & FUSE_CAP_ASYNC_READ) != 0 ? 1 : 0));
}

// The device number ("major:minor") of the mount at `mount_point` in /proc/self/mountinfo (the last
// one mounted there), which names its bdi; empty when not found. Read from the table, not by stat of
// the mount point, which would be a request to this very mount.
std::string MountDeviceOf(const std::string& mount_point) {
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string line;
  std::string device;
  while (std::getline(mountinfo, line)) {
    std::istringstream fields(line);
    std::string id, parent, major_minor, root, point;
    if (!(fields >> id >> parent >> major_minor >> root >> point)) continue;
    // The table escapes space, tab, newline and backslash as \ooo.
    std::string unescaped;
    for (std::size_t i = 0; i < point.size(); ++i) {
      if (point[i] == '\\' && i + 3 < point.size()) {
        unescaped += static_cast<char>(std::stoi(point.substr(i + 1, 3), nullptr, 8));
        i += 3;
      } else {
        unescaped += point[i];
      }
    }
    if (unescaped == mount_point) device = major_minor;
  }
  return device;
}

// --kernel-read-ahead-bytes: the kernel reads ahead of a buffered sequential reader by its bdi's
// read_ahead_kb, 128 KiB unless changed, and FUSE's init can only lower it. Written once the init
// reply was processed (which clamps it), i.e. from the first request after init, before the
// kernel's first open of a file (a file takes the window when it is opened).
void ApplyKernelReadAhead(MountContext& context) {
  std::call_once(context.kernel_read_ahead_once, [&context] {
    if (context.options.kernel_read_ahead_bytes == 0) return;
    const std::string device = MountDeviceOf(context.mount_point_absolute);
    const std::string setting = "/sys/class/bdi/" + device + "/read_ahead_kb";
    const std::uint64_t kib = (context.options.kernel_read_ahead_bytes + 1023) / 1024;
    std::ofstream file(setting);
    if (!device.empty() && file) file << kib << "\n";
    if (device.empty() || !file.flush()) {
      context.log.Log(LogLevel::kInfo, "kernel read-ahead stays as the kernel set it: cannot write " +
                                           (device.empty() ? "no mount at " + context.mount_point_absolute +
                                                                 " in /proc/self/mountinfo"
                                                           : setting));
      return;
    }
    context.kernel_reads_ahead.store(true);
    context.log.Log(LogLevel::kInfo, "kernel read-ahead: " + setting + " = " + std::to_string(kib) +
                                         " KiB; the mount's own read-ahead is off for buffered reads");
  });
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

// --- names ------------------------------------------------------------------------------------

// A name the MRC does not know is answered as a negative entry the kernel keeps for the negative
// TTL (node id 0), so a second lookup of the same missing name (a create after its lookup, a
// search path probed again) needs no round trip. Names created, linked or renamed through this
// mount replace the kernel's negative entry at once; a name created by another client is seen after
// at most the negative TTL.
void Lookup(fuse_req_t request, fuse_ino_t parent, const char* name) {
  Run(request, "lookup", parent, [&](MountContext& context) {
    ApplyKernelReadAhead(context);  // every open of a file follows a lookup of its name
    const std::string path = PathOf(context, parent, name);
    // The caller's credentials (its groups, read from /proc) only when the MRC is asked.
    std::optional<xtreemfs::mrc::Stat> stat = context.volume->CachedStat(path);
    // A missing name is an answer, not an error: no exception on this path (every create's lookup),
    // and a name known absent costs neither the MRC nor the caller's groups (read from /proc: 15 %
    // of the mount's CPU during creates, perf).
    if (!stat && !context.volume->KnownAbsent(path)) {
      stat = context.volume->GetattrIfExists(CallerCredentials(request), path);
    }
    if (stat) return AnswerEntry(request, context, parent, name, *stat);
    const std::uint32_t negative_ttl_ms = context.options.NegativeCacheTtlMs();
    if (negative_ttl_ms == 0) return ENOENT;
    struct fuse_entry_param entry;
    std::memset(&entry, 0, sizeof entry);
    entry.entry_timeout = SecondsOf(negative_ttl_ms);
    fuse_reply_entry(request, &entry);
    return kAnswered;
  });
}

void Forget(fuse_req_t request, fuse_ino_t node, uint64_t lookups) {
  ContextOf(request).nodes.Forget(node, lookups);
  fuse_reply_none(request);
}

void ForgetMulti(fuse_req_t request, size_t count, struct fuse_forget_data* forgets) {
  MountContext& context = ContextOf(request);
  for (size_t i = 0; i < count; ++i) context.nodes.Forget(forgets[i].ino, forgets[i].nlookup);
  fuse_reply_none(request);
}

void Getattr(fuse_req_t request, fuse_ino_t node, struct fuse_file_info*) {
  Run(request, "getattr", node, [&](MountContext& context) {
    ApplyKernelReadAhead(context);
    const std::string path = PathOf(context, node);
    std::optional<xtreemfs::mrc::Stat> stat = context.volume->CachedStat(path);
    if (!stat) stat = context.volume->Getattr(CallerCredentials(request), path);
    struct stat attributes;
    StatToPosix(*stat, &attributes);
    fuse_reply_attr(request, &attributes, SecondsOf(context.options.metadata_cache_ttl_ms));
    return kAnswered;
  });
}

void Readlink(fuse_req_t request, fuse_ino_t node) {
  Run(request, "readlink", node, [&](MountContext& context) {
    const std::string target = context.volume->Readlink(CallerCredentials(request), PathOf(context, node));
    fuse_reply_readlink(request, target.c_str());
    return kAnswered;
  });
}

void Mknod(fuse_req_t request, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev) {
  Run(request, "mknod", parent, [&](MountContext& context) {
    const auto stat = context.volume->Mknod(CallerCredentials(request), PathOf(context, parent, name),
                                            mode, rdev);
    return AnswerEntry(request, context, parent, name, stat);
  });
}

void Mkdir(fuse_req_t request, fuse_ino_t parent, const char* name, mode_t mode) {
  Run(request, "mkdir", parent, [&](MountContext& context) {
    const auto stat = context.volume->Mkdir(CallerCredentials(request), PathOf(context, parent, name),
                                            mode);
    return AnswerEntry(request, context, parent, name, stat);
  });
}

void Symlink(fuse_req_t request, const char* target, fuse_ino_t parent, const char* name) {
  Run(request, "symlink", parent, [&](MountContext& context) {
    const auto stat = context.volume->Symlink(CallerCredentials(request), target,
                                              PathOf(context, parent, name));
    return AnswerEntry(request, context, parent, name, stat);
  });
}

void Link(fuse_req_t request, fuse_ino_t node, fuse_ino_t new_parent, const char* new_name) {
  Run(request, "link", node, [&](MountContext& context) {
    const auto stat = context.volume->Link(CallerCredentials(request), PathOf(context, node),
                                           PathOf(context, new_parent, new_name));
    return AnswerEntry(request, context, new_parent, new_name, stat);
  });
}

// Unlinking the last name of a file open in this mount would let the MRC and OSDs delete it while
// it is in use; like libfuse's high-level API, the name is renamed to a hidden one in the same
// directory instead, which the last release unlinks.
std::atomic<std::uint64_t> hidden_name_counter{0};

// Renames (`parent`, `name`) to a fresh hidden name when it is the last name of a file open here;
// returns whether it did.
bool HideIfOpen(fuse_req_t request, MountContext& context, fuse_ino_t parent, const char* name) {
  const std::uint64_t node = context.nodes.NodeNamed(parent, name);
  if (node == 0 || !context.nodes.IsOpen(node) || context.nodes.HasOtherName(node, parent, name)) {
    return false;
  }
  char hidden[64];
  std::snprintf(hidden, sizeof hidden, ".fuse_hidden%016llx%08llx",
                static_cast<unsigned long long>(context.nodes.InodeOf(node)),
                static_cast<unsigned long long>(++hidden_name_counter));
  context.volume->Rename(CallerCredentials(request), PathOf(context, parent, name),
                         PathOf(context, parent, hidden), RENAME_NOREPLACE);
  context.nodes.Rename(parent, name, parent, hidden, false);
  context.nodes.MarkHidden(parent, hidden);
  return true;
}

void Unlink(fuse_req_t request, fuse_ino_t parent, const char* name) {
  Run(request, "unlink", parent, [&](MountContext& context) {
    if (!HideIfOpen(request, context, parent, name)) {
      context.volume->Unlink(CallerCredentials(request), PathOf(context, parent, name));
      context.nodes.RemoveName(parent, name);
    }
    return AnswerSuccess(request);
  });
}

void Rmdir(fuse_req_t request, fuse_ino_t parent, const char* name) {
  Run(request, "rmdir", parent, [&](MountContext& context) {
    context.volume->Rmdir(CallerCredentials(request), PathOf(context, parent, name));
    context.nodes.RemoveName(parent, name);
    return AnswerSuccess(request);
  });
}

void Rename(fuse_req_t request, fuse_ino_t parent, const char* name, fuse_ino_t new_parent,
            const char* new_name, unsigned int flags) {
  Run(request, "rename", parent, [&](MountContext& context) {
    const bool exchange = (flags & RENAME_EXCHANGE) != 0;
    // A replaced file still open here keeps living under a hidden name until its last close.
    if (!exchange && (flags & RENAME_NOREPLACE) == 0) HideIfOpen(request, context, new_parent, new_name);
    context.volume->Rename(CallerCredentials(request), PathOf(context, parent, name),
                           PathOf(context, new_parent, new_name), flags);
    context.nodes.Rename(parent, name, new_parent, new_name, exchange);
    return AnswerSuccess(request);
  });
}

// --- attributes -------------------------------------------------------------------------------

// chmod, chown, utimens and truncate in one request; answered with the file's new attributes, which
// the kernel keeps for its one inode, so every name of a hard-linked file shows them at once.
void Setattr(fuse_req_t request, fuse_ino_t node, struct stat* attributes, int to_set,
             struct fuse_file_info* info) {
  Run(request, "setattr", node, [&](MountContext& context) {
    const std::string path = PathOf(context, node);
    const client::UserCredentials user = CallerCredentials(request);
    xtreemfs::mrc::Stat changes;
    std::uint32_t mrc_to_set = 0;
    if ((to_set & FUSE_SET_ATTR_MODE) != 0) {
      changes.set_mode(attributes->st_mode);
      mrc_to_set |= xtreemfs::mrc::SETATTR_MODE;
    }
    if ((to_set & FUSE_SET_ATTR_UID) != 0) {
      changes.set_uid(attributes->st_uid);
      mrc_to_set |= xtreemfs::mrc::SETATTR_UID;
    }
    if ((to_set & FUSE_SET_ATTR_GID) != 0) {
      changes.set_gid(attributes->st_gid);
      mrc_to_set |= xtreemfs::mrc::SETATTR_GID;
    }
    if (mrc_to_set != 0) context.volume->Setattr(user, path, changes, mrc_to_set);
    if ((to_set & FUSE_SET_ATTR_SIZE) != 0) {
      if (attributes->st_size < 0) return EINVAL;
      const auto size = static_cast<std::uint64_t>(attributes->st_size);
      if (info != nullptr && info->fh != 0) {
        HandleOf(info)->Truncate(size);
      } else {
        auto handle = context.volume->OpenFile(user, path, O_WRONLY, 0);
        handle->Truncate(size);
        handle->Close();
      }
    }
    struct timespec times[2] = {};
    times[0].tv_nsec = times[1].tv_nsec = UTIME_OMIT;
    if ((to_set & FUSE_SET_ATTR_ATIME_NOW) != 0) {
      times[0].tv_nsec = UTIME_NOW;
    } else if ((to_set & FUSE_SET_ATTR_ATIME) != 0) {
      times[0] = attributes->st_atim;
    }
    if ((to_set & FUSE_SET_ATTR_MTIME_NOW) != 0) {
      times[1].tv_nsec = UTIME_NOW;
    } else if ((to_set & FUSE_SET_ATTR_MTIME) != 0) {
      times[1] = attributes->st_mtim;
    }
    const TimesUpdate update = TimesUpdateOf(times);
    if (update.to_set != 0) context.volume->Setattr(user, path, update.stat, update.to_set);
    const xtreemfs::mrc::Stat stat = context.volume->Getattr(user, path);
    struct stat answer;
    StatToPosix(stat, &answer);
    fuse_reply_attr(request, &answer, SecondsOf(context.options.metadata_cache_ttl_ms));
    return kAnswered;
  });
}

void Access(fuse_req_t request, fuse_ino_t node, int mode) {
  Run(request, "access", node, [&](MountContext& context) {
    context.volume->Access(CallerCredentials(request), PathOf(context, node),
                           static_cast<std::uint32_t>(mode));
    return AnswerSuccess(request);
  });
}

void Statfs(fuse_req_t request, fuse_ino_t node) {
  Run(request, "statfs", node, [&](MountContext& context) {
    struct statvfs answer;
    StatvfsToPosix(context.volume->Statvfs(CallerCredentials(request)), &answer);
    fuse_reply_statfs(request, &answer);
    return kAnswered;
  });
}

// --- files ------------------------------------------------------------------------------------

void Open(fuse_req_t request, fuse_ino_t node, struct fuse_file_info* info) {
  Run(request, "open", node, [&](MountContext& context) {
    auto handle = context.volume->OpenFile(CallerCredentials(request), PathOf(context, node),
                                           static_cast<std::uint32_t>(info->flags), 0);
    HandOver(context, node, std::move(handle), info);
    if (fuse_reply_open(request, info) != 0) {
      // The opener was interrupted: the kernel never sees the handle, so nothing releases it.
      TakeBack(context, info)->Close();
      context.nodes.Released(node);
    }
    return kAnswered;
  });
}

void Create(fuse_req_t request, fuse_ino_t parent, const char* name, mode_t mode,
            struct fuse_file_info* info) {
  Run(request, "create", parent, [&](MountContext& context) {
    const std::string path = PathOf(context, parent, name);
    const client::UserCredentials user = CallerCredentials(request);
    auto handle = context.volume->OpenFile(user, path,
                                           static_cast<std::uint32_t>(info->flags) | O_CREAT, mode);
    // The creating open's answer is the new file's Stat: no getattr round trip.
    std::optional<xtreemfs::mrc::Stat> stat = handle->TakeCreatedStat();
    if (!stat) stat = context.volume->Getattr(user, path);
    struct fuse_entry_param entry;
    std::memset(&entry, 0, sizeof entry);
    entry.ino = context.nodes.Remember(parent, name, stat->inode(), false, stat->nlink());
    entry.generation = 1;
    StatToPosix(*stat, &entry.attr);
    entry.attr_timeout = SecondsOf(context.options.metadata_cache_ttl_ms);
    entry.entry_timeout = entry.attr_timeout;
    HandOver(context, entry.ino, std::move(handle), info);
    if (fuse_reply_create(request, &entry, info) != 0) {
      TakeBack(context, info)->Close();
      context.nodes.Released(entry.ino);
      context.nodes.Forget(entry.ino, 1);
    }
    return kAnswered;
  });
}

// The bytes of a read as they arrived (the OSDs' pieces, read-ahead objects, zeros of holes): the
// kernel gathers them (fuse_reply_iov), so they are not joined into one buffer first. libfuse adds
// one vector for its header; more runs than the kernel takes in one writev are joined instead.
void ReplyRuns(fuse_req_t request, const client::ReadResult& data) {
  if (data.run_count() + 1 > static_cast<std::size_t>(IOV_MAX)) {
    const std::string joined = data.Join();
    fuse_reply_buf(request, joined.data(), joined.size());
    return;
  }
  // The runs of a small read (one OSD answer, a hole) on the stack: no allocation per read.
  constexpr std::size_t kStackRunsMax = 16;
  struct iovec stack_runs[kStackRunsMax];
  std::vector<struct iovec> heap_runs;
  struct iovec* runs = stack_runs;
  if (data.run_count() > kStackRunsMax) {
    heap_runs.resize(data.run_count());
    runs = heap_runs.data();
  }
  std::size_t count = 0;
  data.ForEachRun([&](const char* bytes, std::size_t length) {
    runs[count++] = iovec{const_cast<char*>(bytes), length};
  });
  fuse_reply_iov(request, runs, static_cast<int>(count));
}

// Reads and writes are answered from the client's io thread when the OSD answers (FileHandle's
// ReadAsync and WriteAsync), so no FUSE worker waits for an OSD round trip on that path. Their
// completions hold two words (the request and the node; the mount's context is the request's), which
// std::function keeps without an allocation of its own: one malloc and free less per request.
void Read(fuse_req_t request, fuse_ino_t node, size_t size, off_t offset,
          struct fuse_file_info* info) {
  Run(request, "read", node, [&](MountContext&) {
    if (offset < 0) return EINVAL;
    HandleOf(info)->ReadAsync(
        static_cast<std::uint64_t>(offset), size,
        [request, node](client::ReadResult data, std::exception_ptr error) {
          if (error) {
            fuse_reply_err(request, ErrnoOf(ContextOf(request), "read", node, error));
          } else {
            ReplyRuns(request, data);
          }
        });
    return kAnswered;
  });
}

// Writes at least this large are sent from libfuse's request buffer instead of a copy: the worker
// waits until nothing refers to the buffer any more, while the kernel is still answered from the io
// thread as soon as the OSDs answer. Profiled (perf of the mount, 1 MiB O_DIRECT writes at queue depth
// 8): copying each request was 16 % of the mount's CPU; a worker's wake-up costs about as much as
// copying a few tens of KiB, so smaller writes are still copied.
constexpr size_t kBorrowedWriteBytesMin = 128 * 1024;

void Write(fuse_req_t request, fuse_ino_t node, const char* buffer, size_t size, off_t offset,
           struct fuse_file_info* info) {
  Run(request, "write", node, [&](MountContext&) {
    if (offset < 0) return EINVAL;
    auto done = [request, node](std::uint64_t written_bytes, std::exception_ptr error) {
      if (error) {
        fuse_reply_err(request, ErrnoOf(ContextOf(request), "write", node, error));
      } else {
        fuse_reply_write(request, written_bytes);
      }
    };
    const std::string_view data(buffer, size);
    if (size < kBorrowedWriteBytesMin) {
      HandleOf(info)->WriteAsync(static_cast<std::uint64_t>(offset), data, std::move(done));
      return kAnswered;
    }
    // Requests still queued for a socket and retries hold the owner; its deleter runs once the last is
    // gone (also when WriteAsync throws), and libfuse may reuse `buffer` only after that.
    std::promise<void> released;
    std::future<void> all_released = released.get_future();
    std::shared_ptr<const void> owner(&released, [](const void* promise) {
      static_cast<std::promise<void>*>(const_cast<void*>(promise))->set_value();
    });
    try {
      HandleOf(info)->WriteAsync(static_cast<std::uint64_t>(offset), data, std::move(done),
                                 std::move(owner));
    } catch (...) {
      owner.reset();
      all_released.wait();
      throw;
    }
    // Until the OSDs took the bytes: another thread reads kernel requests meanwhile.
    if (all_released.wait_for(std::chrono::seconds(0)) != std::future_status::ready) rpc::NoteWait();
    all_released.wait();
    return kAnswered;
  });
}

// close(2) of a descriptor: buffered writes are sent and their errors returned here (release
// cannot report errors to the application). POSIX also drops the closing process's record locks
// of the file (the kernel names it by lock_owner).
void Flush(fuse_req_t request, fuse_ino_t node, struct fuse_file_info* info) {
  Run(request, "flush", node, [&](MountContext& context) {
    client::FileHandle& file = *HandleOf(info);
    std::exception_ptr flush_error;  // the locks go even when the data could not be stored
    bool reported = true;            // a failed report may still have been applied
    try {
      reported = file.Flush();
    } catch (...) {
      flush_error = std::current_exception();
    }
    // The MRC has the written size and mtime now (the size report of the flush). Without a report
    // (nothing written: every create's close) the kernel's attributes are still right.
    if (reported) InvalidateAttributes(context, node);
    context.locks->Release(file, client::LockKind::kPosix, info->lock_owner);
    if (flush_error) std::rethrow_exception(flush_error);
    return AnswerSuccess(request);
  });
}

void Release(fuse_req_t request, fuse_ino_t node, struct fuse_file_info* info) {
  MountContext& context = ContextOf(request);
  // The last close of an open file that used flock (the kernel marks it): its flock lock goes.
  if (info->flock_release && info->fh != 0) {
    try {
      context.locks->Release(*HandleOf(info), client::LockKind::kFlock, FlockOwnerOf(info));
    } catch (const std::exception& error) {
      context.log.Log(LogLevel::kWarn, "release flock node " + std::to_string(node) + ": " +
                                           error.what());
    }
  }
  std::unique_ptr<client::FileHandle> handle = TakeBack(context, info);
  Run(request, "release", node, [&](MountContext&) {
    std::exception_ptr close_error;
    bool reported = true;  // as in Flush
    try {
      reported = handle->Close();
    } catch (...) {
      close_error = std::current_exception();  // reported after the hidden name is gone
    }
    if (reported) InvalidateAttributes(context, node);
    // The last handle of a file unlinked while open: its hidden name goes now.
    for (const std::string& hidden : context.nodes.Released(node)) {
      context.volume->Unlink(CallerCredentials(request), hidden);
    }
    if (close_error) std::rethrow_exception(close_error);
    return AnswerSuccess(request);
  });
}

void Fsync(fuse_req_t request, fuse_ino_t node, int, struct fuse_file_info* info) {
  Run(request, "fsync", node, [&](MountContext& context) {
    HandleOf(info)->Fsync();
    InvalidateAttributes(context, node);
    return AnswerSuccess(request);
  });
}

// fallocate(2): plain allocation extends the size (objects are allocated lazily by the OSDs);
// KEEP_SIZE alone does nothing; PUNCH_HOLE and ZERO_RANGE write real zeros, inside the file size
// when KEEP_SIZE is set. Other modes (collapse, insert, unshare) are EOPNOTSUPP: Linux never forwards
// them to FUSE, and shifting striped objects is not possible in place (cpp/README.md).
void Fallocate(fuse_req_t request, fuse_ino_t node, int mode, off_t offset, off_t length,
               struct fuse_file_info* info) {
  Run(request, "fallocate", node, [&](MountContext&) {
    if (offset < 0 || length <= 0) return EINVAL;
    const int supported = FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE;
    if ((mode & ~supported) != 0) return EOPNOTSUPP;
    const bool keep_size = (mode & FALLOC_FL_KEEP_SIZE) != 0;
    if ((mode & FALLOC_FL_PUNCH_HOLE) != 0 && !keep_size) return EOPNOTSUPP;  // as in Linux
    client::FileHandle* handle = HandleOf(info);
    const std::uint64_t start = static_cast<std::uint64_t>(offset);
    const std::uint64_t end = start + static_cast<std::uint64_t>(length);
    const std::uint64_t size = handle->KnownSizeBytes();
    if ((mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) != 0) {
      const std::uint64_t zero_end = keep_size ? std::min(end, size) : end;
      if (zero_end > start) handle->WriteZeros(start, zero_end - start);
    } else if (!keep_size && end > size) {
      handle->Truncate(end);
    }
    return AnswerSuccess(request);
  });
}

// --- extended attributes ---------------------------------------------------------------------

// getxattr/listxattr answers: size 0 asks for the length; a buffer too small is ERANGE.
int AnswerXattr(fuse_req_t request, const std::string& value, size_t size) {
  if (size == 0) {
    fuse_reply_xattr(request, value.size());
  } else if (size < value.size()) {
    return ERANGE;
  } else {
    fuse_reply_buf(request, value.data(), value.size());
  }
  return kAnswered;
}

void Setxattr(fuse_req_t request, fuse_ino_t node, const char* name, const char* value, size_t size,
              int flags) {
  Run(request, "setxattr", node, [&](MountContext& context) {
    context.volume->Setxattr(CallerCredentials(request), PathOf(context, node), name,
                             std::string(value, size), static_cast<std::uint32_t>(flags));
    return AnswerSuccess(request);
  });
}

void Getxattr(fuse_req_t request, fuse_ino_t node, const char* name, size_t size) {
  Run(request, "getxattr", node, [&](MountContext& context) {
    // The kernel asks security.capability before every write: answered without the caller's groups.
    if (!client::Volume::MayHaveXattr(name)) return ENODATA;
    return AnswerXattr(request,
                       context.volume->Getxattr(CallerCredentials(request), PathOf(context, node), name),
                       size);
  });
}

void Listxattr(fuse_req_t request, fuse_ino_t node, size_t size) {
  Run(request, "listxattr", node, [&](MountContext& context) {
    return AnswerXattr(request,
                       JoinXattrNames(context.volume->Listxattr(CallerCredentials(request),
                                                                PathOf(context, node))),
                       size);
  });
}

void Removexattr(fuse_req_t request, fuse_ino_t node, const char* name) {
  Run(request, "removexattr", node, [&](MountContext& context) {
    context.volume->Removexattr(CallerCredentials(request), PathOf(context, node), name);
    return AnswerSuccess(request);
  });
}

// --- directories ------------------------------------------------------------------------------

// The d_ino of a listed name whose inode number is not known (libfuse's FUSE_UNKNOWN_INO).
constexpr ino_t kUnknownInode = 0xffffffff;

client::DirectoryListing* ListingOf(struct fuse_file_info* info) {
  return reinterpret_cast<client::DirectoryListing*>(static_cast<std::uintptr_t>(info->fh));
}

// An open directory gets a listing (client/directory_listing.h): the kernel's readdir requests (one
// per getdents buffer) are served from one MRC page, and each further page continues after the last name
// instead of being counted from the directory's start. No MRC call: the kernel checked read access.
void Opendir(fuse_req_t request, fuse_ino_t node, struct fuse_file_info* info) {
  Run(request, "opendir", node, [&](MountContext& context) {
    auto listing = std::make_unique<client::DirectoryListing>(
        *context.volume, context.clock, [&context, node] { return PathOf(context, node); },
        kReaddirBatchEntries, context.options.metadata_cache_ttl_ms);
    info->fh = reinterpret_cast<std::uintptr_t>(listing.get());
    if (fuse_reply_open(request, info) == 0) listing.release();
    return kAnswered;
  });
}

void Releasedir(fuse_req_t request, fuse_ino_t, struct fuse_file_info* info) {
  std::unique_ptr<client::DirectoryListing> listing(ListingOf(info));
  info->fh = 0;
  fuse_reply_err(request, 0);
}

// One readdir answer of at most `size` bytes from `offset`; with `plus` every entry carries its
// attributes and a node (one lookup each, except "." and "..", which the kernel does not count).
void ReaddirCommon(fuse_req_t request, fuse_ino_t node, size_t size, off_t offset,
                   struct fuse_file_info* info, bool plus) {
  Run(request, plus ? "readdirplus" : "readdir", node, [&](MountContext& context) {
    client::DirectoryListing& listing = *ListingOf(info);
    // Unlocked before the reply: once the kernel has the last page it may release the directory
    // (Releasedir, on another worker), which deletes the listing and its mutex. An unlock after the
    // reply wrote into freed memory (seen as a mount crash under `ls -l` loops, found with TSan).
    std::unique_lock<std::mutex> lock(listing.mutex());
    const client::UserCredentials user = CallerCredentials(request);
    std::vector<char> buffer(size);
    std::size_t used = 0;
    std::uint64_t next_offset = static_cast<std::uint64_t>(offset);
    // Each page either brings the next entry or ends the directory, so this ends after at most
    // (entries / page + 1) round trips, and most requests are served from the page held.
    for (;;) {
      const client::DirectoryListing::Position position = listing.At(user, next_offset, plus);
      const auto& entries = position.page->entries();
      if (position.index >= entries.size()) break;  // the end of the directory
      bool buffer_full = false;  // the kernel asks again from the last offset it received
      for (int i = position.index; i < entries.size(); ++i) {
        const auto& entry = entries.Get(i);
        const std::string& name = entry.name();
        const bool dot = name == "." || name == "..";
        struct fuse_entry_param entry_param;
        std::memset(&entry_param, 0, sizeof entry_param);
        if (plus && S_ISREG(entry.stat().mode())) {
          // The kernel takes these attributes for the node (a held page may be up to a TTL old):
          // a file written here shows the newest size this process knows, as getattr does.
          xtreemfs::mrc::Stat stat = entry.stat();
          context.volume->ApplyLocalSize(stat);
          StatToPosix(stat, &entry_param.attr);
        } else {
          StatToPosix(entry.stat(), &entry_param.attr);
        }
        const auto entry_offset = static_cast<off_t>(entry.next_offset());
        std::size_t entry_bytes;
        if (plus) {
          entry_bytes = fuse_add_direntry_plus(request, nullptr, 0, name.c_str(), &entry_param,
                                               entry_offset);
          if (used + entry_bytes > size) {
            buffer_full = true;
            break;
          }
          if (!dot) {
            entry_param.ino = context.nodes.Remember(node, name, entry.stat().inode(),
                                                     (entry.stat().mode() & S_IFMT) == S_IFDIR,
                                                     entry.stat().nlink());
            entry_param.generation = 1;
            entry_param.attr_timeout = SecondsOf(context.options.metadata_cache_ttl_ms);
            entry_param.entry_timeout = entry_param.attr_timeout;
          }
          fuse_add_direntry_plus(request, buffer.data() + used, size - used, name.c_str(),
                                 &entry_param, entry_offset);
        } else {
          // A names-only listing carries no inode number; d_ino 0 would mark a deleted entry, which
          // readdir(3) skips, so an unknown one is named as libfuse's high-level API does.
          if (entry_param.attr.st_ino == 0) entry_param.attr.st_ino = kUnknownInode;
          entry_bytes = fuse_add_direntry(request, buffer.data() + used, size - used, name.c_str(),
                                          &entry_param.attr, entry_offset);
          if (used + entry_bytes > size) {
            buffer_full = true;
            break;
          }
        }
        used += entry_bytes;
        next_offset = entry.next_offset();
      }
      if (buffer_full) break;
    }
    lock.unlock();
    fuse_reply_buf(request, buffer.data(), used);
    return kAnswered;
  });
}

void Readdir(fuse_req_t request, fuse_ino_t node, size_t size, off_t offset,
             struct fuse_file_info* info) {
  ReaddirCommon(request, node, size, offset, info, false);
}

void Readdirplus(fuse_req_t request, fuse_ino_t node, size_t size, off_t offset,
                 struct fuse_file_info* info) {
  ReaddirCommon(request, node, size, offset, info, true);
}

// --- advisory locks across mounts (client::LockClient; the head OSD keeps the lock table) -------

client::LockSpec LockSpecOf(fuse_req_t request, struct fuse_file_info* info, const struct flock* lock) {
  client::LockSpec spec;
  spec.owner = info->lock_owner;
  spec.pid = static_cast<std::uint32_t>(lock->l_pid > 0 ? lock->l_pid : fuse_req_ctx(request)->pid);
  spec.offset_bytes = static_cast<std::uint64_t>(lock->l_start);
  spec.length_bytes = static_cast<std::uint64_t>(lock->l_len);
  spec.exclusive = lock->l_type == F_WRLCK;
  spec.kind = client::LockKind::kPosix;
  return spec;
}

// F_GETLK: the conflicting lock, from OSD_LOCK_CHECK. The range arrives with l_whence = SEEK_SET.
void Getlk(fuse_req_t request, fuse_ino_t node, struct fuse_file_info* info, struct flock* lock) {
  Run(request, "getlk", node, [&](MountContext& context) {
    if (lock->l_start < 0 || lock->l_len < 0) return EINVAL;
    const auto holder = context.locks->Check(*HandleOf(info), LockSpecOf(request, info, lock));
    if (!holder) {
      lock->l_type = F_UNLCK;
    } else {
      // The holder's pid as its own client saw it: the kernel maps it into the caller's pid
      // namespace, so a holder on another host (or a pid unknown here) shows as 0.
      lock->l_type = holder->exclusive() ? F_WRLCK : F_RDLCK;
      lock->l_whence = SEEK_SET;
      lock->l_start = static_cast<off_t>(holder->offset_bytes());
      lock->l_len = static_cast<off_t>(holder->length_bytes());
      lock->l_pid = static_cast<pid_t>(holder->pid());
    }
    fuse_reply_lock(request, lock);
    return kAnswered;
  });
}

// F_SETLK and F_SETLKW (`sleep`); the unlock of every close(2) is Flush's.
void Setlk(fuse_req_t request, fuse_ino_t node, struct fuse_file_info* info, struct flock* lock,
           int sleep) {
  Run(request, "setlk", node, [&](MountContext& context) {
    if (lock->l_start < 0 || lock->l_len < 0) return EINVAL;
    client::FileHandle& file = *HandleOf(info);
    const client::LockSpec spec = LockSpecOf(request, info, lock);
    if (lock->l_type == F_UNLCK) {
      context.locks->Release(file, client::LockKind::kPosix, spec.owner, spec.offset_bytes,
                             spec.length_bytes);
    } else if (sleep != 0) {
      context.locks->Acquire(file, spec, [request] { return fuse_req_interrupted(request) != 0; });
    } else if (!context.locks->TryAcquire(file, spec)) {
      return EAGAIN;
    }
    return AnswerSuccess(request);
  });
}

// flock(2): LOCK_SH, LOCK_EX (waiting unless LOCK_NB) and LOCK_UN; the owner is the open file.
void Flock(fuse_req_t request, fuse_ino_t node, struct fuse_file_info* info, int operation) {
  Run(request, "flock", node, [&](MountContext& context) {
    client::FileHandle& file = *HandleOf(info);
    const int mode = operation & (LOCK_SH | LOCK_EX | LOCK_UN);
    if (mode == LOCK_UN) {
      context.locks->Release(file, client::LockKind::kFlock, FlockOwnerOf(info));
      return AnswerSuccess(request);
    }
    if (mode != LOCK_SH && mode != LOCK_EX) return EINVAL;
    client::LockSpec spec;
    spec.owner = FlockOwnerOf(info);
    spec.pid = static_cast<std::uint32_t>(fuse_req_ctx(request)->pid);
    spec.exclusive = mode == LOCK_EX;
    spec.kind = client::LockKind::kFlock;
    if ((operation & LOCK_NB) != 0) {
      // A conflict may be a closed file's flock whose unlock (FUSE RELEASE, not waited for by
      // close) is still on its way: TryAcquireFlock retries for --flock-nonblocking-wait-ms.
      if (!context.locks->TryAcquireFlock(file, spec)) return EWOULDBLOCK;
    } else {
      context.locks->Acquire(file, spec, [request] { return fuse_req_interrupted(request) != 0; });
    }
    return AnswerSuccess(request);
  });
}

}  // namespace

struct fuse_lowlevel_ops MakeFuseOperations() {
  struct fuse_lowlevel_ops operations;
  std::memset(&operations, 0, sizeof operations);
  operations.init = Init;
  operations.destroy = Destroy;
  operations.lookup = Lookup;
  operations.forget = Forget;
  operations.forget_multi = ForgetMulti;
  operations.getattr = Getattr;
  operations.setattr = Setattr;
  operations.readlink = Readlink;
  operations.mknod = Mknod;
  operations.mkdir = Mkdir;
  operations.unlink = Unlink;
  operations.rmdir = Rmdir;
  operations.symlink = Symlink;
  operations.rename = Rename;
  operations.link = Link;
  operations.open = Open;
  operations.create = Create;
  operations.read = Read;
  operations.write = Write;
  operations.flush = Flush;
  operations.release = Release;
  operations.fsync = Fsync;
  operations.statfs = Statfs;
  operations.setxattr = Setxattr;
  operations.getxattr = Getxattr;
  operations.listxattr = Listxattr;
  operations.removexattr = Removexattr;
  operations.opendir = Opendir;
  operations.releasedir = Releasedir;
  operations.readdir = Readdir;
  operations.readdirplus = Readdirplus;
  operations.access = Access;
  operations.fallocate = Fallocate;
  operations.getlk = Getlk;
  operations.setlk = Setlk;
  operations.flock = Flock;
  return operations;
}

}  // namespace xtreemfs::fuse_adapter
