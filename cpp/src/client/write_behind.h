// Write-behind bookkeeping of one file, shared by its handles (FileState::writes, guarded by
// FileState::mutex). A handle collects contiguous writes into one object (PendingWrite); a full
// object, a non-contiguous write, a read of the range, fsync, flush, truncate or close queues it
// (QueuedWrite) and the pool sends it (a large one from its own bytes, FileHandle::Send). Ordering
// invariant: writes are queued in the order they were accepted (ascending sequence), and a queued
// write is sent only once no earlier queued write overlapping its bytes is unanswered, so the OSDs
// see overlapping writes in order.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>

#include "rpc/rpc_error.h"

namespace xtreemfs::client {

class FileHandle;

inline bool RangesOverlap(std::uint64_t a_start, std::uint64_t a_end, std::uint64_t b_start,
                          std::uint64_t b_end) {
  return a_start < b_end && b_start < a_end;
}

// Contiguous bytes written into one object and not yet queued. Never larger than one object.
struct PendingWrite {
  std::uint64_t object_number = 0;
  std::uint32_t stripe_position = 0;
  std::uint64_t offset_in_object_bytes = 0;
  std::uint64_t file_offset_bytes = 0;
  std::string data;

  std::uint64_t file_end_bytes() const { return file_offset_bytes + data.size(); }
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
