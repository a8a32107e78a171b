// The threads that take the kernel's FUSE requests. libfuse's own loop keeps every worker it started
// waiting in read(/dev/fuse), and the kernel wakes one waiting reader for every request it queues
// (an exclusive wake-up), so nearly every request cost a thread's wake-up and sleep, also when another
// worker was about to read again (perf, session 12: ~1.1 context switches per random 4 KiB request).
// Here only `readers` threads read at a time: they hold the reading places. A request answered
// without waiting (asynchronous reads and writes, cached attributes) is handled by the thread that
// read it, which then reads again.
//
// A request about to wait (for a server's answer, for buffer space, for a lock: rpc::NoteWait) is
// what could keep the kernel's queue from being read. The invariant: a thread whose request waits
// while it holds a reading place leaves at least one reader free, i.e. a thread that holds a place
// and whose request does not wait (it is in read(/dev/fuse), or about to be, after a request that
// needs no wait). So a queued request is always read while a thread could read it, however long a
// wait lasts (a lock wait can last seconds). Hence, at the request's first wait:
// - another reader is free: the thread keeps its place and waits in it (no hand-off, no wake-up:
//   the hand-off cost a create 0.7-3.8 and an unlink 2.0-3.1 context switches, session 15); after
//   its request it reads again;
// - it is the last free reader (always with readers == 1): it hands its place on, to an idle thread
//   or a new one while fewer than `threads_max` exist. After its request a thread that gave up its
//   place reads again if a place is free, otherwise waits idle (on a condition variable, not on
//   /dev/fuse) until a reader hands one on.
// The decision is taken under one mutex, so two readers that wait at once cannot both count on the
// other: the second hands on. A kept place is not handed on later (there is no watchdog): a free
// reader whose next request waits hands on itself, so the invariant holds for announced waits. A
// wait that is not announced (a handle's write-behind window, another handle's buffered bytes
// drained first: cpp/README.md) holds its place as it always did and never waits for another
// kernel request; but next to a request waiting in its place it leaves no free reader until one of
// the two ends, where the eager hand-off left one: a wait that can last long (a lock) must be
// announced. With readers == 1 no other reader is ever free: every first wait hands on, as before
// (a deferred hand-off would need a timer). Threads are started on demand and stay until Stop; once all `threads_max` are
// started and waiting, a handed-on place waits for the first thread done with its request.
//
// Not tied to libfuse: `serve_one` reads and handles one request (mount_main.cc: /dev/fuse), so the
// tests drive it with requests of their own.
#pragma once

#include <pthread.h>
#include <semaphore.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "rpc/wait_notice.h"

namespace xtreemfs::fuse_adapter {

class RequestLoop : private rpc::WaitListener {
 public:
  // Reads and handles one request on the calling thread; false: the source has ended (the loop
  // then ends: WaitForEnd returns). Called with thread cancellation disabled; it may enable it
  // around its read (mount_main.cc does, as libfuse's loop does, so that Stop ends a blocked read).
  using ServeOne = std::function<bool()>;

  // readers >= 1, threads_max >= readers.
  RequestLoop(std::uint32_t readers, std::uint32_t threads_max, ServeOne serve_one);
  ~RequestLoop();  // Stop()
  RequestLoop(const RequestLoop&) = delete;
  RequestLoop& operator=(const RequestLoop&) = delete;

  // Starts the readers. Their signal mask blocks SIGTERM, SIGINT, SIGHUP and SIGQUIT, so those reach
  // the thread that waits in WaitForEnd (libfuse's signal handlers end the session there).
  void Start();
  // Waits until a serve_one returned false, or a signal interrupted the wait (the caller checks
  // why it woke: fuse_session_exited).
  void WaitForEnd();
  // Ends the loop: idle threads end, threads reading with cancellation enabled are cancelled, the
  // others end after their request; returns when every thread has ended. Idempotent.
  void Stop();

  // Threads started so far (readers, threads whose request waits, idle ones), until Stop.
  std::uint32_t ThreadsStarted();
  // Threads waiting for a reading place.
  std::uint32_t ThreadsIdle();
  // Reading places handed on by requests that wait (to an idle thread, a new one, or left free).
  std::uint64_t PlacesHandedOn();
  // Threads whose request waits in its reading place (kept: another reader was free).
  std::uint32_t ThreadsWaitingInPlace();

 private:
  static void* ThreadMain(void* loop);
  void Serve();
  void BeforeWait() override;
  // Starts a thread that holds a reading place; the caller holds mutex_.
  void StartThreadLocked();
  // After a request whose thread gave up its place: waits until a place is free and takes it
  // (true), or until Stop (false).
  bool RetakePlace();

  const std::uint32_t readers_;
  const std::uint32_t threads_max_;
  const ServeOne serve_one_;
  sem_t ended_;  // posted when a serve_one returned false
  std::mutex mutex_;
  std::condition_variable place_freed_;
  // Guarded by mutex_. Places held by threads plus places_free_ is always readers_ (once started);
  // of the held places, threads_waiting_in_place_ are held by requests that wait, the others by free
  // readers.
  std::uint32_t places_free_ = 0;
  std::uint32_t threads_waiting_in_place_ = 0;
  std::uint32_t threads_idle_ = 0;
  std::uint64_t places_handed_on_ = 0;
  std::vector<pthread_t> threads_;
  // Set under mutex_ (no thread is started after it); read without it after each request.
  std::atomic<bool> stopping_{false};
};

}  // namespace xtreemfs::fuse_adapter
