// An open file: reads and writes split into per-object OSD requests by the RAID0 striping, the file
// size tracked locally and reported to the MRC on fsync and close, truncation across the stripe,
// and XCap renewal before expiry.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "client/striping.h"
#include "common.pb.h"
#include "rpc.pb.h"

namespace xtreemfs::client {

class Volume;

// Zeros are written in chunks of this size, so zeroing a large range needs bounded memory.
constexpr std::uint64_t kZeroChunkBytes = 1 << 20;

// Upper bound on concurrent OSD calls of one read or write (threads started per wave).
constexpr std::size_t kParallelPiecesMax = 8;

// Size knowledge shared by every handle of one file in this process. Invariant: size_bytes is at
// least the MRC's size at the last open and at least every end offset written since, except that a
// truncate sets it exactly.
struct FileState {
  std::mutex mutex;
  std::uint64_t size_bytes = 0;
  // The MRC has not yet been told size_bytes.
  bool size_dirty = false;
  // Incremented by every change of size_bytes; a size update clears size_dirty only if no change
  // happened while it was in flight.
  std::uint64_t size_generation = 0;
  std::uint32_t truncate_epoch = 0;
};

class FileHandle {
 public:
  FileHandle(Volume& volume, xtreemfs::rpc::UserCredentials user,
             xtreemfs::common::FileCredentials credentials, std::shared_ptr<FileState> state);
  // Closes the handle if Close() was not called; errors are swallowed there (call Close to see them).
  ~FileHandle();
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;

  // Bytes [offset, offset + length) clamped to the known file size. Bytes the OSDs do not store
  // inside the file (holes, short objects) read as zeros; nothing beyond the file size is returned.
  std::string Read(std::uint64_t offset_bytes, std::uint64_t length_bytes);
  // Writes `data` at `offset_bytes`; the known size grows to the written end.
  void Write(std::uint64_t offset_bytes, std::string_view data);
  // Writes zeros over [offset, offset + length) in chunks of kZeroChunkBytes (punch-hole and
  // zero-range of fallocate: the bytes really read as zeros afterwards). Grows the known size to the
  // range end like a write; callers that must keep the size clamp the range first.
  void WriteZeros(std::uint64_t offset_bytes, std::uint64_t length_bytes);
  // Sets the file size: MRC_FTRUNCATE (new XCap, next truncate epoch), OSD_TRUNCATE on every OSD of
  // the stripe, then the size update to the MRC.
  void Truncate(std::uint64_t new_size_bytes);
  // Cuts the objects on every OSD of the stripe to `new_size_bytes` with the current XCap, without
  // asking the MRC for a new epoch: for open(O_TRUNC), where the MRC already set the size and epoch.
  void TruncateObjects(std::uint64_t new_size_bytes);
  // Makes written data durable on the OSDs (OSD_FSYNC) and reports the size to the MRC if it changed.
  void Fsync();
  // Reports the size to the MRC if it changed (close(2) of one descriptor: FUSE flush).
  void Flush();
  // Reports the size to the MRC (close_file set). Further calls do nothing.
  void Close();

  std::uint64_t KnownSizeBytes() const;
  const std::string& file_id() const { return file_id_; }
  // The current capability (renewed before expiry).
  xtreemfs::common::XCap CurrentXCap() const;

 private:
  // Lock calls (client/lock_client.h) go to osd_uuids_[0] with these credentials.
  friend class LockClient;

  xtreemfs::common::FileCredentials FreshCredentials();
  void RenewXCap();
  // Calls an OSD of the stripe; after AUTH_FAILED renews the XCap once and repeats the call.
  template <typename BuildRequest>
  std::string CallStripeOsd(std::uint32_t stripe_position, std::uint32_t procedure_id,
                            BuildRequest build_request, std::string_view data, bool idempotent,
                            std::string* response_data);
  void ReportSize(bool close_file);
  // Runs `call(piece_index)` for every piece, at most kParallelPiecesMax at a time (pieces of one
  // request usually sit on different OSDs). Waits for all started calls, then rethrows the first
  // error; no wave starts after a failed one.
  void ForEachPieceInParallel(std::size_t piece_count,
                              const std::function<void(std::size_t piece_index)>& call);
  void GrowKnownSize(std::uint64_t end_bytes);
  std::vector<std::uint32_t> StripePositions() const;

  Volume& volume_;
  const xtreemfs::rpc::UserCredentials user_;
  const std::string file_id_;
  StripingLayout layout_;
  std::vector<std::string> osd_uuids_;  // replicas[0]; position i holds objects n with n mod width == i
  std::shared_ptr<FileState> state_;
  mutable std::mutex credentials_mutex_;
  xtreemfs::common::FileCredentials credentials_;  // guarded by credentials_mutex_
  std::mutex renew_mutex_;                         // one renewal at a time per handle
  bool closed_ = false;                            // guarded by credentials_mutex_
};

}  // namespace xtreemfs::client
