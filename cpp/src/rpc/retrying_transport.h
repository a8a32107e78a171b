// Bounded retries of idempotent calls after transient errors (no answer, OVERLOADED), with
// exponential backoff. Non-idempotent calls and final errors pass through unchanged.
#pragma once

#include <cstdint>
#include <functional>

#include "rpc/transport.h"

namespace xtreemfs::rpc {

struct RetryPolicy {
  std::uint32_t attempts_max = 3;  // total attempts including the first; at least 1
  std::uint32_t backoff_initial_ms = 100;
  std::uint32_t backoff_max_ms = 2000;
};

class RetryingTransport : public Transport {
 public:
  using SleepFunction = std::function<void(std::uint32_t duration_ms)>;

  // `sleep` is the seam tests replace to run without real waiting; the default sleeps the thread.
  RetryingTransport(Transport& inner, RetryPolicy policy, SleepFunction sleep = nullptr);

  // Worst-case duration: attempts_max * timeout_ms plus the backoffs.
  CallResponse Call(const ServiceAddress& address, const CallRequest& request,
                    const CallOptions& options) override;

 private:
  Transport& inner_;
  RetryPolicy policy_;
  SleepFunction sleep_;
};

}  // namespace xtreemfs::rpc
