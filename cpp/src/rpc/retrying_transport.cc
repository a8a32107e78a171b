#include "rpc/retrying_transport.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace xtreemfs::rpc {

RetryingTransport::RetryingTransport(Transport& inner, RetryPolicy policy, SleepFunction sleep)
    : inner_(inner), policy_(policy), sleep_(std::move(sleep)) {
  policy_.attempts_max = std::max<std::uint32_t>(policy_.attempts_max, 1);
  if (!sleep_) {
    sleep_ = [](std::uint32_t duration_ms) {
      std::this_thread::sleep_for(std::chrono::milliseconds(duration_ms));
    };
  }
}

CallResponse RetryingTransport::Call(const ServiceAddress& address, const CallRequest& request,
                                     const CallOptions& options) {
  std::uint32_t backoff_ms = policy_.backoff_initial_ms;
  for (std::uint32_t attempt = 1;; ++attempt) {
    try {
      return inner_.Call(address, request, options);
    } catch (const RpcError& error) {
      if (!options.idempotent || !error.IsTransient() || attempt >= policy_.attempts_max) {
        throw;
      }
    }
    sleep_(backoff_ms);
    backoff_ms = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(policy_.backoff_max_ms, std::uint64_t{backoff_ms} * 2));
  }
}

}  // namespace xtreemfs::rpc
