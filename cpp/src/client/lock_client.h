// Advisory locks (fcntl record locks and flock) that hold across mounts: the file's head OSD
// (stripe position 0) keeps its lock table (osd.proto OSD_LOCK_*). This mount is one client with
// one UUID; the kernel's lock owner ids tell its processes (POSIX) and open files (flock) apart.
// The OSD drops a client's locks when their lease ends, so a renewal thread (StartRenewal) renews
// it at every head OSD where this mount may hold locks.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>

#include "client/clock.h"
#include "osd.pb.h"

namespace xtreemfs::client {

class FileHandle;
class Volume;

enum class LockKind { kPosix, kFlock };

// One lock as the protocol describes it; length_bytes 0 reaches to the end of the file. For
// kFlock the range is ignored (whole file).
struct LockSpec {
  std::uint64_t owner = 0;  // FUSE lock_owner
  std::uint32_t pid = 0;    // process taking the lock (reported to other clients by F_GETLK)
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  bool exclusive = false;
  LockKind kind = LockKind::kPosix;
};

struct LockClientOptions {
  // A blocking acquire retries after these pauses, doubling from the first up to the largest.
  std::uint32_t retry_initial_ms = 10;
  std::uint32_t retry_max_ms = 500;
  // Blocking acquires waiting at once; each holds a FUSE worker thread, and the unlock that would
  // end the wait needs a free one, so further ones fail with ENOLCK instead of starving the mount.
  std::uint32_t blocking_waiters_max = 4;
  // A non-blocking flock (LOCK_NB) that meets a conflict tries again for this long (its pauses,
  // doubling from 5 ms, add up to at most this) before it is refused: the kernel sends the unlock
  // of a closed file's flock in FUSE RELEASE without waiting for it, so close(2) in another
  // process or mount returns while its unlock is still on the way to the OSD (cpp/README.md). A
  // conflict that stays costs the caller this wait; 0: refused at once.
  std::uint32_t flock_nonblocking_wait_ms = 500;
  // Renewal period until an OSD has told its lease (then a third of the shortest lease seen).
  std::uint32_t renew_period_ms = 10000;
  // Pauses between retries; tests replace it to run without sleeping.
  std::function<void(std::uint32_t duration_ms)> sleep;
  // Receives warnings (lost locks, failed renewals); may be empty.
  std::function<void(const std::string& message)> warn;
};

class LockClient {
 public:
  // `volume` must outlive the client. `client_uuid` identifies this mount at the OSDs.
  LockClient(Volume& volume, std::string client_uuid, LockClientOptions options = LockClientOptions());
  // Stops the renewal thread.
  ~LockClient();
  LockClient(const LockClient&) = delete;
  LockClient& operator=(const LockClient&) = delete;

  // A fresh client UUID for this mount process: host name, pid and 64 random bits.
  static std::string NewClientUuid();

  const std::string& client_uuid() const { return client_uuid_; }

  // Takes the lock if no other owner's lock conflicts: true if granted, false if refused (EAGAIN).
  bool TryAcquire(FileHandle& file, const LockSpec& lock);
  // A non-blocking flock request: TryAcquire, and on a conflict again after pauses that add up to
  // at most flock_nonblocking_wait_ms (one attempt when blocking_waiters_max waits already run).
  // True once granted, false if the conflict outlasted the wait.
  bool TryAcquireFlock(FileHandle& file, const LockSpec& lock);
  // Takes the lock, waiting (bounded backoff) while another owner holds a conflicting one. Throws
  // RpcError EINTR as soon as `interrupted()` is true between attempts, ENOLCK when
  // blocking_waiters_max waits are already running.
  void Acquire(FileHandle& file, const LockSpec& lock, const std::function<bool()>& interrupted);
  // The other owner's lock that would keep `lock` from being granted now (F_GETLK), if any.
  std::optional<xtreemfs::osd::Lock> Check(FileHandle& file, const LockSpec& lock);
  // Unlocks the owner's range (kPosix; offset/length as in LockSpec) or its flock lock. Sends
  // nothing when this mount never got a lock of that owner and kind on the file, so the unlock
  // FUSE issues on every close costs no round trip.
  void Release(FileHandle& file, LockKind kind, std::uint64_t owner, std::uint64_t offset_bytes = 0,
               std::uint64_t length_bytes = 0);

  // One renewal round: OSD_LOCK_RENEW at every head OSD where this mount may hold locks.
  void RenewLeases();
  // Starts the thread calling RenewLeases every renewal period (idempotent).
  void StartRenewal();

  // (file id, kind, owner) entries this mount may hold locks for; for tests and status.
  std::size_t MaybeHeldCount();
  // How many times the renewal thread began waiting for its next renewal (tests wait for the first,
  // so a lock is taken while a wait is already running, as in a mount).
  std::uint64_t RenewalWaitsBegun();

 private:
  xtreemfs::osd::Lock ToWire(const LockSpec& lock) const;
  // Calls a lock procedure at the file's head OSD with fresh credentials; renews the XCap once
  // after AUTH_FAILED, like FileHandle's data calls.
  xtreemfs::osd::LockResponse CallHead(FileHandle& file, std::uint32_t procedure_id,
                                       const xtreemfs::osd::Lock& lock);
  void NoteLease(std::uint32_t lease_ms);
  void RenewalLoop();

  using HeldKey = std::tuple<std::string, int, std::uint64_t>;  // file id, kind, owner

  Volume& volume_;
  const std::string client_uuid_;
  LockClientOptions options_;
  std::atomic<std::uint32_t> blocking_waiters_{0};
  std::mutex mutex_;
  struct MaybeHeld {
    std::string head_osd_uuid;
    std::uint64_t acquires_begun = 0;    // every acquire of the key counts here before it is sent
    std::uint32_t acquires_running = 0;  // sent and not yet answered
  };
  // Every lock this mount may hold, with the head OSD holding it. An entry is added before an
  // acquire is sent (a lost answer may still have granted it) and removed only after an unlock of
  // everything of that owner and kind succeeded, or the OSD denied the acquire that added it, in
  // both cases only if no other acquire of the key began meanwhile: its grant may come after the
  // unlock (two threads of one process, one closing the file while the other locks it), and the
  // lock it holds then must still be renewed and unlocked.
  std::map<HeldKey, MaybeHeld> maybe_held_;  // guarded by mutex_
  std::uint32_t renew_period_ms_;             // guarded by mutex_
  bool stopping_ = false;                     // guarded by mutex_
  std::uint64_t renewal_waits_begun_ = 0;     // guarded by mutex_
  std::condition_variable wake_;
  std::thread renewal_;
};

}  // namespace xtreemfs::client
