#include "client/lock_client.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <vector>

#include "client/file_handle.h"
#include "client/volume.h"
#include "fake_cluster.h"

namespace xtreemfs::client {
namespace {

using testing::FakeClock;
using testing::FakeCluster;

class LockClientTest : public ::testing::Test {
 protected:
  LockClientTest() {
    volume = Volume::Open(cluster, ParseDirUrl("dir/demo"), clock);
    LockClientOptions options;
    options.sleep = [this](std::uint32_t duration_ms) {
      pauses_ms.push_back(duration_ms);
      if (on_sleep) on_sleep();
    };
    options.warn = [this](const std::string& message) { warnings.push_back(message); };
    options.blocking_waiters_max = 1;
    mount_a = std::make_unique<LockClient>(*volume, "mount-a", options);
    mount_b = std::make_unique<LockClient>(*volume, "mount-b", options);
    file = volume->OpenFile(user, "/locked", O_CREAT | O_RDWR, 0644);
  }

  static LockSpec Posix(std::uint64_t owner, std::uint64_t offset, std::uint64_t length,
                        bool exclusive) {
    LockSpec lock;
    lock.owner = owner;
    lock.pid = static_cast<std::uint32_t>(1000 + owner);
    lock.offset_bytes = offset;
    lock.length_bytes = length;
    lock.exclusive = exclusive;
    return lock;
  }

  static LockSpec Flock(std::uint64_t owner, bool exclusive) {
    LockSpec lock = Posix(owner, 0, 0, exclusive);
    lock.kind = LockKind::kFlock;
    return lock;
  }

  FakeClock clock;
  FakeCluster cluster{clock, 3, 3, 4096};
  UserCredentials user;
  std::unique_ptr<Volume> volume;
  std::vector<std::uint32_t> pauses_ms;
  std::function<void()> on_sleep;
  std::vector<std::string> warnings;
  std::unique_ptr<LockClient> mount_a;
  std::unique_ptr<LockClient> mount_b;
  std::unique_ptr<FileHandle> file;
};

TEST_F(LockClientTest, LocksGoToTheHeadOsdAndConflictAcrossMounts) {
  // Acquire, conflict and check reach only stripe position 0 and carry client uuid, owner and range.
  EXPECT_TRUE(mount_a->TryAcquire(*file, Posix(7, 0, 100, true)));
  EXPECT_FALSE(mount_b->TryAcquire(*file, Posix(7, 50, 10, false)));
  EXPECT_TRUE(mount_b->TryAcquire(*file, Posix(7, 100, 0, true)));
  const auto holder = mount_b->Check(*file, Posix(7, 99, 1, false));
  ASSERT_TRUE(holder.has_value());
  EXPECT_EQ(holder->client_uuid(), "mount-a");
  EXPECT_EQ(holder->pid(), 1007u);
  EXPECT_EQ(holder->length_bytes(), 100u);
  // Another process (owner) of the same mount conflicts too; the holder's own range does not.
  EXPECT_EQ(mount_a->Check(*file, Posix(8, 0, 50, false))->owner(), 7u);
  EXPECT_FALSE(mount_a->Check(*file, Posix(7, 0, 50, true)).has_value());
  EXPECT_EQ(cluster.lock_calls_by_osd.size(), 1u);
  EXPECT_EQ(cluster.lock_calls_by_osd.count("osd-0"), 1u);
  // A refused acquire of an owner that held nothing leaves nothing to release or renew.
  EXPECT_EQ(mount_a->MaybeHeldCount(), 1u);
  EXPECT_EQ(mount_b->MaybeHeldCount(), 1u);
}

TEST_F(LockClientTest, UnlockWithoutAnyLockCostsNoRoundTripButARealOneIsSent) {
  // The unlock FUSE sends on every close is free unless this owner took a lock on the file.
  mount_a->Release(*file, LockKind::kPosix, 7);
  EXPECT_EQ(cluster.CountCalls(xtreemfs::osd::OSD_INTERFACE_ID, xtreemfs::osd::OSD_LOCK_RELEASE), 0);
  ASSERT_TRUE(mount_a->TryAcquire(*file, Posix(7, 0, 10, true)));
  mount_a->Release(*file, LockKind::kPosix, 7, 0, 5);  // partial: the owner may still hold [5, 10)
  EXPECT_EQ(mount_a->MaybeHeldCount(), 1u);
  mount_a->Release(*file, LockKind::kPosix, 7);
  EXPECT_EQ(mount_a->MaybeHeldCount(), 0u);
  EXPECT_EQ(cluster.CountCalls(xtreemfs::osd::OSD_INTERFACE_ID, xtreemfs::osd::OSD_LOCK_RELEASE), 2);
  EXPECT_TRUE(cluster.granted_locks.empty());
}

TEST_F(LockClientTest, FlockLocksAreOwnedByTheOpenFileAndIndependentOfPosixOnes) {
  // flock kind on the wire: whole file, conflicts only with other flock locks.
  ASSERT_TRUE(mount_a->TryAcquire(*file, Posix(1, 0, 0, true)));
  EXPECT_TRUE(mount_b->TryAcquire(*file, Flock(2, true)));
  EXPECT_FALSE(mount_a->TryAcquire(*file, Flock(3, false)));
  mount_b->Release(*file, LockKind::kFlock, 2);
  EXPECT_TRUE(mount_a->TryAcquire(*file, Flock(3, false)));
  EXPECT_EQ(cluster.granted_locks.back().second.kind(), xtreemfs::osd::LOCK_KIND_FLOCK);
}

TEST_F(LockClientTest, BlockingAcquireRetriesWithBoundedBackoffUntilGranted) {
  // F_SETLKW: repeated OSD_LOCK_ACQUIRE with doubling pauses capped at retry_max_ms (500).
  ASSERT_TRUE(mount_a->TryAcquire(*file, Posix(1, 0, 0, true)));
  on_sleep = [this] {
    if (pauses_ms.size() == 8) mount_a->Release(*file, LockKind::kPosix, 1);
  };
  mount_b->Acquire(*file, Posix(2, 10, 1, true), [] { return false; });
  EXPECT_EQ(pauses_ms, (std::vector<std::uint32_t>{10, 20, 40, 80, 160, 320, 500, 500}));
  EXPECT_EQ(cluster.granted_locks.size(), 1u);
  EXPECT_EQ(cluster.granted_locks[0].second.client_uuid(), "mount-b");
}

TEST_F(LockClientTest, BlockingAcquireEndsWithEintrWhenInterruptedAndIsBounded) {
  // A signal (FUSE interrupt) ends the wait with EINTR; waits beyond blocking_waiters_max get ENOLCK.
  ASSERT_TRUE(mount_a->TryAcquire(*file, Posix(1, 0, 0, true)));
  int polls = 0;
  try {
    mount_b->Acquire(*file, Posix(2, 0, 1, false), [&] { return ++polls >= 3; });
    FAIL() << "expected EINTR";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), EINTR);
  }
  EXPECT_EQ(mount_b->MaybeHeldCount(), 0u);
  on_sleep = [this] {
    try {
      mount_b->Acquire(*file, Posix(3, 0, 1, false), [] { return true; });
      ADD_FAILURE() << "a second waiter must be refused";
    } catch (const rpc::RpcError& error) {
      EXPECT_EQ(error.posix_errno(), ENOLCK);
    }
  };
  EXPECT_THROW(mount_b->Acquire(*file, Posix(2, 0, 1, false), [&] { return pauses_ms.size() >= 3; }),
               rpc::RpcError);
}

TEST_F(LockClientTest, ANonBlockingFlockIsGrantedWhenTheHoldersUnlockArrivesWithinTheWait) {
  // flock -n right after another mount's holder closed its file: the kernel sent that unlock in
  // FUSE RELEASE without waiting, so it reaches the OSD a little later; the request tries again.
  ASSERT_TRUE(mount_a->TryAcquire(*file, Flock(1, true)));
  on_sleep = [this] {
    if (pauses_ms.size() == 2) mount_a->Release(*file, LockKind::kFlock, 1);
  };
  EXPECT_TRUE(mount_b->TryAcquireFlock(*file, Flock(2, false)));
  EXPECT_EQ(pauses_ms, (std::vector<std::uint32_t>{5, 10}));
  EXPECT_EQ(cluster.granted_locks.back().second.client_uuid(), "mount-b");
}

TEST_F(LockClientTest, ANonBlockingFlockConflictThatStaysIsRefusedAfterPausesAddingUpToTheWait) {
  ASSERT_TRUE(mount_a->TryAcquire(*file, Flock(1, true)));
  EXPECT_FALSE(mount_b->TryAcquireFlock(*file, Flock(2, true)));
  EXPECT_EQ(pauses_ms, (std::vector<std::uint32_t>{5, 10, 20, 40, 80, 160, 185}));
  EXPECT_EQ(mount_b->MaybeHeldCount(), 0u);
  // A granted one costs no pause.
  pauses_ms.clear();
  EXPECT_TRUE(mount_a->TryAcquireFlock(*file, Flock(1, false)));
  EXPECT_TRUE(pauses_ms.empty());
}

TEST_F(LockClientTest, ANonBlockingFlockWaitIsBoundedByTheWaitersAndCanBeTurnedOff) {
  // While blocking_waiters_max (1 here) waits run, a non-blocking flock is refused at once; with a
  // wait of 0 it always is.
  ASSERT_TRUE(mount_a->TryAcquire(*file, Flock(1, true)));
  bool inner_refused = false;
  on_sleep = [&] {
    if (pauses_ms.size() != 1) return;
    const std::size_t pauses_before = pauses_ms.size();
    inner_refused = !mount_b->TryAcquireFlock(*file, Flock(3, true));
    EXPECT_EQ(pauses_ms.size(), pauses_before) << "the second request must not wait";
  };
  EXPECT_FALSE(mount_b->TryAcquireFlock(*file, Flock(2, true)));
  EXPECT_TRUE(inner_refused);
  on_sleep = nullptr;

  LockClientOptions options;
  options.flock_nonblocking_wait_ms = 0;
  options.sleep = [this](std::uint32_t duration_ms) { pauses_ms.push_back(duration_ms); };
  LockClient mount_c(*volume, "mount-c", options);
  pauses_ms.clear();
  EXPECT_FALSE(mount_c.TryAcquireFlock(*file, Flock(4, true)));
  EXPECT_TRUE(pauses_ms.empty());
}

TEST_F(LockClientTest, AnUnlockRacingAnAcquireOfTheSameOwnerKeepsTheLockKnownAndUnlockable) {
  // One thread of a process closes the file (its flush unlocks everything of the owner) while
  // another takes a lock: the unlock is answered before the acquire is granted. The lock then
  // held must still be renewed and unlocked by the owner's next close, not forgotten.
  ASSERT_TRUE(mount_b->TryAcquire(*file, Posix(7, 0, 10, true)));
  cluster.before_call = [this](const rpc::CallRequest& request) {
    if (request.procedure_id != xtreemfs::osd::OSD_LOCK_ACQUIRE) return;
    cluster.before_call = nullptr;
    mount_b->Release(*file, LockKind::kPosix, 7);
  };
  ASSERT_TRUE(mount_b->TryAcquire(*file, Posix(7, 20, 10, true)));
  ASSERT_EQ(cluster.granted_locks.size(), 1u);
  EXPECT_EQ(mount_b->MaybeHeldCount(), 1u);
  mount_b->Release(*file, LockKind::kPosix, 7);
  EXPECT_TRUE(cluster.granted_locks.empty()) << "the owner's close must unlock the lock granted late";
  EXPECT_EQ(mount_b->MaybeHeldCount(), 0u);
}

TEST_F(LockClientTest, LeasesAreRenewedOnlyAtHeadOsdsWithLocksAndLossIsReported) {
  // RenewLeases sends OSD_LOCK_RENEW only while locks may be held; locks_held 0 becomes a warning.
  mount_a->RenewLeases();
  EXPECT_EQ(cluster.CountCalls(xtreemfs::osd::OSD_INTERFACE_ID, xtreemfs::osd::OSD_LOCK_RENEW), 0);
  ASSERT_TRUE(mount_a->TryAcquire(*file, Posix(1, 0, 0, true)));
  mount_a->RenewLeases();
  EXPECT_EQ(cluster.CountCalls(xtreemfs::osd::OSD_INTERFACE_ID, xtreemfs::osd::OSD_LOCK_RENEW), 1);
  EXPECT_TRUE(warnings.empty());
  cluster.granted_locks.clear();  // as if the lease had run out at the OSD
  mount_a->RenewLeases();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("may have been lost"), std::string::npos);
}

TEST_F(LockClientTest, AnExpiredCapabilityIsRenewedOnceForALockCall) {
  // AUTH_FAILED from the OSD renews the XCap at the MRC and repeats the lock call once.
  cluster.auth_failures_to_inject = 1;
  EXPECT_TRUE(mount_a->TryAcquire(*file, Posix(1, 0, 0, true)));
  EXPECT_EQ(cluster.CountCalls(xtreemfs::mrc::MRC_INTERFACE_ID, xtreemfs::mrc::MRC_RENEW_CAPABILITY), 1);
  EXPECT_EQ(cluster.granted_locks.size(), 1u);
}

TEST_F(LockClientTest, TheRenewalThreadRenewsWhileLocksAreHeldAndStopsWithTheClient) {
  // StartRenewal renews every period (5 ms here) while a lock may be held; destruction joins it.
  LockClientOptions options;
  options.renew_period_ms = 5;
  auto mount = std::make_unique<LockClient>(*volume, "mount-c", options);
  ASSERT_TRUE(mount->TryAcquire(*file, Posix(1, 0, 0, true)));
  mount->StartRenewal();
  mount->StartRenewal();  // idempotent: still one thread
  const auto renewals = [this] {
    return cluster.CountCalls(xtreemfs::osd::OSD_INTERFACE_ID, xtreemfs::osd::OSD_LOCK_RENEW);
  };
  // A generous bound on a hang, not a timing assertion.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (renewals() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(renewals(), 3);
  mount.reset();
}

TEST_F(LockClientTest, ALockTakenBeforeTheFirstRenewalIsRenewedWithinItsLease) {
  // As in mount.xtreemfs: the renewal thread starts before any lock exists, with a period longer
  // than the OSD's lease (here 10 min against the fake OSD's 3 s). Learning the lease at the first
  // acquire must shorten the wait already running, or the lock outlives its lease unrenewed.
  LockClientOptions options;
  options.renew_period_ms = 600000;
  auto mount = std::make_unique<LockClient>(*volume, "mount-d", options);
  mount->StartRenewal();
  // The lock must come while the 10 min wait already runs: a thread that starts waiting only after
  // the lease was learnt waits the short period anyway and would pass without the fix.
  const auto wait_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (mount->RenewalWaitsBegun() < 1 && std::chrono::steady_clock::now() < wait_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(mount->RenewalWaitsBegun(), 1u);
  ASSERT_TRUE(mount->TryAcquire(*file, Posix(1, 0, 0, true)));
  const auto renewals = [this] {
    return cluster.CountCalls(xtreemfs::osd::OSD_INTERFACE_ID, xtreemfs::osd::OSD_LOCK_RENEW);
  };
  // Due a third of the lease (1 s) after the thread started; the bound is far below the old wait.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (renewals() < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GE(renewals(), 1);
  mount.reset();
}

TEST_F(LockClientTest, ClientUuidsDifferPerMountProcess) {
  // Two LockClients of one host never share an identity (each mount is its own lock client).
  EXPECT_NE(LockClient::NewClientUuid(), LockClient::NewClientUuid());
  EXPECT_EQ(LockClient::NewClientUuid().rfind("mount-", 0), 0u);
}

}  // namespace
}  // namespace xtreemfs::client
