// Read-ahead of one file handle: detects sequential reads and keeps whole objects prefetched ahead
// of the reader, within a window of bytes and a budget shared by all files. The handle fetches the
// objects (on the I/O pool) and reports them here; this class decides what to fetch and serves it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "client/io_pool.h"
#include "client/read_result.h"

namespace xtreemfs::client {

class ReadAheadCache {
 public:
  // Reads in a row that count as sequential before prefetching starts (one random read does not
  // trigger fetches).
  static constexpr int kSequentialReadsBeforePrefetch = 2;

  // window_bytes > 0. Every cached or in-flight object is charged object_size_bytes to `budget`.
  ReadAheadCache(std::uint64_t window_bytes, std::uint32_t object_size_bytes, ByteBudget& budget);
  // Waits for in-flight prefetches (they write into this object), then releases every charge.
  ~ReadAheadCache();
  ReadAheadCache(const ReadAheadCache&) = delete;
  ReadAheadCache& operator=(const ReadAheadCache&) = delete;

  // The bytes [offset_in_object, + length) of a prefetched object, waiting for an in-flight fetch;
  // they may be fewer than `length` (the OSD stores less: a hole or the end of the data). Shared with
  // the cache, not copied: they stay valid after the object is dropped. nullopt when the object is
  // not cached under `data_generation` or its fetch failed (read it directly). A different
  // generation than the cache's drops everything first: the file changed here.
  std::optional<SharedBytes> Lookup(std::uint64_t object_number, std::uint64_t offset_in_object,
                                    std::uint64_t length_bytes, std::uint64_t data_generation);

  // Records a read of [offset, end) and returns the objects to fetch now, each already registered
  // as in flight and charged; objects lie below `known_size_bytes`, from the furthest end read so
  // far on (what lies behind it was read already). A reader's concurrent requests (the kernel's
  // read-ahead) arrive in any order, so a read that starts within the window on either side of the
  // furthest end read so far stays in the stream (it counts as sequential when it moves that end
  // on), and objects are dropped only once they lie more than the window behind that end: an
  // in-order reader holds up to two windows. Callers then either fetch each (Complete) or give it
  // back (Cancel).
  std::vector<std::uint64_t> AfterRead(std::uint64_t offset_bytes, std::uint64_t end_bytes,
                                       std::uint64_t known_size_bytes, std::uint64_t data_generation);
  // Result of a fetch that AfterRead asked for; `ok` false drops the object.
  void Complete(std::uint64_t object_number, std::string data, bool ok);
  void Cancel(std::uint64_t object_number) { Complete(object_number, std::string(), false); }

  // Drops every cached object (a write or truncate through this mount); in-flight fetches are
  // dropped when they complete.
  void Invalidate();
  // Blocks until no fetch is in flight.
  void WaitIdle();

  std::size_t CachedObjectCount();

 private:
  struct Entry {
    std::uint64_t data_generation = 0;
    bool done = false;
    bool stale = false;  // dropped while in flight; erased on completion
    std::shared_ptr<const std::string> data;  // set when done
  };
  // Erases entries matching `drop`; in-flight ones are only marked stale. Caller holds mutex_.
  template <typename Predicate>
  void DropLocked(Predicate drop);

  const std::uint64_t window_bytes_;
  const std::uint32_t object_size_bytes_;
  ByteBudget& budget_;
  std::mutex mutex_;
  std::condition_variable fetch_completed_;
  std::map<std::uint64_t, Entry> entries_;  // by object number; each charged object_size_bytes_
  std::uint64_t in_flight_count_ = 0;
  // The furthest end read by the current stream (a read outside the stream starts a new one at its
  // own end).
  std::uint64_t furthest_end_bytes_ = 0;
  int sequential_reads_ = 0;
};

}  // namespace xtreemfs::client
