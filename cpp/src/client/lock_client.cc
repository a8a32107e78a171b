#include "client/lock_client.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <random>
#include <set>

#include "client/file_handle.h"
#include "client/volume.h"
#include "rpc/rpc_error.h"

namespace xtreemfs::client {

namespace {

// The lock calls' identity at the OSD: the renewal carries no file, so no user's credentials matter.
const xtreemfs::rpc::UserCredentials& RenewalCredentials() {
  static const xtreemfs::rpc::UserCredentials credentials = [] {
    xtreemfs::rpc::UserCredentials user;
    user.set_username("lock-renewal");
    return user;
  }();
  return credentials;
}

// One of a mount's bounded lock waits (each holds a FUSE worker thread): taken if fewer than `max`
// run, given back when it goes out of scope.
class WaiterSlot {
 public:
  WaiterSlot(std::atomic<std::uint32_t>& waiters, std::uint32_t max)
      : waiters_(waiters), taken_(waiters.fetch_add(1) < max) {
    if (!taken_) waiters_.fetch_sub(1);
  }
  ~WaiterSlot() {
    if (taken_) waiters_.fetch_sub(1);
  }
  WaiterSlot(const WaiterSlot&) = delete;
  WaiterSlot& operator=(const WaiterSlot&) = delete;
  bool taken() const { return taken_; }

 private:
  std::atomic<std::uint32_t>& waiters_;
  const bool taken_;
};

}  // namespace

LockClient::LockClient(Volume& volume, std::string client_uuid, LockClientOptions options)
    : volume_(volume),
      client_uuid_(std::move(client_uuid)),
      options_(std::move(options)),
      renew_period_ms_(options_.renew_period_ms) {
  if (!options_.sleep) {
    options_.sleep = [](std::uint32_t duration_ms) {
      std::this_thread::sleep_for(std::chrono::milliseconds(duration_ms));
    };
  }
}

LockClient::~LockClient() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (renewal_.joinable()) renewal_.join();
}

std::string LockClient::NewClientUuid() {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::random_device random;
  const std::uint64_t nonce = (static_cast<std::uint64_t>(random()) << 32) ^ random();
  char suffix[40];
  std::snprintf(suffix, sizeof suffix, "-%d-%016llx", static_cast<int>(getpid()),
                static_cast<unsigned long long>(nonce));
  return std::string("mount-") + host + suffix;
}

xtreemfs::osd::Lock LockClient::ToWire(const LockSpec& lock) const {
  xtreemfs::osd::Lock wire;
  wire.set_client_uuid(client_uuid_);
  wire.set_owner(lock.owner);
  wire.set_pid(lock.pid);
  wire.set_exclusive(lock.exclusive);
  if (lock.kind == LockKind::kFlock) {
    wire.set_kind(xtreemfs::osd::LOCK_KIND_FLOCK);
  } else {
    wire.set_kind(xtreemfs::osd::LOCK_KIND_POSIX);
    wire.set_offset_bytes(lock.offset_bytes);
    wire.set_length_bytes(lock.length_bytes);
  }
  return wire;
}

xtreemfs::osd::LockResponse LockClient::CallHead(FileHandle& file, std::uint32_t procedure_id,
                                                 const xtreemfs::osd::Lock& lock) {
  const std::string head_osd_uuid = file.HeadOsdUuid();
  // At most two attempts: the second only after AUTH_FAILED and a successful renewal.
  for (int attempt = 1;; ++attempt) {
    xtreemfs::osd::LockRequest request;
    *request.mutable_credentials() = file.FreshCredentials();
    request.set_file_id(file.file_id());
    *request.mutable_lock() = lock;
    try {
      // Every lock call is idempotent: re-acquiring a held range and unlocking twice change nothing.
      const auto response = rpc::ParseResponse<xtreemfs::osd::LockResponse>(
          volume_.CallOsd(head_osd_uuid, procedure_id, file.user_, request, {}, true));
      NoteLease(response.lease_ms());
      return response;
    } catch (const rpc::RpcError& error) {
      if (error.kind() != rpc::ErrorKind::kAuthFailed || attempt >= 2) throw;
    }
    file.RenewXCap();
  }
}

void LockClient::NoteLease(std::uint32_t lease_ms) {
  if (lease_ms == 0) return;
  bool shortened;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // A third of the lease: two renewals may fail or be late before the locks are lost.
    const std::uint32_t period = std::min(renew_period_ms_, std::max<std::uint32_t>(lease_ms / 3, 1));
    shortened = period < renew_period_ms_;
    renew_period_ms_ = period;
  }
  // The renewal thread may be waiting out the longer period it knew before any lease (10 s by
  // default, longer than the OSD's lease): wake it, so it renews once the shorter one has passed.
  if (shortened) wake_.notify_all();
}

bool LockClient::TryAcquire(FileHandle& file, const LockSpec& lock) {
  const HeldKey key{file.file_id(), static_cast<int>(lock.kind), lock.owner};
  bool newly_tracked;
  std::uint64_t this_acquire;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    auto [entry, inserted] = maybe_held_.try_emplace(key, MaybeHeld{file.HeadOsdUuid()});
    newly_tracked = inserted;
    this_acquire = ++entry->second.acquires_begun;
    ++entry->second.acquires_running;
  }
  // Ends this acquire's count; on a refusal that leaves the owner without a lock, also the entry
  // it added, unless another acquire began meanwhile.
  const auto finish = [&](bool refused_with_nothing_held) {
    std::lock_guard<std::mutex> guard(mutex_);
    const auto entry = maybe_held_.find(key);
    if (entry == maybe_held_.end()) return;
    --entry->second.acquires_running;
    if (refused_with_nothing_held && entry->second.acquires_begun == this_acquire &&
        entry->second.acquires_running == 0) {
      maybe_held_.erase(entry);
    }
  };
  try {
    CallHead(file, xtreemfs::osd::OSD_LOCK_ACQUIRE, ToWire(lock));
  } catch (const rpc::RpcError& error) {
    const bool refused = error.kind() == rpc::ErrorKind::kErrno;
    // Refused, the OSD says this owner holds nothing of this kind on the file if it held nothing
    // before (a refused upgrade keeps the lock it had).
    finish(refused && newly_tracked);
    if (refused && error.posix_errno() == EAGAIN) return false;
    throw;
  }
  finish(false);
  return true;
}

bool LockClient::TryAcquireFlock(FileHandle& file, const LockSpec& lock) {
  if (TryAcquire(file, lock)) return true;
  if (options_.flock_nonblocking_wait_ms == 0) return false;
  // The wait holds a FUSE worker thread like a blocking one, so it counts against the same bound.
  const WaiterSlot slot(blocking_waiters_, options_.blocking_waiters_max);
  if (!slot.taken()) return false;
  std::uint32_t waited_ms = 0;
  std::uint32_t pause_ms = 5;
  while (waited_ms < options_.flock_nonblocking_wait_ms) {
    pause_ms = std::min(pause_ms, options_.flock_nonblocking_wait_ms - waited_ms);
    options_.sleep(pause_ms);
    waited_ms += pause_ms;
    if (TryAcquire(file, lock)) return true;
    pause_ms *= 2;
  }
  return false;
}

void LockClient::Acquire(FileHandle& file, const LockSpec& lock,
                         const std::function<bool()>& interrupted) {
  const WaiterSlot slot(blocking_waiters_, options_.blocking_waiters_max);
  if (!slot.taken()) {
    throw rpc::RpcError::Errno(ENOLCK, std::to_string(options_.blocking_waiters_max) +
                                           " blocking lock waits are already running in this mount");
  }
  std::uint32_t pause_ms = options_.retry_initial_ms;
  // Ends when granted, on an error other than a conflict, or when the caller is interrupted
  // (FUSE INTERRUPT after a signal): POSIX lets F_SETLKW wait indefinitely.
  for (;;) {
    if (TryAcquire(file, lock)) return;
    if (interrupted && interrupted()) {
      throw rpc::RpcError::Errno(EINTR, "lock wait on " + file.file_id() + " interrupted");
    }
    options_.sleep(pause_ms);
    pause_ms = std::min(options_.retry_max_ms, pause_ms * 2);
    if (interrupted && interrupted()) {
      throw rpc::RpcError::Errno(EINTR, "lock wait on " + file.file_id() + " interrupted");
    }
  }
}

std::optional<xtreemfs::osd::Lock> LockClient::Check(FileHandle& file, const LockSpec& lock) {
  const auto response = CallHead(file, xtreemfs::osd::OSD_LOCK_CHECK, ToWire(lock));
  if (!response.has_conflicting()) return std::nullopt;
  return response.conflicting();
}

void LockClient::Release(FileHandle& file, LockKind kind, std::uint64_t owner,
                         std::uint64_t offset_bytes, std::uint64_t length_bytes) {
  std::uint64_t acquires_begun;
  HeldKey key;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    // Every close(2) unlocks (FUSE flush): a mount without any lock answers it without building the
    // key, a copy of the file id (one malloc and free per close of every file).
    if (maybe_held_.empty()) return;
    key = HeldKey{file.file_id(), static_cast<int>(kind), owner};
    const auto entry = maybe_held_.find(key);
    if (entry == maybe_held_.end()) return;
    acquires_begun = entry->second.acquires_begun;
  }
  LockSpec unlock;
  unlock.owner = owner;
  unlock.kind = kind;
  unlock.offset_bytes = offset_bytes;
  unlock.length_bytes = length_bytes;
  // On failure the entry stays: the next unlock of this owner (its next close) tries again, and
  // renewals keep the lock alive meanwhile rather than letting it expire under a live process.
  CallHead(file, xtreemfs::osd::OSD_LOCK_RELEASE, ToWire(unlock));
  const bool everything = kind == LockKind::kFlock || (offset_bytes == 0 && length_bytes == 0);
  if (everything) {
    // An acquire that began before the unlock was answered may be granted after it: keep the entry.
    std::lock_guard<std::mutex> guard(mutex_);
    const auto entry = maybe_held_.find(key);
    if (entry != maybe_held_.end() && entry->second.acquires_begun == acquires_begun &&
        entry->second.acquires_running == 0) {
      maybe_held_.erase(entry);
    }
  }
}

void LockClient::RenewLeases() {
  std::set<std::string> head_osds;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    for (const auto& [key, held] : maybe_held_) head_osds.insert(held.head_osd_uuid);
  }
  for (const std::string& osd_uuid : head_osds) {
    xtreemfs::osd::LockRenewRequest request;
    request.set_client_uuid(client_uuid_);
    try {
      const auto response = rpc::ParseResponse<xtreemfs::osd::LockRenewResponse>(volume_.CallOsd(
          osd_uuid, xtreemfs::osd::OSD_LOCK_RENEW, RenewalCredentials(), request, {}, true));
      NoteLease(response.lease_ms());
      if (response.locks_held() == 0 && options_.warn) {
        // Either every lock there was released meanwhile, or the lease ran out (or the OSD
        // restarted) and the locks are gone although processes here believe they hold them.
        options_.warn("lock renewal: OSD " + osd_uuid + " holds no locks of this mount (" +
                      client_uuid_ + "); locks believed held there may have been lost");
      }
    } catch (const rpc::RpcError& error) {
      if (options_.warn) {
        options_.warn("lock renewal at OSD " + osd_uuid + " failed: " + error.what());
      }
    }
  }
}

void LockClient::StartRenewal() {
  std::lock_guard<std::mutex> guard(mutex_);
  if (renewal_.joinable() || stopping_) return;
  renewal_ = std::thread([this] { RenewalLoop(); });
}

void LockClient::RenewalLoop() {
  std::unique_lock<std::mutex> guard(mutex_);
  auto last_renewal = std::chrono::steady_clock::now();
  while (!stopping_) {
    // The due time is recomputed after every wake-up: NoteLease may have shortened the period
    // while this thread waited (a lock taken before the first renewal learns the lease only then).
    const auto due = last_renewal + std::chrono::milliseconds(renew_period_ms_);
    if (std::chrono::steady_clock::now() < due) {
      ++renewal_waits_begun_;
      wake_.wait_until(guard, due);
      continue;
    }
    last_renewal = std::chrono::steady_clock::now();
    const bool anything_held = !maybe_held_.empty();
    guard.unlock();
    if (anything_held) RenewLeases();
    guard.lock();
  }
}

std::uint64_t LockClient::RenewalWaitsBegun() {
  std::lock_guard<std::mutex> guard(mutex_);
  return renewal_waits_begun_;
}

std::size_t LockClient::MaybeHeldCount() {
  std::lock_guard<std::mutex> guard(mutex_);
  return maybe_held_.size();
}

}  // namespace xtreemfs::client
