#include "client/io_pool.h"

#include <algorithm>
#include <cassert>

#include "rpc/wait_notice.h"

namespace xtreemfs::client {

IoThreadPool::IoThreadPool(std::uint32_t threads, std::uint32_t queued_tasks_max)
    : queued_tasks_max_(std::max<std::uint32_t>(1, queued_tasks_max)) {
  const std::uint32_t worker_count = std::max<std::uint32_t>(1, threads);
  workers_.reserve(worker_count);
  for (std::uint32_t i = 0; i < worker_count; ++i) workers_.emplace_back([this] { Work(); });
}

IoThreadPool::~IoThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  task_queued_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void IoThreadPool::Submit(std::function<void()> task) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (tasks_.size() >= queued_tasks_max_) rpc::NoteWait();  // the FUSE loop lets another thread read
  task_taken_.wait(lock, [&] { return tasks_.size() < queued_tasks_max_; });
  assert(!stopping_);
  tasks_.push_back(std::move(task));
  lock.unlock();
  task_queued_.notify_one();
}

void IoThreadPool::Work() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      task_queued_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, and every queued task ran
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task_taken_.notify_one();
    try {
      task();
    } catch (...) {
      // Tasks record their own errors; nothing may kill a worker.
    }
  }
}

void IoThreadPool::RunAll(std::size_t count, const std::function<void(std::size_t)>& call) {
  if (count == 0) return;
  std::mutex done_mutex;
  std::condition_variable all_done;
  std::size_t remaining = count - 1;  // guarded by done_mutex
  std::vector<std::exception_ptr> errors(count);
  for (std::size_t index = 1; index < count; ++index) {
    Submit([&, index] {
      try {
        call(index);
      } catch (...) {
        errors[index] = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(done_mutex);
      if (--remaining == 0) all_done.notify_all();
    });
  }
  try {
    call(0);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  // Every task is waited for before anything is rethrown: they use the caller's frame.
  std::unique_lock<std::mutex> lock(done_mutex);
  all_done.wait(lock, [&] { return remaining == 0; });
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

void ByteBudget::WaitBelowCapacity() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (charged_bytes_ >= capacity_bytes_) rpc::NoteWait();  // the FUSE loop lets another thread read
  released_.wait(lock, [&] { return charged_bytes_ < capacity_bytes_; });
}

void ByteBudget::Charge(std::uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  charged_bytes_ += bytes;
  peak_charged_bytes_ = std::max(peak_charged_bytes_, charged_bytes_);
}

bool ByteBudget::TryCharge(std::uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (charged_bytes_ + bytes > capacity_bytes_) return false;
  charged_bytes_ += bytes;
  peak_charged_bytes_ = std::max(peak_charged_bytes_, charged_bytes_);
  return true;
}

void ByteBudget::Release(std::uint64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    assert(bytes <= charged_bytes_);
    charged_bytes_ -= bytes;
  }
  released_.notify_all();
}

std::uint64_t ByteBudget::ChargedBytes() {
  std::lock_guard<std::mutex> lock(mutex_);
  return charged_bytes_;
}

std::uint64_t ByteBudget::PeakChargedBytes() {
  std::lock_guard<std::mutex> lock(mutex_);
  return peak_charged_bytes_;
}

}  // namespace xtreemfs::client
