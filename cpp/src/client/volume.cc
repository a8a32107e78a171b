#include "client/volume.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <google/protobuf/util/json_util.h>

#include <cerrno>
#include <algorithm>
#include <set>
#include <type_traits>

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

bool StartsWith(const std::string& text, const char* prefix) {
  return text.rfind(prefix, 0) == 0;
}

constexpr const char* kUserXattrPrefix = "user.";
constexpr const char* kXtreemfsXattrPrefix = "xtreemfs.";

// Open flags the MRC understands (open.proto's OpenFlag values equal Linux's).
constexpr std::uint32_t kOpenFlagsForwarded = O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND;

}  // namespace

std::unique_ptr<Volume> Volume::Open(rpc::Transport& transport, const DirUrl& url, Clock& clock,
                                     VolumeOptions options) {
  const rpc::ServiceAddress dir_address{url.host, url.port, url.scheme.value_or(rpc::Scheme::kPlain)};
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
                                                 clock, call_options, options.warn);
  // Looked up now so a volume whose MRC the DIR cannot name fails to open; calls look it up again.
  resolver->Resolve(registration.mrc_uuid());
  auto volume = std::unique_ptr<Volume>(new Volume(transport, clock, options, url.volume_name,
                                                   registration.volume_id(), registration.mrc_uuid(),
                                                   std::move(resolver)));
  volume->url_ = dir_address.ToUrl() + "/" + url.volume_name;
  return volume;
}

Volume::Volume(rpc::Transport& transport, Clock& clock, VolumeOptions options,
               std::string volume_name, std::string volume_id, std::string mrc_uuid,
               std::unique_ptr<UuidResolver> resolver)
    : transport_(transport),
      clock_(clock),
      options_(options),
      volume_name_(std::move(volume_name)),
      volume_id_(std::move(volume_id)),
      mrc_uuid_(std::move(mrc_uuid)),
      resolver_(std::move(resolver)),
      metadata_cache_(clock, options.metadata_cache_ttl_ms, options.metadata_cache_entries_max),
      absent_names_(clock, options.absent_names_ttl_ms, options.absent_names_misses,
                    options.absent_names_max) {}

Volume::~Volume() = default;

namespace {
// Directories whose stat-ahead state is kept at once, and entries asked per stat-ahead batch.
constexpr std::size_t kStatAheadDirectoriesMax = 1024;
// The MRC's largest page (ReaddirOp.READDIR_LIMIT_MAX): fewer, larger pages cost it less per entry;
// each further page continues after the last name of the previous one.
constexpr std::uint32_t kStatAheadBatchEntries = 10000;
// What one getattr round trip costs the MRC and the client, in entries of a listing with attributes:
// a listing of E entries pays when the directory's getattrs per TTL, times this, reach E. Measured
// as CPU (tests/bench/fuse/README.md, "Issue 10: stat through the mount", load 29-38): a getattr
// round trip cost the MRC 490-520 us and the mount 250-283 us, a listed entry about 11 us of the
// MRC's and 9 of the mount's, i.e. about 36. (16 before: 46 us per entry, from a listing timed
// with a FUSE stat of every entry, which a stat-ahead listing does not pay.)
constexpr std::uint64_t kListedEntriesPerGetattr = 32;

// Files whose size at close is kept for ApplyLocalSize (about 100 bytes each).
constexpr std::size_t kClosedFileSizesMax = 16384;
}  // namespace

rpc::ServiceLookup Volume::LookupOf(const std::string& service_uuid) {
  // By reference: no copy of the UUID per OSD call; the lookup is used only within the call.
  return rpc::ServiceLookup{[this, &service_uuid] { return resolver_->Resolve(service_uuid); },
                            [this, &service_uuid] { resolver_->Invalidate(service_uuid); }};
}

template <typename Response>
Response Volume::CallMrc(std::uint32_t procedure_id, const UserCredentials& user,
                         const google::protobuf::MessageLite& request, bool idempotent) {
  return rpc::ParseResponse<Response>(CallMrcRaw(procedure_id, user, request, idempotent, false));
}

rpc::CallResponse Volume::CallMrcRaw(std::uint32_t procedure_id, const UserCredentials& user,
                                     const google::protobuf::MessageLite& request, bool idempotent,
                                     bool errno_as_value) {
  rpc::CallRequest call;
  call.interface_id = xtreemfs::mrc::MRC_INTERFACE_ID;
  call.procedure_id = procedure_id;
  call.credentials = &user;
  call.message = &request;
  rpc::CallOptions options;
  options.timeout_ms = options_.timeout_ms;
  options.idempotent = idempotent;
  // The MRC records the outcome of every change it applies (servers/mrc/README.md, "Exactly-once
  // retries"), so a change whose answer was lost is retried too, and the retry gets the first outcome.
  options.exactly_once = !idempotent;
  options.errno_as_value = errno_as_value;
  // The FUSE worker waits for the answer anyway: it receives it itself, without the io thread's hop
  // (a wake-up and hand-over per call; tests/bench/fuse/README.md, session 16).
  options.callers_own_connection = true;
  try {
    return transport_.CallService(LookupOf(mrc_uuid_), call, options);
  } catch (const rpc::RpcError& error) {
    // RpcClient returns such answers; a transport that throws them anyway (test fakes) gets the same.
    if (!errno_as_value || error.kind() != rpc::ErrorKind::kErrno) throw;
    rpc::CallResponse answer;
    answer.errno_answer = error.posix_errno();
    answer.errno_message = error.message();
    return answer;
  }
}

// FileHandle calls these from its own translation unit.
template xtreemfs::mrc::XCapResponse Volume::CallMrc<xtreemfs::mrc::XCapResponse>(
    std::uint32_t, const UserCredentials&, const google::protobuf::MessageLite&, bool);
template xtreemfs::rpc::Empty Volume::CallMrc<xtreemfs::rpc::Empty>(
    std::uint32_t, const UserCredentials&, const google::protobuf::MessageLite&, bool);
template xtreemfs::mrc::OpenResponse Volume::CallMrc<xtreemfs::mrc::OpenResponse>(
    std::uint32_t, const UserCredentials&, const google::protobuf::MessageLite&, bool);
template xtreemfs::common::XLocSet Volume::CallMrc<xtreemfs::common::XLocSet>(
    std::uint32_t, const UserCredentials&, const google::protobuf::MessageLite&, bool);

namespace {

// An OSD procedure call; the request and credentials must outlive it.
rpc::CallRequest OsdCallOf(std::uint32_t procedure_id, const UserCredentials& user,
                           const google::protobuf::MessageLite& request, std::string_view data,
                           std::shared_ptr<const void> data_owner = nullptr) {
  rpc::CallRequest call;
  call.interface_id = xtreemfs::osd::OSD_INTERFACE_ID;
  call.procedure_id = procedure_id;
  call.credentials = &user;
  call.message = &request;
  call.data = data;
  call.data_owner = std::move(data_owner);
  return call;
}

}  // namespace

rpc::CallResponse Volume::CallOsd(const std::string& osd_uuid, std::uint32_t procedure_id,
                                  const UserCredentials& user,
                                  const google::protobuf::MessageLite& request,
                                  std::string_view data, bool idempotent,
                                  bool repeat_only_while_alive) {
  rpc::CallOptions options;
  options.timeout_ms = options_.timeout_ms;
  options.idempotent = idempotent;
  options.repeat_only_while_alive = repeat_only_while_alive;
  return transport_.CallService(LookupOf(osd_uuid), OsdCallOf(procedure_id, user, request, data),
                                options);
}

void Volume::CallOsdAsync(const std::string& osd_uuid, std::uint32_t procedure_id,
                          const UserCredentials& user, const google::protobuf::MessageLite& request,
                          std::string_view data, rpc::CallDone done,
                          std::shared_ptr<const void> data_owner) {
  rpc::CallOptions options;
  options.timeout_ms = options_.timeout_ms;
  options.idempotent = true;
  transport_.CallServiceAsync(LookupOf(osd_uuid),
                              OsdCallOf(procedure_id, user, request, data, std::move(data_owner)),
                              options, std::move(done));
}

std::optional<Stat> Volume::CachedStat(const std::string& path) {
  std::optional<Stat> cached = metadata_cache_.Get(path);
  if (!cached) return std::nullopt;
  // An entry filled by a listing may predate a size this process knows (ApplyLocalSize); a file
  // open here is not answered from the cache at all.
  if ((cached->mode() & S_IFMT) == S_IFREG && !ApplyLocalSizeUnlessOpen(*cached)) return std::nullopt;
  NoteHit(path);
  return cached;
}

Stat Volume::Getattr(const UserCredentials& user, const std::string& path) {
  std::optional<Stat> stat = GetattrIfExists(user, path);
  if (!stat) throw rpc::RpcError::Errno(ENOENT, "no such file or directory: '" + path + "'");
  return *stat;
}

bool Volume::KnownAbsent(const std::string& path) {
  return path != "/" && absent_names_.KnownAbsent(MetadataCache::ParentOf(path),
                                                  path.substr(path.rfind('/') + 1));
}

std::optional<Stat> Volume::GetattrIfExists(const UserCredentials& user, const std::string& path) {
  if (auto cached = CachedStat(path)) return cached;
  if (KnownAbsent(path)) return std::nullopt;
  const std::string directory = MetadataCache::ParentOf(path);
  const std::uint64_t generation = metadata_cache_.Generation();
  rpc::CallResponse response = CallMrcRaw(xtreemfs::mrc::MRC_GETATTR, user,
                                          PathRequestOf(volume_name_, path), true, true);
  if (response.errno_answer == ENOENT) {
    if (path != "/") NoteAbsentAndList(user, directory);
    return std::nullopt;
  }
  if (response.errno_answer != 0) {
    throw rpc::RpcError::Errno(response.errno_answer, response.errno_message);
  }
  Stat stat = rpc::ParseResponse<xtreemfs::mrc::GetattrResponse>(response).stat();
  metadata_cache_.Put(path, stat, generation);
  ApplyLocalSize(stat);
  if (path != "/") NoteMissAndStatAhead(user, MetadataCache::ParentOf(path));
  return stat;
}

void Volume::CountLookup(StatAhead& state, std::int64_t now_ms) {
  const std::int64_t elapsed_ms = now_ms - state.window_start_ms;
  if (elapsed_ms >= options_.metadata_cache_ttl_ms) {
    state.last_window_lookups =
        elapsed_ms >= 2 * static_cast<std::int64_t>(options_.metadata_cache_ttl_ms)
            ? 0
            : state.window_lookups;
    state.window_lookups = 0;
    state.window_start_ms = now_ms;
  }
  ++state.window_lookups;
}

void Volume::NoteHit(const std::string& path) {
  if (options_.stat_ahead_misses == 0 || path == "/") return;
  const std::int64_t now_ms = clock_.MonotonicMs();
  std::lock_guard<std::mutex> lock(stat_ahead_mutex_);
  auto found = stat_ahead_.find(MetadataCache::ParentOf(path));
  if (found == stat_ahead_.end()) return;
  StatAhead& state = found->second;
  CountLookup(state, now_ms);
  if (state.listed_at_ms != 0 && now_ms - state.listed_at_ms < options_.metadata_cache_ttl_ms) {
    ++state.listing_hits;
  }
}

void Volume::NoteMissAndStatAhead(const UserCredentials& user, const std::string& directory) {
  if (!metadata_cache_.enabled() || options_.stat_ahead_misses == 0) return;
  const std::int64_t started_ms = clock_.MonotonicMs();
  {
    std::lock_guard<std::mutex> lock(stat_ahead_mutex_);
    if (stat_ahead_.size() >= kStatAheadDirectoriesMax && stat_ahead_.count(directory) == 0) {
      stat_ahead_.clear();
    }
    StatAhead& state = stat_ahead_[directory];
    CountLookup(state, started_ms);
    // Listed less than a TTL ago: these misses are names created since or evicted; wait.
    if (state.listing || (state.listed_at_ms != 0 &&
                          started_ms - state.listed_at_ms < options_.metadata_cache_ttl_ms)) {
      return;
    }
    if (++state.misses < options_.stat_ahead_misses) return;
    state.misses = 0;
    // The first listing is a probe; later ones only while getattrs come fast enough to pay for them.
    // The pace is the last whole TTL's getattrs, or the current TTL's so far when more: a burst that
    // starts after a pause (an unlink loop's lookups, each a revalidation of a name the kernel's entry
    // cache let expire) is listed for within its first TTL, not only after it.
    // The pace alone fed on itself: without a listing every lookup is a round trip, the loop slows
    // down, and the slower pace never pays for a listing again (an unlink loop on the loaded machine
    // sent 37 % of its lookups to the MRC). So a listing is also repeated while the previous one
    // paid: the getattrs it answered, counted at the pace of local lookups, would have cost more.
    // A loop that really slows down stops it after one listing that does not pay.
    const std::uint64_t pace = std::max(state.last_window_lookups, state.window_lookups);
    const bool pace_pays = pace * kListedEntriesPerGetattr >= state.listed_entries;
    const bool last_listing_paid =
        state.listing_hits * kListedEntriesPerGetattr >= state.listed_entries;
    if (state.listed_entries != 0 && !pace_pays && !last_listing_paid) return;
    state.listing = true;
    state.listed_at_ms = started_ms;
    state.listing_hits = 0;
  }
  // From offset 2: "." and ".." are not needed, and a listing from offset 0 is an access of the
  // directory that may update its atime (servers/mrc/README.md), which a stat is not.
  std::uint64_t offset = 2;
  std::string after_name;  // the last name listed: the next page continues after it
  std::uint64_t fetched = 0;
  try {
    // Entries are trusted for one TTL from their arrival: a listing still going on after half of it
    // would bring entries that expire before they are used (a slow MRC or a loaded machine).
    while (fetched < options_.stat_ahead_entries_max &&
           clock_.MonotonicMs() - started_ms < options_.metadata_cache_ttl_ms / 2) {
      const auto batch = Readdir(user, directory, offset, kStatAheadBatchEntries, false, after_name);
      fetched += static_cast<std::uint64_t>(batch.entries_size());
      if (batch.end_of_directory() || batch.entries_size() == 0) break;
      const auto& last = batch.entries(batch.entries_size() - 1);
      if (last.next_offset() <= offset) break;
      offset = last.next_offset();
      after_name = last.name();
    }
  } catch (const rpc::RpcError&) {
    // No read permission, the directory went away, a timeout: stat goes on one entry at a time.
  }
  std::lock_guard<std::mutex> lock(stat_ahead_mutex_);
  StatAhead& state = stat_ahead_[directory];
  state.listing = false;
  state.listed_entries = std::max<std::uint64_t>(fetched, 1);
}

void Volume::NoteAbsentAndList(const UserCredentials& user, const std::string& directory) {
  const std::uint64_t ticket = absent_names_.NoteMiss(directory);
  if (ticket == 0) return;
  std::vector<std::string> names;
  bool complete = false;
  // From offset 2 ("." and ".." are no names to look up; a listing from 0 may update atime).
  std::uint64_t offset = 2;
  try {
    while (names.size() <= absent_names_.names_max()) {
      const auto batch = Readdir(user, directory, offset, kStatAheadBatchEntries, true);
      for (const auto& entry : batch.entries()) names.push_back(entry.name());
      if (batch.end_of_directory() || batch.entries_size() == 0) {
        complete = batch.end_of_directory() && names.size() <= absent_names_.names_max();
        break;
      }
      const std::uint64_t next = batch.entries(batch.entries_size() - 1).next_offset();
      if (next <= offset) break;
      offset = next;
    }
  } catch (const rpc::RpcError&) {
    // No read permission, the directory went away, a timeout: lookups keep asking the MRC.
  }
  absent_names_.Listed(directory, ticket, std::move(names), complete);
}

template <typename Call, typename Invalidate>
auto Volume::Mutate(Call call, Invalidate invalidate) -> decltype(call()) {
  try {
    if constexpr (std::is_void_v<decltype(call())>) {
      call();
      invalidate();
    } else {
      auto result = call();
      invalidate();
      return result;
    }
  } catch (...) {
    invalidate();
    throw;
  }
}

void Volume::InvalidateNames(const std::string& path) {
  if (auto inode = metadata_cache_.CachedInode(path)) metadata_cache_.InvalidateInode(*inode);
  metadata_cache_.Invalidate(path);
}

void Volume::InvalidateEntry(const std::string& path) {
  absent_names_.NoteChanged(path);
  InvalidateNames(path);
  metadata_cache_.Invalidate(MetadataCache::ParentOf(path));
}

void Volume::InvalidateEntryKeepingDirectory(const std::string& path,
                                             const xtreemfs::mrc::Stat* directory,
                                             std::uint64_t generation) {
  if (directory == nullptr) {
    InvalidateEntry(path);
    return;
  }
  // Put before the name's invalidations (they bump the generation).
  const std::string parent = MetadataCache::ParentOf(path);
  const bool kept = metadata_cache_.Put(parent, *directory, generation);
  absent_names_.NoteChanged(path);
  InvalidateNames(path);
  if (!kept) metadata_cache_.Invalidate(parent);
}

namespace {

bool IsNewer(const Volume::KnownSize& a, const Volume::KnownSize& b) {
  return a.truncate_epoch != b.truncate_epoch ? a.truncate_epoch > b.truncate_epoch
                                              : a.size_bytes > b.size_bytes;
}

}  // namespace

void Volume::ApplyLocalSize(Stat& stat) {
  if ((stat.mode() & S_IFMT) != S_IFREG) return;
  NewestLocalSize(stat, true);
}

bool Volume::ApplyLocalSizeUnlessOpen(Stat& stat) { return NewestLocalSize(stat, false); }

bool Volume::NewestLocalSize(Stat& stat, bool when_open) {
  const std::string file_id = volume_id_ + ":" + std::to_string(stat.inode());
  std::shared_ptr<FileState> state;
  KnownSize newest{stat.size_bytes(), stat.truncate_epoch()};
  {
    std::lock_guard<std::mutex> lock(files_mutex_);
    auto found = files_.find(file_id);
    if (found != files_.end()) state = found->second.lock();
    if (state && !when_open) return false;
    auto closed = closed_sizes_.find(file_id);
    if (closed != closed_sizes_.end() && IsNewer(closed->second.first, newest)) {
      newest = closed->second.first;
    }
  }
  if (state) {
    std::lock_guard<std::mutex> lock(state->mutex);
    const KnownSize local{state->size_bytes, state->truncate_epoch};
    if (IsNewer(local, newest)) newest = local;
  }
  stat.set_size_bytes(newest.size_bytes);
  stat.set_truncate_epoch(newest.truncate_epoch);
  return true;
}

void Volume::RememberClosedSize(const std::string& file_id, KnownSize known) {
  std::lock_guard<std::mutex> lock(files_mutex_);
  auto found = closed_sizes_.find(file_id);
  if (found != closed_sizes_.end()) {
    if (IsNewer(found->second.first, known)) known = found->second.first;
    closed_files_.erase(found->second.second);
    closed_sizes_.erase(found);
  }
  closed_files_.push_front(file_id);
  closed_sizes_.emplace(file_id, std::make_pair(known, closed_files_.begin()));
  if (closed_sizes_.size() > kClosedFileSizesMax) {
    closed_sizes_.erase(closed_files_.back());
    closed_files_.pop_back();
  }
}

Stat Volume::Setattr(const UserCredentials& user, const std::string& path, const Stat& stat,
                     std::uint32_t to_set) {
  xtreemfs::mrc::SetattrRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  *request.mutable_stat() = stat;
  request.set_to_set(to_set);
  // Only the inode's own names change (ctime, mode, owner, times); the parent stays as it is.
  return Mutate(
      [&] {
        return CallMrc<xtreemfs::mrc::GetattrResponse>(xtreemfs::mrc::MRC_SETATTR, user, request,
                                                       true)
            .stat();
      },
      [&] { InvalidateNames(path); });
}

Stat Volume::Mkdir(const UserCredentials& user, const std::string& path, std::uint32_t mode) {
  xtreemfs::mrc::MkdirRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_mode(mode);
  return Mutate(
      [&] {
        return CallMrc<xtreemfs::mrc::GetattrResponse>(xtreemfs::mrc::MRC_MKDIR, user, request,
                                                       false)
            .stat();
      },
      [&] { InvalidateEntry(path); });
}

Stat Volume::Mknod(const UserCredentials& user, const std::string& path, std::uint32_t mode,
                   std::uint64_t rdev) {
  xtreemfs::mrc::MknodRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_mode(mode);
  request.set_rdev(rdev);
  return Mutate(
      [&] {
        return CallMrc<xtreemfs::mrc::GetattrResponse>(xtreemfs::mrc::MRC_MKNOD, user, request,
                                                       false)
            .stat();
      },
      [&] { InvalidateEntry(path); });
}

void Volume::Rmdir(const UserCredentials& user, const std::string& path) {
  Mutate(
      [&] {
        CallMrc<xtreemfs::rpc::Empty>(xtreemfs::mrc::MRC_RMDIR, user,
                                      PathRequestOf(volume_name_, path), false);
      },
      [&] {
        InvalidateEntry(path);
        metadata_cache_.InvalidateSubtree(path);
        absent_names_.ForgetSubtree(path);
      });
}

void Volume::Unlink(const UserCredentials& user, const std::string& path) {
  const std::uint64_t generation = metadata_cache_.Generation();
  xtreemfs::mrc::UnlinkResponse response;
  bool answered = false;
  // The other names of a hard-linked file lose a link: drop them too (when the inode is cached).
  Mutate(
      [&] {
        response = CallMrc<xtreemfs::mrc::UnlinkResponse>(xtreemfs::mrc::MRC_UNLINK, user,
                                                          PathRequestOf(volume_name_, path), false);
        answered = true;
      },
      [&] {
        InvalidateEntryKeepingDirectory(
            path, answered && response.has_directory_stat() ? &response.directory_stat() : nullptr,
            generation);
      });
}

void Volume::Rename(const UserCredentials& user, const std::string& source_path,
                    const std::string& target_path, std::uint32_t flags) {
  xtreemfs::mrc::RenameRequest request;
  request.set_volume_name(volume_name_);
  request.set_source_path(source_path);
  request.set_target_path(target_path);
  request.set_flags(flags);
  // Both names, both parents, an overwritten target's other names, and everything cached below
  // either path when they are directories.
  Mutate(
      [&] {
        return CallMrc<xtreemfs::mrc::UnlinkResponse>(xtreemfs::mrc::MRC_RENAME, user, request,
                                                      false);
      },
      [&] {
        InvalidateEntry(source_path);
        InvalidateEntry(target_path);
        metadata_cache_.InvalidateSubtree(source_path);
        absent_names_.ForgetSubtree(source_path);
        metadata_cache_.InvalidateSubtree(target_path);
        absent_names_.ForgetSubtree(target_path);
      });
}

Stat Volume::Link(const UserCredentials& user, const std::string& existing_path,
                  const std::string& link_path) {
  xtreemfs::mrc::LinkRequest request;
  request.set_volume_name(volume_name_);
  request.set_target_path(existing_path);
  request.set_link_path(link_path);
  // The existing names get nlink + 1 and a new ctime; the new name's parent a new entry.
  return Mutate(
      [&] {
        return CallMrc<xtreemfs::mrc::GetattrResponse>(xtreemfs::mrc::MRC_LINK, user, request,
                                                       false)
            .stat();
      },
      [&] {
        InvalidateEntry(existing_path);
        InvalidateEntry(link_path);
      });
}

Stat Volume::Symlink(const UserCredentials& user, const std::string& target,
                     const std::string& link_path) {
  xtreemfs::mrc::LinkRequest request;
  request.set_volume_name(volume_name_);
  request.set_target_path(target);
  request.set_link_path(link_path);
  return Mutate(
      [&] {
        return CallMrc<xtreemfs::mrc::GetattrResponse>(xtreemfs::mrc::MRC_SYMLINK, user, request,
                                                       false)
            .stat();
      },
      [&] { InvalidateEntry(link_path); });
}

std::string Volume::Readlink(const UserCredentials& user, const std::string& path) {
  return CallMrc<xtreemfs::mrc::ReadlinkResponse>(xtreemfs::mrc::MRC_READLINK, user,
                                                  PathRequestOf(volume_name_, path), true)
      .target();
}

xtreemfs::mrc::ReaddirResponse Volume::Readdir(const UserCredentials& user, const std::string& path,
                                               std::uint64_t offset, std::uint32_t limit,
                                               bool names_only, const std::string& after_name) {
  xtreemfs::mrc::ReaddirRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_offset(offset);
  request.set_after_name(after_name);
  request.set_limit(limit);
  request.set_names_only(names_only);
  const std::uint64_t generation = metadata_cache_.Generation();
  auto response =
      CallMrc<xtreemfs::mrc::ReaddirResponse>(xtreemfs::mrc::MRC_READDIR, user, request, true);
  // `ls -l` stats every entry right after listing them: serve those from the cache.
  if (!names_only) metadata_cache_.PutListed(path, response.entries(), generation);
  return response;
}

std::string Volume::Getxattr(const UserCredentials& user, const std::string& path,
                             const std::string& name) {
  if (!MayHaveXattr(name)) {
    throw rpc::RpcError::Errno(ENODATA, "no attribute '" + name + "' on '" + path +
                                            "' (only user.* and xtreemfs.* exist)");
  }
  if (name == kXattrUrl || name == kXattrFileId || name == kXattrObjectSize ||
      name == kXattrStripeWidth || name == kXattrReservation) {
    return LayoutAttribute(user, path, name);
  }
  xtreemfs::mrc::XattrRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_name(name);
  return CallMrc<xtreemfs::mrc::XattrValue>(xtreemfs::mrc::MRC_GETXATTR, user, request, true).value();
}

bool Volume::MayHaveXattr(const std::string& name) {
  return StartsWith(name, kUserXattrPrefix) || StartsWith(name, kXtreemfsXattrPrefix);
}

std::string Volume::LayoutAttribute(const UserCredentials& user, const std::string& path,
                                    const std::string& name) {
  if (name == kXattrUrl) {
    GetFileLayout(user, path);  // ENOENT and EACCES as for every other attribute
    return url_;
  }
  const auto layout = GetFileLayout(user, path);
  if (name == kXattrFileId) return layout.file_id();
  if (name == kXattrReservation) {
    std::string json;
    google::protobuf::util::JsonPrintOptions options;
    options.always_print_primitive_fields = true;
    options.preserve_proto_field_names = true;
    if (!google::protobuf::util::MessageToJsonString(layout.reservation(), &json, options).ok()) {
      throw rpc::RpcError::Of(rpc::ErrorKind::kInternal, "cannot print the reservation of '" + path + "'");
    }
    return json;
  }
  // Object size and stripe width exist only for files with objects (an XLoc).
  if (layout.xlocs().replicas_size() == 0) {
    throw rpc::RpcError::Errno(ENODATA, "no attribute '" + name + "' on '" + path +
                                            "': it has no XLoc (directory, link or file never opened)");
  }
  const auto& policy = layout.xlocs().replicas(0).striping_policy();
  return std::to_string(name == kXattrObjectSize ? policy.object_size_bytes() : policy.width());
}

void Volume::Setxattr(const UserCredentials& user, const std::string& path, const std::string& name,
                      const std::string& value, std::uint32_t flags) {
  if (StartsWith(name, kXtreemfsXattrPrefix)) {
    throw rpc::RpcError::Errno(EPERM, "attribute '" + name + "' is read-only");
  }
  xtreemfs::mrc::XattrRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_name(name);
  request.set_value(value);
  request.set_flags(flags);
  // The MRC sets ctime.
  Mutate([&] { CallMrc<xtreemfs::rpc::Empty>(xtreemfs::mrc::MRC_SETXATTR, user, request, false); },
         [&] { InvalidateNames(path); });
}

std::vector<std::string> Volume::Listxattr(const UserCredentials& user, const std::string& path) {
  const auto names = CallMrc<xtreemfs::mrc::XattrNames>(xtreemfs::mrc::MRC_LISTXATTR, user,
                                                        PathRequestOf(volume_name_, path), true);
  std::vector<std::string> listed(names.names().begin(), names.names().end());
  const auto layout = GetFileLayout(user, path);
  listed.insert(listed.end(), {kXattrUrl, kXattrFileId});
  if (layout.xlocs().replicas_size() > 0) {
    listed.insert(listed.end(), {kXattrObjectSize, kXattrStripeWidth});
  }
  if ((layout.stat().mode() & S_IFMT) == S_IFREG) listed.emplace_back(kXattrLocations);
  listed.emplace_back(kXattrReservation);
  return listed;
}

void Volume::Removexattr(const UserCredentials& user, const std::string& path,
                         const std::string& name) {
  if (StartsWith(name, kXtreemfsXattrPrefix)) {
    throw rpc::RpcError::Errno(EPERM, "attribute '" + name + "' is read-only");
  }
  xtreemfs::mrc::XattrRequest request;
  request.set_volume_name(volume_name_);
  request.set_path(path);
  request.set_name(name);
  Mutate([&] { CallMrc<xtreemfs::rpc::Empty>(xtreemfs::mrc::MRC_REMOVEXATTR, user, request, false); },
         [&] { InvalidateNames(path); });
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
  // O_CREAT may add a name to the parent; O_TRUNC changes size and times of every name of the file
  // (while a handle is open, Getattr bypasses the cache anyway; the last close drops the inode).
  const bool changes_namespace = (flags & (O_CREAT | O_TRUNC)) != 0;
  const std::uint64_t generation = metadata_cache_.Generation();
  xtreemfs::mrc::OpenResponse response;
  bool answered = false;
  Mutate(
      [&] {
        response = CallMrc<xtreemfs::mrc::OpenResponse>(xtreemfs::mrc::MRC_OPEN, user, request,
                                                         idempotent);
        answered = true;
      },
      [&] {
        if (!changes_namespace) return;
        // A create's answer carries its directory as the create left it (as an unlink's does).
        InvalidateEntryKeepingDirectory(
            path, answered && response.has_directory_stat() ? &response.directory_stat() : nullptr,
            generation);
      });
  const auto& credentials = response.credentials();
  if (credentials.xlocs().replicas_size() == 0 ||
      credentials.xlocs().replicas(0).osd_uuids_size() == 0) {
    throw rpc::RpcError::Of(rpc::ErrorKind::kInternal,
                            "MRC returned no OSDs for '" + path + "' (file " +
                                credentials.xcap().file_id() + ")");
  }
  const std::uint32_t truncate_epoch = credentials.xcap().truncate_epoch();
  auto state = StateOfFile(credentials.xcap().file_id(), response.stat().size_bytes(), truncate_epoch);
  // Moved, not copied: the deep copy of the XCap and XLoc set was 1.2 % of the mount's CPU in a
  // create loop (perf, mostly malloc).
  auto handle = std::make_unique<FileHandle>(*this, user, std::move(*response.mutable_credentials()),
                                             std::move(state), path, flags & kOpenFlagsForwarded);
  if ((flags & O_CREAT) != 0) handle->KeepCreatedStat(response.stat());
  // On O_TRUNC of an existing file the MRC set the size to 0 under a new truncate epoch (carried by
  // this XCap); the objects of the old content must go too, or a later hole would show them. Epoch 0
  // means no truncate ever happened: the file was just created and has no objects, so the common
  // `open(O_CREAT | O_TRUNC)` of a new file costs no OSD round trips.
  if ((flags & O_TRUNC) != 0 && (flags & O_ACCMODE) != O_RDONLY && truncate_epoch != 0) {
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
  {
    std::lock_guard<std::mutex> lock(files_mutex_);
    auto found = files_.find(file_id);
    if (found == files_.end() || !found->second.expired()) return;
    files_.erase(found);
  }
  // The last handle is gone: anything cached while the file was open is older than what its
  // handles told the MRC.
  InvalidateFileAttributes(file_id);
}

void Volume::InvalidateFileAttributes(const std::string& file_id) {
  const std::size_t colon = file_id.rfind(':');
  if (colon != std::string::npos) {
    try {
      metadata_cache_.InvalidateInode(std::stoull(file_id.substr(colon + 1)));
      return;
    } catch (const std::exception&) {
    }
  }
  metadata_cache_.InvalidateSubtree("/");  // an unexpected file id: forget everything
}

}  // namespace xtreemfs::client
