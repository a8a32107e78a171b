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
  {
    std::lock_guard<std::mutex> guard(mutex_);
    newly_tracked = maybe_held_.emplace(key, file.HeadOsdUuid()).second;
  }
  try {
    CallHead(file, xtreemfs::osd::OSD_LOCK_ACQUIRE, ToWire(lock));
    return true;
  } catch (const rpc::RpcError& error) {
    const bool refused = error.kind() == rpc::ErrorKind::kErrno;
    if (refused && newly_tracked) {
      // The OSD answered: this owner holds nothing of this kind on the file.
      std::lock_guard<std::mutex> guard(mutex_);
      maybe_held_.erase(key);
    }
    if (refused && error.posix_errno() == EAGAIN) return false;
    throw;
  }
}

void LockClient::Acquire(FileHandle& file, const LockSpec& lock,
                         const std::function<bool()>& interrupted) {
  if (blocking_waiters_.fetch_add(1) >= options_.blocking_waiters_max) {
    blocking_waiters_.fetch_sub(1);
    throw rpc::RpcError::Errno(ENOLCK, std::to_string(options_.blocking_waiters_max) +
                                           " blocking lock waits are already running in this mount");
  }
  struct WaiterSlot {
    std::atomic<std::uint32_t>& waiters;
    ~WaiterSlot() { waiters.fetch_sub(1); }
  } slot{blocking_waiters_};
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
  const HeldKey key{file.file_id(), static_cast<int>(kind), owner};
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (maybe_held_.count(key) == 0) return;
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
    std::lock_guard<std::mutex> guard(mutex_);
    maybe_held_.erase(key);
  }
}

void LockClient::RenewLeases() {
  std::set<std::string> head_osds;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    for (const auto& [key, osd_uuid] : maybe_held_) head_osds.insert(osd_uuid);
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
