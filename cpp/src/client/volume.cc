#include "client/volume.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <set>

#include "client/file_handle.h"
#include "dir.pb.h"
#include "osd.pb.h"

namespace xtreemfs::client {

using xtreemfs::mrc::Stat;

namespace {

xtreemfs::mrc::PathRequest PathRequestOf(const std::string& volume_name, const std::string& path) {
  xtreemfs::mrc::PathRequest request;
  request.set_volume_name(volume_name);
  request.set_path(path);
  return request;
}

// Open flags the MRC understands (open.proto's OpenFlag values equal Linux's).
constexpr std::uint32_t kOpenFlagsForwarded = O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND;

}  // namespace

std::unique_ptr<Volume> Volume::Open(rpc::Transport& transport, const DirUrl& url, Clock& clock,
                                     VolumeOptions options) {
  const rpc::ServiceAddress dir_address{url.host, url.port};
  rpc::CallOptions call_options;
  call_options.timeout_ms = options.timeout_ms;
  call_options.idempotent = true;

  xtreemfs::dir::VolumeGetRequest request;
  request.set_volume_name(url.volume_name);
  rpc::CallRequest call;
  call.interface_id = xtreemfs::dir::DIR_INTERFACE_ID;
  call.procedure_id = xtreemfs::dir::DIR_VOLUME_GET;
  call.credentials = &DirCredentials();
  call.message = &request;
  const auto registration = rpc::ParseResponse<xtreemfs::dir::VolumeRegistration>(
      transport.Call(dir_address, call, call_options));
  if (registration.mrc_uuid().empty()) {
    throw rpc::RpcError::Errno(ENOENT, "volume '" + url.volume_name + "' is not registered at the DIR " +
                                           dir_address.ToString());
  }
  auto resolver = std::make_unique<UuidResolver>(transport, dir_address, options.uuid_cache_ttl_ms,
                                                 clock, call_options);
  const rpc::ServiceAddress mrc_address = resolver->Resolve(registration.mrc_uuid());
  return std::unique_ptr<Volume>(new Volume(transport, clock, options, url.volume_name,
                                            registration.volume_id(), mrc_address,
                                            std::move(resolver)));
}

Volume::Volume(rpc::Transport& transport, Clock& clock, VolumeOptions options,
               std::string volume_name, std::string volume_id, rpc::ServiceAddress mrc_address,
               std::unique_ptr<UuidResolver> resolver)
    : transport_(transport),
      clock_(clock),
      options_(options),
      volume_name_(std::move(volume_name)),
      volume_id_(std::move(volume_id)),
      mrc_address_(std::move(mrc_address)),
      resolver_(std::move(resolver)) {}

Volume::~Volume() = default;

template <typename Response>
Response Volume::CallMrc(std::uint32_t procedure_id, const UserCredentials& user,
                         const google::protobuf::MessageLite& request, bool idempotent) {
  rpc::CallRequest call;
  call.interface_id = xtreemfs::mrc::MRC_INTERFACE_ID;
  call.procedure_id = procedure_id;
  call.credentials = &user;
  call.message = &request;
  rpc::CallOptions options;
  options.timeout_ms = options_.timeout_ms;
  options.idempotent = idempotent;
  return rpc::ParseResponse<Response>(transport_.Call(mrc_address_, call, options));
}

// FileHandle calls these from its own translation unit.
template xtreemfs::mrc::XCapResponse Volume::CallMrc<xtreemfs::mrc::XCapResponse>(
    std::uint32_t, const UserCredentials&, const google::protobuf::MessageLite&, bool);
template xtreemfs::rpc::Empty Volume::CallMrc<xtreemfs::rpc::Empty>(
    std::uint32_t, const UserCredentials&, const google::protobuf::MessageLite&, bool);

rpc::CallResponse Volume::CallOsd(const std::string& osd_uuid, std::uint32_t procedure_id,
                                  const UserCredentials& user,
                                  const google::protobuf::MessageLite& request,
                                  std::string_view data, bool idempotent) {
  const rpc::ServiceAddress address = resolver_->Resolve(osd_uuid);
  rpc::CallRequest call;
  call.interface_id = xtreemfs::osd::OSD_INTERFACE_ID;
  call.procedure_id = procedure_id;
  call.credentials = &user;
  call.message = &request;
  call.data = data;
  rpc::CallOptions options;
  options.timeout_ms = options_.timeout_ms;
  options.idempotent = idempotent;
  try {
    return transport_.Call(address, call, options);
  } catch (const rpc::RpcError& error) {
    if (error.kind() == rpc::ErrorKind::kTransport) {
      // The OSD may have restarted elsewhere; ask the DIR again next time.
      resolver_->Invalidate(osd_uuid);
    }
    throw;
  }
}

void Volume::DeleteObjects(const UserCredentials& user,
                           const xtreemfs::common::FileCredentials& deleted) {
  std::set<std::string> osd_uuids;
  for (const auto& replica : deleted.xlocs().replicas()) {
    osd_uuids.insert(replica.osd_uuids().begin(), replica.osd_uuids().end());
  }
  xtreemfs::osd::FileRequest request;
  *request.mutable_credentials() = deleted;
  request.set_file_id(deleted.xcap().file_id());
  for (const std::string& osd_uuid : osd_uuids) {
    try {
      CallOsd(osd_uuid, xtreemfs::osd::OSD_UNLINK, user, request, {}, true);
    } catch (const rpc::RpcError&) {
      failed_object_deletions_.fetch_add(1);
    }
  }
}

Stat Volume::Getattr(const UserCredentials& user, const std::string& path) {
  Stat stat = CallMrc<xtreemfs::mrc::GetattrResponse>(xtreemfs::mrc::MRC_GETATTR, user,
                                                      PathRequestOf(volume_name_, path), true)
                  .stat();
  ApplyLocalSize(stat);
  return stat;
}

void Volume::ApplyLocalSize(Stat& stat) {
  if ((stat.mode() & S_IFMT) != S_IFREG) return;
  std::shared_ptr<FileState> state;
  {
    std::lock_guard<std::mutex> lock(files_mutex_);
    auto found = files_.find(volume_id_ + ":" + std::to_string(stat.inode()));
    if (found == files_.end()) return;
    state = found->second.lock();
  }
  if (!state) return;
  std::lock_guard<std::mutex> lock(state->mutex);
  // Sizes not yet reported (writes or a truncate since the last update) are newer than the MRC's.
  if (state->size_dirty) {
    stat.set_size_bytes(state->size_bytes);
  }
}

Stat Volume::Setattr(const UserCredentials& user, const std::string& path, const Stat& stat,
                     std::uint32_t to_set) {
  xtreemfs::mrc::SetattrRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  *request.mutable_stat() = stat;
  request.set_to_set(to_set);
  return CallMrc<xtreemfs::mrc::GetattrResponse>(xtreemfs::mrc::MRC_SETATTR, user, request, true)
      .stat();
}

Stat Volume::Mkdir(const UserCredentials& user, const std::string& path, std::uint32_t mode) {
  xtreemfs::mrc::MkdirRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_mode(mode);
  return CallMrc<xtreemfs::mrc::GetattrResponse>(xtreemfs::mrc::MRC_MKDIR, user, request, false)
      .stat();
}

Stat Volume::Mknod(const UserCredentials& user, const std::string& path, std::uint32_t mode,
                   std::uint64_t rdev) {
  xtreemfs::mrc::MknodRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_mode(mode);
  request.set_rdev(rdev);
  return CallMrc<xtreemfs::mrc::GetattrResponse>(xtreemfs::mrc::MRC_MKNOD, user, request, false)
      .stat();
}

void Volume::Rmdir(const UserCredentials& user, const std::string& path) {
  CallMrc<xtreemfs::rpc::Empty>(xtreemfs::mrc::MRC_RMDIR, user, PathRequestOf(volume_name_, path),
                                false);
}

void Volume::Unlink(const UserCredentials& user, const std::string& path) {
  const auto response = CallMrc<xtreemfs::mrc::UnlinkResponse>(
      xtreemfs::mrc::MRC_UNLINK, user, PathRequestOf(volume_name_, path), false);
  if (response.has_deleted_file()) {
    DeleteObjects(user, response.deleted_file());
  }
}

void Volume::Rename(const UserCredentials& user, const std::string& source_path,
                    const std::string& target_path, std::uint32_t flags) {
  xtreemfs::mrc::RenameRequest request;
  request.set_volume_name(volume_name_);
  request.set_source_path(source_path);
  request.set_target_path(target_path);
  request.set_flags(flags);
  const auto response =
      CallMrc<xtreemfs::mrc::UnlinkResponse>(xtreemfs::mrc::MRC_RENAME, user, request, false);
  if (response.has_deleted_file()) {
    DeleteObjects(user, response.deleted_file());
  }
}

Stat Volume::Link(const UserCredentials& user, const std::string& existing_path,
                  const std::string& link_path) {
  xtreemfs::mrc::LinkRequest request;
  request.set_volume_name(volume_name_);
  request.set_target_path(existing_path);
  request.set_link_path(link_path);
  return CallMrc<xtreemfs::mrc::GetattrResponse>(xtreemfs::mrc::MRC_LINK, user, request, false)
      .stat();
}

Stat Volume::Symlink(const UserCredentials& user, const std::string& target,
                     const std::string& link_path) {
  xtreemfs::mrc::LinkRequest request;
  request.set_volume_name(volume_name_);
  request.set_target_path(target);
  request.set_link_path(link_path);
  return CallMrc<xtreemfs::mrc::GetattrResponse>(xtreemfs::mrc::MRC_SYMLINK, user, request, false)
      .stat();
}

std::string Volume::Readlink(const UserCredentials& user, const std::string& path) {
  return CallMrc<xtreemfs::mrc::ReadlinkResponse>(xtreemfs::mrc::MRC_READLINK, user,
                                                  PathRequestOf(volume_name_, path), true)
      .target();
}

xtreemfs::mrc::ReaddirResponse Volume::Readdir(const UserCredentials& user, const std::string& path,
                                               std::uint64_t offset, std::uint32_t limit,
                                               bool names_only) {
  xtreemfs::mrc::ReaddirRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_offset(offset);
  request.set_limit(limit);
  request.set_names_only(names_only);
  return CallMrc<xtreemfs::mrc::ReaddirResponse>(xtreemfs::mrc::MRC_READDIR, user, request, true);
}

std::string Volume::Getxattr(const UserCredentials& user, const std::string& path,
                             const std::string& name) {
  xtreemfs::mrc::XattrRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_name(name);
  return CallMrc<xtreemfs::mrc::XattrValue>(xtreemfs::mrc::MRC_GETXATTR, user, request, true).value();
}

void Volume::Setxattr(const UserCredentials& user, const std::string& path, const std::string& name,
                      const std::string& value, std::uint32_t flags) {
  xtreemfs::mrc::XattrRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_name(name);
  request.set_value(value);
  request.set_flags(flags);
  CallMrc<xtreemfs::rpc::Empty>(xtreemfs::mrc::MRC_SETXATTR, user, request, false);
}

std::vector<std::string> Volume::Listxattr(const UserCredentials& user, const std::string& path) {
  const auto names = CallMrc<xtreemfs::mrc::XattrNames>(xtreemfs::mrc::MRC_LISTXATTR, user,
                                                        PathRequestOf(volume_name_, path), true);
  return std::vector<std::string>(names.names().begin(), names.names().end());
}

void Volume::Removexattr(const UserCredentials& user, const std::string& path,
                         const std::string& name) {
  xtreemfs::mrc::XattrRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_name(name);
  CallMrc<xtreemfs::rpc::Empty>(xtreemfs::mrc::MRC_REMOVEXATTR, user, request, false);
}

xtreemfs::mrc::StatvfsResponse Volume::Statvfs(const UserCredentials& user) {
  xtreemfs::mrc::VolumeNameRequest request;
  request.set_volume_name(volume_name_);
  return CallMrc<xtreemfs::mrc::StatvfsResponse>(xtreemfs::mrc::MRC_STATVFS, user, request, true);
}

void Volume::Access(const UserCredentials& user, const std::string& path, std::uint32_t mode) {
  xtreemfs::mrc::AccessRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_mode(mode);
  CallMrc<xtreemfs::rpc::Empty>(xtreemfs::mrc::MRC_ACCESS, user, request, true);
}

xtreemfs::mrc::FileLayoutResponse Volume::GetFileLayout(const UserCredentials& user,
                                                        const std::string& path) {
  return CallMrc<xtreemfs::mrc::FileLayoutResponse>(xtreemfs::mrc::MRC_GET_FILE_LAYOUT, user,
                                                    PathRequestOf(volume_name_, path), true);
}

std::unique_ptr<FileHandle> Volume::OpenFile(const UserCredentials& user, const std::string& path,
                                             std::uint32_t flags, std::uint32_t mode) {
  xtreemfs::mrc::OpenRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_flags(flags & kOpenFlagsForwarded);
  request.set_mode(mode);
  // Creating exclusively or truncating is not repeatable: a retry would see EEXIST or cut data
  // written in between.
  const bool idempotent = (flags & (O_EXCL | O_TRUNC)) == 0;
  const auto response =
      CallMrc<xtreemfs::mrc::OpenResponse>(xtreemfs::mrc::MRC_OPEN, user, request, idempotent);
  const auto& credentials = response.credentials();
  if (credentials.xlocs().replicas_size() == 0 ||
      credentials.xlocs().replicas(0).osd_uuids_size() == 0) {
    throw rpc::RpcError::Of(rpc::ErrorKind::kInternal,
                            "MRC returned no OSDs for '" + path + "' (file " +
                                credentials.xcap().file_id() + ")");
  }
  auto state = StateOfFile(credentials.xcap().file_id(), response.stat().size_bytes(),
                           credentials.xcap().truncate_epoch());
  auto handle = std::make_unique<FileHandle>(*this, user, credentials, std::move(state));
  // On O_TRUNC of an existing file the MRC set the size to 0 under a new truncate epoch (carried by
  // this XCap); the objects of the old content must go too, or a later hole would show them. Epoch 0
  // means no truncate ever happened: the file was just created and has no objects, so the common
  // `open(O_CREAT | O_TRUNC)` of a new file costs no OSD round trips.
  if ((flags & O_TRUNC) != 0 && (flags & O_ACCMODE) != O_RDONLY &&
      credentials.xcap().truncate_epoch() != 0) {
    handle->TruncateObjects(0);
  }
  return handle;
}

std::shared_ptr<FileState> Volume::StateOfFile(const std::string& file_id, std::uint64_t size_bytes,
                                               std::uint32_t truncate_epoch) {
  std::lock_guard<std::mutex> lock(files_mutex_);
  std::shared_ptr<FileState> state = files_[file_id].lock();
  if (!state) {
    state = std::make_shared<FileState>();
    files_[file_id] = state;
  }
  std::lock_guard<std::mutex> state_lock(state->mutex);
  if (truncate_epoch > state->truncate_epoch) {
    // A truncate elsewhere: the MRC's size is the truth now.
    state->truncate_epoch = truncate_epoch;
    state->size_bytes = size_bytes;
    ++state->size_generation;
  } else if (size_bytes > state->size_bytes) {
    state->size_bytes = size_bytes;
    ++state->size_generation;
  }
  return state;
}

void Volume::ForgetFileIfUnused(const std::string& file_id) {
  std::lock_guard<std::mutex> lock(files_mutex_);
  auto found = files_.find(file_id);
  if (found != files_.end() && found->second.expired()) {
    files_.erase(found);
  }
}

}  // namespace xtreemfs::client
