// Write-behind of FileHandle against the in-memory cluster: buffered bytes reach the OSDs by
// fsync/flush/close, writers block at the window and the budget, OSD errors of buffered writes
// surface on the next write/fsync/close (or are re-sent when the OSD is back inside the retry
// window), overlapping writes land in order, and reads see writes.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <string_view>
#include <thread>
#include <vector>

#include "client/file_handle.h"
#include "client/volume.h"
#include "fake_cluster.h"
#include "rpc/retrying_transport.h"

namespace xtreemfs::client {
namespace {

using testing::FakeClock;
using testing::FakeCluster;
using testing::PatternOf;

constexpr std::uint32_t kObjectSizeBytes = 4096;
constexpr std::uint32_t kStripeWidth = 3;
// Generous bound on waits for another thread; never a performance assertion.
constexpr auto kHangBound = std::chrono::seconds(10);

// Holds OSD_WRITE calls while closed and can make them fail; everything else passes through.
// Counts the OSD_WRITEs made as asynchronous calls (which the base class makes synchronously).
class ControlledOsdTransport : public rpc::Transport {
 public:
  explicit ControlledOsdTransport(rpc::Transport& inner) : inner_(inner) {}

  void CallServiceAsync(const rpc::ServiceLookup& lookup, const rpc::CallRequest& request,
                        const rpc::CallOptions& options, rpc::CallDone done) override {
    if (request.interface_id == xtreemfs::osd::OSD_INTERFACE_ID &&
        request.procedure_id == xtreemfs::osd::OSD_WRITE) {
      std::lock_guard<std::mutex> lock(mutex_);
      ++async_writes_;
      if (request.data_owner != nullptr) ++async_writes_owned_;
    }
    Transport::CallServiceAsync(lookup, request, options, std::move(done));
  }

  // OSD_WRITE calls made asynchronously, and those of them whose bytes a data owner kept (sent
  // without a copy into the record).
  int async_writes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return async_writes_;
  }
  int async_writes_owned() {
    std::lock_guard<std::mutex> lock(mutex_);
    return async_writes_owned_;
  }

  rpc::CallResponse Call(const rpc::ServiceAddress& address, const rpc::CallRequest& request,
                         const rpc::CallOptions& options) override {
    if (request.interface_id == xtreemfs::osd::OSD_INTERFACE_ID &&
        request.procedure_id == xtreemfs::osd::OSD_WRITE) {
      std::unique_lock<std::mutex> lock(mutex_);
      ++writes_arrived_;
      write_data_.push_back(request.data);
      changed_.notify_all();
      changed_.wait(lock, [&] { return open_; });
      if (fail_writes_) throw rpc::RpcError::Of(rpc::ErrorKind::kTransport, "injected: OSD gone");
    }
    return inner_.Call(address, request, options);
  }

  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = false;
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  void FailWrites(bool fail) {
    std::lock_guard<std::mutex> lock(mutex_);
    fail_writes_ = fail;
  }
  bool WaitForWrites(int count) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, kHangBound, [&] { return writes_arrived_ >= count; });
  }
  int writes_arrived() {
    std::lock_guard<std::mutex> lock(mutex_);
    return writes_arrived_;
  }
  // How many OSD_WRITEs so far carried bytes inside `buffer` (sent from it, not from a copy).
  int writes_from(std::string_view buffer) {
    std::lock_guard<std::mutex> lock(mutex_);
    int count = 0;
    for (std::string_view data : write_data_) {
      if (!data.empty() && data.data() >= buffer.data() && data.data() + data.size() <= buffer.data() + buffer.size()) {
        ++count;
      }
    }
    return count;
  }

 private:
  rpc::Transport& inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = true;
  bool fail_writes_ = false;
  int writes_arrived_ = 0;
  int async_writes_ = 0;
  int async_writes_owned_ = 0;
  std::vector<std::string_view> write_data_;  // every OSD_WRITE's bytes as the call saw them
};

// OSDs slower than the call's timeout but alive: each OSD's first `slow_calls` calls of one procedure end
// in a timeout after timeout_ms of `now_ms` (the retrying transport's clock), as an fsync forcing
// thousands of objects or a write queued on a loaded machine does, while the OSD keeps answering its
// pings (FakeCluster answers OSD_PING); later calls pass through.
// With `answers_pings` false the OSD is stopped (SIGSTOP) instead: its pings time out as well.
class SlowOsdTransport : public rpc::Transport {
 public:
  SlowOsdTransport(rpc::Transport& inner, std::uint32_t procedure_id, int slow_calls,
                   bool answers_pings = true)
      : inner_(inner), procedure_id_(procedure_id), slow_calls_(slow_calls), answers_pings_(answers_pings) {}

  rpc::CallResponse Call(const rpc::ServiceAddress& address, const rpc::CallRequest& request,
                         const rpc::CallOptions& options) override {
    if (!answers_pings_ && request.interface_id == xtreemfs::osd::OSD_INTERFACE_ID &&
        request.procedure_id == xtreemfs::osd::OSD_PING) {
      now_ms += options.timeout_ms;
      throw rpc::RpcError::Of(rpc::ErrorKind::kTimeout, "ping: no response");
    }
    if (request.interface_id == xtreemfs::osd::OSD_INTERFACE_ID && request.procedure_id == procedure_id_) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (timed_out_by_osd_[address.host] < slow_calls_) {
        ++timed_out_by_osd_[address.host];
        now_ms += options.timeout_ms;
        throw rpc::RpcError::Of(rpc::ErrorKind::kTimeout,
                                "no response within " + std::to_string(options.timeout_ms) + " ms");
      }
    }
    return inner_.Call(address, request, options);
  }

  int timed_out() {
    std::lock_guard<std::mutex> lock(mutex_);
    int total = 0;
    for (const auto& [osd, count] : timed_out_by_osd_) total += count;
    return total;
  }

  std::atomic<std::uint64_t> now_ms{0};

 private:
  rpc::Transport& inner_;
  std::uint32_t procedure_id_;
  int slow_calls_;
  bool answers_pings_;
  std::mutex mutex_;
  std::map<std::string, int> timed_out_by_osd_;
};

class WriteBehindTest : public ::testing::Test {
 protected:
  std::unique_ptr<Volume> OpenVolume(std::uint64_t window_bytes, std::uint64_t budget_bytes) {
    VolumeOptions options;
    options.io.write_behind_bytes = window_bytes;
    options.io.buffer_bytes_max = budget_bytes;
    options.io.read_ahead_bytes = 0;
    return Volume::Open(transport, ParseDirUrl("dir/demo"), clock, options);
  }
  // A write-behind volume over a retrying transport whose clock is `slow`'s (no real waiting).
  std::unique_ptr<Volume> OpenVolumeOverSlowOsd(SlowOsdTransport& slow, rpc::RetryPolicy policy,
                                                std::uint32_t timeout_ms) {
    retrying_ = std::make_unique<rpc::RetryingTransport>(
        slow, policy, [&slow](std::uint32_t ms) { slow.now_ms += ms; },
        [&slow] { return slow.now_ms.load(); });
    VolumeOptions options;
    options.timeout_ms = timeout_ms;
    options.io.write_behind_bytes = 1 << 20;
    options.io.buffer_bytes_max = 8 << 20;
    options.io.read_ahead_bytes = 0;
    return Volume::Open(*retrying_, ParseDirUrl("dir/demo"), clock, options);
  }
  // What another client sees: a fresh volume without any buffering, reading the OSDs.
  std::string ReadElsewhere(const std::string& path) {
    VolumeOptions options;
    options.io.write_behind_bytes = 0;
    options.io.read_ahead_bytes = 0;
    auto other = Volume::Open(cluster, ParseDirUrl("dir/demo"), clock, options);
    auto reader = other->OpenFile(user, path, O_RDONLY, 0);
    return reader->Read(0, 1 << 24);
  }
  int OsdWrites() {
    return cluster.CountCalls(xtreemfs::osd::OSD_INTERFACE_ID, xtreemfs::osd::OSD_WRITE);
  }

  FakeClock clock;
  FakeCluster cluster{clock, 4, kStripeWidth, kObjectSizeBytes};
  ControlledOsdTransport transport{cluster};
  std::unique_ptr<rpc::RetryingTransport> retrying_;  // OpenVolumeOverSlowOsd's
  UserCredentials user;
};

TEST_F(WriteBehindTest, BufferedBytesReachTheOsdsAtFsyncAndAtClose) {
  // A partial object stays in the client until fsync; more bytes stay until close; getattr
  // shows the written size all along, and another client reads everything after close.
  auto volume = OpenVolume(1 << 20, 8 << 20);
  auto file = volume->OpenFile(user, "/f", O_CREAT | O_RDWR, 0644);
  const std::string data = PatternOf(3 * kObjectSizeBytes + 100, 1);
  file->Write(0, std::string_view(data).substr(0, 1000));
  EXPECT_EQ(OsdWrites(), 0);
  EXPECT_EQ(volume->Getattr(user, "/f").size_bytes(), 1000u);
  file->Fsync();
  EXPECT_EQ(OsdWrites(), 1);
  EXPECT_EQ(ReadElsewhere("/f"), data.substr(0, 1000));
  file->Write(1000, std::string_view(data).substr(1000));
  EXPECT_EQ(volume->Getattr(user, "/f").size_bytes(), data.size());
  file->Close();
  EXPECT_EQ(ReadElsewhere("/f"), data);
  EXPECT_EQ(volume->io_resources().budget.ChargedBytes(), 0u);
}

TEST_F(WriteBehindTest, SmallSequentialWritesAreSentAsOneRequestPerObject) {
  // 64-byte writes filling two objects cost two OSD_WRITE calls, not 128.
  auto volume = OpenVolume(1 << 20, 8 << 20);
  auto file = volume->OpenFile(user, "/small", O_CREAT | O_RDWR, 0644);
  const std::string data = PatternOf(2 * kObjectSizeBytes, 2);
  for (std::size_t offset = 0; offset < data.size(); offset += 64) {
    file->Write(offset, std::string_view(data).substr(offset, 64));
  }
  file->Flush();
  EXPECT_EQ(OsdWrites(), 2);
  EXPECT_EQ(ReadElsewhere("/small"), data);
}

TEST_F(WriteBehindTest, LargeQueuedWritesAreSentFromTheirOwnBytes) {
  // A queued object of 128 KiB or more goes out as an asynchronous OSD_WRITE whose record refers to
  // the queued bytes (their owner is held until sent) instead of a copy of them; a small one (the
  // file's 7-byte tail) is sent synchronously as before. With the OSDs holding every write the writer
  // still gets its window's worth of writes in flight, and every byte arrives.
  constexpr std::uint32_t kLargeObjectBytes = 128 * 1024;
  FakeCluster large_cluster{clock, 4, kStripeWidth, kLargeObjectBytes};
  ControlledOsdTransport controlled{large_cluster};
  VolumeOptions options;
  options.io.write_behind_bytes = 3 * kLargeObjectBytes;
  options.io.buffer_bytes_max = 8 << 20;
  options.io.read_ahead_bytes = 0;
  auto volume = Volume::Open(controlled, ParseDirUrl("dir/demo"), clock, options);
  auto file = volume->OpenFile(user, "/owned", O_CREAT | O_RDWR, 0644);
  const std::string data = PatternOf(5 * kLargeObjectBytes + 7, 13);
  controlled.Close();
  std::atomic<bool> finished{false};
  std::thread writer([&] {
    file->Write(0, std::string_view(data).substr(0, 3 * kLargeObjectBytes));
    finished = true;
  });
  ASSERT_TRUE(controlled.WaitForWrites(3));
  writer.join();
  EXPECT_TRUE(finished.load());
  controlled.Open();
  file->Write(3 * kLargeObjectBytes, std::string_view(data).substr(3 * kLargeObjectBytes));
  file->Close();
  EXPECT_EQ(large_cluster.CountCalls(xtreemfs::osd::OSD_INTERFACE_ID, xtreemfs::osd::OSD_WRITE), 6);
  EXPECT_EQ(controlled.async_writes(), 5);
  EXPECT_EQ(controlled.async_writes_owned(), 5);
  VolumeOptions plain;
  plain.io.write_behind_bytes = 0;
  plain.io.read_ahead_bytes = 0;
  auto other = Volume::Open(large_cluster, ParseDirUrl("dir/demo"), clock, plain);
  EXPECT_EQ(other->OpenFile(user, "/owned", O_RDONLY, 0)->Read(0, 1 << 24), data);
}

// An owned write (the FUSE adapter's large writes) with write-behind: the pieces that complete their
// object are queued from the caller's bytes, at most borrowed_writes_max of them in the volume; the
// caller is answered at once and its owner held until those pieces' OSDs answered.
void CheckOwnedWriteIsQueuedFromItsBytes(ControlledOsdTransport& transport, FakeClock& clock,
                                         const UserCredentials& user, std::uint32_t borrowed_writes_max,
                                         int expected_from_buffer) {
  VolumeOptions options;
  options.io.write_behind_bytes = 8 * kObjectSizeBytes;
  options.io.buffer_bytes_max = 64 << 20;
  options.io.read_ahead_bytes = 0;
  options.io.borrowed_writes_max = borrowed_writes_max;
  auto volume = Volume::Open(transport, ParseDirUrl("dir/demo"), clock, options);
  auto file = volume->OpenFile(user, "/borrowed", O_CREAT | O_RDWR, 0644);
  // Half an object, two whole ones, half an object: three pieces reach their object's end.
  const std::uint64_t offset = kObjectSizeBytes / 2;
  const std::string data = PatternOf(3 * kObjectSizeBytes, 21);
  std::atomic<bool> released{false};
  std::shared_ptr<const void> owner(&released, [](const void* flag) {
    static_cast<std::atomic<bool>*>(const_cast<void*>(flag))->store(true);
  });
  transport.Close();
  std::uint64_t answered_bytes = 0;
  file->WriteAsync(offset, data, [&](std::uint64_t written_bytes, std::exception_ptr error) {
    EXPECT_FALSE(error);
    answered_bytes = written_bytes;
  }, owner);
  owner.reset();
  EXPECT_EQ(answered_bytes, data.size());  // answered before any OSD did
  ASSERT_TRUE(transport.WaitForWrites(3));
  EXPECT_EQ(transport.writes_from(data), expected_from_buffer);
  EXPECT_EQ(released.load(), expected_from_buffer == 0);
  transport.Open();
  file->Close();
  EXPECT_TRUE(released.load());
  EXPECT_EQ(volume->io_resources().borrowed_writes->load(), 0u);
  auto reader = volume->OpenFile(user, "/borrowed", O_RDONLY, 0);
  EXPECT_EQ(reader->Read(offset, data.size()), data);
}

TEST_F(WriteBehindTest, WholeObjectsOfAnOwnedWriteAreQueuedFromTheCallersBytes) {
  CheckOwnedWriteIsQueuedFromItsBytes(transport, clock, user, 16, 3);
}

TEST_F(WriteBehindTest, OwnedWritesQueuedFromTheCallersBytesAreBoundedPerVolume) {
  CheckOwnedWriteIsQueuedFromItsBytes(transport, clock, user, 1, 1);
}

TEST_F(WriteBehindTest, AWriterBlocksAtItsWindowInsteadOfBufferingMore) {
  // With OSD writes held, a writer of 10 objects stops once two objects are queued (the window),
  // and finishes once the OSDs answer; the budget never held more than window + one object.
  const std::uint64_t window_bytes = 2 * kObjectSizeBytes;
  auto volume = OpenVolume(window_bytes, 64 << 20);
  auto file = volume->OpenFile(user, "/window", O_CREAT | O_RDWR, 0644);
  const std::string data = PatternOf(10 * kObjectSizeBytes, 3);
  transport.Close();
  std::atomic<bool> finished{false};
  std::thread writer([&] {
    for (std::size_t offset = 0; offset < data.size(); offset += kObjectSizeBytes) {
      file->Write(offset, std::string_view(data).substr(offset, kObjectSizeBytes));
    }
    finished = true;
  });
  ASSERT_TRUE(transport.WaitForWrites(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(finished.load());
  EXPECT_LE(volume->io_resources().budget.ChargedBytes(), window_bytes);
  transport.Open();
  writer.join();
  file->Close();
  EXPECT_TRUE(finished.load());
  EXPECT_LE(volume->io_resources().budget.PeakChargedBytes(), window_bytes + kObjectSizeBytes);
  EXPECT_EQ(ReadElsewhere("/window"), data);
}

TEST_F(WriteBehindTest, WritersOfDifferentFilesBlockAtTheVolumeBudget) {
  // Two writers with large windows share a budget of 3 objects: with OSD writes held both stop,
  // and the budget never exceeded its capacity by more than one object per writer.
  const std::uint64_t budget_bytes = 3 * kObjectSizeBytes;
  auto volume = OpenVolume(1 << 20, budget_bytes);
  const std::string data = PatternOf(8 * kObjectSizeBytes, 4);
  transport.Close();
  std::atomic<int> finished{0};
  std::vector<std::thread> writers;
  for (const std::string path : {"/a", "/b"}) {
    writers.emplace_back([&, path] {
      auto file = volume->OpenFile(user, path, O_CREAT | O_RDWR, 0644);
      for (std::size_t offset = 0; offset < data.size(); offset += kObjectSizeBytes) {
        file->Write(offset, std::string_view(data).substr(offset, kObjectSizeBytes));
      }
      file->Close();
      ++finished;
    });
  }
  ASSERT_TRUE(transport.WaitForWrites(3));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(finished.load(), 0);
  transport.Open();
  for (auto& writer : writers) writer.join();
  EXPECT_EQ(finished.load(), 2);
  EXPECT_LE(volume->io_resources().budget.PeakChargedBytes(), budget_bytes + 2 * kObjectSizeBytes);
  EXPECT_EQ(ReadElsewhere("/a"), data);
  EXPECT_EQ(ReadElsewhere("/b"), data);
}

TEST_F(WriteBehindTest, AnOsdFailureOfABufferedWriteSurfacesOnFsyncTheNextWriteAndClose) {
  // The buffered write itself succeeds; fsync reports the OSD error (EIO), and so do every later
  // write and the close of that handle: the bytes are lost and the error is never dropped.
  auto volume = OpenVolume(1 << 20, 8 << 20);
  auto file = volume->OpenFile(user, "/lost", O_CREAT | O_RDWR, 0644);
  transport.FailWrites(true);
  file->Write(0, PatternOf(1000, 5));
  auto expect_eio = [](const std::function<void()>& call, const char* what) {
    try {
      call();
      ADD_FAILURE() << what << " succeeded";
    } catch (const rpc::RpcError& error) {
      EXPECT_EQ(error.posix_errno(), EIO) << what;
    }
  };
  expect_eio([&] { file->Fsync(); }, "fsync");
  transport.FailWrites(false);
  expect_eio([&] { file->Write(1000, "more"); }, "write");
  expect_eio([&] { file->Flush(); }, "flush");
  expect_eio([&] { file->Close(); }, "close");
}

TEST_F(WriteBehindTest, BufferedWritesAreResentWhenTheOsdIsBackInsideTheRetryWindow) {
  // An OSD restart under write-behind: the buffered writes fail with transport errors until the
  // OSD is back (after five backoffs here), the retrying transport re-sends them, and fsync, close
  // and another client see every byte; nothing is dropped and no error reaches the writer.
  int backoffs = 0;
  rpc::RetryingTransport retrying(transport, rpc::RetryPolicy{}, [&](std::uint32_t) {
    if (++backoffs == 5) transport.FailWrites(false);
  });
  VolumeOptions options;
  options.io.write_behind_bytes = 1 << 20;
  options.io.buffer_bytes_max = 8 << 20;
  options.io.read_ahead_bytes = 0;
  auto volume = Volume::Open(retrying, ParseDirUrl("dir/demo"), clock, options);
  auto file = volume->OpenFile(user, "/restart", O_CREAT | O_RDWR, 0644);
  const std::string data = PatternOf(3 * kObjectSizeBytes + 10, 8);
  transport.FailWrites(true);
  file->Write(0, data);
  file->Fsync();
  EXPECT_GE(backoffs, 5);
  file->Close();
  EXPECT_EQ(ReadElsewhere("/restart"), data);
}

TEST_F(WriteBehindTest, AnFsyncSlowerThanTheRetryWindowSucceedsWhileTheOsdAnswersPings) {
  // fio's end_fsync after 1 GiB on a loaded machine: each OSD needs a third attempt (30 + 60 s, more
  // than the 60 s window, before it) to force its objects, and answers its pings all along. The application's
  // fsync must not fail; the bytes are all there afterwards.
  SlowOsdTransport slow(transport, xtreemfs::osd::OSD_FSYNC, 2);
  auto volume = OpenVolumeOverSlowOsd(slow, rpc::RetryPolicy{}, 30000);
  auto file = volume->OpenFile(user, "/slow-fsync", O_CREAT | O_RDWR, 0644);
  const std::string data = PatternOf(4 * kObjectSizeBytes + 10, 11);
  file->Write(0, data);
  file->Fsync();
  EXPECT_EQ(slow.timed_out(), 2 * static_cast<int>(kStripeWidth));
  EXPECT_GE(slow.now_ms.load(), 90000u);  // longer than the retry window
  file->Close();
  EXPECT_EQ(ReadElsewhere("/slow-fsync"), data);
}

TEST_F(WriteBehindTest, BufferedWritesSlowerThanAShortTimeoutAreNotLostWithRetriesCapped) {
  // fuse_posix_e2e.sh's mount (--timeout-ms 3000 --retries 1) at load 35: buffered writes time out
  // more often than the cap allows while the OSD is alive; the flush (close(2)) must still succeed.
  SlowOsdTransport slow(transport, xtreemfs::osd::OSD_WRITE, 3);
  rpc::RetryPolicy policy;
  policy.attempts_max = 2;
  auto volume = OpenVolumeOverSlowOsd(slow, policy, 3000);
  auto file = volume->OpenFile(user, "/slow-writes", O_CREAT | O_RDWR, 0644);
  const std::string data = PatternOf(3 * kObjectSizeBytes + 10, 12);
  file->Write(0, data);
  file->Flush();
  EXPECT_EQ(slow.timed_out(), 3 * static_cast<int>(kStripeWidth));  // 4 attempts for one object per OSD
  file->Close();
  EXPECT_EQ(ReadElsewhere("/slow-writes"), data);
}

TEST_F(WriteBehindTest, ABufferedWriteToAStoppedOsdFailsTheFlushAfterItsAttemptsAndPings) {
  // fuse_posix_e2e.sh's "a write to a stopped OSD fails instead of hanging", the source of the mount's
  // "flush/release node N: TIMEOUT: buffered write of object 1 failed ... within 3000 ms" in every run:
  // its mount (--timeout-ms 3000 --retries 1) sends the buffered write twice, each attempt followed
  // by a ping the SIGSTOPped OSD leaves unanswered too (3 + 3 + 0.1 + 3 + 3 s: the check's "took 12 s"),
  // and close(2) (FUSE flush) returns the timeout, so dd fails as the check requires; the write(2)
  // itself had succeeded (buffered). Nothing is dropped silently: release reports it again.
  SlowOsdTransport stopped(transport, xtreemfs::osd::OSD_WRITE, 1000, false);
  rpc::RetryPolicy policy;
  policy.attempts_max = 2;
  auto volume = OpenVolumeOverSlowOsd(stopped, policy, 3000);
  auto file = volume->OpenFile(user, "/stalled", O_CREAT | O_RDWR, 0644);
  file->Write(0, PatternOf(kObjectSizeBytes, 13));  // one object: one OSD, one buffered write
  try {
    file->Flush();
    FAIL() << "flush succeeded";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), ETIMEDOUT) << error.what();
  }
  EXPECT_EQ(stopped.timed_out(), 2);
  EXPECT_EQ(stopped.now_ms.load(), 3000u + 3000u + 100u + 3000u + 3000u);
  EXPECT_THROW(file->Close(), rpc::RpcError);
}

TEST_F(WriteBehindTest, BufferedWritesGoOnWhileTheDirIsDownLongerThanTheRetryWindow) {
  // restart_transparent_e2e.sh's DIR phase at load 33 (its mount asks the DIR for addresses every
  // second, --uuid-cache-ttl-ms 1000): the DIR's restart took 88 s, the OSDs stayed up, and a buffered
  // write failed with TRANSPORT "cannot connect" to the DIR once the 60 s retry window was over, EIO
  // for fio. The servers' last known addresses serve while the DIR is down: no pause, no error.
  testing::DirOutageTransport dir(transport);
  std::atomic<std::uint64_t> now_ms{0};
  rpc::RetryingTransport retrying(
      dir, rpc::RetryPolicy{}, [&now_ms](std::uint32_t ms) { now_ms += ms; },
      [&now_ms] { return now_ms.load(); });
  VolumeOptions options;
  options.uuid_cache_ttl_ms = 1000;
  options.io.write_behind_bytes = 1 << 20;
  options.io.buffer_bytes_max = 8 << 20;
  options.io.read_ahead_bytes = 0;
  auto volume = Volume::Open(retrying, ParseDirUrl("dir/demo"), clock, options);
  auto file = volume->OpenFile(user, "/dir-down", O_CREAT | O_RDWR, 0644);
  const std::string data = PatternOf(7 * kObjectSizeBytes + 10, 14);
  const std::size_t first_bytes = kStripeWidth * kObjectSizeBytes;  // one object on every OSD
  file->Write(0, data.substr(0, first_bytes));
  file->Fsync();
  dir.down = true;
  clock.Advance(2000);  // every cached address expired: each OSD and MRC call asks the DIR first
  const int dir_calls_before = dir.dir_calls.load();
  file->Write(first_bytes, data.substr(first_bytes));
  file->Fsync();
  file->Close();
  EXPECT_GT(dir.dir_calls.load(), dir_calls_before);  // the lookups did meet the dead DIR
  EXPECT_EQ(now_ms.load(), 0u);                       // and no call waited for a retry
  dir.down = false;
  EXPECT_EQ(ReadElsewhere("/dir-down"), data);
}

TEST_F(WriteBehindTest, AnOsdFailureSurfacesOnCloseWithoutFsync) {
  // close(2) alone (FUSE flush, then release) returns the error of a buffered write.
  auto volume = OpenVolume(1 << 20, 8 << 20);
  auto file = volume->OpenFile(user, "/lost2", O_CREAT | O_RDWR, 0644);
  transport.FailWrites(true);
  file->Write(0, PatternOf(3 * kObjectSizeBytes, 6));
  try {
    file->Flush();
    FAIL() << "flush succeeded";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), EIO);
  }
  EXPECT_THROW(file->Close(), rpc::RpcError);
}

TEST_F(WriteBehindTest, AFailedBufferedWriteOfOneHandleFailsTheFsyncOfAnotherOnce) {
  // Linux reports a failed writeback to fsync through every descriptor open at the time, once each
  // (errseq): bytes written through one descriptor must not vanish behind a successful fsync of
  // another (a program writing through one descriptor and syncing another, or a second process's
  // fsync of the file). The writer's own handle keeps its error for every later call.
  auto volume = OpenVolume(1 << 20, 8 << 20);
  auto writer = volume->OpenFile(user, "/shared", O_CREAT | O_RDWR, 0644);
  auto syncer = volume->OpenFile(user, "/shared", O_RDWR, 0);
  auto errno_of = [](const std::function<void()>& call) {
    try {
      call();
      return 0;
    } catch (const rpc::RpcError& error) {
      return error.posix_errno();
    }
  };
  transport.FailWrites(true);
  writer->Write(0, PatternOf(1000, 7));
  EXPECT_EQ(errno_of([&] { syncer->Fsync(); }), EIO);
  transport.FailWrites(false);
  auto opened_after = volume->OpenFile(user, "/shared", O_RDWR, 0);
  EXPECT_EQ(errno_of([&] { syncer->Fsync(); }), 0);        // reported once
  EXPECT_EQ(errno_of([&] { opened_after->Fsync(); }), 0);  // failed before it was opened
  EXPECT_EQ(errno_of([&] { writer->Fsync(); }), EIO);
  EXPECT_EQ(errno_of([&] { writer->Close(); }), EIO);
  syncer->Close();
  opened_after->Close();
}

TEST_F(WriteBehindTest, OverlappingRandomWritesLandInTheOrderTheyWereMade) {
  // 400 random writes (overlapping, some crossing objects, two handles of one file) end up as a
  // local model of the file says, as read by another client after close.
  auto volume = OpenVolume(3 * kObjectSizeBytes, 8 << 20);
  auto first = volume->OpenFile(user, "/random", O_CREAT | O_RDWR, 0644);
  auto second = volume->OpenFile(user, "/random", O_RDWR, 0);
  std::mt19937 generator(7);
  const std::size_t file_bytes = 6 * kObjectSizeBytes;
  std::string model;
  for (int round = 0; round < 400; ++round) {
    const std::size_t offset = generator() % file_bytes;
    const std::size_t length = 1 + generator() % 3000;
    const std::string bytes = PatternOf(length, 1000 + round);
    (round % 3 == 0 ? second : first)->Write(offset, bytes);
    if (model.size() < offset + length) model.resize(offset + length, '\0');
    model.replace(offset, length, bytes);
  }
  first->Close();
  second->Close();
  EXPECT_EQ(ReadElsewhere("/random"), model);
}

TEST_F(WriteBehindTest, AReadSeesBufferedWritesOfAnotherHandle) {
  // Read-your-writes inside one mount: a reader's handle gets bytes still buffered by a writer.
  auto volume = OpenVolume(1 << 20, 8 << 20);
  auto writer = volume->OpenFile(user, "/ryw", O_CREAT | O_RDWR, 0644);
  auto reader = volume->OpenFile(user, "/ryw", O_RDONLY, 0);
  writer->Write(10, "buffered");
  EXPECT_EQ(OsdWrites(), 0);
  EXPECT_EQ(reader->Read(0, 100), std::string(10, '\0') + "buffered");
}

TEST_F(WriteBehindTest, TruncateSendsBufferedWritesFirst) {
  // Bytes buffered before a truncate never come back after it.
  auto volume = OpenVolume(1 << 20, 8 << 20);
  auto file = volume->OpenFile(user, "/cut", O_CREAT | O_RDWR, 0644);
  const std::string data = PatternOf(2 * kObjectSizeBytes + 10, 8);
  file->Write(0, data);
  file->Truncate(100);
  file->Write(3 * kObjectSizeBytes, "x");
  file->Close();
  std::string expected = data.substr(0, 100);
  expected.resize(3 * kObjectSizeBytes, '\0');
  expected += "x";
  EXPECT_EQ(ReadElsewhere("/cut"), expected);
}

TEST_F(WriteBehindTest, RewritingTheSameBytesStillReportsToTheMrcOnCloseAndFsync) {
  // The MRC sets mtime/ctime on a size update with close_file, so a handle that wrote sends one
  // on fsync and on close even when the size did not change; a handle that only read does not.
  auto volume = OpenVolume(1 << 20, 8 << 20);
  const std::string data = PatternOf(500, 9);
  {
    auto file = volume->OpenFile(user, "/same", O_CREAT | O_RDWR, 0644);
    file->Write(0, data);
    file->Close();
  }
  const std::size_t updates_before = cluster.size_updates.size();
  auto file = volume->OpenFile(user, "/same", O_RDWR, 0);
  file->Write(0, data);
  file->Fsync();
  ASSERT_EQ(cluster.size_updates.size(), updates_before + 1);
  EXPECT_EQ(cluster.size_updates.back().new_file_size().size_bytes(), data.size());
  EXPECT_TRUE(cluster.size_updates.back().close_file());  // the MRC's cue to set mtime/ctime
  file->Fsync();  // nothing written since the last report
  EXPECT_EQ(cluster.size_updates.size(), updates_before + 1);
  file->Write(0, data);
  file->Close();
  ASSERT_EQ(cluster.size_updates.size(), updates_before + 2);
  EXPECT_TRUE(cluster.size_updates.back().close_file());
  auto reader = volume->OpenFile(user, "/same", O_RDONLY, 0);
  EXPECT_EQ(reader->Read(0, 1000), data);
  reader->Close();
  EXPECT_EQ(cluster.size_updates.size(), updates_before + 2);
}

TEST_F(WriteBehindTest, ConcurrentHandlesWritingDisjointRangesAndFilesLoseNothing) {
  // Eight threads write in 700-byte steps: four into their own files, four into disjoint quarters
  // of one shared file; every byte is where it belongs after close.
  auto volume = OpenVolume(2 * kObjectSizeBytes, 6 * kObjectSizeBytes);
  const std::size_t part_bytes = 5 * kObjectSizeBytes + 300;
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      const bool shared = i >= 4;
      auto file = volume->OpenFile(user, shared ? "/shared" : "/own" + std::to_string(i),
                                   O_CREAT | O_RDWR, 0644);
      const std::string data = PatternOf(part_bytes, 100 + i);
      const std::size_t base = shared ? (i - 4) * part_bytes : 0;
      for (std::size_t offset = 0; offset < part_bytes; offset += 700) {
        file->Write(base + offset, std::string_view(data).substr(offset, 700));
      }
      file->Close();
    });
  }
  for (auto& thread : threads) thread.join();
  std::string shared_expected;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(ReadElsewhere("/own" + std::to_string(i)), PatternOf(part_bytes, 100 + i));
    shared_expected += PatternOf(part_bytes, 104 + i);
  }
  EXPECT_EQ(ReadElsewhere("/shared"), shared_expected);
  EXPECT_EQ(volume->io_resources().budget.ChargedBytes(), 0u);
}

TEST_F(WriteBehindTest, DisabledBufferingWritesThrough) {
  // O_DIRECT handles (and --no-write-behind) send each write before returning.
  auto volume = OpenVolume(1 << 20, 8 << 20);
  auto direct = volume->OpenFile(user, "/direct", O_CREAT | O_RDWR, 0644);
  direct->DisableBuffering();
  direct->Write(0, "now");
  EXPECT_EQ(OsdWrites(), 1);
  auto off_volume = OpenVolume(0, 8 << 20);
  auto unbuffered = off_volume->OpenFile(user, "/off", O_CREAT | O_RDWR, 0644);
  unbuffered->Write(0, "now");
  EXPECT_EQ(OsdWrites(), 2);
}

}  // namespace
}  // namespace xtreemfs::client
