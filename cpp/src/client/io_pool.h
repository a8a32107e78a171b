// Shared asynchronous I/O machinery of one volume: a fixed pool of worker threads with a bounded
// task queue (the per-object OSD calls of parallel reads/writes, write-behind and read-ahead), and
// a byte budget bounding the write-behind and read-ahead memory of all files together.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace xtreemfs::client {

struct IoOptions {
  std::uint32_t threads = 8;                       // workers sending OSD requests for all files
  std::uint32_t queued_tasks_max = 256;            // submitters block while this many wait
  std::uint64_t write_behind_bytes = 4ull << 20;   // per handle; 0 disables write-behind
  std::uint64_t read_ahead_bytes = 4ull << 20;     // per handle; 0 disables read-ahead
  std::uint64_t buffer_bytes_max = 64ull << 20;    // write-behind + read-ahead of all handles
  // Write-behind objects queued from the caller's bytes instead of a copy, at a time (each holds the
  // FUSE worker that wrote them until its OSD answered; the mount sets a quarter of --fuse-threads;
  // 0 copies every write).
  std::uint32_t borrowed_writes_max = 16;
};

// Fixed worker threads taking tasks from a bounded FIFO. Invariant: tasks never wait for other
// tasks (they only make RPC calls, bounded by the RPC timeout), so a submitter blocked on a full
// queue always makes progress. Tasks must not throw; an escaping exception is dropped (callers
// catch inside the task and record the error where the waiter sees it).
class IoThreadPool {
 public:
  IoThreadPool(std::uint32_t threads, std::uint32_t queued_tasks_max);
  // Runs every task already queued, then joins the workers.
  ~IoThreadPool();
  IoThreadPool(const IoThreadPool&) = delete;
  IoThreadPool& operator=(const IoThreadPool&) = delete;

  // Queues `task`; blocks while queued_tasks_max tasks wait (backpressure instead of growth).
  void Submit(std::function<void()> task);

  // Runs `call(index)` for every index in [0, count): index 0 on the calling thread, the others on
  // the pool. Waits for all of them (they may use the caller's buffers), then rethrows the first
  // error. Must not be called from a pool task (it would wait for other tasks).
  void RunAll(std::size_t count, const std::function<void(std::size_t index)>& call);

 private:
  void Work();

  const std::uint32_t queued_tasks_max_;
  std::mutex mutex_;
  std::condition_variable task_queued_;
  std::condition_variable task_taken_;
  std::deque<std::function<void()>> tasks_;  // guarded by mutex_, at most queued_tasks_max_
  bool stopping_ = false;                    // guarded by mutex_
  std::vector<std::thread> workers_;
};

// Bytes of buffered data (write-behind queued to the OSDs, read-ahead objects) across all files.
// Writers wait below the capacity before buffering more; bytes already accepted into a handle's
// buffer are charged when queued without waiting, so the total stays below
// capacity + (concurrent writers + open handles) * object size, and nothing waits in a cycle.
class ByteBudget {
 public:
  explicit ByteBudget(std::uint64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  // Blocks while the charged bytes reach the capacity.
  void WaitBelowCapacity();
  // Charges without waiting (bytes that are already in memory).
  void Charge(std::uint64_t bytes);
  // Charges only if the total stays within the capacity (optional work such as read-ahead).
  bool TryCharge(std::uint64_t bytes);
  void Release(std::uint64_t bytes);

  std::uint64_t capacity_bytes() const { return capacity_bytes_; }
  std::uint64_t ChargedBytes();
  // Highest total ever charged: lets tests check the bound.
  std::uint64_t PeakChargedBytes();

 private:
  const std::uint64_t capacity_bytes_;
  std::mutex mutex_;
  std::condition_variable released_;
  std::uint64_t charged_bytes_ = 0;  // guarded by mutex_
  std::uint64_t peak_charged_bytes_ = 0;
};

// What a Volume owns for asynchronous I/O; file handles reach it through their volume.
struct IoResources {
  explicit IoResources(const IoOptions& options)
      : options(options),
        budget(options.buffer_bytes_max),
        pool(options.threads, options.queued_tasks_max) {}

  const IoOptions options;
  ByteBudget budget;
  // BorrowedBytes alive, at most borrowed_writes_max; shared, as a completion on the transport's io
  // thread may drop the last BorrowedBytes after the volume went.
  const std::shared_ptr<std::atomic<std::uint32_t>> borrowed_writes =
      std::make_shared<std::atomic<std::uint32_t>>(0);
  IoThreadPool pool;  // last: destroyed first, so no task outlives the budget
};

}  // namespace xtreemfs::client
