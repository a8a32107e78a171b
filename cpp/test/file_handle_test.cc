#include "client/file_handle.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <random>

#include "client/volume.h"
#include "dir.pb.h"
#include "rpc/retrying_transport.h"
#include "fake_cluster.h"

namespace xtreemfs::client {
namespace {

using testing::FakeClock;
using testing::FakeCluster;
using testing::PatternOf;

constexpr std::uint32_t kObjectSizeBytes = 4096;
constexpr std::uint32_t kStripeWidth = 3;

class FileHandleTest : public ::testing::Test {
 protected:
  FileHandleTest() { volume = Volume::Open(cluster, ParseDirUrl("dir/demo"), clock); }

  std::unique_ptr<FileHandle> Create(const std::string& path) {
    return volume->OpenFile(user, path, O_CREAT | O_RDWR, 0644);
  }

  FakeClock clock;
  FakeCluster cluster{clock, 4, kStripeWidth, kObjectSizeBytes};
  UserCredentials user;
  std::unique_ptr<Volume> volume;
};

TEST_F(FileHandleTest, VolumeOpenFindsTheMrcThroughTheDir) {
  // Volume::Open asks DIR_VOLUME_GET for the MRC uuid and resolves it to the MRC's address.
  EXPECT_EQ(volume->volume_id(), "vol-1");
  EXPECT_EQ(volume->mrc_uuid(), "mrc-1");
  EXPECT_EQ(cluster.CountCalls(xtreemfs::dir::DIR_INTERFACE_ID, xtreemfs::dir::DIR_ADDRESS_MAPPINGS_GET), 1);
  try {
    Volume::Open(cluster, ParseDirUrl("dir/missing"), clock);
    FAIL() << "expected an error";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), ENOENT);
  }
}

TEST_F(FileHandleTest, WriteThenReadAcrossObjectsReturnsTheSameBytesFromTheRightOsds) {
  // Data spanning several objects and stripe positions reads back identical; each object went to
  // the OSD at position object_number mod width.
  auto file = Create("/data");
  const std::string data = PatternOf(5 * kObjectSizeBytes + 123, 1);
  file->Write(1000, data);
  EXPECT_EQ(file->KnownSizeBytes(), 1000 + data.size());
  const std::string read = file->Read(1000, data.size());
  EXPECT_EQ(read, data);
  EXPECT_TRUE(cluster.placement_violations.empty()) << cluster.placement_violations.front();
}

TEST_F(FileHandleTest, HolesReadAsZerosAndReadsStopAtTheKnownSize) {
  // Bytes inside the file that no OSD stores read as zeros; nothing past the file size is returned.
  auto file = Create("/sparse");
  file->Write(0, "head");
  const std::uint64_t tail_offset = 4 * kObjectSizeBytes + 10;
  file->Write(tail_offset, "tail");
  const std::string all = file->Read(0, 100 * kObjectSizeBytes);
  ASSERT_EQ(all.size(), tail_offset + 4);
  EXPECT_EQ(all.substr(0, 4), "head");
  EXPECT_EQ(all.substr(4, tail_offset - 4), std::string(tail_offset - 4, '\0'));
  EXPECT_EQ(all.substr(tail_offset), "tail");
  EXPECT_EQ(file->Read(tail_offset + 4, 10), "");
  EXPECT_EQ(file->Read(tail_offset + 2, 10), "il");
}

TEST_F(FileHandleTest, CloseAndFsyncReportTheWrittenSizeToTheMrcOnlyWhenItChanged) {
  // fsync and close send MRC_UPDATE_FILE_SIZE after writes (with close_file, so the MRC sets
  // mtime), and nothing is sent again while nothing was written.
  auto file = Create("/sized");
  file->Write(10, "0123456789");
  file->Fsync();
  ASSERT_EQ(cluster.size_updates.size(), 1u);
  EXPECT_EQ(cluster.size_updates[0].new_file_size().size_bytes(), 20u);
  EXPECT_TRUE(cluster.size_updates[0].close_file());  // after writes: the MRC sets mtime/ctime
  EXPECT_EQ(cluster.mrc_size_of("/sized"), 20u);
  file->Fsync();
  EXPECT_EQ(cluster.size_updates.size(), 1u);
  file->Write(20, "x");
  file->Close();
  ASSERT_EQ(cluster.size_updates.size(), 2u);
  EXPECT_EQ(cluster.size_updates[1].new_file_size().size_bytes(), 21u);
  EXPECT_TRUE(cluster.size_updates[1].close_file());
  EXPECT_EQ(cluster.mrc_size_of("/sized"), 21u);
  file->Close();
  EXPECT_EQ(cluster.size_updates.size(), 2u);
}

TEST_F(FileHandleTest, FlushAndCloseSayWhetherTheKernelsAttributesMayBeStale) {
  // A file created exclusively and closed unwritten (every create of the metadata benchmark) costs
  // no MRC call and needs no invalidation; a write does; an open for reading of an existing file
  // may have set atime, and O_TRUNC the size, so theirs always may be stale.
  auto created = volume->OpenFile(user, "/new", O_CREAT | O_EXCL | O_WRONLY, 0644);
  EXPECT_FALSE(created->Flush());
  EXPECT_FALSE(created->Close());
  EXPECT_EQ(cluster.size_updates.size(), 0u);
  auto written = volume->OpenFile(user, "/new", O_WRONLY, 0);
  EXPECT_FALSE(written->Flush());
  written->Write(0, "abc");
  EXPECT_TRUE(written->Flush());
  EXPECT_FALSE(written->Close());  // the flush reported everything already
  EXPECT_EQ(cluster.size_updates.size(), 1u);
  EXPECT_TRUE(volume->OpenFile(user, "/new", O_RDONLY, 0)->Close());
  EXPECT_TRUE(volume->OpenFile(user, "/new", O_WRONLY | O_TRUNC, 0)->Close());
  EXPECT_TRUE(volume->OpenFile(user, "/other", O_CREAT | O_RDWR, 0644)->Close());
}

TEST_F(FileHandleTest, ReopenedFileStartsFromTheMrcSize) {
  // A new handle learns the size from MRC_OPEN, so data written and closed before reads back.
  {
    auto writer = Create("/persist");
    writer->Write(0, PatternOf(3 * kObjectSizeBytes, 2));
  }  // the destructor closes and reports the size
  auto reader = volume->OpenFile(user, "/persist", O_RDONLY, 0);
  EXPECT_EQ(reader->KnownSizeBytes(), 3u * kObjectSizeBytes);
  EXPECT_EQ(reader->Read(0, 3 * kObjectSizeBytes), PatternOf(3 * kObjectSizeBytes, 2));
}

TEST_F(FileHandleTest, TruncateShrinksOnEveryOsdUnderTheNewEpochAndTellsTheMrc) {
  // Truncate gets a new epoch from MRC_FTRUNCATE, cuts every OSD of the stripe, and reports the
  // new size under that epoch; cut bytes later read as zeros when the file grows again.
  auto file = Create("/cut");
  file->Write(0, PatternOf(4 * kObjectSizeBytes, 3));
  file->Fsync();
  file->Truncate(kObjectSizeBytes + 5);
  EXPECT_EQ(file->KnownSizeBytes(), kObjectSizeBytes + 5u);
  EXPECT_EQ(file->CurrentXCap().truncate_epoch(), 1u);
  EXPECT_EQ(cluster.truncates_by_osd.size(), kStripeWidth);
  EXPECT_EQ(cluster.mrc_size_of("/cut"), kObjectSizeBytes + 5u);
  EXPECT_EQ(cluster.size_updates.back().new_file_size().truncate_epoch(), 1u);
  file->Write(3 * kObjectSizeBytes, "z");
  const std::string content = file->Read(0, 3 * kObjectSizeBytes + 1);
  EXPECT_EQ(content.substr(0, kObjectSizeBytes + 5),
            PatternOf(4 * kObjectSizeBytes, 3).substr(0, kObjectSizeBytes + 5));
  EXPECT_EQ(content.substr(kObjectSizeBytes + 5, 2 * kObjectSizeBytes - 5),
            std::string(2 * kObjectSizeBytes - 5, '\0'));
  EXPECT_EQ(content.back(), 'z');
}

TEST_F(FileHandleTest, OpenWithTruncCutsTheObjectsUnderTheEpochTheMrcIssued) {
  // open(O_TRUNC) empties the file: objects are cut on every OSD without a second MRC_FTRUNCATE,
  // so old bytes never reappear in a later hole.
  {
    auto writer = Create("/retrunc");
    writer->Write(0, PatternOf(3 * kObjectSizeBytes, 4));
  }
  auto file = volume->OpenFile(user, "/retrunc", O_RDWR | O_TRUNC, 0);
  EXPECT_EQ(file->KnownSizeBytes(), 0u);
  EXPECT_EQ(cluster.truncates_by_osd.size(), kStripeWidth);
  EXPECT_EQ(cluster.CountCalls(xtreemfs::mrc::MRC_INTERFACE_ID, xtreemfs::mrc::MRC_FTRUNCATE), 0);
  file->Write(2 * kObjectSizeBytes, "end");
  EXPECT_EQ(file->Read(0, 2 * kObjectSizeBytes), std::string(2 * kObjectSizeBytes, '\0'));
}

TEST_F(FileHandleTest, CreatingANewFileWithTruncSendsNothingToTheOsds) {
  // A new file has truncate epoch 0 and no objects, so open(O_CREAT | O_TRUNC) skips OSD_TRUNCATE.
  auto file = volume->OpenFile(user, "/fresh", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  EXPECT_TRUE(cluster.truncates_by_osd.empty());
  EXPECT_EQ(file->KnownSizeBytes(), 0u);
}

TEST_F(FileHandleTest, XCapIsRenewedBeforeItExpires) {
  // When the cap is within the renewal margin of expiry, the next OSD call renews it first, so the
  // OSD never sees an expired cap.
  auto file = Create("/long");
  const std::uint64_t first_expiry_ms = file->CurrentXCap().expires_ms();
  clock.Advance(FakeCluster::kXCapLifetimeMs - 1000);  // inside the default 60 s margin
  file->Write(0, "still allowed");
  file->Flush();  // write-behind: the OSD call happens by flush at the latest
  EXPECT_EQ(cluster.CountCalls(xtreemfs::mrc::MRC_INTERFACE_ID, xtreemfs::mrc::MRC_RENEW_CAPABILITY), 1);
  EXPECT_GT(file->CurrentXCap().expires_ms(), first_expiry_ms);
  clock.Advance(10);
  file->Write(13, "!");
  file->Flush();
  EXPECT_EQ(cluster.CountCalls(xtreemfs::mrc::MRC_INTERFACE_ID, xtreemfs::mrc::MRC_RENEW_CAPABILITY), 1);
}

TEST_F(FileHandleTest, XCapThatExpiredWhileIdleIsReplacedByOpeningTheFileAgain) {
  // The MRC refuses to renew an expired cap; a handle that sat idle past the expiry opens the file
  // again by path (without O_CREAT/O_TRUNC: the content stays) and goes on with the new cap.
  auto file = Create("/idle");
  file->Write(0, "before");
  file->Flush();
  const int opens = cluster.CountCalls(xtreemfs::mrc::MRC_INTERFACE_ID, xtreemfs::mrc::MRC_OPEN);
  clock.Advance(FakeCluster::kXCapLifetimeMs + 1000);
  file->Write(6, "after");
  file->Flush();
  EXPECT_EQ(cluster.CountCalls(xtreemfs::mrc::MRC_INTERFACE_ID, xtreemfs::mrc::MRC_OPEN), opens + 1);
  EXPECT_GT(static_cast<std::int64_t>(file->CurrentXCap().expires_ms()), clock.WallMs());
  EXPECT_EQ(file->Read(0, 11), "beforeafter");
}

TEST_F(FileHandleTest, ReopenThatFindsAnotherFileFailsWithEio) {
  // When the path names another file by the time the expired cap is replaced, the handle fails
  // rather than writing into the other file.
  auto file = Create("/moved");
  file->Write(0, "x");
  file->Flush();
  cluster.RenameForTest("/moved", "/elsewhere");
  Create("/moved")->Close();
  clock.Advance(FakeCluster::kXCapLifetimeMs + 1000);
  try {
    file->Write(1, "y");
    file->Flush();
    FAIL() << "expected an error";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), EIO);
  }
}

TEST_F(FileHandleTest, AuthFailedFromAnOsdRenewsOnceAndRetries) {
  // One AUTH_FAILED leads to a renewal and a successful repeat; a second one reaches the caller
  // (with write-behind at the flush that sends the write).
  auto file = Create("/auth");
  cluster.auth_failures_to_inject = 1;
  file->Write(0, "ok");
  file->Flush();
  EXPECT_EQ(cluster.CountCalls(xtreemfs::mrc::MRC_INTERFACE_ID, xtreemfs::mrc::MRC_RENEW_CAPABILITY), 1);
  cluster.auth_failures_to_inject = 2;
  try {
    file->Write(0, "no");
    file->Flush();
    FAIL() << "expected an error";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), EACCES);
  }
}

// ReadAsync / WriteAsync waited for: the write's error (null: none), the read's bytes (its error thrown).
std::exception_ptr WriteAsyncAndWait(FileHandle& file, std::uint64_t offset, const std::string& data) {
  auto outcome = std::make_shared<std::promise<std::exception_ptr>>();
  const std::uint64_t expected_bytes = data.size();
  file.WriteAsync(offset, data, [outcome, expected_bytes](std::uint64_t written_bytes, std::exception_ptr error) {
    // A write that succeeded reports all its bytes written (the FUSE adapter's answer); a failed one none.
    EXPECT_EQ(written_bytes, error ? 0 : expected_bytes);
    outcome->set_value(error);
  });
  return outcome->get_future().get();
}

std::string ReadAsyncAndWait(FileHandle& file, std::uint64_t offset, std::uint64_t length) {
  auto outcome = std::make_shared<std::promise<std::string>>();
  file.ReadAsync(offset, length, [outcome](ReadResult data, std::exception_ptr error) {
    if (error) {
      outcome->set_exception(error);
    } else {
      outcome->set_value(data.Join());
    }
  });
  return outcome->get_future().get();
}

TEST_F(FileHandleTest, OsdRequestsAfterARenewalCarryTheRenewedXCap) {
  // Every OSD request refers to the handle's credentials snapshot instead of a copy; a renewal
  // replaces the snapshot, so the asynchronous pieces (O_DIRECT) and the synchronous path both send
  // the renewed XCap from then on. Still carrying the first XCap past its expiry, a request would be
  // refused by the OSD and renewed a second time.
  auto file = Create("/snapshot");
  file->DisableBuffering();
  const std::string data = PatternOf(3 * kObjectSizeBytes + 5, 7);
  ASSERT_EQ(WriteAsyncAndWait(*file, 0, data), nullptr);
  clock.Advance(FakeCluster::kXCapLifetimeMs - 1000);  // inside the renewal margin
  ASSERT_EQ(WriteAsyncAndWait(*file, 0, data), nullptr);
  EXPECT_EQ(cluster.CountCalls(xtreemfs::mrc::MRC_INTERFACE_ID, xtreemfs::mrc::MRC_RENEW_CAPABILITY), 1);
  clock.Advance(2000);  // past the first XCap's expiry, long before the renewed one's margin
  EXPECT_EQ(ReadAsyncAndWait(*file, 0, data.size()), data);
  ASSERT_EQ(WriteAsyncAndWait(*file, kObjectSizeBytes, "renewed"), nullptr);
  file->Fsync();
  EXPECT_EQ(file->Read(kObjectSizeBytes, 7), "renewed");
  EXPECT_EQ(cluster.CountCalls(xtreemfs::mrc::MRC_INTERFACE_ID, xtreemfs::mrc::MRC_RENEW_CAPABILITY), 1);
}

// Holds every asynchronous OSD call unanswered until the test releases them (each then runs as a
// synchronous call of the inner transport), so a test sees which calls were in flight at once.
// Synchronous calls pass straight through.
class DeferringTransport : public rpc::Transport {
 public:
  explicit DeferringTransport(rpc::Transport& inner) : inner_(inner) {}

  rpc::CallResponse Call(const rpc::ServiceAddress& address, const rpc::CallRequest& request,
                         const rpc::CallOptions& options) override {
    return inner_.Call(address, request, options);
  }

  void CallServiceAsync(const rpc::ServiceLookup& lookup, const rpc::CallRequest& request,
                        const rpc::CallOptions& options, rpc::CallDone done) override {
    // The request's pointers are valid only during this call: keep copies.
    auto held = std::make_shared<Held>();
    held->address = lookup.resolve();
    held->request = request;
    if (request.credentials != nullptr) held->credentials = *request.credentials;
    if (request.message != nullptr) {
      held->message.reset(request.message->New());
      held->message->CheckTypeAndMergeFrom(*request.message);
    }
    held->data.assign(request.data);
    held->options = options;
    held->done = std::move(done);
    std::lock_guard<std::mutex> lock(mutex_);
    held_.push_back(std::move(held));
  }

  std::size_t HeldCount() {
    std::lock_guard<std::mutex> lock(mutex_);
    return held_.size();
  }

  // Answers every held call (in the order they were made) with the inner transport's outcome.
  void ReleaseAll() {
    std::vector<std::shared_ptr<Held>> released;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      released.swap(held_);
    }
    for (auto& held : released) {
      rpc::CallRequest request = held->request;
      request.credentials = &held->credentials;
      request.message = held->message.get();
      request.data = held->data;
      rpc::CallResponse response;
      std::exception_ptr error;
      try {
        response = inner_.Call(held->address, request, held->options);
      } catch (...) {
        error = std::current_exception();
      }
      held->done(std::move(response), error);
    }
  }

 private:
  struct Held {
    rpc::ServiceAddress address;
    rpc::CallRequest request;
    xtreemfs::rpc::UserCredentials credentials;
    std::unique_ptr<google::protobuf::MessageLite> message;
    std::string data;
    rpc::CallOptions options;
    rpc::CallDone done;
  };
  rpc::Transport& inner_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<Held>> held_;
};

TEST_F(FileHandleTest, AsyncReadsAndWritesMatchTheSynchronousPathAndRepeatAFailedAttempt) {
  // ReadAsync and WriteAsync (the FUSE adapter's read and write): one asynchronous OSD call per
  // object piece; a failed attempt continues as the synchronous path's retry loop (here: AUTH_FAILED
  // renews the XCap once, as CallStripeOsd does after a first failed attempt), and only the outcome
  // of that loop reaches `done`.
  auto file = Create("/async");
  file->DisableBuffering();
  EXPECT_EQ(WriteAsyncAndWait(*file, 10, "abc"), nullptr);
  EXPECT_EQ(file->KnownSizeBytes(), 13u);
  EXPECT_EQ(ReadAsyncAndWait(*file, 0, 100), std::string(10, '\0') + "abc");  // a hole, clamped to the known size
  EXPECT_EQ(ReadAsyncAndWait(*file, 13, 10), "");
  const std::string data = PatternOf(2 * kObjectSizeBytes, 3);
  EXPECT_EQ(WriteAsyncAndWait(*file, kObjectSizeBytes - 5, data), nullptr);
  EXPECT_EQ(ReadAsyncAndWait(*file, kObjectSizeBytes - 5, data.size()), data);
  EXPECT_EQ(file->Read(kObjectSizeBytes - 5, data.size()), data);
  EXPECT_TRUE(cluster.placement_violations.empty()) << cluster.placement_violations.front();

  const auto renewals = [&] {
    return cluster.CountCalls(xtreemfs::mrc::MRC_INTERFACE_ID, xtreemfs::mrc::MRC_RENEW_CAPABILITY);
  };
  const int renewals_before = renewals();
  cluster.auth_failures_to_inject = 1;  // the asynchronous attempt
  EXPECT_EQ(ReadAsyncAndWait(*file, 10, 3), "abc");
  EXPECT_EQ(renewals(), renewals_before + 1);
  cluster.auth_failures_to_inject = 1;
  EXPECT_EQ(WriteAsyncAndWait(*file, 0, "xy"), nullptr);
  EXPECT_EQ(renewals(), renewals_before + 2);
  EXPECT_EQ(ReadAsyncAndWait(*file, 0, 2), "xy");
  cluster.auth_failures_to_inject = 2;  // the attempt after the renewal fails too: EACCES, as synchronously
  try {
    ReadAsyncAndWait(*file, 10, 3);
    FAIL() << "expected an error";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), EACCES);
  }
  EXPECT_EQ(renewals(), renewals_before + 3);
  cluster.auth_failures_to_inject = 2;
  std::exception_ptr failed = WriteAsyncAndWait(*file, 0, "zz");
  ASSERT_NE(failed, nullptr);
  try {
    std::rethrow_exception(failed);
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), EACCES);
  }
  file->Close();
}

TEST_F(FileHandleTest, AsyncRequestsSendEveryObjectPieceAtOnceAndAnswerWhenTheLastIsDone) {
  // A request spanning several objects is one asynchronous call per piece, all in flight before any
  // is answered; `done` runs once, after the last answer.
  DeferringTransport deferring(cluster);
  auto deferred_volume = Volume::Open(deferring, ParseDirUrl("dir/demo"), clock);
  auto file = deferred_volume->OpenFile(user, "/spread", O_CREAT | O_RDWR, 0644);
  file->DisableBuffering();
  const std::string data = PatternOf(3 * kObjectSizeBytes + 200, 7);  // 4 pieces from offset 100
  std::atomic<int> writes_done{0};
  std::exception_ptr write_error;
  std::uint64_t written = 0;
  file->WriteAsync(100, data, [&](std::uint64_t written_bytes, std::exception_ptr error) {
    write_error = error;
    written = written_bytes;
    ++writes_done;
  });
  EXPECT_EQ(deferring.HeldCount(), 4u);
  EXPECT_EQ(writes_done.load(), 0);
  deferring.ReleaseAll();
  EXPECT_EQ(writes_done.load(), 1);
  EXPECT_EQ(write_error, nullptr);
  EXPECT_EQ(written, data.size());
  EXPECT_EQ(file->KnownSizeBytes(), 100 + data.size());

  std::atomic<int> reads_done{0};
  std::string read;
  file->ReadAsync(0, 100 + data.size(), [&](ReadResult bytes, std::exception_ptr error) {
    EXPECT_EQ(error, nullptr);
    read = bytes.Join();
    ++reads_done;
  });
  EXPECT_EQ(deferring.HeldCount(), 4u);
  EXPECT_EQ(reads_done.load(), 0);
  deferring.ReleaseAll();
  EXPECT_EQ(reads_done.load(), 1);
  EXPECT_EQ(read, std::string(100, '\0') + data);
  EXPECT_TRUE(cluster.placement_violations.empty()) << cluster.placement_violations.front();
  file->Close();
}

TEST_F(FileHandleTest, AnAsyncWriteWithAnOwnerKeepsItUntilNothingRefersToTheBytes) {
  // With data_owner the bytes are not copied: the owner stays referenced while a request may still
  // send them (the FUSE adapter reuses its buffer only once the owner's deleter ran), and the bytes
  // stored are the caller's.
  DeferringTransport deferring(cluster);
  auto deferred_volume = Volume::Open(deferring, ParseDirUrl("dir/demo"), clock);
  auto file = deferred_volume->OpenFile(user, "/owned", O_CREAT | O_RDWR, 0644);
  file->DisableBuffering();
  const std::string data = PatternOf(2 * kObjectSizeBytes, 9);
  std::atomic<bool> released{false};
  std::atomic<int> writes_done{0};
  {
    std::shared_ptr<const void> owner(&released, [](const void* flag) {
      static_cast<std::atomic<bool>*>(const_cast<void*>(flag))->store(true);
    });
    file->WriteAsync(0, data, [&](std::uint64_t, std::exception_ptr error) {
      EXPECT_EQ(error, nullptr);
      ++writes_done;
    }, std::move(owner));
  }
  EXPECT_EQ(deferring.HeldCount(), 2u);
  EXPECT_FALSE(released.load());
  deferring.ReleaseAll();
  EXPECT_EQ(writes_done.load(), 1);
  EXPECT_TRUE(released.load());
  EXPECT_EQ(file->Read(0, data.size()), data);
  file->Close();
}

TEST_F(FileHandleTest, AFailedPieceOfAnAsyncRequestFailsItOnceAndLeavesTheSizeAlone) {
  // One OSD of the stripe gives no answer (no retry window here): its piece fails after its
  // synchronous repeat, the other pieces succeed, and `done` gets the error exactly once; the known
  // size does not grow, as after a failed synchronous write.
  auto file = Create("/partial");
  file->DisableBuffering();
  ASSERT_EQ(WriteAsyncAndWait(*file, 0, PatternOf(kObjectSizeBytes, 1)), nullptr);
  cluster.dead_osds = {"osd-1"};
  std::atomic<int> writes_done{0};
  auto outcome = std::make_shared<std::promise<std::exception_ptr>>();
  file->WriteAsync(0, PatternOf(3 * kObjectSizeBytes, 2), [&writes_done, outcome](std::uint64_t, std::exception_ptr error) {
    if (++writes_done == 1) outcome->set_value(error);
  });
  const std::exception_ptr write_error = outcome->get_future().get();
  ASSERT_NE(write_error, nullptr);
  try {
    std::rethrow_exception(write_error);
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), EIO);
  }
  EXPECT_EQ(file->KnownSizeBytes(), kObjectSizeBytes);
  cluster.dead_osds.clear();
  EXPECT_EQ(ReadAsyncAndWait(*file, 0, kObjectSizeBytes), PatternOf(3 * kObjectSizeBytes, 2).substr(0, kObjectSizeBytes));
  file->Close();  // waits until every asynchronous call of the handle is finished
  EXPECT_EQ(writes_done.load(), 1);
}

TEST_F(FileHandleTest, UnlinkOfTheLastLinkCallsNoOsd) {
  // The MRC deletes an unlinked file's objects on the OSDs itself (servers/mrc/README.md,
  // "Deletion"): unlink is one MRC call, and the client sends no OSD_UNLINK.
  auto file = Create("/gone");
  file->Write(0, "bytes");
  file->Close();
  volume->Unlink(user, "/gone");
  EXPECT_THROW(volume->Getattr(user, "/gone"), rpc::RpcError);
  EXPECT_TRUE(cluster.unlinks_by_osd.empty());
}

TEST_F(FileHandleTest, HandlesOfOneFileShareTheKnownSize) {
  // A second handle of the same file sees bytes the first one wrote, even before any size update.
  auto writer = Create("/shared");
  auto reader = volume->OpenFile(user, "/shared", O_RDONLY, 0);
  writer->Write(0, "visible");
  EXPECT_EQ(reader->Read(0, 100), "visible");
}

// The size at a handle's last close is kept (Volume::ApplyLocalSize) only where it can be newer than an
// MRC answer: the file's size changed here, or the open may have changed it (O_TRUNC). A file created
// and closed without writes (every create of a metadata loop) keeps nothing.
TEST_F(FileHandleTest, OnlyAFileWhoseSizeChangedHereKeepsItsSizeAfterTheLastClose) {
  volume->OpenFile(user, "/created", O_CREAT | O_EXCL | O_WRONLY, 0644)->Close();
  EXPECT_EQ(volume->ClosedSizesKept(), 0u);
  volume->OpenFile(user, "/created", O_WRONLY, 0)->Close();
  EXPECT_EQ(volume->ClosedSizesKept(), 0u);
  {
    auto written = volume->OpenFile(user, "/created", O_WRONLY, 0);
    written->Write(0, "abc");
    written->Close();
  }
  EXPECT_EQ(volume->ClosedSizesKept(), 1u);
  volume->OpenFile(user, "/truncated", O_CREAT | O_TRUNC | O_WRONLY, 0644)->Close();
  EXPECT_EQ(volume->ClosedSizesKept(), 2u);
}

TEST_F(FileHandleTest, GetattrShowsTheLocalSizeUntilTheMrcHasIt) {
  // While written bytes are not yet reported, getattr returns the local size; afterwards the MRC's.
  auto file = Create("/growing");
  file->Write(0, "12345");
  EXPECT_EQ(cluster.mrc_size_of("/growing"), 0u);
  EXPECT_EQ(volume->Getattr(user, "/growing").size_bytes(), 5u);
  file->Close();
  EXPECT_EQ(volume->Getattr(user, "/growing").size_bytes(), 5u);
  EXPECT_EQ(cluster.mrc_size_of("/growing"), 5u);
}

// Holds each OSD call until `expected_concurrency` calls have been in flight together (or a bound
// passes) and records the highest concurrency seen, so a sequential client shows up as 1. The test
// resets max_in_flight between phases, while no call runs.
class ConcurrencyProbe : public rpc::Transport {
 public:
  ConcurrencyProbe(rpc::Transport& inner, int expected_concurrency)
      : inner_(inner), expected_concurrency_(expected_concurrency) {}

  rpc::CallResponse Call(const rpc::ServiceAddress& address, const rpc::CallRequest& request,
                         const rpc::CallOptions& options) override {
    if (request.interface_id == xtreemfs::osd::OSD_INTERFACE_ID) {
      std::unique_lock<std::mutex> lock(mutex_);
      ++in_flight_;
      max_in_flight = std::max(max_in_flight, in_flight_);
      all_arrived_.notify_all();
      all_arrived_.wait_for(lock, std::chrono::seconds(2),
                            [&] { return max_in_flight >= expected_concurrency_; });
      --in_flight_;
    }
    return inner_.Call(address, request, options);
  }

  int max_in_flight = 0;

 private:
  rpc::Transport& inner_;
  const int expected_concurrency_;
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  int in_flight_ = 0;
};

TEST_F(FileHandleTest, PiecesOfOneRequestGoToTheOsdsConcurrently) {
  // A write and a read spanning all stripe positions issue their per-object calls in parallel.
  ConcurrencyProbe probe(cluster, kStripeWidth);
  auto probed_volume = Volume::Open(probe, ParseDirUrl("dir/demo"), clock);
  auto file = probed_volume->OpenFile(user, "/parallel", O_CREAT | O_RDWR, 0644);
  const std::string data = PatternOf(kStripeWidth * kObjectSizeBytes, 5);
  file->Write(0, data);
  file->Flush();  // write-behind sends the three objects concurrently; flush waits for them
  EXPECT_EQ(probe.max_in_flight, static_cast<int>(kStripeWidth));
  probe.max_in_flight = 0;
  EXPECT_EQ(file->Read(0, data.size()), data);
  EXPECT_EQ(probe.max_in_flight, static_cast<int>(kStripeWidth));
}

TEST_F(FileHandleTest, WriteZerosReallyZeroesARangeAcrossObjects) {
  // Zeroing a range spanning objects overwrites stored bytes with zeros and keeps the rest.
  auto file = Create("/zeroed");
  const std::string data = PatternOf(3 * kObjectSizeBytes, 6);
  file->Write(0, data);
  file->WriteZeros(100, 2 * kObjectSizeBytes);
  const std::string after = file->Read(0, data.size());
  EXPECT_EQ(after.substr(0, 100), data.substr(0, 100));
  EXPECT_EQ(after.substr(100, 2 * kObjectSizeBytes), std::string(2 * kObjectSizeBytes, '\0'));
  EXPECT_EQ(after.substr(100 + 2 * kObjectSizeBytes), data.substr(100 + 2 * kObjectSizeBytes));
  EXPECT_EQ(file->KnownSizeBytes(), data.size());
}

TEST_F(FileHandleTest, MetadataErrorsCarryTheServersErrno) {
  // Thin metadata wrappers pass the MRC's errno through (ENOENT, EEXIST); a lookup's ENOENT is
  // an answer (GetattrIfExists: nothing; the fake throws it, RpcClient returns it as a value).
  EXPECT_FALSE(volume->GetattrIfExists(user, "/absent").has_value());
  Create("/file");
  EXPECT_TRUE(volume->GetattrIfExists(user, "/file").has_value());
  try {
    volume->Getattr(user, "/absent");
    FAIL() << "expected an error";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), ENOENT);
  }
  volume->Mkdir(user, "/d", 0755);
  try {
    volume->Mkdir(user, "/d", 0755);
    FAIL() << "expected an error";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), EEXIST);
  }
}

}  // namespace
}  // namespace xtreemfs::client

namespace xtreemfs::client {
namespace {

using testing::FakeClock;
using testing::FakeCluster;
using testing::PatternOf;

int AddressLookups(FakeCluster& cluster) {
  return cluster.CountCalls(xtreemfs::dir::DIR_INTERFACE_ID, xtreemfs::dir::DIR_ADDRESS_MAPPINGS_GET);
}

TEST(ServiceMovedTest, RetriesFindAnOsdAndTheMrcThatCameBackOnAnotherPort) {
  // An OSD and the MRC restart on new ports while calls retry: the old ports refuse, each refused
  // attempt forgets the cached address, and the next attempt asks the DIR, which names the new port.
  // Without a lookup per attempt the retries would knock on the old port until the window ends.
  FakeClock clock;
  FakeCluster cluster{clock, 2, 2, 4096};
  int backoffs = 0;
  std::uint64_t now_ms = 0;  // moved by the backoffs only, so a failing retry loop ends at once
  rpc::RetryingTransport retrying(
      cluster, rpc::RetryPolicy{},
      [&](std::uint32_t duration_ms) {
        ++backoffs;
        now_ms += duration_ms;
      },
      [&] { return now_ms; });
  auto volume = Volume::Open(retrying, ParseDirUrl("dir/demo"), clock);
  UserCredentials user;
  auto file = volume->OpenFile(user, "/moved", O_CREAT | O_RDWR, 0644);
  file->DisableBuffering();
  const std::string data = PatternOf(2 * 4096, 3);
  file->Write(0, data);
  const int lookups_before = AddressLookups(cluster);

  cluster.MoveServiceForTest("osd-0", 40001);
  cluster.MoveServiceForTest("osd-1", 40002);
  cluster.MoveServiceForTest("mrc-1", 40003);
  EXPECT_EQ(file->Read(0, data.size()), data);
  // One refused attempt per OSD, then one lookup each at the DIR; no lookup more than needed.
  EXPECT_EQ(backoffs, 2);
  EXPECT_EQ(AddressLookups(cluster), lookups_before + 2);
  file->Fsync();  // reports the size to the MRC at its new port
  EXPECT_EQ(backoffs, 3);
  EXPECT_EQ(AddressLookups(cluster), lookups_before + 3);

  // The new addresses are trusted for the cache's TTL: more calls ask the DIR nothing.
  file->Write(0, data);
  file->Close();
  EXPECT_EQ(AddressLookups(cluster), lookups_before + 3);
  EXPECT_EQ(volume->Getattr(user, "/moved").size_bytes(), data.size());
}

TEST(FileHandleChainTest, AReplicatedFileFollowsItsChainThroughDeadMembersAndNeverReadsAStaleOne) {
  // servers/osd README "Chain replication": a member without an answer is reported to the MRC,
  // which re-forms the chain under the next XLoc version; the request is sent again with it.
  FakeClock clock;
  FakeCluster cluster{clock, 3, 1, kObjectSizeBytes};
  cluster.ReplicateForTest(3);  // chain osd-0 -> osd-1 -> osd-2
  auto volume = Volume::Open(cluster, ParseDirUrl("dir/demo"), clock);
  UserCredentials user;
  auto file = volume->OpenFile(user, "/chain", O_CREAT | O_RDWR, 0644);
  file->DisableBuffering();
  const std::string first = PatternOf(3 * kObjectSizeBytes, 1);
  file->Write(0, first);
  file->Fsync();
  auto old_reader = volume->OpenFile(user, "/chain", O_RDONLY, 0);  // keeps XLoc version 1
  old_reader->DisableBuffering();

  // The tail dies: the middle cannot forward, the client reports osd-2, the middle becomes tail.
  cluster.dead_osds = {"osd-2"};
  const std::string second = PatternOf(3 * kObjectSizeBytes, 2);
  file->Write(0, second);
  EXPECT_EQ(cluster.xloc_version_of("/chain"), 2u);
  EXPECT_EQ(file->Read(0, second.size()), second);
  EXPECT_GE(cluster.fsyncs, 2);  // the re-formed chain was fsynced before the write went on

  // The head dies too: the client reports it itself (no answer), the last member goes on alone.
  cluster.dead_osds = {"osd-2", "osd-0"};
  const std::string third = PatternOf(3 * kObjectSizeBytes, 3);
  file->Write(0, third);
  EXPECT_EQ(cluster.xloc_version_of("/chain"), 3u);
  EXPECT_EQ(file->Read(0, third.size()), third);
  EXPECT_GE(cluster.replica_reports, 2);

  // The old tail comes back with stale data; a reader still holding version 1 is refused there
  // (XLOC_OUTDATED), fetches the current XLoc and reads the last data from osd-1.
  cluster.dead_osds = {"osd-0"};
  EXPECT_EQ(old_reader->Read(0, third.size()), third);
  EXPECT_TRUE(cluster.placement_violations.empty());
  file->Close();
  old_reader->Close();
}

TEST(FileHandleChainTest, AsyncRequestsOfAReplicatedFileFollowTheChainOnFromTheirFailedAttempt) {
  // ReadAsync / WriteAsync of a replicated file: the write's attempt goes to the head, the read's to
  // the routed replica; a failed attempt is where the synchronous retry loop goes on from (it is not
  // sent again first), so a dead member is reported once and the request re-sent over the new chain.
  FakeClock clock;
  FakeCluster cluster{clock, 3, 1, kObjectSizeBytes};
  cluster.ReplicateForTest(3);  // chain osd-0 -> osd-1 -> osd-2
  auto volume = Volume::Open(cluster, ParseDirUrl("dir/demo"), clock);
  UserCredentials user;
  auto file = volume->OpenFile(user, "/chain", O_CREAT | O_RDWR, 0644);
  file->DisableBuffering();
  const std::string first = PatternOf(2 * kObjectSizeBytes, 1);
  ASSERT_EQ(WriteAsyncAndWait(*file, 0, first), nullptr);
  EXPECT_EQ(ReadAsyncAndWait(*file, 0, first.size()), first);
  auto old_reader = volume->OpenFile(user, "/chain", O_RDONLY, 0);  // keeps XLoc version 1
  old_reader->DisableBuffering();

  cluster.dead_osds = {"osd-2"};
  const auto osd_writes = [&] {
    return cluster.CountCalls(xtreemfs::osd::OSD_INTERFACE_ID, xtreemfs::osd::OSD_WRITE);
  };
  const int writes_before = osd_writes();
  const int reports_before = cluster.replica_reports;
  const std::string second = PatternOf(kObjectSizeBytes, 2);
  ASSERT_EQ(WriteAsyncAndWait(*file, 0, second), nullptr);
  // The attempt at the head failed (its successor osd-2 is dead); the loop went on from that failure:
  // one report, the re-formed chain fsynced, one more write (a fresh repeat would have written twice).
  EXPECT_EQ(cluster.xloc_version_of("/chain"), 2u);
  EXPECT_EQ(cluster.replica_reports, reports_before + 1);
  EXPECT_EQ(osd_writes(), writes_before + 2);
  EXPECT_EQ(ReadAsyncAndWait(*file, 0, second.size()), second);
  // A reader still holding version 1 is refused (XLOC_OUTDATED) or finds osd-2 dead, and follows.
  EXPECT_EQ(ReadAsyncAndWait(*old_reader, 0, second.size()), second);
  EXPECT_TRUE(cluster.placement_violations.empty());
  file->Close();
  old_reader->Close();
}

TEST(FileHandleChainTest, AHandleOpenedWithOneReplicaFollowsXLocOutdatedAfterAReplicaWasAdded) {
  // servers/osd "XLoc versions at the OSD": an OSD that saw a newer XLoc version of a file refuses
  // an older one with XLOC_OUTDATED, unreplicated files included; the handle fetches the current
  // XLoc and writes through the new head, which forwards to the old replica.
  FakeClock clock;
  FakeCluster cluster{clock, 3, 1, kObjectSizeBytes};
  auto volume = Volume::Open(cluster, ParseDirUrl("dir/demo"), clock);
  UserCredentials user;
  auto file = volume->OpenFile(user, "/one", O_CREAT | O_RDWR, 0644);
  file->DisableBuffering();
  file->Write(0, PatternOf(kObjectSizeBytes, 1));
  cluster.AddHeadReplicaForTest("/one", {"osd-1"});
  const int reports = cluster.replica_reports;
  file->Write(kObjectSizeBytes, PatternOf(kObjectSizeBytes, 2));
  EXPECT_EQ(cluster.replica_reports, reports + 1);  // one MRC_REPLICA_FAILED without an OSD
  EXPECT_TRUE(cluster.placement_violations.empty());
  file->Close();
}

}  // namespace
}  // namespace xtreemfs::client
