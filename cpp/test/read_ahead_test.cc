// Read-ahead: the window logic of ReadAheadCache alone, and FileHandle reads against the in-memory
// cluster (correct data, fewer OSD calls for sequential readers, invalidation by writes through
// this mount, bounded memory, concurrent readers).
#include "client/read_ahead.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <future>
#include <random>
#include <thread>

#include "client/file_handle.h"
#include "client/volume.h"
#include "fake_cluster.h"

namespace xtreemfs::client {
namespace {

using testing::FakeClock;
using testing::FakeCluster;
using testing::PatternOf;

constexpr std::uint32_t kObjectSizeBytes = 4096;
constexpr std::uint32_t kStripeWidth = 3;

TEST(ReadAheadCacheTest, SequentialReadsPlanObjectsWithinTheWindowAndRandomReadsNone) {
  // The second sequential read asks for the objects after it up to the window (and the file
  // size); a random read asks for nothing; objects already planned are not asked again.
  ByteBudget budget(1 << 20);
  ReadAheadCache cache(3 * kObjectSizeBytes, kObjectSizeBytes, budget);
  EXPECT_TRUE(cache.AfterRead(0, 1000, 100 * kObjectSizeBytes, 0).empty());
  // Objects starting before read end + window: [2000, 14288) touches objects 0..3.
  EXPECT_EQ(cache.AfterRead(1000, 2000, 100 * kObjectSizeBytes, 0),
            (std::vector<std::uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(cache.AfterRead(2000, 5000, 100 * kObjectSizeBytes, 0),
            (std::vector<std::uint64_t>{4}));
  EXPECT_EQ(budget.ChargedBytes(), 5u * kObjectSizeBytes);
  for (std::uint64_t object : {0, 1, 2, 3, 4}) cache.Cancel(object);
  EXPECT_EQ(budget.ChargedBytes(), 0u);
  EXPECT_TRUE(cache.AfterRead(50 * kObjectSizeBytes, 50 * kObjectSizeBytes + 10,
                              100 * kObjectSizeBytes, 0).empty());
  // Near the end of the file only the objects below the size are planned.
  const auto tail = cache.AfterRead(98 * kObjectSizeBytes, 98 * kObjectSizeBytes + 10,
                                    99 * kObjectSizeBytes + 1, 0);
  EXPECT_TRUE(tail.empty());  // not sequential: a jump of 48 objects
  const auto next = cache.AfterRead(98 * kObjectSizeBytes + 10, 98 * kObjectSizeBytes + 20,
                                    99 * kObjectSizeBytes + 1, 0);
  EXPECT_TRUE(next.empty()) << "one sequential read after a jump is not enough";
  EXPECT_EQ(cache.AfterRead(98 * kObjectSizeBytes + 20, 98 * kObjectSizeBytes + 30,
                            99 * kObjectSizeBytes + 1, 0),
            (std::vector<std::uint64_t>{98, 99}));
  for (std::uint64_t object : {98, 99}) cache.Cancel(object);
}

TEST(ReadAheadCacheTest, ConcurrentReadsArrivingOutOfOrderStaySequentialAndKeepTheirObjects) {
  // The kernel sends a window of reads of one reader at once; they reach the cache in any order. A
  // read behind the furthest one (within the window) neither ends the stream nor loses the object
  // prefetched for it, and nothing already read is planned again.
  ByteBudget budget(1 << 20);
  ReadAheadCache cache(4 * kObjectSizeBytes, kObjectSizeBytes, budget);
  constexpr std::uint64_t kSize = 100 * kObjectSizeBytes;
  constexpr std::uint64_t kObject = kObjectSizeBytes;
  // Objects 1, 0, 2: the late read of object 0 does not end the stream; planning starts after the
  // furthest object read.
  EXPECT_TRUE(cache.AfterRead(1 * kObject, 2 * kObject, kSize, 0).empty());
  EXPECT_TRUE(cache.AfterRead(0, 1 * kObject, kSize, 0).empty());
  EXPECT_EQ(cache.AfterRead(2 * kObject, 3 * kObject, kSize, 0), (std::vector<std::uint64_t>{3, 4, 5, 6}));
  for (std::uint64_t object : {3, 4, 5, 6}) cache.Complete(object, "object " + std::to_string(object), true);
  // Objects 4, 3, 5: the read of object 3 arrives after the one of object 4 and finds its object.
  EXPECT_EQ(cache.AfterRead(4 * kObject, 5 * kObject, kSize, 0), (std::vector<std::uint64_t>{7, 8}));
  const std::optional<SharedBytes> three = cache.Lookup(3, 0, kObject, 0);
  ASSERT_TRUE(three.has_value());
  EXPECT_EQ(three->view(), "object 3");
  EXPECT_TRUE(cache.AfterRead(3 * kObject, 4 * kObject, kSize, 0).empty());
  EXPECT_EQ(cache.AfterRead(5 * kObject, 6 * kObject, kSize, 0), (std::vector<std::uint64_t>{9}));
  // A read further ahead within the window moves the stream on; objects more than the window
  // behind the furthest read are dropped, the others stay.
  EXPECT_EQ(cache.AfterRead(8 * kObject, 9 * kObject, kSize, 0), (std::vector<std::uint64_t>{10, 11, 12}));
  EXPECT_FALSE(cache.Lookup(4, 0, kObject, 0).has_value());
  EXPECT_TRUE(cache.Lookup(5, 0, kObject, 0).has_value());
  for (std::uint64_t object : {7, 8, 9, 10, 11, 12}) cache.Cancel(object);
}

TEST(ReadAheadCacheTest, RandomReadsOfALargeFilePlanNothing) {
  // Tolerating reads behind the furthest one must not make random reads look sequential: 4 KiB
  // reads at random offsets of a file of 100,000 objects (seeded) plan no object.
  ByteBudget budget(1 << 20);
  ReadAheadCache cache(4 * kObjectSizeBytes, kObjectSizeBytes, budget);
  constexpr std::uint64_t kSize = 100000ull * kObjectSizeBytes;
  std::mt19937_64 random(42);
  std::size_t planned = 0;
  for (int read = 0; read < 10000; ++read) {
    const std::uint64_t offset = (random() % (kSize / 4096)) * 4096;
    const std::vector<std::uint64_t> objects = cache.AfterRead(offset, offset + 4096, kSize, 0);
    planned += objects.size();
    for (std::uint64_t object : objects) cache.Cancel(object);
  }
  EXPECT_EQ(planned, 0u);
}

TEST(ReadResultTest, KeepsRunsInOrderWithHolesAsZerosAndJoinsThemOnDemand) {
  // Pieces are shared, not copied; holes longer than the zero buffer are several runs of it.
  ReadResult result;
  auto object = std::make_shared<const std::string>("0123456789");
  result.Append(SharedBytes{object, 2, 3});
  result.AppendZeros(ReadResult::kZeroRunBytesMax + 5);
  result.Append(std::string("tail"));
  result.Append(SharedBytes{object, 0, 0});  // an empty piece adds no run
  EXPECT_EQ(result.size(), 3 + ReadResult::kZeroRunBytesMax + 5 + 4);
  EXPECT_EQ(result.run_count(), 4u);
  std::vector<std::size_t> lengths;
  result.ForEachRun([&](const char* data, std::size_t length) {
    EXPECT_NE(data, nullptr);
    lengths.push_back(length);
  });
  EXPECT_EQ(lengths, (std::vector<std::size_t>{3, ReadResult::kZeroRunBytesMax, 5, 4}));
  EXPECT_EQ(result.Join(), "234" + std::string(ReadResult::kZeroRunBytesMax + 5, '\0') + "tail");
  EXPECT_TRUE(ReadResult().empty());
  EXPECT_EQ(ReadResult().Join(), "");
}

TEST(ReadAheadCacheTest, ServesCompletedObjectsDropsThemOnANewGenerationAndReleasesTheBudget) {
  // A completed object serves any piece of it (short when the OSD stored less); a different data
  // generation drops it; a full budget plans nothing; the destructor releases every charge.
  ByteBudget budget(2 * kObjectSizeBytes);
  {
    ReadAheadCache cache(8 * kObjectSizeBytes, kObjectSizeBytes, budget);
    cache.AfterRead(0, 10, 100 * kObjectSizeBytes, 5);
    EXPECT_EQ(cache.AfterRead(10, 20, 100 * kObjectSizeBytes, 5),
              (std::vector<std::uint64_t>{0, 1}));  // the budget holds two objects
    cache.Complete(0, "object zero", true);
    cache.Complete(1, "", false);
    const std::optional<SharedBytes> zero = cache.Lookup(0, 7, 100, 5);
    ASSERT_TRUE(zero.has_value());
    EXPECT_EQ(zero->view(), "zero");
    const std::optional<SharedBytes> beyond = cache.Lookup(0, 50, 10, 5);
    ASSERT_TRUE(beyond.has_value());
    EXPECT_EQ(beyond->view(), "");
    EXPECT_FALSE(cache.Lookup(1, 0, 10, 5).has_value());
    EXPECT_EQ(budget.ChargedBytes(), kObjectSizeBytes);
    EXPECT_FALSE(cache.Lookup(0, 0, 10, 6).has_value());
    EXPECT_EQ(budget.ChargedBytes(), 0u);
    // Bytes served before the drop stay valid: they share the object's buffer.
    EXPECT_EQ(zero->view(), "zero");
    EXPECT_EQ(cache.AfterRead(20, 30, 100 * kObjectSizeBytes, 6),
              (std::vector<std::uint64_t>{0, 1}));
    EXPECT_EQ(budget.ChargedBytes(), 2u * kObjectSizeBytes);
    cache.Complete(0, "a", true);
    cache.Complete(1, "b", true);
  }
  EXPECT_EQ(budget.ChargedBytes(), 0u);
}

class ReadAheadTest : public ::testing::Test {
 protected:
  ReadAheadTest() {
    VolumeOptions writer_options;
    writer_options.io.read_ahead_bytes = 0;
    writer_volume = Volume::Open(cluster, ParseDirUrl("dir/demo"), clock, writer_options);
    VolumeOptions options;
    options.io.read_ahead_bytes = 4 * kObjectSizeBytes;
    volume = Volume::Open(cluster, ParseDirUrl("dir/demo"), clock, options);
  }

  void WriteFile(const std::string& path, const std::string& data) {
    auto writer = writer_volume->OpenFile(user, path, O_CREAT | O_RDWR, 0644);
    writer->Write(0, data);
    writer->Close();
  }
  int OsdReads() {
    return cluster.CountCalls(xtreemfs::osd::OSD_INTERFACE_ID, xtreemfs::osd::OSD_READ);
  }

  FakeClock clock;
  FakeCluster cluster{clock, 4, kStripeWidth, kObjectSizeBytes};
  UserCredentials user;
  std::unique_ptr<Volume> writer_volume;
  std::unique_ptr<Volume> volume;
};

TEST_F(ReadAheadTest, ASequentialReaderGetsTheRightBytesWithAboutOneOsdCallPerObject) {
  // 1000-byte sequential reads of 20 objects return the file; prefetching whole objects needs at
  // most a few calls more than the 20 objects (instead of about 100 piece reads).
  const std::string data = PatternOf(20 * kObjectSizeBytes - 77, 1);
  WriteFile("/seq", data);
  auto reader = volume->OpenFile(user, "/seq", O_RDONLY, 0);
  const int reads_before = OsdReads();
  std::string read_back;
  for (std::size_t offset = 0; offset < data.size(); offset += 1000) {
    read_back += reader->Read(offset, 1000);
  }
  EXPECT_EQ(read_back, data);
  EXPECT_LE(OsdReads() - reads_before, 20 + 4);
  // Objects stay up to the window behind the furthest read (a late read of the kernel's window may
  // still ask for them) and are prefetched up to the window ahead: two windows and the object read.
  EXPECT_LE(volume->io_resources().budget.PeakChargedBytes(), 10u * kObjectSizeBytes);
  reader->Close();
  reader.reset();
  EXPECT_EQ(volume->io_resources().budget.ChargedBytes(), 0u);
}

TEST_F(ReadAheadTest, NonSequentialReadsPrefetchNothing) {
  // Reads walking backwards through the file cost one OSD call each and hold no read-ahead memory.
  const std::string data = PatternOf(30 * kObjectSizeBytes, 2);
  WriteFile("/backwards", data);
  auto reader = volume->OpenFile(user, "/backwards", O_RDONLY, 0);
  const int reads_before = OsdReads();
  for (int i = 0; i < 30; ++i) {
    const std::size_t offset = (29 - i) * kObjectSizeBytes + 100;
    EXPECT_EQ(reader->Read(offset, 100), data.substr(offset, 100));
  }
  EXPECT_EQ(OsdReads() - reads_before, 30);
  EXPECT_EQ(volume->io_resources().budget.PeakChargedBytes(), 0u);
}

TEST_F(ReadAheadTest, AWriteThroughThisMountInvalidatesPrefetchedObjects) {
  // After objects ahead were prefetched, a write by another handle of the mount into one of them
  // is what the reader sees next, not the prefetched bytes.
  const std::string data = PatternOf(10 * kObjectSizeBytes, 4);
  WriteFile("/changed", data);
  auto reader = volume->OpenFile(user, "/changed", O_RDONLY, 0);
  auto writer = volume->OpenFile(user, "/changed", O_RDWR, 0);
  EXPECT_EQ(reader->Read(0, 1000), data.substr(0, 1000));
  EXPECT_EQ(reader->Read(1000, 1000), data.substr(1000, 1000));  // prefetches objects 0..4
  writer->Write(2 * kObjectSizeBytes + 5, "fresh");
  std::string expected = data;
  expected.replace(2 * kObjectSizeBytes + 5, 5, "fresh");
  EXPECT_EQ(reader->Read(2000, 3 * kObjectSizeBytes), expected.substr(2000, 3 * kObjectSizeBytes));
  writer->Truncate(3 * kObjectSizeBytes);
  EXPECT_EQ(reader->Read(2000 + 3 * kObjectSizeBytes, 5000), "");
  EXPECT_EQ(reader->Read(2 * kObjectSizeBytes, 10), expected.substr(2 * kObjectSizeBytes, 10));
}

TEST_F(ReadAheadTest, ConcurrentSequentialReadersOfOneFileEachGetTheFile) {
  // Four handles read the same file sequentially at once, each with its own read-ahead.
  const std::string data = PatternOf(16 * kObjectSizeBytes + 5, 5);
  WriteFile("/shared", data);
  std::vector<std::string> results(4);
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i) {
    readers.emplace_back([&, i] {
      auto reader = volume->OpenFile(user, "/shared", O_RDONLY, 0);
      for (std::size_t offset = 0; offset < data.size(); offset += 1500) {
        results[i] += reader->Read(offset, 1500);
      }
    });
  }
  for (auto& reader : readers) reader.join();
  for (const std::string& result : results) EXPECT_EQ(result, data);
  EXPECT_EQ(volume->io_resources().budget.ChargedBytes(), 0u);
}

TEST_F(ReadAheadTest, AHandleWithReadAheadTurnedOffFetchesOnlyWhatIsReadAndAllOfItAtOnce) {
  // The mount turns a handle's read-ahead off when the kernel reads ahead itself: a sequential
  // reader then holds no read-ahead memory and costs one OSD call per object piece it reads, and
  // its asynchronous reads return the file's bytes (holes past the stored data as zeros).
  const std::string data = PatternOf(12 * kObjectSizeBytes + 10, 6);
  WriteFile("/kernel-ahead", data);
  auto reader = volume->OpenFile(user, "/kernel-ahead", O_RDONLY, 0);
  reader->DisableReadAhead();
  const int reads_before = OsdReads();
  std::string read_back;
  for (std::size_t offset = 0; offset < data.size(); offset += 2 * kObjectSizeBytes) {
    std::promise<ReadResult> answered;
    reader->ReadAsync(offset, 2 * kObjectSizeBytes, [&](ReadResult result, std::exception_ptr error) {
      if (error) {
        answered.set_exception(error);
      } else {
        answered.set_value(std::move(result));
      }
    });
    read_back += answered.get_future().get().Join();
  }
  EXPECT_EQ(read_back, data);
  EXPECT_EQ(OsdReads() - reads_before, 13);  // 12 whole objects and the 10-byte tail
  EXPECT_EQ(volume->io_resources().budget.PeakChargedBytes(), 0u);
}

}  // namespace
}  // namespace xtreemfs::client
