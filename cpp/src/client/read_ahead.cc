#include "client/read_ahead.h"

#include <algorithm>

#include "rpc/wait_notice.h"

namespace xtreemfs::client {

ReadAheadCache::ReadAheadCache(std::uint64_t window_bytes, std::uint32_t object_size_bytes,
                               ByteBudget& budget)
    : window_bytes_(window_bytes), object_size_bytes_(object_size_bytes), budget_(budget) {}

ReadAheadCache::~ReadAheadCache() {
  WaitIdle();
  std::lock_guard<std::mutex> lock(mutex_);
  DropLocked([](std::uint64_t, const Entry&) { return true; });
}

template <typename Predicate>
void ReadAheadCache::DropLocked(Predicate drop) {
  for (auto entry = entries_.begin(); entry != entries_.end();) {
    if (!drop(entry->first, entry->second)) {
      ++entry;
    } else if (!entry->second.done) {
      entry->second.stale = true;
      ++entry;
    } else {
      budget_.Release(object_size_bytes_);
      entry = entries_.erase(entry);
    }
  }
}

std::optional<SharedBytes> ReadAheadCache::Lookup(std::uint64_t object_number,
                                                  std::uint64_t offset_in_object,
                                                  std::uint64_t length_bytes,
                                                  std::uint64_t data_generation) {
  std::unique_lock<std::mutex> lock(mutex_);
  DropLocked([&](std::uint64_t, const Entry& entry) {
    return entry.data_generation != data_generation;
  });
  // Each wakeup follows a completion; the entry is done, stale or gone after its own completion.
  for (;;) {
    auto found = entries_.find(object_number);
    if (found == entries_.end() || found->second.stale) return std::nullopt;
    if (found->second.done) {
      const std::shared_ptr<const std::string>& data = found->second.data;
      const std::size_t offset = static_cast<std::size_t>(std::min<std::uint64_t>(offset_in_object, data->size()));
      const std::size_t length = static_cast<std::size_t>(std::min<std::uint64_t>(length_bytes, data->size() - offset));
      return SharedBytes{data, offset, length};
    }
    rpc::NoteWait();  // a wait for the OSD's answer: the FUSE loop's reader may hand its place on
    fetch_completed_.wait(lock);
  }
}

std::vector<std::uint64_t> ReadAheadCache::AfterRead(std::uint64_t offset_bytes,
                                                     std::uint64_t end_bytes,
                                                     std::uint64_t known_size_bytes,
                                                     std::uint64_t data_generation) {
  std::lock_guard<std::mutex> lock(mutex_);
  // The kernel sends a window of sequential reads concurrently, so they arrive in any order. A read
  // that starts within the window on either side of the furthest end read so far belongs to the
  // stream: it counts as sequential when it moves that end on, and one that arrived late (behind it)
  // neither counts nor ends the stream (reads walking backwards never prefetch). Any other read
  // starts a new stream at its own end.
  const bool in_stream = offset_bytes + window_bytes_ >= furthest_end_bytes_ &&
                         offset_bytes <= furthest_end_bytes_ + window_bytes_;
  if (!in_stream) {
    sequential_reads_ = 0;
    furthest_end_bytes_ = end_bytes;
  } else if (end_bytes > furthest_end_bytes_) {
    ++sequential_reads_;
    furthest_end_bytes_ = end_bytes;
  }
  // Objects a late read of the window may still ask for stay.
  const std::uint64_t first_needed_object =
      furthest_end_bytes_ > window_bytes_ ? (furthest_end_bytes_ - window_bytes_) / object_size_bytes_ : 0;
  DropLocked([&](std::uint64_t object_number, const Entry& entry) {
    return object_number < first_needed_object || entry.data_generation != data_generation;
  });
  std::vector<std::uint64_t> to_fetch;
  if (sequential_reads_ < kSequentialReadsBeforePrefetch) return to_fetch;
  const std::uint64_t window_end_bytes =
      std::min(known_size_bytes, furthest_end_bytes_ + window_bytes_);
  // Bounded by window_bytes_ / object size + 1 iterations. What lies before the furthest end was
  // read already (a read that arrived earlier), so it is not fetched a second time.
  for (std::uint64_t object_number = furthest_end_bytes_ / object_size_bytes_;
       object_number * object_size_bytes_ < window_end_bytes; ++object_number) {
    if (entries_.count(object_number) != 0) continue;
    if (!budget_.TryCharge(object_size_bytes_)) break;  // other files use the memory: no prefetch
    Entry& entry = entries_[object_number];
    entry.data_generation = data_generation;
    ++in_flight_count_;
    to_fetch.push_back(object_number);
  }
  return to_fetch;
}

void ReadAheadCache::Complete(std::uint64_t object_number, std::string data, bool ok) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = entries_.find(object_number);
  if (found != entries_.end() && !found->second.done) {
    --in_flight_count_;
    if (ok && !found->second.stale) {
      found->second.done = true;
      found->second.data = std::make_shared<const std::string>(std::move(data));
    } else {
      budget_.Release(object_size_bytes_);
      entries_.erase(found);
    }
  }
  // Notified under the lock: once WaitIdle returns, the owner may destroy this object.
  fetch_completed_.notify_all();
}

void ReadAheadCache::Invalidate() {
  std::lock_guard<std::mutex> lock(mutex_);
  DropLocked([](std::uint64_t, const Entry&) { return true; });
}

void ReadAheadCache::WaitIdle() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (in_flight_count_ != 0) rpc::NoteWait();
  fetch_completed_.wait(lock, [&] { return in_flight_count_ == 0; });
}

std::size_t ReadAheadCache::CachedObjectCount() {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace xtreemfs::client
