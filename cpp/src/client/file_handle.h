// An open file: reads and writes split into per-object OSD requests by the RAID0 striping, sent on
// the volume's I/O pool; write-behind (writes buffered per object and sent asynchronously) and
// read-ahead (whole objects prefetched for sequential readers); the file size tracked locally and
// reported to the MRC on fsync and close; truncation across the stripe; XCap renewal before expiry.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/io_pool.h"
#include "client/read_ahead.h"
#include "client/read_result.h"
#include "client/read_routing.h"
#include "client/replica_chain.h"
#include "client/striping.h"
#include "client/write_behind.h"
#include "common.pb.h"
#include "mrc.pb.h"
#include "osd.pb.h"
#include "rpc.pb.h"
#include "rpc/rpc_error.h"

namespace xtreemfs::client {

class Volume;

// Zeros are written in chunks of this size, so zeroing a large range needs bounded memory.
constexpr std::uint64_t kZeroChunkBytes = 1 << 20;

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
  // Incremented by every write and truncate through this process: read-ahead data fetched under
  // another generation may be stale.
  std::uint64_t data_generation = 0;
  // Write-behind of every handle of the file (see write_behind.h).
  FileWrites writes;
};

class FileHandle {
 public:
  // `path` and `open_flags` (as sent to the MRC) let the handle open the file again when its XCap
  // expired while it sat idle (see RenewXCap).
  FileHandle(Volume& volume, xtreemfs::rpc::UserCredentials user,
             xtreemfs::common::FileCredentials credentials, std::shared_ptr<FileState> state,
             std::string path, std::uint32_t open_flags);
  // Closes the handle if Close() was not called; errors are swallowed there (call Close to see them).
  // Buffered writes are sent and answered before the handle goes away.
  ~FileHandle();
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;

  // Bytes [offset, offset + length) clamped to the known file size. Bytes the OSDs do not store
  // inside the file (holes, short objects) read as zeros; nothing beyond the file size is returned.
  // Buffered writes of any handle of this file overlapping the range are sent and answered first
  // (read-your-writes); sequential readers are served from read-ahead.
  std::string Read(std::uint64_t offset_bytes, std::uint64_t length_bytes);
  // As Read, the bytes as the runs they arrived in (read_result.h: no join, no copy out of read-ahead).
  ReadResult ReadRuns(std::uint64_t offset_bytes, std::uint64_t length_bytes);
  // Writes `data` at `offset_bytes`; the known size grows to the written end at once. With
  // write-behind the bytes are buffered and sent asynchronously: the call waits only while the
  // handle's queued bytes exceed its window or the volume's budget is used up. An OSD error of an
  // earlier buffered write of this handle is thrown here, and by every later Write, Fsync and
  // Flush of the handle (sticky: those bytes are lost). With `data_owner` (as WriteAsync's), an object
  // piece that reaches its object's end and continues no buffered bytes of the handle is queued from
  // `data` itself instead of a copy, up to IoOptions::borrowed_writes_max such pieces in the volume;
  // the caller then keeps `data` valid until every reference to data_owner is gone (after the piece's
  // OSD answer).
  void Write(std::uint64_t offset_bytes, std::string_view data,
             const std::shared_ptr<const void>& data_owner = nullptr);
  // Read and Write whose answer may come from the transport's io thread, so no thread waits for the
  // OSD (the FUSE adapter answers the kernel from `done`). Taken for every read without read-ahead
  // and every write without write-behind (O_DIRECT, or both turned off), replicated files included:
  // one asynchronous OSD call per object piece, to the OSD the synchronous path would call first
  // (the head for writes, the routed replica for reads), all sent before this returns; `done` runs
  // when the last piece is answered, with the first error if any piece failed. A failed attempt (or
  // an answer that needs checking) continues as the synchronous path's retry loop for that piece
  // (CallStripeOsd: the retry window, XCap renewal, chain following), on a thread of its own (never
  // blocking the io thread). Other requests (read-ahead, write-behind, a re-formed chain still to
  // fsync) run synchronously before the call returns. `done` runs exactly once, must not block and
  // must not throw; when the call itself throws (before anything was sent), `done` never runs. The
  // handle must live until `done` ran (the kernel sends no release while a request of the file is
  // unanswered).
  using ReadDone = std::function<void(ReadResult data, std::exception_ptr error)>;
  void ReadAsync(std::uint64_t offset_bytes, std::uint64_t length_bytes, ReadDone done);
  // WriteAsync copies `data` (its requests and retries need the bytes after the call returns), unless
  // `data_owner` is given: then the caller keeps `data` valid until every reference to data_owner is
  // gone (records still queued for a socket and retries hold one, and with write-behind the queued
  // objects Write takes from `data`; the caller waits for its deleter), and the bytes are sent from
  // where they are.
  // `written_bytes` is data.size() when the write succeeded (what the FUSE adapter answers), 0 on error.
  using WriteDone = std::function<void(std::uint64_t written_bytes, std::exception_ptr error)>;
  void WriteAsync(std::uint64_t offset_bytes, std::string_view data, WriteDone done,
                  std::shared_ptr<const void> data_owner = nullptr);
  // Turns write-behind and read-ahead off for this handle (O_DIRECT): every read and write waits
  // for its OSD round trips. Call before the first read or write.
  void DisableBuffering();
  // Turns the handle's own read-ahead off, keeping write-behind: reads are then answered like
  // O_DIRECT ones (ReadAsync, one OSD call per object piece, all at once). For a mount whose kernel
  // reads ahead in large requests itself, where a second read-ahead here fetched objects twice.
  // Call before the first read.
  void DisableReadAhead();
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
  // Sends the buffered writes of every handle of the file and waits for them, makes the data
  // durable on the OSDs (OSD_FSYNC) and reports the size to the MRC. Throws this handle's write
  // error, if any, and else a failed buffered write of another handle of the file since this
  // handle opened or last reported one (each reported once per handle, as Linux's fsync does).
  void Fsync();
  // close(2) of one descriptor (FUSE flush): sends this handle's buffered writes, waits for them,
  // throws its write error, and reports the size to the MRC. Returns whether the file's attributes
  // at the MRC may now differ from what the kernel was last told: a report was sent, or the open
  // itself may have changed them (see open_may_have_changed_attributes_). A file created and
  // closed without writing (every create of the metadata benchmark) needs no MRC call and no
  // invalidation of the kernel's attributes.
  bool Flush();
  // Like Flush, with close_file set in the size report. Further calls do nothing (false).
  bool Close();

  std::uint64_t KnownSizeBytes() const;
  const std::string& file_id() const { return file_id_; }
  // The Stat the MRC answered the creating open with (Volume::OpenFile keeps it for O_CREAT), once,
  // and only while nothing was written through this process: create(2) answers the kernel with the
  // new file's attributes, which that answer already holds, so asking the MRC again (a file open
  // here bypasses the metadata cache) would cost a round trip for nothing.
  std::optional<xtreemfs::mrc::Stat> TakeCreatedStat();
  void KeepCreatedStat(const xtreemfs::mrc::Stat& stat);
  // The current capability (renewed before expiry).
  xtreemfs::common::XCap CurrentXCap() const;

 private:
  // Lock calls (client/lock_client.h) go to HeadOsdUuid() with these credentials.
  friend class LockClient;

  // The head OSD of stripe position 0 (where the file's locks live).
  std::string HeadOsdUuid() const;
  // After a chain member failed (`failed_osd_uuid`, empty for XLOC_OUTDATED) under XLoc version
  // `used_version`: MRC_REPLICA_FAILED, and the answered XLoc taken if it is newer. True when taken.
  bool FollowChain(std::uint32_t used_version, const std::string& failed_osd_uuid);

  // The current credentials, the XCap renewed first when it expires within the renewal margin.
  xtreemfs::common::FileCredentials FreshCredentials();
  void RenewXCapIfDue();
  // MRC_RENEW_CAPABILITY; the renewed XCap also carries the volume's current reservation share. The
  // MRC renews only unexpired XCaps: when it refuses (AUTH_FAILED, the handle sat idle past the
  // expiry), the file is opened again by path, without create, exclusive or truncate, and the new
  // XCap is taken if it names the same file (EIO otherwise: the path now names another file).
  void RenewXCap();
  // One attempt of a call to a stripe position's OSD, as the chain stands when it starts.
  struct StripeAttempt {
    // The snapshot the attempt's requests refer to (not copied into them: BorrowedCredentials).
    std::shared_ptr<const xtreemfs::common::FileCredentials> credentials;
    // The OSD called: the head's for updates and for reads of an unreplicated file, a string of
    // `credentials`' XLoc, which the attempt holds (no copy per attempt: a malloc and free per
    // request); the routed replica's for reads of a replicated file (ReadOsdFor), then a copy.
    const std::string* head_osd_uuid = nullptr;
    std::string routed_osd_uuid;      // empty: the head is called
    std::vector<std::string> heads;   // every stripe position's head (the re-formed chain's fsync)
    bool fsync_first = false;         // an update after a re-formation: fsync the heads first
    bool following = false;           // a replicated file: the handle follows the chain itself
    std::uint32_t xloc_version = 0;   // of `credentials`

    const std::string& OsdUuid() const { return routed_osd_uuid.empty() ? *head_osd_uuid : routed_osd_uuid; }
  };
  // What carries over from one attempt of a stripe call to the next.
  struct StripeRetry {
    std::int64_t start_ms = 0;        // monotonic: the first attempt's start
    std::uint32_t backoff_ms = 0;
    bool renewed = false;             // the XCap was renewed after AUTH_FAILED once already
  };
  // An asynchronous first attempt that failed; the synchronous loop continues from it.
  struct FailedAttempt {
    std::exception_ptr error;
    StripeAttempt attempt;
    StripeRetry retry;
  };
  StripeRetry NewStripeRetry() const;
  StripeAttempt PrepareStripeAttempt(std::uint32_t stripe_position, std::uint32_t procedure_id,
                                     const StreamClassifier* read_stream);
  // After `attempt` failed with `error`: renews the XCap, follows the chain or backs off and returns
  // true when the call should be attempted again; false when `error` is the call's outcome.
  // `transport_retried`: the attempt went through the transport's own retries (a synchronous call
  // of an unreplicated file), so a transient error means the retry window is over.
  bool RecoverFromFailedAttempt(const rpc::RpcError& error, const StripeAttempt& attempt,
                                StripeRetry& retry, bool transport_retried);
  // Calls an OSD of a stripe position: the head replica's for updates; for a read (`read_stream`
  // given) the replica ReadOsdFor picks, named in `called_osd_uuid`. After AUTH_FAILED renews the
  // XCap once and repeats the call; a replicated file's call follows its chain through failures.
  // `earlier`: the call's failed asynchronous first attempt, which the retries continue from.
  template <typename BuildRequest>
  std::string CallStripeOsd(std::uint32_t stripe_position, std::uint32_t procedure_id,
                            BuildRequest build_request, std::string_view data, bool idempotent,
                            std::string* response_data, const StreamClassifier* read_stream = nullptr,
                            std::string* called_osd_uuid = nullptr,
                            const FailedAttempt* earlier = nullptr);
  // Read routing (read_routing.h, the port of qos.routing): feeds one read call to the stream's
  // classifier and returns the stream as classified with it (its pattern, and whether its reads may be
  // stolen); the first call numbers the stream for round-robin binding.
  StreamClassifier ObserveRead(std::uint64_t offset_bytes, std::uint64_t length_bytes);
  StreamClassifier CurrentReadStream();
  // The OSD a read piece at `stripe_position` of `stream` goes to, by the volume's policy and the
  // replicas' reported loads.
  std::string ReadOsdFor(std::uint32_t stripe_position, const StreamClassifier& stream);
  // MRC_UPDATE_FILE_SIZE when the size changed or this handle wrote since its last report; after
  // writes with close_file set, which makes the MRC set mtime and ctime even for an unchanged size.
  // Returns whether it sent the report.
  bool ReportSize(bool close_file);
  std::vector<std::uint32_t> StripePositions() const;
  bool WriteBehindEnabled() const;

  // Synchronous paths (O_DIRECT, disabled buffering), per-object calls in parallel on the pool.
  void WriteThrough(std::uint64_t offset_bytes, std::string_view data);
  std::string FetchPiece(const ObjectPiece& piece, const StreamClassifier& stream,
                         const FailedAttempt* earlier = nullptr);
  // OSD_WRITE of one object's bytes; returns the file size the OSD reported (0 if none).
  std::uint64_t SendObjectWrite(std::uint64_t object_number, std::uint32_t stripe_position,
                                std::uint64_t offset_in_object_bytes, std::string_view data,
                                const FailedAttempt* earlier = nullptr);
  // The requests of one object piece without their credentials (an attempt's snapshot is lent to
  // them while they are sent: BorrowedCredentials).
  xtreemfs::osd::ReadRequest ReadRequestOf(const ObjectPiece& piece) const;
  xtreemfs::osd::WriteRequest WriteRequestOf(std::uint64_t object_number,
                                             std::uint64_t offset_in_object_bytes) const;
  // Replaces the credentials snapshot by a copy changed by `change` (the XCap renewed, the XLoc
  // re-formed); requests under way keep the snapshot they started with. Caller holds credentials_mutex_.
  template <typename Change>
  void ChangeCredentialsLocked(Change change);
  // The asynchronous first attempt of one piece of ReadAsync / WriteAsync (see there).
  struct ReadGather;
  struct WriteGather;
  void StartPieceRead(ReadGather& gather, std::size_t index);
  void StartPieceWrite(WriteGather& gather, std::size_t index);

  // Write-behind (see write_behind.h). Locked: the caller holds state_->mutex.
  void BufferPiece(const ObjectPiece& piece, std::string_view bytes, const std::shared_ptr<const void>& owner);
  std::shared_ptr<QueuedWrite> QueueLocked(FileHandle* owner, PendingWrite&& write);
  // Waits until no earlier overlapping write is unanswered, then hands `queued` to the pool, which
  // sends a large one from its own bytes (an asynchronous first attempt; a failed one repeats
  // synchronously on a thread of its own) and a small one synchronously.
  void Send(std::shared_ptr<QueuedWrite> queued);
  // Queues the pending writes overlapping [start, end) (of `only_owner`, or of every handle when
  // null) and waits until every matching write queued so far is answered. Never throws write
  // errors: they stay with their owner.
  void DrainWrites(const FileHandle* only_owner, std::uint64_t start_bytes, std::uint64_t end_bytes);
  // Throws this handle's own failed buffered write (sticky).
  void ThrowIfWriteFailed();
  // Throws the last failed buffered write of any handle of the file when one failed since this
  // handle opened or last reported one (FileWrites::failures), once per failure count.
  void ThrowIfFileWriteFailedSinceLastReport();

  // Read-ahead: fetches one whole object into read_ahead_ on the pool, unless a buffered write
  // overlaps it or the file changed since `data_generation`.
  void Prefetch(std::uint64_t object_number, std::uint64_t data_generation);

  Volume& volume_;
  const xtreemfs::rpc::UserCredentials user_;
  const std::string file_id_;
  const std::string path_;              // the path the file was opened by; empty: no reopen
  const std::uint32_t reopen_flags_;    // the open flags without O_CREAT, O_EXCL and O_TRUNC
  // The open itself may have changed attributes the opener's kernel has not seen: atime (an open
  // for reading of an existing file, servers/mrc/README.md "atime") or size (O_TRUNC). Not for a
  // write-only open, nor for an exclusive create (a new file: the answer is its Stat).
  const bool open_may_have_changed_attributes_;
  StripingLayout layout_;
  // Guarded by credentials_mutex_ (a re-formed chain replaces them, see FollowChain):
  std::vector<std::string> osd_uuids_;  // replicas[0] (the head); position i holds objects n with n mod width == i
  ReplicaChains chains_;  // every replica: reads go to the one ReadOsdFor picks (replica_chain.h)
  std::atomic<bool> replicated_{false};  // more than one replica in the XLoc held (FollowChain may change it)
  bool fsync_after_reformation_ = false;  // a re-formed chain was taken: fsync it before the next update
  std::mutex route_mutex_;
  StreamClassifier read_classifier_;  // guarded by route_mutex_
  int read_stream_ordinal_ = -1;      // guarded by route_mutex_; -1 until the first read
  std::shared_ptr<FileState> state_;
  mutable std::mutex credentials_mutex_;
  // The file's credentials (XCap and XLoc) as an immutable snapshot, replaced as a whole when the
  // XCap is renewed or the XLoc changes (ChangeCredentialsLocked): every OSD request refers to it
  // instead of copying it (the per-piece deep copy and its strings were malloc and free, 8-10 % of
  // the mount's CPU on random 4 KiB I/O). Guarded by credentials_mutex_; never null.
  std::shared_ptr<const xtreemfs::common::FileCredentials> credentials_;
  std::mutex renew_mutex_;                         // one renewal at a time per handle
  bool closed_ = false;                            // guarded by credentials_mutex_
  IoResources& io_;
  bool buffered_ = true;                           // false: O_DIRECT, no write-behind/read-ahead
  std::uint64_t queued_bytes_ = 0;                 // guarded by state_->mutex
  // First failed buffered write, sticky; plain data rather than an exception_ptr, so threads
  // never share one exception object. Guarded by state_->mutex.
  std::optional<WriteFailure> write_error_;
  // FileWrites::failures as this handle last reported it (its value at open at first). Guarded by
  // state_->mutex.
  std::uint64_t file_write_failures_seen_ = 0;
  std::atomic<bool> wrote_since_report_{false};
  // ReadAsync and WriteAsync calls whose completion has not finished: Close waits for none to be
  // left, so a handle never goes away under a completion (the kernel may release the file as soon as
  // the completion answered it).
  std::mutex async_mutex_;
  std::condition_variable async_idle_;
  std::uint32_t async_in_flight_ = 0;  // guarded by async_mutex_
  // Count one asynchronous call (its gather's life): EndAsync is its last use of this.
  void BeginAsync();
  void EndAsync();
  void WaitForAsyncCalls();
  std::optional<xtreemfs::mrc::Stat> created_stat_;  // guarded by credentials_mutex_
  std::unique_ptr<ReadAheadCache> read_ahead_;     // null when read-ahead is off
};

}  // namespace xtreemfs::client
