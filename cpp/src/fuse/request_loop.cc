#include "fuse/request_loop.h"

#include <pthread.h>
#include <signal.h>

#include <cassert>
#include <cstdio>
#include <cstring>

namespace xtreemfs::fuse_adapter {
namespace {

// Whether the calling thread holds one of its loop's reading places (each thread serves one loop).
thread_local bool holds_place = false;
// Whether the calling thread's request waits in its reading place (counted in
// threads_waiting_in_place_ until the request ends).
thread_local bool waits_in_place = false;

}  // namespace

RequestLoop::RequestLoop(std::uint32_t readers, std::uint32_t threads_max, ServeOne serve_one)
    : readers_(readers), threads_max_(threads_max), serve_one_(std::move(serve_one)) {
  assert(readers_ >= 1 && threads_max_ >= readers_);
  sem_init(&ended_, 0, 0);
}

RequestLoop::~RequestLoop() {
  Stop();
  sem_destroy(&ended_);
}

void RequestLoop::Start() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::uint32_t reader = 0; reader < readers_; ++reader) StartThreadLocked();
}

void RequestLoop::WaitForEnd() { sem_wait(&ended_); }

void RequestLoop::Stop() {
  std::vector<pthread_t> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true);  // from here no thread is started
    threads.swap(threads_);
  }
  place_freed_.notify_all();
  // Acts only where a thread enabled cancellation (serve_one's read); the others see stopping_.
  for (pthread_t thread : threads) pthread_cancel(thread);
  for (pthread_t thread : threads) pthread_join(thread, nullptr);
}

std::uint32_t RequestLoop::ThreadsStarted() {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<std::uint32_t>(threads_.size());
}

std::uint32_t RequestLoop::ThreadsIdle() {
  std::lock_guard<std::mutex> lock(mutex_);
  return threads_idle_;
}

std::uint64_t RequestLoop::PlacesHandedOn() {
  std::lock_guard<std::mutex> lock(mutex_);
  return places_handed_on_;
}

std::uint32_t RequestLoop::ThreadsWaitingInPlace() {
  std::lock_guard<std::mutex> lock(mutex_);
  return threads_waiting_in_place_;
}

void* RequestLoop::ThreadMain(void* loop) {
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, nullptr);
  rpc::current_wait_listener = static_cast<RequestLoop*>(loop);
  holds_place = true;
  static_cast<RequestLoop*>(loop)->Serve();
  return nullptr;
}

void RequestLoop::Serve() {
  for (;;) {
    if (!serve_one_()) {
      sem_post(&ended_);
      return;
    }
    if (waits_in_place) {
      waits_in_place = false;
      std::lock_guard<std::mutex> lock(mutex_);
      --threads_waiting_in_place_;  // a free reader again
    }
    if (!holds_place && !RetakePlace()) return;
    if (stopping_.load(std::memory_order_relaxed)) return;
  }
}

void RequestLoop::BeforeWait() {
  if (!holds_place || waits_in_place) return;  // a later wait of the same request
  std::lock_guard<std::mutex> lock(mutex_);
  // The readers free besides this one (the header's invariant): places held, less those of waiting
  // requests, less this thread's own.
  const std::uint32_t others_free = readers_ - places_free_ - threads_waiting_in_place_ - 1;
  if (others_free > 0 && !stopping_) {
    waits_in_place = true;
    ++threads_waiting_in_place_;
    return;
  }
  holds_place = false;
  if (stopping_) return;
  ++places_handed_on_;
  if (threads_idle_ == 0 && threads_.size() < threads_max_) {
    StartThreadLocked();  // the new thread reads in this one's place
    return;
  }
  // An idle thread takes it, or (all threads started and busy) the next one done with its request.
  ++places_free_;
  place_freed_.notify_one();
}

void RequestLoop::StartThreadLocked() {
  // Signals that end the session go to the thread in WaitForEnd, not to a reader.
  sigset_t blocked;
  sigset_t previous;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  sigaddset(&blocked, SIGHUP);
  sigaddset(&blocked, SIGQUIT);
  pthread_sigmask(SIG_BLOCK, &blocked, &previous);
  pthread_t thread;
  const int error = pthread_create(&thread, nullptr, &RequestLoop::ThreadMain, this);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (error != 0) {
    // The place stays free for the next thread done with its request.
    std::fprintf(stderr, "mount.xtreemfs: cannot start a FUSE thread: %s\n", std::strerror(error));
    ++places_free_;
    return;
  }
  pthread_setname_np(thread, "fuse-request");  // its own group in per-thread figures (ab_data_path.py)
  threads_.push_back(thread);
}

bool RequestLoop::RetakePlace() {
  std::unique_lock<std::mutex> lock(mutex_);
  ++threads_idle_;
  place_freed_.wait(lock, [this] { return stopping_.load() || places_free_ > 0; });
  --threads_idle_;
  if (stopping_) return false;
  --places_free_;
  holds_place = true;
  return true;
}

}  // namespace xtreemfs::fuse_adapter
