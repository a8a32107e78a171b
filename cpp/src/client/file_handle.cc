#include "client/file_handle.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>
#include <exception>
#include <fcntl.h>
#include <optional>

#include "client/replica_chain.h"
#include "client/volume.h"
#include "mrc.pb.h"
#include "osd.pb.h"
#include "rpc/record.h"
#include "rpc/rpc_error.h"
#include "rpc/wait_notice.h"

namespace xtreemfs::client {

FileHandle::FileHandle(Volume& volume, xtreemfs::rpc::UserCredentials user,
                       xtreemfs::common::FileCredentials credentials,
                       std::shared_ptr<FileState> state, std::string path,
                       std::uint32_t open_flags)
    : volume_(volume),
      user_(std::move(user)),
      file_id_(credentials.xcap().file_id()),
      path_(std::move(path)),
      reopen_flags_(open_flags & ~static_cast<std::uint32_t>(O_CREAT | O_EXCL | O_TRUNC)),
      open_may_have_changed_attributes_(
          (open_flags & O_TRUNC) != 0 ||
          ((open_flags & O_ACCMODE) != O_WRONLY && (open_flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL))),
      state_(std::move(state)),
      credentials_(std::make_shared<const xtreemfs::common::FileCredentials>(std::move(credentials))),
      io_(volume.io_) {
  const auto& replica = credentials_->xlocs().replicas(0);
  layout_ = StripingLayout::FromPolicy(replica.striping_policy());
  chains_ = ReplicaChains::FromXLoc(credentials_->xlocs(), file_id_);
  osd_uuids_ = chains_.head_osd_uuids;
  replicated_ = chains_.replica_count > 1;
  if (osd_uuids_.size() < layout_.stripe_width) {
    throw rpc::RpcError::Of(rpc::ErrorKind::kInternal,
                            "file " + file_id_ + " has stripe width " +
                                std::to_string(layout_.stripe_width) + " but only " +
                                std::to_string(osd_uuids_.size()) + " OSDs");
  }
  if (io_.options.read_ahead_bytes > 0) {
    read_ahead_ = std::make_unique<ReadAheadCache>(io_.options.read_ahead_bytes,
                                                   layout_.object_size_bytes, io_.budget);
  }
  std::lock_guard<std::mutex> lock(state_->mutex);
  file_write_failures_seen_ = state_->writes.failures;  // earlier failures are not this handle's
}

FileHandle::~FileHandle() {
  try {
    Close();
  } catch (const rpc::RpcError&) {
    // Close() is the place to observe this error; a destructor must not throw.
  }
  // Close drained this handle's writes even when it threw; prefetches still use `this`.
  read_ahead_.reset();
  // The size the MRC was told stays known here after the last handle (Volume::ApplyLocalSize): an
  // answer the MRC read before that report may still be on its way. With writes of another handle
  // still unreported, that handle's close keeps the size instead.
  // Only a size this process changed (a write or truncate of any handle of the file here:
  // size_generation) or an open that may have (O_TRUNC) can be newer than an MRC answer still on
  // its way. A file opened for writing and closed unchanged (every create of the metadata loop)
  // keeps nothing: 4 of the mount's ~66 mallocs per create and the volume's mutex, perf.
  std::optional<Volume::KnownSize> known;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (!state_->size_dirty && (state_->size_generation != 0 || open_may_have_changed_attributes_)) {
      known = Volume::KnownSize{state_->size_bytes, state_->truncate_epoch};
    }
  }
  if (known) volume_.RememberClosedSize(file_id_, *known);
  state_.reset();
  volume_.ForgetFileIfUnused(file_id_);
}

xtreemfs::common::XCap FileHandle::CurrentXCap() const {
  std::lock_guard<std::mutex> lock(credentials_mutex_);
  return credentials_->xcap();
}

template <typename Change>
void FileHandle::ChangeCredentialsLocked(Change change) {
  auto changed = std::make_shared<xtreemfs::common::FileCredentials>(*credentials_);
  change(*changed);
  credentials_ = std::move(changed);
}

namespace {

// Lends `credentials` to `request` (an OSD request with a `credentials` field) for this object's
// lifetime, without copying them: the request only refers to the snapshot while it is encoded
// (the transport serialises its message before Call or CallServiceAsync returns) and lets go of it
// before it is destroyed. Serialising one message from several threads at once is safe (protobuf's
// cached sizes are atomic); nothing writes through the borrowed pointer.
template <typename Request>
class BorrowedCredentials {
 public:
  BorrowedCredentials(Request& request, const xtreemfs::common::FileCredentials& credentials)
      : request_(request) {
    request_.unsafe_arena_set_allocated_credentials(
        const_cast<xtreemfs::common::FileCredentials*>(&credentials));
  }
  ~BorrowedCredentials() { request_.unsafe_arena_release_credentials(); }
  BorrowedCredentials(const BorrowedCredentials&) = delete;
  BorrowedCredentials& operator=(const BorrowedCredentials&) = delete;

 private:
  Request& request_;
};

}  // namespace

std::uint64_t FileHandle::KnownSizeBytes() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->size_bytes;
}

void FileHandle::RenewXCap() {
  std::lock_guard<std::mutex> renew_lock(renew_mutex_);
  xtreemfs::mrc::XCapRequest request;
  *request.mutable_xcap() = CurrentXCap();
  xtreemfs::common::XCap renewed;
  try {
    renewed = volume_.CallMrc<xtreemfs::mrc::XCapResponse>(xtreemfs::mrc::MRC_RENEW_CAPABILITY,
                                                           user_, request, true)
                  .xcap();
  } catch (const rpc::RpcError& error) {
    if (error.kind() != rpc::ErrorKind::kAuthFailed || path_.empty()) throw;
    xtreemfs::mrc::OpenRequest reopen;
    reopen.set_volume_name(volume_.volume_name_);
    reopen.set_path(path_);
    reopen.set_flags(reopen_flags_);
    renewed = volume_.CallMrc<xtreemfs::mrc::OpenResponse>(xtreemfs::mrc::MRC_OPEN, user_, reopen,
                                                           true)
                  .credentials()
                  .xcap();
    if (renewed.file_id() != file_id_) {
      throw rpc::RpcError::Errno(EIO, "'" + path_ + "' now names file " + renewed.file_id() +
                                          ", not the open file " + file_id_ +
                                          "; its capability expired and cannot be renewed");
    }
  }
  std::lock_guard<std::mutex> lock(credentials_mutex_);
  ChangeCredentialsLocked([&](xtreemfs::common::FileCredentials& changed) {
    *changed.mutable_xcap() = std::move(renewed);
  });
}

void FileHandle::RenewXCapIfDue() {
  std::uint64_t expires_ms;
  {
    std::lock_guard<std::mutex> lock(credentials_mutex_);
    expires_ms = credentials_->xcap().expires_ms();
  }
  const std::int64_t renew_at_ms =
      static_cast<std::int64_t>(expires_ms) - static_cast<std::int64_t>(volume_.options_.xcap_renew_margin_ms);
  if (volume_.clock_.WallMs() >= renew_at_ms) {
    RenewXCap();
  }
}

xtreemfs::common::FileCredentials FileHandle::FreshCredentials() {
  RenewXCapIfDue();
  std::lock_guard<std::mutex> lock(credentials_mutex_);
  return *credentials_;
}

std::string FileHandle::HeadOsdUuid() const {
  std::lock_guard<std::mutex> lock(credentials_mutex_);
  return osd_uuids_.at(0);
}

bool FileHandle::FollowChain(std::uint32_t used_version, const std::string& failed_osd_uuid) {
  xtreemfs::mrc::ReplicaFailedRequest report;
  *report.mutable_xcap() = CurrentXCap();
  report.set_xloc_version(used_version);
  report.set_failed_osd_uuid(failed_osd_uuid);
  // Idempotent: a repeated report names a version the MRC already moved past.
  const auto current = volume_.CallMrc<xtreemfs::common::XLocSet>(
      xtreemfs::mrc::MRC_REPLICA_FAILED, user_, report, true);
  ReplicaChains chains = ReplicaChains::FromXLoc(current, file_id_);
  std::lock_guard<std::mutex> lock(credentials_mutex_);
  if (current.version() <= credentials_->xlocs().version()) {
    return false;
  }
  ChangeCredentialsLocked([&](xtreemfs::common::FileCredentials& changed) {
    *changed.mutable_xlocs() = current;
  });
  osd_uuids_ = chains.head_osd_uuids;
  chains_ = std::move(chains);  // reads are routed over the re-formed chain's members from now on
  replicated_ = chains_.replica_count > 1;
  // Only a writer can fsync (OSD_FSYNC needs write access); the new tail may hold buffered data.
  fsync_after_reformation_ = (reopen_flags_ & O_ACCMODE) != O_RDONLY;
  return true;
}

FileHandle::StripeRetry FileHandle::NewStripeRetry() const {
  StripeRetry retry;
  retry.start_ms = volume_.clock_.MonotonicMs();
  retry.backoff_ms = volume_.options_.chain_backoff_initial_ms;
  return retry;
}

FileHandle::StripeAttempt FileHandle::PrepareStripeAttempt(std::uint32_t stripe_position,
                                                           std::uint32_t procedure_id,
                                                           const StreamClassifier* read_stream) {
  StripeAttempt attempt;
  // Per attempt: a newer XLoc adopted by FollowChain may have added replicas to a file that had one.
  attempt.following = replicated_.load();
  RenewXCapIfDue();
  {
    // The credentials and the chain under one lock: FollowChain replaces both together.
    std::lock_guard<std::mutex> lock(credentials_mutex_);
    attempt.credentials = credentials_;  // the snapshot, not a copy
    // Updates (write, truncate, fsync) go to the head, which forwards them down the chain. The
    // head's UUID as the snapshot's XLoc holds it: osd_uuids_ is made from that XLoc (ReplicaChains::
    // FromXLoc) and replaced with it, under this lock.
    attempt.head_osd_uuid = &attempt.credentials->xlocs().replicas(0).osd_uuids(static_cast<int>(stripe_position));
    attempt.fsync_first = fsync_after_reformation_ && procedure_id != xtreemfs::osd::OSD_READ;
    if (attempt.fsync_first) attempt.heads = osd_uuids_;
    // Reads of an unreplicated file have one member to go to: the head.
    if (chains_.replica_count <= 1) read_stream = nullptr;
  }
  attempt.xloc_version = attempt.credentials->xlocs().version();
  if (read_stream != nullptr) {
    // Any replica may serve a read: a member with an update its successor has not acknowledged
    // passes the read down the chain (servers/osd README, "Consistent reads").
    attempt.routed_osd_uuid = ReadOsdFor(stripe_position, *read_stream);
  }
  return attempt;
}

bool FileHandle::RecoverFromFailedAttempt(const rpc::RpcError& error, const StripeAttempt& attempt,
                                          StripeRetry& retry, bool repeat_transient) {
  if (error.kind() == rpc::ErrorKind::kAuthFailed && !retry.renewed) {
    // The cap may have expired in flight or been invalidated by a truncate elsewhere.
    retry.renewed = true;
    RenewXCap();
    return true;
  }
  // XLOC_OUTDATED is followed for every file (an OSD saw a newer XLoc version, servers/osd "XLoc versions at
  // the OSD"); the other chain failures and OVERLOADED only for a replicated one.
  const bool xloc_outdated = error.kind() == rpc::ErrorKind::kXLocOutdated;
  if (!attempt.following && !xloc_outdated) {
    // An unreplicated file's transient failures are the transport's to retry, within its window.
    return repeat_transient && error.IsTransient();
  }
  const std::int64_t elapsed_ms = volume_.clock_.MonotonicMs() - retry.start_ms;
  const bool chain_failure = error.kind() == rpc::ErrorKind::kTransport ||
                             error.kind() == rpc::ErrorKind::kTimeout ||
                             error.kind() == rpc::ErrorKind::kChainMemberUnreachable || xloc_outdated;
  if (elapsed_ms >= static_cast<std::int64_t>(volume_.options_.chain_retry_window_ms) ||
      (attempt.following && !chain_failure && error.kind() != rpc::ErrorKind::kOverloaded)) {
    return false;
  }
  bool taken = false;
  if (chain_failure) {
    const std::string failed = error.kind() == rpc::ErrorKind::kChainMemberUnreachable
                                   ? error.redirect_to_service_uuid()
                               : xloc_outdated ? std::string()
                                               : attempt.OsdUuid();
    taken = FollowChain(attempt.xloc_version, failed);
  }
  if (!taken) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<std::int64_t>(
        retry.backoff_ms, volume_.options_.chain_retry_window_ms - elapsed_ms)));
    retry.backoff_ms = std::min(retry.backoff_ms * 2, volume_.options_.chain_backoff_max_ms);
  }
  return true;
}

template <typename BuildRequest>
std::string FileHandle::CallStripeOsd(std::uint32_t stripe_position, std::uint32_t procedure_id,
                                      BuildRequest build_request, std::string_view data,
                                      bool idempotent, std::string* response_data,
                                      const StreamClassifier* read_stream, std::string* called_osd_uuid,
                                      const FailedAttempt* earlier) {
  // A replicated file's call is repeated by the transport only while its OSD is slow but answers its
  // ping (rpc::CallOptions::repeat_only_while_alive): an OSD that gives no answer is reported to the
  // MRC here (servers/osd README, "Chain replication"), and every retry takes the chain as it is then.
  // Updates are idempotent by offset, size and epoch, so a re-sent one is safe.
  StripeRetry retry = earlier != nullptr ? earlier->retry : NewStripeRetry();
  if (earlier != nullptr) {
    try {
      std::rethrow_exception(earlier->error);
    } catch (const rpc::RpcError& error) {
      // An asynchronous attempt had none of the transport's retries.
      if (!RecoverFromFailedAttempt(error, earlier->attempt, retry, true)) throw;
    }
  }
  for (;;) {
    const StripeAttempt attempt = PrepareStripeAttempt(stripe_position, procedure_id, read_stream);
    if (called_osd_uuid != nullptr) *called_osd_uuid = attempt.OsdUuid();
    try {
      if (attempt.fsync_first) {
        // The re-formed chain's new tail may hold, buffered, what it applied as a middle.
        xtreemfs::osd::FileRequest sync;
        sync.set_file_id(file_id_);
        const BorrowedCredentials<xtreemfs::osd::FileRequest> borrowed(sync, *attempt.credentials);
        for (const std::string& head : attempt.heads) {
          try {
            // Only a head that gives no answer is reported; a slow one is waited for (RetryingTransport).
            volume_.CallOsd(head, xtreemfs::osd::OSD_FSYNC, user_, sync, {}, true, true);
          } catch (const rpc::RpcError& error) {
            if (error.kind() != rpc::ErrorKind::kTransport && error.kind() != rpc::ErrorKind::kTimeout) throw;
            // Report the head that gave no answer, not this call's OSD.
            throw rpc::RpcError(rpc::ErrorKind::kChainMemberUnreachable, EIO, error.message(), head);
          }
        }
        std::lock_guard<std::mutex> lock(credentials_mutex_);
        if (credentials_->xlocs().version() == attempt.xloc_version) fsync_after_reformation_ = false;
      }
      auto request = build_request();
      const BorrowedCredentials<decltype(request)> borrowed(request, *attempt.credentials);
      // A replicated file's call is repeated by the transport only while its OSD is slow but alive.
      rpc::CallResponse response = volume_.CallOsd(attempt.OsdUuid(), procedure_id, user_, request, data,
                                                   idempotent, attempt.following);
      if (response_data != nullptr) {
        *response_data = std::move(response.data);
      }
      return std::move(response.message_bytes);
    } catch (const rpc::RpcError& error) {
      // A synchronous call of an unreplicated file went through the transport's retries already.
      if (!RecoverFromFailedAttempt(error, attempt, retry, false)) throw;
    }
  }
}

StreamClassifier FileHandle::ObserveRead(std::uint64_t offset_bytes, std::uint64_t length_bytes) {
  std::lock_guard<std::mutex> lock(route_mutex_);
  if (read_stream_ordinal_ < 0) {
    read_stream_ordinal_ = volume_.next_read_stream_ordinal_.fetch_add(1) & 0x7fffffff;
  }
  read_classifier_ = read_classifier_.Observe(static_cast<std::int64_t>(offset_bytes),
                                              static_cast<std::int64_t>(length_bytes));
  return read_classifier_;
}

StreamClassifier FileHandle::CurrentReadStream() {
  std::lock_guard<std::mutex> lock(route_mutex_);
  return read_classifier_;
}

std::string FileHandle::ReadOsdFor(std::uint32_t stripe_position, const StreamClassifier& stream) {
  std::vector<std::string> chain;
  xtreemfs::common::ReadRouting read_routing;
  {
    // A re-formed chain replaces chains_ (FollowChain). A replica being filled serves no reads (the
    // OSD would redirect to the tail): route among the others.
    std::lock_guard<std::mutex> lock(credentials_mutex_);
    chain = chains_.ReadableChainAt(stripe_position);
    read_routing = chains_.read_routing;
  }
  if (chain.size() == 1) {
    return chain[0];
  }
  std::vector<int> queued;
  std::vector<std::int64_t> dirty_bytes;
  queued.reserve(chain.size());
  dirty_bytes.reserve(chain.size());
  for (const auto& osd_uuid : chain) {
    const ReplicaLoads::Load load = volume_.replica_loads_.LoadOf(osd_uuid);
    queued.push_back(load.queued_requests);
    dirty_bytes.push_back(load.write_back_dirty_bytes);
  }
  int stream_ordinal;
  {
    std::lock_guard<std::mutex> lock(route_mutex_);
    stream_ordinal = std::max(0, read_stream_ordinal_);
  }
  return chain[RouteRead(read_routing, stream_ordinal, stream, queued, dirty_bytes, kStealQueuedReadsMinDefault)
                   .replica];
}

namespace {

// Caller holds state.mutex.
void GrowKnownSizeLocked(FileState& state, std::uint64_t end_bytes) {
  if (end_bytes > state.size_bytes) {
    state.size_bytes = end_bytes;
    state.size_dirty = true;
    ++state.size_generation;
  }
}

constexpr std::uint64_t kWholeFileEndBytes = ~std::uint64_t{0};

}  // namespace

bool FileHandle::WriteBehindEnabled() const {
  return buffered_ && io_.options.write_behind_bytes > 0;
}

void FileHandle::DisableBuffering() {
  buffered_ = false;
  read_ahead_.reset();
}

void FileHandle::DisableReadAhead() { read_ahead_.reset(); }

xtreemfs::osd::ReadRequest FileHandle::ReadRequestOf(const ObjectPiece& piece) const {
  xtreemfs::osd::ReadRequest request;
  request.set_file_id(file_id_);
  request.set_object_number(piece.object_number);
  request.set_offset(piece.offset_in_object_bytes);
  request.set_length(piece.length_bytes);
  return request;
}

xtreemfs::osd::WriteRequest FileHandle::WriteRequestOf(std::uint64_t object_number,
                                                       std::uint64_t offset_in_object_bytes) const {
  xtreemfs::osd::WriteRequest request;
  request.set_file_id(file_id_);
  request.set_object_number(object_number);
  request.set_offset(offset_in_object_bytes);
  return request;
}

std::string FileHandle::FetchPiece(const ObjectPiece& piece, const StreamClassifier& stream,
                                   const FailedAttempt* earlier) {
  auto build = [&] { return ReadRequestOf(piece); };
  std::string data;
  std::string osd_uuid;  // the replica the read was routed to (its last attempt's)
  xtreemfs::osd::ReadResponse answer;
  if (answer.ParseFromString(CallStripeOsd(piece.stripe_position, xtreemfs::osd::OSD_READ, build, {}, true,
                                           &data, &stream, &osd_uuid, earlier))) {
    volume_.replica_loads_.Reported(osd_uuid, static_cast<int>(answer.queued_requests()),
                                    static_cast<std::int64_t>(answer.write_back_dirty_bytes()));
  }
  if (data.size() > piece.length_bytes) {
    throw rpc::RpcError::Of(rpc::ErrorKind::kInternal,
                            "OSD " + osd_uuid + " returned " +
                                std::to_string(data.size()) + " bytes for a read of " +
                                std::to_string(piece.length_bytes) + " of object " +
                                std::to_string(piece.object_number) + " of " + file_id_);
  }
  return data;
}

std::string FileHandle::Read(std::uint64_t offset_bytes, std::uint64_t length_bytes) {
  return ReadRuns(offset_bytes, length_bytes).Join();
}

ReadResult FileHandle::ReadRuns(std::uint64_t offset_bytes, std::uint64_t length_bytes) {
  const std::uint64_t size_bytes = KnownSizeBytes();
  if (offset_bytes >= size_bytes || length_bytes == 0) {
    return ReadResult();
  }
  const std::uint64_t clamped_length = std::min(length_bytes, size_bytes - offset_bytes);
  const std::uint64_t end_bytes = offset_bytes + clamped_length;
  DrainWrites(nullptr, offset_bytes, end_bytes);
  std::uint64_t data_generation;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    data_generation = state_->data_generation;
  }
  const StreamClassifier stream = ObserveRead(offset_bytes, clamped_length);
  const std::vector<ObjectPiece> pieces = SplitIntoObjectPieces(layout_, offset_bytes, clamped_length);
  std::vector<SharedBytes> piece_data(pieces.size());
  std::vector<std::size_t> missing;  // indices of pieces read-ahead does not hold
  for (std::size_t index = 0; index < pieces.size(); ++index) {
    const ObjectPiece& piece = pieces[index];
    std::optional<SharedBytes> cached;
    if (read_ahead_) {
      cached = read_ahead_->Lookup(piece.object_number, piece.offset_in_object_bytes,
                                   piece.length_bytes, data_generation);
    }
    if (cached) {
      piece_data[index] = std::move(*cached);
    } else {
      missing.push_back(index);
    }
  }
  io_.pool.RunAll(missing.size(), [&](std::size_t missing_index) {
    const std::size_t index = missing[missing_index];
    auto fetched = std::make_shared<const std::string>(FetchPiece(pieces[index], stream));
    const std::size_t length = fetched->size();
    piece_data[index] = SharedBytes{std::move(fetched), 0, length};
  });
  ReadResult result;
  for (std::size_t index = 0; index < pieces.size(); ++index) {
    const std::size_t stored = piece_data[index].length;
    result.Append(std::move(piece_data[index]));
    // The piece lies inside the known file size, so whatever the OSD does not store is a hole.
    result.AppendZeros(pieces[index].length_bytes - stored);
  }
  if (read_ahead_) {
    for (std::uint64_t object_number :
         read_ahead_->AfterRead(offset_bytes, end_bytes, size_bytes, data_generation)) {
      Prefetch(object_number, data_generation);
    }
  }
  return result;
}

void FileHandle::Prefetch(std::uint64_t object_number, std::uint64_t data_generation) {
  const std::uint64_t object_start = object_number * layout_.object_size_bytes;
  const std::uint64_t object_end = object_start + layout_.object_size_bytes;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    // A buffered write not yet answered would be missing from what the OSD returns; a write
    // accepted after this check changes data_generation, which drops the fetched object.
    bool overlapped = state_->data_generation != data_generation;
    for (const auto& [owner, pending] : state_->writes.pending) {
      overlapped = overlapped || RangesOverlap(object_start, object_end, pending.file_offset_bytes,
                                               pending.file_end_bytes());
    }
    for (const auto& queued : state_->writes.queued) {
      overlapped = overlapped || RangesOverlap(object_start, object_end,
                                               queued->write.file_offset_bytes,
                                               queued->write.file_end_bytes());
    }
    if (overlapped) {
      read_ahead_->Cancel(object_number);
      return;
    }
  }
  ObjectPiece piece;
  piece.object_number = object_number;
  piece.stripe_position = StripePositionOf(layout_, object_number);
  piece.offset_in_object_bytes = 0;
  piece.length_bytes = layout_.object_size_bytes;
  piece.file_offset_bytes = object_start;
  // The handle waits for read_ahead_ to be idle before it goes away, so `this` outlives the task.
  io_.pool.Submit([this, piece] {
    std::string data;
    bool ok = true;
    try {
      data = FetchPiece(piece, CurrentReadStream());
    } catch (...) {
      ok = false;  // the reader fetches the object itself and sees the error there
    }
    read_ahead_->Complete(piece.object_number, std::move(data), ok);
  });
}

std::uint64_t FileHandle::SendObjectWrite(std::uint64_t object_number, std::uint32_t stripe_position,
                                          std::uint64_t offset_in_object_bytes, std::string_view data,
                                          const FailedAttempt* earlier) {
  auto build = [&] { return WriteRequestOf(object_number, offset_in_object_bytes); };
  // Writing the same bytes again leaves the same content, so a write may be retried.
  const auto response = rpc::ParseResponse<xtreemfs::common::OsdWriteResponse>(rpc::CallResponse{
      CallStripeOsd(stripe_position, xtreemfs::osd::OSD_WRITE, build, data, true, nullptr, nullptr,
                    nullptr, earlier),
      ""});
  return response.has_new_file_size() ? response.new_file_size().size_bytes() : 0;
}

void FileHandle::WriteThrough(std::uint64_t offset_bytes, std::string_view data) {
  // Older buffered bytes of other handles under this range must reach the OSDs first.
  DrainWrites(nullptr, offset_bytes, offset_bytes + data.size());
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    ++state_->data_generation;
  }
  wrote_since_report_ = true;
  const std::vector<ObjectPiece> pieces = SplitIntoObjectPieces(layout_, offset_bytes, data.size());
  std::vector<std::uint64_t> reported_size_bytes(pieces.size(), 0);
  io_.pool.RunAll(pieces.size(), [&](std::size_t index) {
    const ObjectPiece& piece = pieces[index];
    reported_size_bytes[index] =
        SendObjectWrite(piece.object_number, piece.stripe_position, piece.offset_in_object_bytes,
                        data.substr(piece.file_offset_bytes - offset_bytes, piece.length_bytes));
  });
  const std::uint64_t osd_reported_size_bytes =
      *std::max_element(reported_size_bytes.begin(), reported_size_bytes.end());
  std::lock_guard<std::mutex> lock(state_->mutex);
  GrowKnownSizeLocked(*state_, std::max(osd_reported_size_bytes, offset_bytes + data.size()));
}

void FileHandle::Write(std::uint64_t offset_bytes, std::string_view data,
                       const std::shared_ptr<const void>& data_owner) {
  if (data.empty()) {
    return;
  }
  if (!WriteBehindEnabled()) {
    WriteThrough(offset_bytes, data);
    return;
  }
  ThrowIfWriteFailed();
  wrote_since_report_ = true;
  for (const ObjectPiece& piece : SplitIntoObjectPieces(layout_, offset_bytes, data.size())) {
    BufferPiece(piece, data.substr(piece.file_offset_bytes - offset_bytes, piece.length_bytes), data_owner);
  }
}

void FileHandle::BufferPiece(const ObjectPiece& piece, std::string_view bytes,
                             const std::shared_ptr<const void>& owner) {
  {
    // Flow control: queued bytes shrink only by answers, which need no lock held here.
    std::unique_lock<std::mutex> lock(state_->mutex);
    const auto has_room = [&] { return queued_bytes_ < io_.options.write_behind_bytes; };
    // A wait for answers: the FUSE loop's reader may hand its place on (rpc/wait_notice.h).
    if (!has_room()) rpc::NoteWait();
    state_->writes.changed.wait(lock, has_room);
  }
  io_.budget.WaitBelowCapacity();
  const std::uint64_t start_bytes = piece.file_offset_bytes;
  const std::uint64_t end_bytes = start_bytes + piece.length_bytes;
  std::vector<std::shared_ptr<QueuedWrite>> to_send;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    ++state_->data_generation;
    GrowKnownSizeLocked(*state_, end_bytes);
    FileWrites& writes = state_->writes;
    // Unqueued bytes of other handles under this piece are older, so they are queued first.
    for (auto other = writes.pending.begin(); other != writes.pending.end();) {
      if (other->first != this && RangesOverlap(start_bytes, end_bytes, other->second.file_offset_bytes,
                                                other->second.file_end_bytes())) {
        to_send.push_back(QueueLocked(const_cast<FileHandle*>(other->first), std::move(other->second)));
        other = writes.pending.erase(other);
      } else {
        ++other;
      }
    }
    auto mine = writes.pending.find(this);
    if (mine != writes.pending.end() && (mine->second.object_number != piece.object_number ||
                                         mine->second.file_end_bytes() != start_bytes)) {
      to_send.push_back(QueueLocked(this, std::move(mine->second)));
      writes.pending.erase(mine);
      mine = writes.pending.end();
    }
    const bool reaches_object_end =
        piece.offset_in_object_bytes + piece.length_bytes >= layout_.object_size_bytes;
    if (mine == writes.pending.end()) {
      PendingWrite fresh;
      fresh.object_number = piece.object_number;
      fresh.stripe_position = piece.stripe_position;
      fresh.offset_in_object_bytes = piece.offset_in_object_bytes;
      fresh.file_offset_bytes = start_bytes;
      // A piece queued at once (it completes its object) can be sent from the caller's bytes: no copy
      // into the window. Profiled (buffered 1 MiB writes of 1 MiB objects): that copy was 15 % of the
      // mount's CPU samples (tests/bench/fuse/README.md, session 17). Bounded mount-wide, as each one
      // holds its caller (a FUSE worker) until the OSD answered.
      if (owner != nullptr && reaches_object_end) {
        if (io_.borrowed_writes->fetch_add(1) < io_.options.borrowed_writes_max) {
          fresh.borrowed = std::make_shared<const BorrowedBytes>(bytes, owner, io_.borrowed_writes);
        } else {
          io_.borrowed_writes->fetch_sub(1);
        }
      }
      if (fresh.borrowed != nullptr) {
        to_send.push_back(QueueLocked(this, std::move(fresh)));
      } else {
        mine = writes.pending.emplace(this, std::move(fresh)).first;
      }
    }
    if (mine != writes.pending.end()) {
      mine->second.data.append(bytes);
      // A pending write never crosses its object's end, so a write reaching it is complete.
      if (mine->second.offset_in_object_bytes + mine->second.data.size() >= layout_.object_size_bytes) {
        to_send.push_back(QueueLocked(this, std::move(mine->second)));
        writes.pending.erase(mine);
      }
    }
  }
  for (auto& queued : to_send) Send(std::move(queued));
}

std::shared_ptr<QueuedWrite> FileHandle::QueueLocked(FileHandle* owner, PendingWrite&& write) {
  auto queued = std::make_shared<QueuedWrite>();
  queued->sequence = state_->writes.next_sequence++;
  queued->owner = owner;
  queued->write = std::move(write);
  state_->writes.queued.push_back(queued);
  owner->queued_bytes_ += queued->write.bytes().size();
  // Charged without waiting: the bytes are in memory already (see ByteBudget).
  io_.budget.Charge(queued->write.bytes().size());
  return queued;
}

namespace {

// Runs a synchronous repeat of a failed asynchronous piece off the io thread: it may wait for the
// whole retry window, and the io thread must keep serving every other call meanwhile. A thread of
// its own, so neither the io thread nor the I/O pool (whose bounded queue may be full) waits;
// their number is bounded by the kernel's requests in flight, and failures are the exception.
template <typename Task>
void RepeatSynchronously(Task task) {
  std::thread(std::move(task)).detach();
}

// Queued writes at least this large are sent from their own bytes (FileHandle::Send): the size of
// the FUSE adapter's borrowed writes, so at most a window's worth of them (32 by default) can wait
// in repeats per handle.
constexpr std::size_t kQueuedWriteSentFromOwnBytesMin = 128 * 1024;

}  // namespace

void FileHandle::Send(std::shared_ptr<QueuedWrite> queued) {
  {
    std::unique_lock<std::mutex> lock(state_->mutex);
    const PendingWrite& write = queued->write;
    // Earlier writes never wait for later ones, so this wait ends (by induction on sequence).
    const auto no_earlier_overlap = [&] {
      for (const auto& earlier : state_->writes.queued) {
        if (earlier->sequence >= queued->sequence) break;
        if (RangesOverlap(write.file_offset_bytes, write.file_end_bytes(),
                          earlier->write.file_offset_bytes, earlier->write.file_end_bytes())) {
          return false;
        }
      }
      return true;
    };
    if (!no_earlier_overlap()) rpc::NoteWait();
    state_->writes.changed.wait(lock, no_earlier_overlap);
  }
  // Borrowed, not shared: the owner holds state_ and waits (Close, DrainWrites) until its queued
  // bytes are 0, which `finish` sets as its last step under state->mutex. A shared copy here would
  // outlive the owner by a moment, so the last close would not find the file unused and the
  // metadata cache would keep the Stat from before the writes (a stale size after close).
  FileState* state = state_.get();
  ByteBudget* budget = &io_.budget;
  auto finish = [state, budget, queued](std::uint64_t reported_size_bytes,
                                        std::optional<WriteFailure> error) {
    FileHandle* owner = queued->owner;
    const std::uint64_t bytes = queued->write.bytes().size();
    std::lock_guard<std::mutex> lock(state->mutex);
    state->writes.queued.remove(queued);
    owner->queued_bytes_ -= bytes;
    if (error) {
      error->message = "buffered write of object " + std::to_string(queued->write.object_number) +
                       " failed: " + error->message;
      ++state->writes.failures;
      state->writes.last_failure = *error;
      if (!owner->write_error_) owner->write_error_ = std::move(error);
    }
    GrowKnownSizeLocked(*state, reported_size_bytes);
    // Released together with the owner's count, so the budget never lags behind the windows.
    budget->Release(bytes);
    // Under the lock: once the owner sees its queued bytes at 0 it may go away.
    state->writes.changed.notify_all();
  };
  // The synchronous retry loop (CallStripeOsd), continuing from `failed` when a first attempt failed.
  auto send_synchronously = [finish, queued](const FailedAttempt* failed) {
    const PendingWrite& write = queued->write;
    std::optional<WriteFailure> error;
    std::uint64_t reported_size_bytes = 0;
    try {
      reported_size_bytes = queued->owner->SendObjectWrite(write.object_number, write.stripe_position,
                                                           write.offset_in_object_bytes, write.bytes(), failed);
    } catch (const rpc::RpcError& failure) {
      error = WriteFailure{failure.kind(), failure.posix_errno(), failure.message()};
    } catch (const std::exception& failure) {
      error = WriteFailure{rpc::ErrorKind::kInternal, EIO, failure.what()};
    }
    finish(reported_size_bytes, std::move(error));
  };
  // That loop on a thread of its own, after a failed asynchronous first attempt or instead of one.
  auto repeat = [send_synchronously](std::shared_ptr<const FailedAttempt> failed) {
    RepeatSynchronously([send_synchronously, failed] { send_synchronously(failed.get()); });
  };
  // The first attempt is made on the pool (the FUSE worker answers the kernel meanwhile). A large
  // write's is asynchronous, as WriteAsync's pieces are: the record refers to the queued write's own
  // bytes (no copy of the object into it), and no pool thread waits for the answer, which `finish`
  // takes on the transport's io thread. Profiled (buffered 1 MiB writes): the copy into the record
  // was half of the mount's user-space copying (tests/bench/fuse/README.md, "session 12"). A small
  // write (random writes' pieces) is sent synchronously as before: its copy is cheap, and a failed
  // asynchronous attempt repeats on a thread of its own, which for thousands of small queued writes
  // in an OSD's outage would be thousands of threads, where the pool's workers take them in turn.
  io_.pool.Submit([finish, send_synchronously, repeat, queued] {
    FileHandle* owner = queued->owner;
    const PendingWrite& write = queued->write;
    if (write.bytes().size() < kQueuedWriteSentFromOwnBytesMin) {
      send_synchronously(nullptr);
      return;
    }
    try {
      const StripeRetry retry = owner->NewStripeRetry();
      StripeAttempt attempt =
          owner->PrepareStripeAttempt(write.stripe_position, xtreemfs::osd::OSD_WRITE, nullptr);
      if (attempt.fsync_first) {
        // A re-formed chain: the synchronous path fsyncs its heads first.
        repeat(nullptr);
        return;
      }
      xtreemfs::osd::WriteRequest request =
          owner->WriteRequestOf(write.object_number, write.offset_in_object_bytes);
      // Kept here too: `attempt` moves into the completion while the request is being sent.
      const auto credentials = attempt.credentials;
      const BorrowedCredentials<xtreemfs::osd::WriteRequest> borrowed(request, *credentials);
      const std::string osd_uuid = attempt.OsdUuid();
      owner->volume_.CallOsdAsync(
          osd_uuid, xtreemfs::osd::OSD_WRITE, owner->user_, request, write.bytes(),
          [finish, repeat, attempt = std::move(attempt), retry](rpc::CallResponse response,
                                                                std::exception_ptr error) mutable {
            xtreemfs::common::OsdWriteResponse answer;
            if (!error && answer.ParseFromString(response.message_bytes)) {
              finish(answer.has_new_file_size() ? answer.new_file_size().size_bytes() : 0,
                     std::nullopt);
              return;
            }
            // A failure continues as the synchronous retry loop; an unparseable answer is sent again.
            std::shared_ptr<const FailedAttempt> failed;
            if (error) {
              failed = std::make_shared<const FailedAttempt>(FailedAttempt{error, std::move(attempt), retry});
            }
            repeat(std::move(failed));
          },
          // The record is sent from the queued write's bytes, which it keeps alive until sent.
          std::shared_ptr<const void>(queued, queued->write.bytes().data()));
    } catch (const rpc::RpcError& failure) {
      finish(0, WriteFailure{failure.kind(), failure.posix_errno(), failure.message()});
    } catch (const std::exception& failure) {
      finish(0, WriteFailure{rpc::ErrorKind::kInternal, EIO, failure.what()});
    }
  });
}

void FileHandle::DrainWrites(const FileHandle* only_owner, std::uint64_t start_bytes,
                             std::uint64_t end_bytes) {
  auto matches = [&](const FileHandle* owner, const PendingWrite& write) {
    return (only_owner == nullptr || owner == only_owner) &&
           RangesOverlap(start_bytes, end_bytes, write.file_offset_bytes, write.file_end_bytes());
  };
  std::vector<std::shared_ptr<QueuedWrite>> to_send;
  std::uint64_t sequence_limit;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    FileWrites& writes = state_->writes;
    if (writes.Empty()) return;
    for (auto pending = writes.pending.begin(); pending != writes.pending.end();) {
      if (matches(pending->first, pending->second)) {
        to_send.push_back(QueueLocked(const_cast<FileHandle*>(pending->first),
                                      std::move(pending->second)));
        pending = writes.pending.erase(pending);
      } else {
        ++pending;
      }
    }
    sequence_limit = writes.next_sequence;
  }
  for (auto& queued : to_send) Send(std::move(queued));
  // Only writes queued before this call count, so a busy writer elsewhere cannot starve it.
  std::unique_lock<std::mutex> lock(state_->mutex);
  const auto drained = [&] {
    for (const auto& queued : state_->writes.queued) {
      if (queued->sequence >= sequence_limit) break;
      if (matches(queued->owner, queued->write)) return false;
    }
    return true;
  };
  if (!drained()) rpc::NoteWait();
  state_->writes.changed.wait(lock, drained);
}

void FileHandle::ThrowIfWriteFailed() {
  std::optional<WriteFailure> error;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    error = write_error_;
  }
  if (error) throw rpc::RpcError(error->kind, error->posix_errno, error->message);
}

void FileHandle::ThrowIfFileWriteFailedSinceLastReport() {
  WriteFailure failure;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->writes.failures == file_write_failures_seen_) return;
    file_write_failures_seen_ = state_->writes.failures;
    failure = state_->writes.last_failure;
  }
  throw rpc::RpcError(failure.kind, failure.posix_errno, failure.message);
}

void FileHandle::WriteZeros(std::uint64_t offset_bytes, std::uint64_t length_bytes) {
  const std::string zeros(static_cast<std::size_t>(std::min(length_bytes, kZeroChunkBytes)), '\0');
  // Each round writes one chunk, so the loop runs ceil(length / kZeroChunkBytes) times.
  for (std::uint64_t done_bytes = 0; done_bytes < length_bytes;) {
    const std::uint64_t chunk_bytes = std::min(length_bytes - done_bytes, kZeroChunkBytes);
    Write(offset_bytes + done_bytes, std::string_view(zeros.data(), chunk_bytes));
    done_bytes += chunk_bytes;
  }
}

std::vector<std::uint32_t> FileHandle::StripePositions() const {
  std::vector<std::uint32_t> positions(layout_.stripe_width);
  for (std::uint32_t i = 0; i < layout_.stripe_width; ++i) positions[i] = i;
  return positions;
}

void FileHandle::Truncate(std::uint64_t new_size_bytes) {
  // A buffered write answered after the truncate would bring cut bytes back.
  DrainWrites(nullptr, 0, kWholeFileEndBytes);
  xtreemfs::mrc::XCapRequest request;
  *request.mutable_xcap() = FreshCredentials().xcap();
  const auto response = volume_.CallMrc<xtreemfs::mrc::XCapResponse>(
      xtreemfs::mrc::MRC_FTRUNCATE, user_, request, false);
  {
    std::lock_guard<std::mutex> lock(credentials_mutex_);
    ChangeCredentialsLocked([&](xtreemfs::common::FileCredentials& changed) {
      *changed.mutable_xcap() = response.xcap();
    });
  }
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->truncate_epoch = std::max(state_->truncate_epoch, response.xcap().truncate_epoch());
    state_->size_bytes = new_size_bytes;
    state_->size_dirty = true;
    ++state_->size_generation;
    ++state_->data_generation;
  }
  TruncateObjects(new_size_bytes);
  ReportSize(false);
}

void FileHandle::TruncateObjects(std::uint64_t new_size_bytes) {
  DrainWrites(nullptr, 0, kWholeFileEndBytes);
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    ++state_->data_generation;
  }
  const std::vector<std::uint32_t> positions = StripePositions();
  io_.pool.RunAll(positions.size(), [&](std::size_t index) {
    const std::uint32_t position = positions[index];
    auto build = [&] {
      xtreemfs::osd::TruncateRequest truncate;
      truncate.set_file_id(file_id_);
      truncate.set_new_file_size_bytes(new_size_bytes);
      return truncate;
    };
    CallStripeOsd(position, xtreemfs::osd::OSD_TRUNCATE, build, {}, true, nullptr);
  });
}

bool FileHandle::ReportSize(bool close_file) {
  const bool wrote = wrote_since_report_.exchange(false);
  std::uint64_t size_bytes;
  std::uint64_t generation;
  std::uint32_t file_truncate_epoch;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (!state_->size_dirty && !wrote) {
      // The MRC knows this size and mtime already; close_file alone is not worth a round trip.
      return false;
    }
    size_bytes = state_->size_bytes;
    generation = state_->size_generation;
    file_truncate_epoch = state_->truncate_epoch;
  }
  xtreemfs::common::FileCredentials credentials = FreshCredentials();
  if (credentials.xcap().truncate_epoch() < file_truncate_epoch) {
    // Another handle truncated: an update under the old epoch would be ignored by the MRC.
    RenewXCap();
    credentials = FreshCredentials();
  }
  xtreemfs::mrc::UpdateFileSizeRequest request;
  *request.mutable_xcap() = credentials.xcap();
  request.mutable_new_file_size()->set_size_bytes(size_bytes);
  request.mutable_new_file_size()->set_truncate_epoch(credentials.xcap().truncate_epoch());
  // The MRC sets mtime and ctime only for a grown size or close_file, so a report after writes
  // always sets it: rewriting bytes in place must move mtime too (also on fsync and flush).
  request.set_close_file(close_file || wrote);
  // The MRC only grows the size under the same epoch, so repeating the update is harmless.
  try {
    volume_.CallMrc<xtreemfs::rpc::Empty>(xtreemfs::mrc::MRC_UPDATE_FILE_SIZE, user_, request, true);
  } catch (...) {
    if (wrote) wrote_since_report_ = true;  // the next fsync or close tries again
    throw;
  }
  // The MRC's size, mtime and ctime moved: a Stat cached before (say by the lookup of the open)
  // must not be served once the file no longer counts as open here, which begins inside the
  // release, before the release's own invalidation (seen as an old mtime right after close).
  volume_.InvalidateFileAttributes(file_id_);
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->size_generation == generation) {
    state_->size_dirty = false;
  }
  return true;
}

void FileHandle::Fsync() {
  DrainWrites(nullptr, 0, kWholeFileEndBytes);
  ThrowIfWriteFailed();
  ThrowIfFileWriteFailedSinceLastReport();
  const std::vector<std::uint32_t> positions = StripePositions();
  io_.pool.RunAll(positions.size(), [&](std::size_t index) {
    const std::uint32_t position = positions[index];
    auto build = [&] {
      xtreemfs::osd::FileRequest request;
      request.set_file_id(file_id_);
      return request;
    };
    CallStripeOsd(position, xtreemfs::osd::OSD_FSYNC, build, {}, true, nullptr);
  });
  ReportSize(false);
}

bool FileHandle::Flush() {
  DrainWrites(this, 0, kWholeFileEndBytes);
  ThrowIfWriteFailed();
  return ReportSize(false) || open_may_have_changed_attributes_;
}

void FileHandle::KeepCreatedStat(const xtreemfs::mrc::Stat& stat) {
  std::lock_guard<std::mutex> lock(credentials_mutex_);
  created_stat_ = stat;
}

std::optional<xtreemfs::mrc::Stat> FileHandle::TakeCreatedStat() {
  std::optional<xtreemfs::mrc::Stat> stat;
  {
    std::lock_guard<std::mutex> lock(credentials_mutex_);
    stat.swap(created_stat_);
  }
  if (!stat || wrote_since_report_.load()) return std::nullopt;
  std::lock_guard<std::mutex> lock(state_->mutex);
  // A write or truncate of another handle of the file in this process: the answer is stale.
  if (state_->size_dirty || state_->size_bytes != stat->size_bytes()) return std::nullopt;
  return stat;
}

bool FileHandle::Close() {
  WaitForAsyncCalls();
  {
    std::lock_guard<std::mutex> lock(credentials_mutex_);
    if (closed_) return false;
    closed_ = true;
  }
  DrainWrites(this, 0, kWholeFileEndBytes);
  if (read_ahead_) read_ahead_->WaitIdle();
  // The size goes to the MRC even after a failed write (other objects may hold the bytes); the
  // write error is what the caller sees.
  std::exception_ptr report_error;
  bool reported = false;
  try {
    reported = ReportSize(true);
  } catch (...) {
    report_error = std::current_exception();
  }
  ThrowIfWriteFailed();
  if (report_error) std::rethrow_exception(report_error);
  return reported || open_may_have_changed_attributes_;
}

void FileHandle::BeginAsync() {
  std::lock_guard<std::mutex> lock(async_mutex_);
  ++async_in_flight_;
}

void FileHandle::EndAsync() {
  std::lock_guard<std::mutex> lock(async_mutex_);
  if (--async_in_flight_ == 0) async_idle_.notify_all();
}

void FileHandle::WaitForAsyncCalls() {
  std::unique_lock<std::mutex> lock(async_mutex_);
  if (async_in_flight_ != 0) rpc::NoteWait();
  async_idle_.wait(lock, [this] { return async_in_flight_ == 0; });
}

// The pieces of one ReadAsync in flight: each piece's request state and bytes, and `done` once the
// last is answered. One allocation per request: each piece's first attempt lives here, and its
// completion refers to it by one pointer, which std::function keeps without an allocation of its
// own (a completion that held the attempt was a heap-allocated functor per piece). Owned by its
// unanswered pieces: the last one's completion deletes it, so nothing may touch a gather after
// starting its last piece.
struct FileHandle::ReadGather {
  struct Piece {
    ReadGather* gather = nullptr;
    ObjectPiece piece;
    StripeAttempt attempt;  // the first attempt's (its snapshot, its OSD)
    StripeRetry retry;
    std::string data;       // guarded by gather->mutex
  };

  ReadGather(FileHandle& handle, std::vector<ObjectPiece> object_pieces, StreamClassifier read_stream,
             ReadDone read_done)
      : handle(handle), stream(read_stream), done(std::move(read_done)), remaining(object_pieces.size()) {
    pieces.resize(object_pieces.size());
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      pieces[i].gather = this;
      pieces[i].piece = object_pieces[i];
    }
    handle.BeginAsync();  // the handle stays until the last piece is done
  }

  FileHandle& handle;
  std::vector<Piece> pieces;
  const StreamClassifier stream;
  ReadDone done;
  std::mutex mutex;
  std::size_t remaining;     // guarded by mutex: pieces not yet completed
  std::exception_ptr error;  // guarded by mutex: the first piece's failure

  // Each piece completes exactly once; the last one answers and deletes the gather.
  void Complete(std::size_t index, std::string bytes, std::exception_ptr failure) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (failure) {
        if (!error) error = std::move(failure);
      } else {
        pieces[index].data = std::move(bytes);
      }
      if (--remaining > 0) return;
    }
    if (error) {
      done(ReadResult(), error);
    } else {
      // Every piece lies inside the known file size, so whatever the OSD does not store is a hole.
      ReadResult result;
      for (Piece& piece : pieces) {
        const std::uint64_t stored = piece.data.size();
        result.Append(std::move(piece.data));
        result.AppendZeros(piece.piece.length_bytes - stored);
      }
      done(std::move(result), nullptr);
    }
    FileHandle& owner = handle;
    delete this;
    owner.EndAsync();
  }
};

// The pieces of one WriteAsync in flight; `done` once the last is answered. Owned like ReadGather.
struct FileHandle::WriteGather {
  struct Piece {
    WriteGather* gather = nullptr;
    ObjectPiece piece;
    StripeAttempt attempt;
    StripeRetry retry;
  };

  WriteGather(FileHandle& handle, std::vector<ObjectPiece> object_pieces, std::uint64_t offset_bytes,
              WriteDone write_done)
      : handle(handle), offset_bytes(offset_bytes), done(std::move(write_done)),
        remaining(object_pieces.size()) {
    pieces.resize(object_pieces.size());
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      pieces[i].gather = this;
      pieces[i].piece = object_pieces[i];
    }
    handle.BeginAsync();
  }

  FileHandle& handle;
  std::vector<Piece> pieces;
  const std::uint64_t offset_bytes;
  std::string_view bytes;                    // valid while the gather lives (copy) or bytes_owner is referenced
  std::string copy;                          // the caller's bytes, when they fit into a record's head
  std::shared_ptr<const void> bytes_owner;   // else the caller's own owner, or a shared copy
  WriteDone done;
  std::mutex mutex;
  std::size_t remaining;                     // guarded by mutex
  std::uint64_t reported_size_bytes = 0;     // guarded by mutex: the largest size an OSD reported
  std::exception_ptr error;                  // guarded by mutex: the first piece's failure

  std::string_view PieceData(std::size_t index) const {
    const ObjectPiece& piece = pieces[index].piece;
    return bytes.substr(piece.file_offset_bytes - offset_bytes, piece.length_bytes);
  }

  void Complete(std::uint64_t piece_reported_size_bytes, std::exception_ptr failure) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (failure && !error) error = std::move(failure);
      reported_size_bytes = std::max(reported_size_bytes, piece_reported_size_bytes);
      if (--remaining > 0) return;
    }
    if (!error) {
      // As WriteThrough: the known size grows only when every piece was written.
      std::lock_guard<std::mutex> lock(handle.state_->mutex);
      GrowKnownSizeLocked(*handle.state_, std::max(reported_size_bytes, offset_bytes + bytes.size()));
    }
    done(error ? 0 : bytes.size(), error);
    FileHandle& owner = handle;
    delete this;
    owner.EndAsync();
  }
};

void FileHandle::ReadAsync(std::uint64_t offset_bytes, std::uint64_t length_bytes, ReadDone done) {
  if (read_ahead_) {
    ReadResult data;
    try {
      data = ReadRuns(offset_bytes, length_bytes);
    } catch (...) {
      done(ReadResult(), std::current_exception());
      return;
    }
    done(std::move(data), nullptr);
    return;
  }
  const std::uint64_t size_bytes = KnownSizeBytes();
  if (offset_bytes >= size_bytes || length_bytes == 0) {
    done(ReadResult(), nullptr);
    return;
  }
  const std::uint64_t clamped_length = std::min(length_bytes, size_bytes - offset_bytes);
  // As Read: buffered bytes of other handles under the range go first.
  DrainWrites(nullptr, offset_bytes, offset_bytes + clamped_length);
  auto* gather = new ReadGather(*this, SplitIntoObjectPieces(layout_, offset_bytes, clamped_length),
                                ObserveRead(offset_bytes, clamped_length), std::move(done));
  // Counted before the first piece starts: the last piece's completion deletes the gather.
  const std::size_t count = gather->pieces.size();
  for (std::size_t index = 0; index < count; ++index) {
    try {
      StartPieceRead(*gather, index);
    } catch (...) {
      // Earlier pieces are in flight: this one fails through the gather, so `done` runs once.
      gather->Complete(index, std::string(), std::current_exception());
    }
  }
}

void FileHandle::StartPieceRead(ReadGather& gather, std::size_t index) {
  ReadGather::Piece& piece = gather.pieces[index];
  piece.retry = NewStripeRetry();
  piece.attempt = PrepareStripeAttempt(piece.piece.stripe_position, xtreemfs::osd::OSD_READ, &gather.stream);
  xtreemfs::osd::ReadRequest request = ReadRequestOf(piece.piece);
  // The piece (its attempt's snapshot and OSD UUID) stays until its completion ran, which is after the
  // request was encoded and the UUID last used (Transport::CallServiceAsync); `piece` is not touched
  // after the call: its completion may have deleted the gather by then.
  const BorrowedCredentials<xtreemfs::osd::ReadRequest> borrowed(request, *piece.attempt.credentials);
  volume_.CallOsdAsync(
      piece.attempt.OsdUuid(), xtreemfs::osd::OSD_READ, user_, request, {},
      [piece = &piece](rpc::CallResponse response, std::exception_ptr error) {
        ReadGather& gather = *piece->gather;
        const std::size_t index = static_cast<std::size_t>(piece - gather.pieces.data());
        if (!error && response.data.size() <= piece->piece.length_bytes) {
          xtreemfs::osd::ReadResponse answer;
          if (answer.ParseFromString(response.message_bytes)) {
            gather.handle.volume_.replica_loads_.Reported(
                piece->attempt.OsdUuid(), static_cast<int>(answer.queued_requests()),
                static_cast<std::int64_t>(answer.write_back_dirty_bytes()));
          }
          gather.Complete(index, std::move(response.data), nullptr);
          return;
        }
        // A failure continues as the synchronous retry loop; an oversized answer is read again from
        // the start, where FetchPiece checks it and names the OSD.
        std::shared_ptr<const FailedAttempt> failed;
        if (error) {
          failed = std::make_shared<const FailedAttempt>(FailedAttempt{error, piece->attempt, piece->retry});
        }
        RepeatSynchronously([piece, failed] {
          ReadGather& gather = *piece->gather;
          std::string data;
          std::exception_ptr piece_error;
          try {
            data = gather.handle.FetchPiece(piece->piece, gather.stream, failed.get());
          } catch (...) {
            piece_error = std::current_exception();
          }
          gather.Complete(static_cast<std::size_t>(piece - gather.pieces.data()), std::move(data), piece_error);
        });
      });
}

void FileHandle::WriteAsync(std::uint64_t offset_bytes, std::string_view data, WriteDone done,
                            std::shared_ptr<const void> data_owner) {
  bool reformed;
  {
    std::lock_guard<std::mutex> lock(credentials_mutex_);
    reformed = fsync_after_reformation_;
  }
  if (data.empty() || WriteBehindEnabled() || reformed) {
    // A re-formed chain is fsynced first (CallStripeOsd), synchronously and rarely.
    try {
      Write(offset_bytes, data, data_owner);
    } catch (...) {
      done(0, std::current_exception());
      return;
    }
    done(data.size(), nullptr);
    return;
  }
  // As WriteThrough: older buffered bytes of other handles under this range go first.
  DrainWrites(nullptr, offset_bytes, offset_bytes + data.size());
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    ++state_->data_generation;
  }
  wrote_since_report_ = true;
  auto* gather = new WriteGather(*this, SplitIntoObjectPieces(layout_, offset_bytes, data.size()), offset_bytes,
                                 std::move(done));
  if (data_owner) {
    gather->bytes = data;
    gather->bytes_owner = std::move(data_owner);
  } else if (data.size() <= rpc::kCopiedDataBytesMax) {
    // A repeat needs the bytes after the caller's buffer is gone. Bytes this small are copied into
    // each record's head (rpc::EncodeOutgoingRecord), so the gather's own copy needs no shared owner.
    gather->copy.assign(data.data(), data.size());
    gather->bytes = gather->copy;
  } else {
    // Larger pieces are sent from this copy, which their records hold until sent.
    auto copy = std::make_shared<const std::string>(data);
    gather->bytes = *copy;
    gather->bytes_owner = std::move(copy);
  }
  const std::size_t count = gather->pieces.size();
  for (std::size_t index = 0; index < count; ++index) {
    try {
      StartPieceWrite(*gather, index);
    } catch (...) {
      gather->Complete(0, std::current_exception());
    }
  }
}

void FileHandle::StartPieceWrite(WriteGather& gather, std::size_t index) {
  WriteGather::Piece& piece = gather.pieces[index];
  // Writing the same bytes again leaves the same content, so a repeat is safe.
  auto repeat = [](WriteGather::Piece* piece, std::shared_ptr<const FailedAttempt> failed) {
    RepeatSynchronously([piece, failed] {
      WriteGather& gather = *piece->gather;
      const std::size_t index = static_cast<std::size_t>(piece - gather.pieces.data());
      std::uint64_t reported_size_bytes = 0;
      std::exception_ptr piece_error;
      try {
        reported_size_bytes = gather.handle.SendObjectWrite(
            piece->piece.object_number, piece->piece.stripe_position, piece->piece.offset_in_object_bytes,
            gather.PieceData(index), failed.get());
      } catch (...) {
        piece_error = std::current_exception();
      }
      gather.Complete(reported_size_bytes, piece_error);
    });
  };
  piece.retry = NewStripeRetry();
  piece.attempt = PrepareStripeAttempt(piece.piece.stripe_position, xtreemfs::osd::OSD_WRITE, nullptr);
  if (piece.attempt.fsync_first) {
    // The chain was re-formed since WriteAsync looked: the synchronous path fsyncs it first.
    repeat(&piece, nullptr);
    return;
  }
  xtreemfs::osd::WriteRequest request = WriteRequestOf(piece.piece.object_number, piece.piece.offset_in_object_bytes);
  // As in StartPieceRead: `piece` lives until its completion ran and is not touched after the call.
  const BorrowedCredentials<xtreemfs::osd::WriteRequest> borrowed(request, *piece.attempt.credentials);
  volume_.CallOsdAsync(
      piece.attempt.OsdUuid(), xtreemfs::osd::OSD_WRITE, user_, request, gather.PieceData(index),
      [piece = &piece, repeat](rpc::CallResponse response, std::exception_ptr error) {
        xtreemfs::common::OsdWriteResponse answer;
        if (!error && answer.ParseFromString(response.message_bytes)) {
          piece->gather->Complete(answer.has_new_file_size() ? answer.new_file_size().size_bytes() : 0, nullptr);
          return;
        }
        // A failure continues as the synchronous retry loop; an unparseable answer is sent again.
        std::shared_ptr<const FailedAttempt> failed;
        if (error) {
          failed = std::make_shared<const FailedAttempt>(FailedAttempt{error, piece->attempt, piece->retry});
        }
        repeat(piece, std::move(failed));
      },
      // Sent from the gather's bytes: the caller's owner or the shared copy lives as long as the
      // record; a copy in the gather (no owner) is copied into the record.
      gather.bytes_owner);
}

}  // namespace xtreemfs::client
