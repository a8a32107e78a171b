// RequestLoop (the mount's FUSE threads) driven by requests of the test's own: a queue stands in for
// /dev/fuse, a request is a function run by the thread that read it.
#include "fuse/request_loop.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "rpc/wait_notice.h"

namespace xtreemfs::fuse_adapter {
namespace {

// Far above any wait these tests need: reached only when the loop is wrong (a request never read).
constexpr auto kStuck = std::chrono::seconds(20);

// The requests: Read blocks until one is queued, or returns false once closed and empty.
class RequestQueue {
 public:
  void Push(std::function<void()> request) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(std::move(request));
    }
    changed_.notify_all();
  }
  void Close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    changed_.notify_all();
  }
  bool ServeOne() {
    std::function<void()> request;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return closed_ || !requests_.empty(); });
      if (requests_.empty()) return false;
      request = std::move(requests_.front());
      requests_.pop_front();
    }
    request();
    return true;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> requests_;
  bool closed_ = false;
};

// A flag that requests set and wait for.
class Gate {
 public:
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    opened_.notify_all();
  }
  bool IsOpen() {
    std::lock_guard<std::mutex> lock(mutex_);
    return open_;
  }
  // False when it stayed shut for kStuck.
  bool WaitOpen() {
    std::unique_lock<std::mutex> lock(mutex_);
    return opened_.wait_for(lock, kStuck, [&] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

// Counts requests done and lets the test wait for a number of them.
class DoneCount {
 public:
  void Add() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++done_;
    }
    changed_.notify_all();
  }
  bool WaitFor(int count) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, kStuck, [&] { return done_ >= count; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int done_ = 0;
};

// Polls `condition` (a state of another thread with no event to wait on); false after kStuck.
bool WaitUntil(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + kStuck;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// As the mount's readers read /dev/fuse: a blocking read with cancellation enabled around it only
// (RequestLoop::Stop cancels it); false when no byte came.
bool ReadAByteCancellably(int descriptor) {
  char byte;
  pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, nullptr);
  const ssize_t read_bytes = read(descriptor, &byte, 1);
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, nullptr);
  return read_bytes == 1;
}

TEST(RequestLoopTest, ARequestThatWaitsLetsAnotherThreadReadTheNextOne) {
  // One reader: the first request waits (announced by NoteWait, as a server call does) for the
  // second, which only a thread taking the reader's place can read. Without the hand-off the loop
  // would read nothing while the first waits.
  RequestQueue queue;
  RequestLoop loop(1, 4, [&] { return queue.ServeOne(); });
  Gate second_ran;
  DoneCount done;
  bool first_saw_second = false;
  queue.Push([&] {
    rpc::NoteWait();
    first_saw_second = second_ran.WaitOpen();
    done.Add();
  });
  queue.Push([&] {
    second_ran.Open();
    done.Add();
  });
  loop.Start();
  ASSERT_TRUE(done.WaitFor(2));
  EXPECT_TRUE(first_saw_second);
  EXPECT_EQ(loop.ThreadsStarted(), 2u);
  queue.Close();
  loop.Stop();
}

TEST(RequestLoopTest, RequestsAnsweredWithoutWaitingAreReadByTheReadersAlone) {
  // No request waits: no thread beyond the readers is started, however many requests come.
  RequestQueue queue;
  RequestLoop loop(2, 64, [&] { return queue.ServeOne(); });
  DoneCount done;
  constexpr int kRequests = 500;
  for (int request = 0; request < kRequests; ++request) queue.Push([&] { done.Add(); });
  loop.Start();
  ASSERT_TRUE(done.WaitFor(kRequests));
  EXPECT_EQ(loop.ThreadsStarted(), 2u);
  queue.Close();
  loop.Stop();
}

TEST(RequestLoopTest, ThreadsStayWithinTheMaximumAndAPlaceFreedLaterIsTaken) {
  // Three requests wait at once with at most three threads: the fourth is read only once one of
  // them is done (its thread reads again, no fourth thread is started); a thread that waited more
  // than once within a request gave up one place only.
  RequestQueue queue;
  RequestLoop loop(1, 3, [&] { return queue.ServeOne(); });
  Gate gate;
  DoneCount waiting;
  DoneCount done;
  bool fourth_read_after_the_gate = false;
  for (int request = 0; request < 3; ++request) {
    queue.Push([&] {
      rpc::NoteWait();
      rpc::NoteWait();
      waiting.Add();
      gate.WaitOpen();
      done.Add();
    });
  }
  queue.Push([&] {
    fourth_read_after_the_gate = gate.IsOpen();
    done.Add();
  });
  loop.Start();
  ASSERT_TRUE(waiting.WaitFor(3));
  EXPECT_EQ(loop.ThreadsStarted(), 3u);
  gate.Open();
  ASSERT_TRUE(done.WaitFor(4));
  EXPECT_TRUE(fourth_read_after_the_gate);
  EXPECT_EQ(loop.ThreadsStarted(), 3u);
  queue.Close();
  loop.Stop();
}

TEST(RequestLoopTest, AnIdleThreadTakesTheNextPlaceGivenUp) {
  // A thread done with a waiting request while the readers' places are taken waits idle; the next
  // request that waits gives its place to that thread instead of starting a new one.
  RequestQueue queue;
  RequestLoop loop(1, 8, [&] { return queue.ServeOne(); });
  Gate first_gate;
  DoneCount done;
  queue.Push([&] {
    rpc::NoteWait();
    first_gate.WaitOpen();
    done.Add();
  });
  loop.Start();
  // The second thread now reads; the first, once done, finds the place taken and waits idle.
  first_gate.Open();
  ASSERT_TRUE(done.WaitFor(1));
  ASSERT_TRUE(WaitUntil([&] { return loop.ThreadsIdle() == 1; }));
  EXPECT_EQ(loop.ThreadsStarted(), 2u);
  Gate second_gate;
  Gate third_ran;
  queue.Push([&] {
    rpc::NoteWait();
    second_gate.WaitOpen();
    done.Add();
  });
  queue.Push([&] {
    third_ran.Open();
    done.Add();
  });
  ASSERT_TRUE(third_ran.WaitOpen());
  EXPECT_EQ(loop.ThreadsStarted(), 2u);
  EXPECT_EQ(loop.ThreadsIdle(), 0u);
  second_gate.Open();
  ASSERT_TRUE(done.WaitFor(3));
  queue.Close();
  loop.Stop();
}

TEST(RequestLoopTest, StopEndsReadersBlockedInACancellableReadAndIdleThreads) {
  // As the mount's readers block in read(/dev/fuse) with cancellation enabled, these block in a
  // read of a pipe nobody writes; Stop must end them (and the idle thread) and return.
  int pipe_ends[2];
  ASSERT_EQ(pipe(pipe_ends), 0);
  std::atomic<int> served{0};
  Gate first_gate;
  DoneCount waiting;
  DoneCount reading;
  RequestLoop loop(2, 4, [&] {
    if (served.fetch_add(1) < 2) {
      // The first two requests wait at once: the first in its place (the other reader is free), the
      // second hands its place on; its thread comes back as an idle thread.
      rpc::NoteWait();
      waiting.Add();
      waiting.WaitFor(2);
      first_gate.WaitOpen();
      return true;
    }
    reading.Add();
    return ReadAByteCancellably(pipe_ends[0]);
  });
  loop.Start();
  ASSERT_TRUE(waiting.WaitFor(2));
  first_gate.Open();
  // The thread that took the second's place and the first, reading again in its own place.
  ASSERT_TRUE(reading.WaitFor(2));
  ASSERT_TRUE(WaitUntil([&] { return loop.ThreadsIdle() == 1; }));
  loop.Stop();
  EXPECT_EQ(served.load(), 4);
  close(pipe_ends[0]);
  close(pipe_ends[1]);
}

TEST(RequestLoopTest, AWaitingRequestKeepsItsPlaceWhileAnotherReaderIsFree) {
  // Two readers, one request waits (twice, as a request with two server calls does): the other
  // reader is free, so no place is handed on and no thread is started; the other reader reads the
  // request the waiting one waits for.
  RequestQueue queue;
  RequestLoop loop(2, 4, [&] { return queue.ServeOne(); });
  Gate second_ran;
  DoneCount done;
  bool first_saw_second = false;
  std::uint64_t handed_on_while_waiting = 99;
  std::uint32_t waiting_in_place = 99;
  queue.Push([&] {
    rpc::NoteWait();
    rpc::NoteWait();
    handed_on_while_waiting = loop.PlacesHandedOn();
    waiting_in_place = loop.ThreadsWaitingInPlace();
    first_saw_second = second_ran.WaitOpen();
    done.Add();
  });
  queue.Push([&] {
    second_ran.Open();
    done.Add();
  });
  loop.Start();
  ASSERT_TRUE(done.WaitFor(2));
  EXPECT_TRUE(first_saw_second);
  EXPECT_EQ(handed_on_while_waiting, 0u);
  EXPECT_EQ(waiting_in_place, 1u);
  EXPECT_EQ(loop.ThreadsStarted(), 2u);
  // After its request the thread is a free reader again.
  ASSERT_TRUE(WaitUntil([&] { return loop.ThreadsWaitingInPlace() == 0; }));
  EXPECT_EQ(loop.PlacesHandedOn(), 0u);
  EXPECT_EQ(loop.ThreadsIdle(), 0u);
  queue.Close();
  loop.Stop();
}

TEST(RequestLoopTest, TheLastFreeReaderHandsItsPlaceOnAndALoneWaitLaterWakesNoIdleThread) {
  // Two readers, two requests wait at once for a third: the first waits in its place, the second
  // finds no other reader free and hands its place to a new thread, which reads the third. Later,
  // with that thread's predecessor idle, a lone waiting request keeps its place: the idle thread is
  // not woken.
  RequestQueue queue;
  RequestLoop loop(2, 4, [&] { return queue.ServeOne(); });
  Gate third_ran;
  DoneCount waiting;
  DoneCount done;
  int saw_third = 0;
  std::mutex saw_third_mutex;
  for (int request = 0; request < 2; ++request) {
    queue.Push([&] {
      rpc::NoteWait();
      waiting.Add();
      const bool saw = third_ran.WaitOpen();
      {
        std::lock_guard<std::mutex> lock(saw_third_mutex);
        saw_third += saw ? 1 : 0;
      }
      done.Add();
    });
  }
  queue.Push([&] {
    // Read only once both others wait: by the thread started in the second's place.
    waiting.WaitFor(2);
    third_ran.Open();
    done.Add();
  });
  loop.Start();
  ASSERT_TRUE(done.WaitFor(3));
  EXPECT_EQ(saw_third, 2);
  EXPECT_EQ(loop.PlacesHandedOn(), 1u);
  EXPECT_EQ(loop.ThreadsStarted(), 3u);
  // Two places, three threads: the one that handed its place on waits idle, and the one that
  // waited in its place is a free reader again (until it has counted itself so, a wait beside it
  // hands on: the safe side).
  ASSERT_TRUE(WaitUntil(
      [&] { return loop.ThreadsIdle() == 1 && loop.ThreadsWaitingInPlace() == 0; }));

  Gate fifth_ran;
  std::uint64_t handed_on_while_waiting = 99;
  queue.Push([&] {
    rpc::NoteWait();
    handed_on_while_waiting = loop.PlacesHandedOn();
    fifth_ran.WaitOpen();
    done.Add();
  });
  queue.Push([&] {
    fifth_ran.Open();
    done.Add();
  });
  ASSERT_TRUE(done.WaitFor(5));
  EXPECT_EQ(handed_on_while_waiting, 1u);
  EXPECT_EQ(loop.PlacesHandedOn(), 1u);
  EXPECT_EQ(loop.ThreadsStarted(), 3u);
  EXPECT_EQ(loop.ThreadsIdle(), 1u);
  queue.Close();
  loop.Stop();
}

TEST(RequestLoopTest, RequestsThatWaitLongNeverKeepAQueuedRequestFromBeingRead) {
  // Two readers; five requests each wait until the sixth runs, which none of them can run: each is
  // read while the earlier ones wait. The first waits in its place, every later one is read by the
  // last free reader and so hands its place on.
  RequestQueue queue;
  RequestLoop loop(2, 8, [&] { return queue.ServeOne(); });
  constexpr int kWaiting = 5;
  Gate last_ran;
  DoneCount done;
  std::atomic<int> saw_last{0};
  for (int request = 0; request < kWaiting; ++request) {
    queue.Push([&] {
      rpc::NoteWait();
      if (last_ran.WaitOpen()) saw_last.fetch_add(1);
      done.Add();
    });
  }
  queue.Push([&] {
    last_ran.Open();
    done.Add();
  });
  loop.Start();
  ASSERT_TRUE(done.WaitFor(kWaiting + 1));
  EXPECT_EQ(saw_last.load(), kWaiting);
  EXPECT_EQ(loop.PlacesHandedOn(), static_cast<std::uint64_t>(kWaiting - 1));
  EXPECT_EQ(loop.ThreadsStarted(), static_cast<std::uint32_t>(2 + kWaiting - 1));
  queue.Close();
  loop.Stop();
}

TEST(RequestLoopTest, StopWhileRequestsWaitInTheirPlaceAndInAHandedOnOne) {
  // Two requests wait (one in its place, one after handing its place on) until Stop has cancelled
  // the reader blocked in its read; Stop returns once they are done, and no thread reads again.
  int pipe_ends[2];
  ASSERT_EQ(pipe(pipe_ends), 0);
  std::atomic<int> served{0};
  Gate reader_cancelled;
  DoneCount waiting;
  DoneCount reading;
  // Opens reader_cancelled as the cancelled read unwinds its thread (or if the read ever returns).
  struct OpenOnExit {
    Gate& gate;
    ~OpenOnExit() { gate.Open(); }
  };
  bool waits_saw_cancel = true;
  std::mutex waits_saw_cancel_mutex;
  RequestLoop loop(2, 4, [&] {
    if (served.fetch_add(1) < 2) {
      rpc::NoteWait();
      waiting.Add();
      const bool saw = reader_cancelled.WaitOpen();
      std::lock_guard<std::mutex> lock(waits_saw_cancel_mutex);
      waits_saw_cancel = waits_saw_cancel && saw;
      return true;
    }
    OpenOnExit open_on_exit{reader_cancelled};
    reading.Add();
    return ReadAByteCancellably(pipe_ends[0]);
  });
  loop.Start();
  ASSERT_TRUE(waiting.WaitFor(2));
  ASSERT_TRUE(reading.WaitFor(1));
  EXPECT_EQ(loop.ThreadsWaitingInPlace(), 1u);
  EXPECT_EQ(loop.PlacesHandedOn(), 1u);
  loop.Stop();
  EXPECT_TRUE(waits_saw_cancel);
  EXPECT_EQ(served.load(), 3);  // the two waiting requests and the cancelled read, nothing after
  EXPECT_EQ(loop.ThreadsWaitingInPlace(), 0u);
  close(pipe_ends[0]);
  close(pipe_ends[1]);
}

TEST(RequestLoopTest, WaitForEndReturnsOnceTheSourceEnds) {
  RequestQueue queue;
  RequestLoop loop(2, 4, [&] { return queue.ServeOne(); });
  loop.Start();
  queue.Close();
  loop.WaitForEnd();
  loop.Stop();
}

TEST(RequestLoopTest, NoteWaitOutsideALoopDoesNothing) {
  // The io thread, the I/O pool and tests call servers without a listener.
  EXPECT_EQ(rpc::current_wait_listener, nullptr);
  rpc::NoteWait();
}

}  // namespace
}  // namespace xtreemfs::fuse_adapter
