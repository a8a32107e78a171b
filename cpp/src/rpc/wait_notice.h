// A thread about to wait (for a server's answer, for buffer space) says so, so that the loop it
// serves can let another thread take its place: the mount's FUSE loop (fuse/request_loop.h) keeps a
// few threads reading kernel requests, and one whose request waits hands its reading place on. Threads
// of no such loop (the io thread, the I/O pool, tests) have no listener and pay one thread-local load.
#pragma once

namespace xtreemfs::rpc {

class WaitListener {
 public:
  // The calling thread is about to wait; called on that thread, possibly more than once per request.
  virtual void BeforeWait() = 0;

 protected:
  ~WaitListener() = default;
};

// The calling thread's listener; null: none.
inline thread_local WaitListener* current_wait_listener = nullptr;

// Tells the calling thread's listener, if any, that the thread is about to wait.
inline void NoteWait() {
  if (WaitListener* listener = current_wait_listener) listener->BeforeWait();
}

}  // namespace xtreemfs::rpc
