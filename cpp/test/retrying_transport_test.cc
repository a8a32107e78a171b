#include "rpc/retrying_transport.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <deque>
#include <vector>

namespace xtreemfs::rpc {
namespace {

// Fails with the scripted errors in order, then answers.
class ScriptedTransport : public Transport {
 public:
  explicit ScriptedTransport(std::deque<RpcError> failures) : failures_(std::move(failures)) {}

  CallResponse Call(const ServiceAddress&, const CallRequest&, const CallOptions&) override {
    ++calls;
    if (!failures_.empty()) {
      RpcError error = failures_.front();
      failures_.pop_front();
      throw error;
    }
    return CallResponse{"", "answer"};
  }

  int calls = 0;

 private:
  std::deque<RpcError> failures_;
};

CallOptions Idempotent(bool idempotent) {
  CallOptions options;
  options.idempotent = idempotent;
  return options;
}

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

}  // namespace
}  // namespace xtreemfs::rpc
