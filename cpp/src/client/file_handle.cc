#include "client/file_handle.h"

#include <algorithm>
#include <cerrno>
#include <exception>
#include <future>

#include "client/volume.h"
#include "mrc.pb.h"
#include "osd.pb.h"
#include "rpc/rpc_error.h"

namespace xtreemfs::client {

FileHandle::FileHandle(Volume& volume, xtreemfs::rpc::UserCredentials user,
                       xtreemfs::common::FileCredentials credentials,
                       std::shared_ptr<FileState> state)
    : volume_(volume),
      user_(std::move(user)),
      file_id_(credentials.xcap().file_id()),
      state_(std::move(state)),
      credentials_(std::move(credentials)) {
  const auto& replica = credentials_.xlocs().replicas(0);
  layout_ = StripingLayout::FromPolicy(replica.striping_policy());
  osd_uuids_.assign(replica.osd_uuids().begin(), replica.osd_uuids().end());
  if (osd_uuids_.size() < layout_.stripe_width) {
    throw rpc::RpcError::Of(rpc::ErrorKind::kInternal,
                            "file " + file_id_ + " has stripe width " +
                                std::to_string(layout_.stripe_width) + " but only " +
                                std::to_string(osd_uuids_.size()) + " OSDs");
  }
}

FileHandle::~FileHandle() {
  try {
    Close();
  } catch (const rpc::RpcError&) {
    // Close() is the place to observe this error; a destructor must not throw.
  }
  state_.reset();
  volume_.ForgetFileIfUnused(file_id_);
}

xtreemfs::common::XCap FileHandle::CurrentXCap() const {
  std::lock_guard<std::mutex> lock(credentials_mutex_);
  return credentials_.xcap();
}

std::uint64_t FileHandle::KnownSizeBytes() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->size_bytes;
}

void FileHandle::RenewXCap() {
  std::lock_guard<std::mutex> renew_lock(renew_mutex_);
  xtreemfs::mrc::XCapRequest request;
  *request.mutable_xcap() = CurrentXCap();
  const auto response = volume_.CallMrc<xtreemfs::mrc::XCapResponse>(
      xtreemfs::mrc::MRC_RENEW_CAPABILITY, user_, request, true);
  std::lock_guard<std::mutex> lock(credentials_mutex_);
  *credentials_.mutable_xcap() = response.xcap();
}

xtreemfs::common::FileCredentials FileHandle::FreshCredentials() {
  std::uint64_t expires_ms;
  {
    std::lock_guard<std::mutex> lock(credentials_mutex_);
    expires_ms = credentials_.xcap().expires_ms();
  }
  const std::int64_t renew_at_ms =
      static_cast<std::int64_t>(expires_ms) - static_cast<std::int64_t>(volume_.options_.xcap_renew_margin_ms);
  if (volume_.clock_.WallMs() >= renew_at_ms) {
    RenewXCap();
  }
  std::lock_guard<std::mutex> lock(credentials_mutex_);
  return credentials_;
}

template <typename BuildRequest>
std::string FileHandle::CallStripeOsd(std::uint32_t stripe_position, std::uint32_t procedure_id,
                                      BuildRequest build_request, std::string_view data,
                                      bool idempotent, std::string* response_data) {
  const std::string& osd_uuid = osd_uuids_[stripe_position];
  // At most two attempts: the second only after AUTH_FAILED and a successful renewal.
  for (int attempt = 1;; ++attempt) {
    const auto request = build_request(FreshCredentials());
    try {
      rpc::CallResponse response =
          volume_.CallOsd(osd_uuid, procedure_id, user_, request, data, idempotent);
      if (response_data != nullptr) {
        *response_data = std::move(response.data);
      }
      return std::move(response.message_bytes);
    } catch (const rpc::RpcError& error) {
      if (error.kind() != rpc::ErrorKind::kAuthFailed || attempt >= 2) {
        throw;
      }
    }
    // The cap may have expired in flight or been invalidated by a truncate elsewhere.
    RenewXCap();
  }
}

void FileHandle::GrowKnownSize(std::uint64_t end_bytes) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (end_bytes > state_->size_bytes) {
    state_->size_bytes = end_bytes;
    state_->size_dirty = true;
    ++state_->size_generation;
  }
}

std::string FileHandle::Read(std::uint64_t offset_bytes, std::uint64_t length_bytes) {
  const std::uint64_t size_bytes = KnownSizeBytes();
  if (offset_bytes >= size_bytes || length_bytes == 0) {
    return std::string();
  }
  const std::uint64_t clamped_length = std::min(length_bytes, size_bytes - offset_bytes);
  const std::vector<ObjectPiece> pieces = SplitIntoObjectPieces(layout_, offset_bytes, clamped_length);
  std::vector<std::string> piece_data(pieces.size());
  ForEachPieceInParallel(pieces.size(), [&](std::size_t index) {
    const ObjectPiece& piece = pieces[index];
    auto build = [&](const xtreemfs::common::FileCredentials& credentials) {
      xtreemfs::osd::ReadRequest request;
      *request.mutable_credentials() = credentials;
      request.set_file_id(file_id_);
      request.set_object_number(piece.object_number);
      request.set_offset(piece.offset_in_object_bytes);
      request.set_length(piece.length_bytes);
      return request;
    };
    std::string& data = piece_data[index];
    CallStripeOsd(piece.stripe_position, xtreemfs::osd::OSD_READ, build, {}, true, &data);
    if (data.size() > piece.length_bytes) {
      throw rpc::RpcError::Of(rpc::ErrorKind::kInternal,
                              "OSD " + osd_uuids_[piece.stripe_position] + " returned " +
                                  std::to_string(data.size()) + " bytes for a read of " +
                                  std::to_string(piece.length_bytes) + " of object " +
                                  std::to_string(piece.object_number) + " of " + file_id_);
    }
  });
  std::string result;
  result.reserve(clamped_length);
  for (std::size_t index = 0; index < pieces.size(); ++index) {
    result += piece_data[index];
    // The piece lies inside the known file size, so whatever the OSD does not store is a hole.
    result.append(pieces[index].length_bytes - piece_data[index].size(), '\0');
  }
  return result;
}

void FileHandle::Write(std::uint64_t offset_bytes, std::string_view data) {
  if (data.empty()) {
    return;
  }
  const std::vector<ObjectPiece> pieces = SplitIntoObjectPieces(layout_, offset_bytes, data.size());
  std::vector<std::uint64_t> reported_size_bytes(pieces.size(), 0);
  ForEachPieceInParallel(pieces.size(), [&](std::size_t index) {
    const ObjectPiece& piece = pieces[index];
    auto build = [&](const xtreemfs::common::FileCredentials& credentials) {
      xtreemfs::osd::WriteRequest request;
      *request.mutable_credentials() = credentials;
      request.set_file_id(file_id_);
      request.set_object_number(piece.object_number);
      request.set_offset(piece.offset_in_object_bytes);
      return request;
    };
    const std::string_view piece_data =
        data.substr(piece.file_offset_bytes - offset_bytes, piece.length_bytes);
    // Writing the same bytes again leaves the same content, so a write may be retried.
    const auto response = rpc::ParseResponse<xtreemfs::common::OsdWriteResponse>(rpc::CallResponse{
        CallStripeOsd(piece.stripe_position, xtreemfs::osd::OSD_WRITE, build, piece_data, true,
                      nullptr),
        ""});
    if (response.has_new_file_size()) {
      reported_size_bytes[index] = response.new_file_size().size_bytes();
    }
  });
  const std::uint64_t osd_reported_size_bytes =
      *std::max_element(reported_size_bytes.begin(), reported_size_bytes.end());
  GrowKnownSize(std::max(osd_reported_size_bytes, offset_bytes + data.size()));
  {
    // Any write is reported on close/fsync, also one that keeps the size: the MRC then stamps
    // mtime and ctime (POSIX: a write changes both).
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->size_dirty = true;
  }
}

void FileHandle::ForEachPieceInParallel(std::size_t piece_count,
                                        const std::function<void(std::size_t)>& call) {
  if (piece_count == 1) {
    call(0);  // the common case needs no thread
    return;
  }
  for (std::size_t wave_start = 0; wave_start < piece_count; wave_start += kParallelPiecesMax) {
    const std::size_t wave_end = std::min(piece_count, wave_start + kParallelPiecesMax);
    std::vector<std::future<void>> calls;
    calls.reserve(wave_end - wave_start);
    for (std::size_t index = wave_start; index < wave_end; ++index) {
      calls.push_back(std::async(std::launch::async, call, index));
    }
    // Every future is waited for before anything is rethrown: the calls use this frame's buffers.
    std::exception_ptr first_error;
    for (auto& pending : calls) {
      try {
        pending.get();
      } catch (...) {
        if (!first_error) first_error = std::current_exception();
      }
    }
    if (first_error) std::rethrow_exception(first_error);
  }
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
  xtreemfs::mrc::XCapRequest request;
  *request.mutable_xcap() = FreshCredentials().xcap();
  const auto response = volume_.CallMrc<xtreemfs::mrc::XCapResponse>(
      xtreemfs::mrc::MRC_FTRUNCATE, user_, request, false);
  {
    std::lock_guard<std::mutex> lock(credentials_mutex_);
    *credentials_.mutable_xcap() = response.xcap();
  }
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->truncate_epoch = std::max(state_->truncate_epoch, response.xcap().truncate_epoch());
    state_->size_bytes = new_size_bytes;
    state_->size_dirty = true;
    ++state_->size_generation;
  }
  TruncateObjects(new_size_bytes);
  ReportSize(false);
}

void FileHandle::TruncateObjects(std::uint64_t new_size_bytes) {
  for (std::uint32_t position : StripePositions()) {
    auto build = [&](const xtreemfs::common::FileCredentials& credentials) {
      xtreemfs::osd::TruncateRequest truncate;
      *truncate.mutable_credentials() = credentials;
      truncate.set_file_id(file_id_);
      truncate.set_new_file_size_bytes(new_size_bytes);
      return truncate;
    };
    CallStripeOsd(position, xtreemfs::osd::OSD_TRUNCATE, build, {}, true, nullptr);
  }
}

void FileHandle::ReportSize(bool close_file) {
  std::uint64_t size_bytes;
  std::uint64_t generation;
  std::uint32_t file_truncate_epoch;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (!state_->size_dirty) {
      // The MRC knows this size already; close_file alone is not worth a round trip.
      return;
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
  request.set_close_file(close_file);
  // The MRC only grows the size under the same epoch, so repeating the update is harmless.
  volume_.CallMrc<xtreemfs::rpc::Empty>(xtreemfs::mrc::MRC_UPDATE_FILE_SIZE, user_, request, true);
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->size_generation == generation) {
    state_->size_dirty = false;
  }
}

void FileHandle::Fsync() {
  for (std::uint32_t position : StripePositions()) {
    auto build = [&](const xtreemfs::common::FileCredentials& credentials) {
      xtreemfs::osd::FileRequest request;
      *request.mutable_credentials() = credentials;
      request.set_file_id(file_id_);
      return request;
    };
    CallStripeOsd(position, xtreemfs::osd::OSD_FSYNC, build, {}, true, nullptr);
  }
  ReportSize(false);
}

void FileHandle::Flush() { ReportSize(false); }

void FileHandle::Close() {
  {
    std::lock_guard<std::mutex> lock(credentials_mutex_);
    if (closed_) return;
    closed_ = true;
  }
  ReportSize(true);
}

}  // namespace xtreemfs::client
