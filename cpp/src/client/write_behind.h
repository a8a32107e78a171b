// Write-behind bookkeeping of one file, shared by its handles (FileState::writes, guarded by
// FileState::mutex). A handle collects contiguous writes into one object (PendingWrite); a full
// object, a non-contiguous write, a read of the range, fsync, flush, truncate or close queues it
// (QueuedWrite) and the pool sends it (a large one from its own bytes, FileHandle::Send). Ordering
// invariant: writes are queued in the order they were accepted (ascending sequence), and a queued
// write is sent only once no earlier queued write overlapping its bytes is unanswered, so the OSDs
// see overlapping writes in order.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "rpc/rpc_error.h"

namespace xtreemfs::client {

class FileHandle;

inline bool RangesOverlap(std::uint64_t a_start, std::uint64_t a_end, std::uint64_t b_start,
                          std::uint64_t b_end) {
  return a_start < b_end && b_start < a_end;
}

// The caller's bytes of a queued write that was not copied (FileHandle::Write with an owner): `owner`
// keeps them valid, and the caller waits for its release (the FUSE adapter's worker does). Counted in
// `borrowed` while alive, so a mount holds at most IoOptions::borrowed_writes_max workers this way.
struct BorrowedBytes {
  std::string_view bytes;
  std::shared_ptr<const void> owner;
  std::shared_ptr<std::atomic<std::uint32_t>> borrowed;

  BorrowedBytes(std::string_view bytes, std::shared_ptr<const void> owner,
                std::shared_ptr<std::atomic<std::uint32_t>> borrowed)
      : bytes(bytes), owner(std::move(owner)), borrowed(std::move(borrowed)) {}
  BorrowedBytes(const BorrowedBytes&) = delete;
  BorrowedBytes& operator=(const BorrowedBytes&) = delete;
  // The count drops before the owner is released, so a released caller always finds room again.
  ~BorrowedBytes() { borrowed->fetch_sub(1); }
};

// Contiguous bytes written into one object and not yet queued. Never larger than one object. Its bytes
// are its own copy (`data`), or, for a write that covers the rest of its object and is queued at once,
// the caller's (`borrowed`; then `data` is empty and nothing is ever appended).
struct PendingWrite {
  std::uint64_t object_number = 0;
  std::uint32_t stripe_position = 0;
  std::uint64_t offset_in_object_bytes = 0;
  std::uint64_t file_offset_bytes = 0;
  std::string data;
  std::shared_ptr<const BorrowedBytes> borrowed;

  std::string_view bytes() const { return borrowed ? borrowed->bytes : std::string_view(data); }
  std::uint64_t file_end_bytes() const { return file_offset_bytes + bytes().size(); }
};

// A write on its way to an OSD: waiting for earlier overlapping writes, or sent and unanswered.
// Its bytes stay charged to the owner's window and the volume's budget until the answer.
struct QueuedWrite {
  std::uint64_t sequence = 0;
  FileHandle* owner = nullptr;  // alive: a handle waits for its queued writes before it goes away
  PendingWrite write;
};

// Why a buffered write failed, kept until the owner's next write, fsync, flush or close.
struct WriteFailure {
  rpc::ErrorKind kind = rpc::ErrorKind::kInternal;
  int posix_errno = 0;
  std::string message;
};

struct FileWrites {
  std::condition_variable changed;  // a queued write was answered
  // Failed buffered writes of any handle of the file, counted, and the last one: fsync through any
  // handle reports a failure that happened since that handle opened or last reported one (Linux's
  // errseq rule), so bytes another descriptor wrote never vanish behind a successful fsync.
  std::uint64_t failures = 0;
  WriteFailure last_failure;
  std::uint64_t next_sequence = 0;
  std::list<std::shared_ptr<QueuedWrite>> queued;           // ascending sequence
  std::map<const FileHandle*, PendingWrite> pending;        // at most one per handle

  bool Empty() const { return queued.empty() && pending.empty(); }
};

}  // namespace xtreemfs::client
