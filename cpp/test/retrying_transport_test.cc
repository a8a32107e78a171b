#include "rpc/retrying_transport.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <deque>
#include <string>
#include <vector>

#include "osd.pb.h"

namespace xtreemfs::rpc {
namespace {

// Fails with the scripted errors in order, then answers.
class ScriptedTransport : public Transport {
 public:
  explicit ScriptedTransport(std::deque<RpcError> failures) : failures_(std::move(failures)) {}

  CallResponse Call(const ServiceAddress&, const CallRequest& request, const CallOptions&) override {
    ++calls;
    numbers.push_back(request.request_number);
    client_ids.emplace_back(request.client_id);
    if (!failures_.empty()) {
      RpcError error = failures_.front();
      failures_.pop_front();
      throw error;
    }
    return CallResponse{"", "answer"};
  }

  int calls = 0;
  std::vector<std::uint64_t> numbers;
  std::vector<std::string> client_ids;

 private:
  std::deque<RpcError> failures_;
};

CallOptions Idempotent(bool idempotent) {
  CallOptions options;
  options.idempotent = idempotent;
  return options;
}

// `count` refused connections: a server that is down.
std::deque<RpcError> Refusals(int count) {
  return std::deque<RpcError>(count, RpcError::Of(ErrorKind::kTransport, "refused"));
}

// A clock that only the transport's sleeps move.
struct FakeTime {
  std::uint64_t now_ms;
  std::vector<std::uint32_t> sleeps_ms;

  RetryingTransport::SleepFunction Sleep() {
    return [this](std::uint32_t ms) { sleeps_ms.push_back(ms); now_ms += ms; };
  }
  RetryingTransport::NowFunction Now() {
    return [this] { return now_ms; };
  }
};

TEST(RetryingTransportTest, IdempotentCallIsRetriedAfterTransientErrorsWithGrowingBackoff) {
  // Transport errors and OVERLOADED are retried for idempotent calls; backoff doubles up to its cap.
  ScriptedTransport inner({RpcError::Of(ErrorKind::kTransport, "closed"),
                           RpcError::Of(ErrorKind::kOverloaded, "full"),
                           RpcError::Of(ErrorKind::kTimeout, "slow")});
  std::vector<std::uint32_t> sleeps_ms;
  RetryingTransport transport(inner, RetryPolicy{4, 100, 250},
                              [&](std::uint32_t ms) { sleeps_ms.push_back(ms); });
  EXPECT_EQ(transport.Call(ServiceAddress{}, CallRequest{}, Idempotent(true)).data, "answer");
  EXPECT_EQ(inner.calls, 4);
  EXPECT_EQ(sleeps_ms, (std::vector<std::uint32_t>{100, 200, 250}));
}

TEST(RetryingTransportTest, RetriesStopAtAttemptsMaxWithTheLastError) {
  // After attempts_max transient failures the last error reaches the caller.
  ScriptedTransport inner({RpcError::Of(ErrorKind::kOverloaded, "1"),
                           RpcError::Of(ErrorKind::kOverloaded, "2"),
                           RpcError::Of(ErrorKind::kOverloaded, "3")});
  RetryingTransport transport(inner, RetryPolicy{2, 1, 1}, [](std::uint32_t) {});
  try {
    transport.Call(ServiceAddress{}, CallRequest{}, Idempotent(true));
    FAIL() << "expected an error";
  } catch (const RpcError& error) {
    EXPECT_EQ(error.posix_errno(), EAGAIN);
    EXPECT_NE(std::string(error.what()).find("2"), std::string::npos);
  }
  EXPECT_EQ(inner.calls, 2);
}

TEST(RetryingTransportTest, NonIdempotentCallIsNeverRetried) {
  // A call not marked idempotent fails on its first transient error.
  ScriptedTransport inner({RpcError::Of(ErrorKind::kTransport, "closed")});
  RetryingTransport transport(inner, RetryPolicy{5, 1, 1}, [](std::uint32_t) {});
  EXPECT_THROW(transport.Call(ServiceAddress{}, CallRequest{}, Idempotent(false)), RpcError);
  EXPECT_EQ(inner.calls, 1);
}

TEST(RetryingTransportTest, FinalErrorsAreNotRetried) {
  // POSIX, auth and internal errors are answers, not failures to answer: no retry.
  for (RpcError final_error : {RpcError::Errno(ENOENT, "x"), RpcError::Of(ErrorKind::kAuthFailed, "x"),
                               RpcError::Of(ErrorKind::kInternal, "x")}) {
    ScriptedTransport inner({final_error});
    RetryingTransport transport(inner, RetryPolicy{5, 1, 1}, [](std::uint32_t) {});
    EXPECT_THROW(transport.Call(ServiceAddress{}, CallRequest{}, Idempotent(true)), RpcError);
    EXPECT_EQ(inner.calls, 1);
  }
}

TEST(RetryingTransportTest, TransientErrorsAreRetriedForTheWholeWindowThenTheLastErrorIsThrown) {
  // A server down longer than the window: attempts go on with capped backoff until the window is
  // used up (the last backoff cut to end exactly at it), then the caller gets the last error.
  ScriptedTransport inner(Refusals(100));
  FakeTime time{5000, {}};
  RetryPolicy policy;
  policy.retry_window_ms = 10000;
  RetryingTransport transport(inner, policy, time.Sleep(), time.Now());
  EXPECT_THROW(transport.Call(ServiceAddress{}, CallRequest{}, Idempotent(true)), RpcError);
  // 100 + 200 + 400 + 800 + 1600 = 3100, then 2000 x 3 = 9100, then the remaining 900.
  EXPECT_EQ(time.sleeps_ms, (std::vector<std::uint32_t>{100, 200, 400, 800, 1600, 2000, 2000, 2000, 900}));
  EXPECT_EQ(time.now_ms, 15000u);
  EXPECT_EQ(inner.calls, 10);
}

TEST(RetryingTransportTest, ServerBackInsideTheWindowIsOnlyAPause) {
  // A restart of 50 s (refused connections, then an answer) is invisible with the default window.
  ScriptedTransport inner(Refusals(27));
  FakeTime time{0, {}};
  RetryingTransport transport(inner, RetryPolicy{}, time.Sleep(), time.Now());
  EXPECT_EQ(transport.Call(ServiceAddress{}, CallRequest{}, Idempotent(true)).data, "answer");
  EXPECT_EQ(inner.calls, 28);
  EXPECT_EQ(time.now_ms, 47100u);  // 3100 of doubling backoff, then 22 x 2000
}

TEST(RetryingTransportTest, ExactlyOnceCallKeepsItsNumberInEveryAttempt) {
  // Every attempt of one exactly-once call carries the client id and the same request number; the
  // next call gets a higher number; other calls carry none.
  ScriptedTransport inner({RpcError::Of(ErrorKind::kTimeout, "lost answer"),
                           RpcError::Of(ErrorKind::kTransport, "reset")});
  RetryingTransport transport(inner, RetryPolicy{}, [](std::uint32_t) {}, nullptr, "client-a");
  CallOptions exactly_once;
  exactly_once.exactly_once = true;
  transport.Call(ServiceAddress{}, CallRequest{}, exactly_once);
  transport.Call(ServiceAddress{}, CallRequest{}, exactly_once);
  transport.Call(ServiceAddress{}, CallRequest{}, Idempotent(true));
  ASSERT_EQ(inner.numbers.size(), 5u);
  EXPECT_NE(inner.numbers[0], 0u);
  EXPECT_EQ(inner.numbers[1], inner.numbers[0]);
  EXPECT_EQ(inner.numbers[2], inner.numbers[0]);
  EXPECT_GT(inner.numbers[3], inner.numbers[0]);
  EXPECT_EQ(inner.numbers[4], 0u);
  EXPECT_EQ(inner.client_ids[0], "client-a");
  EXPECT_EQ(inner.client_ids[4], "");
}

TEST(RetryingTransportTest, TheAddressIsLookedUpBeforeEveryAttemptAndForgottenAfterARefusal) {
  // A server back at another address is found: each attempt asks the lookup, and a refused attempt
  // forgets the address first (a timeout does not: the server may only be slow).
  ScriptedTransport inner({RpcError::Of(ErrorKind::kTransport, "refused"),
                           RpcError::Of(ErrorKind::kTimeout, "no answer")});
  RetryingTransport transport(inner, RetryPolicy{}, [](std::uint32_t) {});
  std::vector<std::string> events;
  ServiceLookup lookup{[&] {
                         events.push_back("resolve");
                         return ServiceAddress{"host", 1};
                       },
                       [&] { events.push_back("forget"); }};
  EXPECT_EQ(transport.CallService(lookup, CallRequest{}, Idempotent(true)).data, "answer");
  EXPECT_EQ(events, (std::vector<std::string>{"resolve", "forget", "resolve", "resolve"}));
}

TEST(RetryingTransportTest, ACallMadeByTheLookupIsNotRetriedOnItsOwnSoWindowsDoNotNest) {
  // The lookup's DIR call goes through the same transport; while the DIR is down it fails once per
  // attempt of the outer call, and the outer window alone bounds the whole call.
  ScriptedTransport dir(Refusals(1000));
  FakeTime time{0, std::vector<std::uint32_t>()};
  RetryPolicy policy;
  policy.retry_window_ms = 10000;
  RetryingTransport transport(dir, policy, time.Sleep(), time.Now());
  int lookups = 0;
  ServiceLookup lookup{[&] {
                         ++lookups;
                         transport.Call(ServiceAddress{"dir", 1}, CallRequest{}, Idempotent(true));
                         return ServiceAddress{"osd", 2};
                       },
                       nullptr};
  EXPECT_THROW(transport.CallService(lookup, CallRequest{}, Idempotent(true)), RpcError);
  EXPECT_EQ(dir.calls, lookups);
  EXPECT_EQ(time.now_ms, 10000u);
  // Outside a lookup the same call is retried for its own window.
  ScriptedTransport dir_again(Refusals(3));
  RetryingTransport plain(dir_again, policy, [](std::uint32_t) {});
  EXPECT_EQ(plain.Call(ServiceAddress{"dir", 1}, CallRequest{}, Idempotent(true)).data, "answer");
  EXPECT_EQ(dir_again.calls, 4);
}

TEST(RetryingTransportTest, AnAsynchronousAttemptsLookupIsNotRetriedOnItsOwnEither) {
  // One asynchronous attempt (never retried, Transport::CallServiceAsync) whose lookup asks a DIR
  // that is down: the DIR gets one call and the attempt fails at once, so the caller's synchronous
  // repeat (FileHandle::CallStripeOsd) holds the only window. Before, the lookup's DIR call had a
  // window of its own: the calling thread waited it out before the attempt was even sent, and the
  // caller's repeat began a second one.
  ScriptedTransport dir(Refusals(1000));
  FakeTime time{0, std::vector<std::uint32_t>()};
  RetryPolicy policy;
  policy.retry_window_ms = 10000;
  RetryingTransport transport(dir, policy, time.Sleep(), time.Now());
  ServiceLookup lookup{[&] {
                         transport.Call(ServiceAddress{"dir", 1}, CallRequest{}, Idempotent(true));
                         return ServiceAddress{"osd", 2};
                       },
                       nullptr};
  int done_calls = 0;
  std::exception_ptr failure;
  transport.CallServiceAsync(lookup, CallRequest{}, Idempotent(true),
                             [&](CallResponse, std::exception_ptr error) {
                               ++done_calls;
                               failure = error;
                             });
  EXPECT_EQ(done_calls, 1);
  EXPECT_NE(failure, nullptr);
  EXPECT_EQ(dir.calls, 1);
  EXPECT_TRUE(time.sleeps_ms.empty());
  EXPECT_EQ(time.now_ms, 0u);
}

// An OSD on the fake clock whose first `slow_attempts` calls (an fsync forcing thousands of objects)
// take longer than the call's timeout, so each attempt ends in a timeout after timeout_ms; later
// calls answer. Its pings answer at once while it is alive; a stopped one leaves them unanswered too.
class SlowOsd : public Transport {
 public:
  SlowOsd(FakeTime& time, int slow_attempts, bool alive)
      : time_(time), slow_attempts_(slow_attempts), alive_(alive) {}

  CallResponse Call(const ServiceAddress&, const CallRequest& request,
                    const CallOptions& options) override {
    if (request.procedure_id == xtreemfs::osd::OSD_PING) {
      ++pings;
      if (alive_) return CallResponse{};
      time_.now_ms += options.timeout_ms;
      throw RpcError::Of(ErrorKind::kTimeout, "ping: no response");
    }
    if (++calls <= slow_attempts_) {
      time_.now_ms += options.timeout_ms;
      throw RpcError::Of(ErrorKind::kTimeout,
                         "no response within " + std::to_string(options.timeout_ms) + " ms");
    }
    return CallResponse{"", "forced"};
  }

  int calls = 0;
  int pings = 0;

 private:
  FakeTime& time_;
  int slow_attempts_;
  bool alive_;
};

CallRequest Fsync() {
  CallRequest request;
  request.interface_id = xtreemfs::osd::OSD_INTERFACE_ID;
  request.procedure_id = xtreemfs::osd::OSD_FSYNC;
  return request;
}

CallOptions IdempotentWithTimeout(std::uint32_t timeout_ms) {
  CallOptions options = Idempotent(true);
  options.timeout_ms = timeout_ms;
  return options;
}

// The timeout an idempotent fsync with `timeout_ms` per attempt ends in (a test failure if it succeeds).
RpcError TimeoutOfFsync(RetryingTransport& transport, std::uint32_t timeout_ms) {
  try {
    transport.Call(ServiceAddress{}, Fsync(), IdempotentWithTimeout(timeout_ms));
  } catch (const RpcError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::kTimeout);
    EXPECT_EQ(error.posix_errno(), ETIMEDOUT);
    return error;
  }
  ADD_FAILURE() << "expected a timeout";
  return RpcError::Of(ErrorKind::kInternal, "no error");
}

TEST(RetryingTransportTest, AnFsyncOfAnAliveServerLongerThanTheWindowIsWaitedFor) {
  // The default window (60 s) holds two 30 s attempts; this fsync needs 4 x 30 s. The OSD answers
  // every ping, so it is slow, not gone: the call goes on without backoff and then succeeds.
  FakeTime time{0, {}};
  SlowOsd osd(time, 4, true);
  RetryingTransport transport(osd, RetryPolicy{}, time.Sleep(), time.Now());
  EXPECT_EQ(transport.Call(ServiceAddress{}, Fsync(), IdempotentWithTimeout(30000)).data, "forced");
  EXPECT_EQ(osd.calls, 5);
  EXPECT_EQ(osd.pings, 4);
  EXPECT_EQ(time.now_ms, 450000u);  // attempts of 30, 60, 120, 240 s: each repeat waits twice as long
  EXPECT_TRUE(time.sleeps_ms.empty());
}

TEST(RetryingTransportTest, AttemptsOfAnAliveServerDoNotCountAgainstTheRetriesCap) {
  // --timeout-ms 3000 --retries 1 (two attempts) on a loaded machine: a write that needs three
  // 3 s attempts to an OSD that answers its pings still succeeds.
  FakeTime time{0, {}};
  SlowOsd osd(time, 3, true);
  RetryPolicy policy;
  policy.attempts_max = 2;
  RetryingTransport transport(osd, policy, time.Sleep(), time.Now());
  EXPECT_EQ(transport.Call(ServiceAddress{}, Fsync(), IdempotentWithTimeout(3000)).data, "forced");
  EXPECT_EQ(osd.calls, 4);
}

TEST(RetryingTransportTest, AStoppedServerStillFailsOnceTheWindowIsOver) {
  // Neither the call nor the ping is answered: every attempt and its ping use up the window, and the
  // caller gets the timeout between the window and the window plus two timeouts after the start.
  FakeTime time{0, {}};
  SlowOsd osd(time, 1000, false);
  RetryPolicy policy;
  policy.retry_window_ms = 10000;
  RetryingTransport transport(osd, policy, time.Sleep(), time.Now());
  TimeoutOfFsync(transport, 3000);
  // Attempt 0-3 s, ping 3-6 s, backoff 0.1 s, attempt 6.1-9.1 s, ping 9.1-12.1 s: past 10 s.
  EXPECT_EQ(osd.calls, 2);
  EXPECT_EQ(osd.pings, 2);
  EXPECT_EQ(time.now_ms, 12100u);
  // The same with --retries 1: the cap counts these attempts.
  FakeTime capped_time{0, {}};
  SlowOsd capped_osd(capped_time, 1000, false);
  policy.attempts_max = 2;
  RetryingTransport capped(capped_osd, policy, capped_time.Sleep(), capped_time.Now());
  EXPECT_THROW(capped.Call(ServiceAddress{}, Fsync(), IdempotentWithTimeout(3000)), RpcError);
  EXPECT_EQ(capped_osd.calls, 2);
}

TEST(RetryingTransportTest, AnAliveServerThatNeverAnswersFailsAtTheSlowServerLimit) {
  // A server that answers pings but never the call (a hung disk) is not waited for forever.
  FakeTime time{0, {}};
  SlowOsd osd(time, 1000, true);
  RetryPolicy policy;
  policy.slow_server_wait_max_ms = 100000;
  RetryingTransport transport(osd, policy, time.Sleep(), time.Now());
  const std::string message = TimeoutOfFsync(transport, 30000).what();
  EXPECT_NE(message.find("answered its pings"), std::string::npos) << message;
  EXPECT_EQ(osd.calls, 3);  // 30 + 60 + 100 s (doubling, capped at the limit) reach the 100 s limit
  EXPECT_EQ(time.now_ms, 190000u);
}

TEST(RetryingTransportTest, WithoutASlowServerLimitATimeoutAlwaysCountsAgainstTheWindow) {
  // slow_server_wait_max_ms 0 (--slow-server-wait-ms 0): no pings, the window alone decides.
  FakeTime time{0, {}};
  SlowOsd osd(time, 4, true);
  RetryPolicy policy;
  policy.slow_server_wait_max_ms = 0;
  RetryingTransport transport(osd, policy, time.Sleep(), time.Now());
  EXPECT_THROW(transport.Call(ServiceAddress{}, Fsync(), IdempotentWithTimeout(30000)), RpcError);
  EXPECT_EQ(osd.calls, 2);
  EXPECT_EQ(osd.pings, 0);
}

TEST(RetryingTransportTest, AReplicatedFilesCallIsRepeatedOnlyWhileItsServerIsSlowButAlive) {
  // The chain logic reports a member that gives no answer; the transport must not hide that, nor
  // report a member that is only slow.
  CallOptions options = IdempotentWithTimeout(30000);
  options.repeat_only_while_alive = true;
  FakeTime time{0, {}};
  SlowOsd slow(time, 2, true);
  RetryingTransport transport(slow, RetryPolicy{}, time.Sleep(), time.Now());
  EXPECT_EQ(transport.Call(ServiceAddress{}, Fsync(), options).data, "forced");
  EXPECT_EQ(slow.calls, 3);
  SlowOsd stopped(time, 1000, false);
  RetryingTransport to_stopped(stopped, RetryPolicy{}, time.Sleep(), time.Now());
  EXPECT_THROW(to_stopped.Call(ServiceAddress{}, Fsync(), options), RpcError);
  EXPECT_EQ(stopped.calls, 1);
  EXPECT_EQ(stopped.pings, 1);
  ScriptedTransport refusing(Refusals(3));
  RetryingTransport to_refusing(refusing, RetryPolicy{}, time.Sleep(), time.Now());
  EXPECT_THROW(to_refusing.Call(ServiceAddress{}, Fsync(), options), RpcError);
  EXPECT_EQ(refusing.calls, 1);
}

TEST(RetryingTransportTest, ARequestTheServerDroppedPastItsDeadlineIsSentAgain) {
  // The OSD's and MRC's ETIMEDOUT answer for work that waited in their queues past the caller's
  // deadline (not executed) is a slow server's answer, even when it beats the caller's own timeout.
  ScriptedTransport inner({RpcError::Errno(ETIMEDOUT, "request waited 3100 ms in the OSD's queues"),
                           RpcError::Errno(ETIMEDOUT, "request waited 3050 ms in the OSD's queues")});
  RetryPolicy policy;
  policy.attempts_max = 1;  // --retries 0: these do not count
  RetryingTransport transport(inner, policy, [](std::uint32_t) {});
  EXPECT_EQ(transport.Call(ServiceAddress{}, Fsync(), Idempotent(true)).data, "answer");
  EXPECT_EQ(inner.calls, 3);
  // A call that may not be repeated still gets the answer.
  ScriptedTransport once({RpcError::Errno(ETIMEDOUT, "waited")});
  RetryingTransport plain(once, policy, [](std::uint32_t) {});
  EXPECT_THROW(plain.Call(ServiceAddress{}, Fsync(), Idempotent(false)), RpcError);
  EXPECT_EQ(once.calls, 1);
}

TEST(RetryingTransportTest, EveryServerKindHasItsPingAndOtherInterfacesAreNotPinged) {
  EXPECT_EQ(RetryingTransport::PingProcedureOf(xtreemfs::osd::OSD_INTERFACE_ID),
            static_cast<std::uint32_t>(xtreemfs::osd::OSD_PING));
  EXPECT_NE(RetryingTransport::PingProcedureOf(20001), 0u);  // MRC
  EXPECT_NE(RetryingTransport::PingProcedureOf(10001), 0u);  // DIR
  EXPECT_EQ(RetryingTransport::PingProcedureOf(0), 0u);
}

TEST(RetryingTransportTest, GeneratedClientIdsDifferAndFitTheWire) {
  const std::string a = RetryingTransport::NewClientId();
  const std::string b = RetryingTransport::NewClientId();
  EXPECT_NE(a, b);
  EXPECT_LE(a.size(), 128u);
}

}  // namespace
}  // namespace xtreemfs::rpc
