#include "rpc/retrying_transport.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

namespace xtreemfs::rpc {

RetryingTransport::RetryingTransport(Transport& inner, RetryPolicy policy, SleepFunction sleep,
                                     NowFunction now_ms, std::string client_id)
    : inner_(inner),
      policy_(policy),
      sleep_(std::move(sleep)),
      now_ms_(std::move(now_ms)),
      client_id_(std::move(client_id)) {
  policy_.backoff_initial_ms = std::max<std::uint32_t>(policy_.backoff_initial_ms, 1);
  policy_.backoff_max_ms = std::max(policy_.backoff_max_ms, policy_.backoff_initial_ms);
  if (!sleep_) {
    sleep_ = [](std::uint32_t duration_ms) {
      std::this_thread::sleep_for(std::chrono::milliseconds(duration_ms));
    };
  }
  if (!now_ms_) {
    now_ms_ = [] {
      return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                            std::chrono::steady_clock::now().time_since_epoch())
                                            .count());
    };
  }
}

std::string RetryingTransport::NewClientId() {
  char host[64] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::random_device random;
  const std::uint64_t salt = (std::uint64_t{random()} << 32) ^ random();
  return "cpp-" + std::string(host) + "-" + std::to_string(getpid()) + "-" + std::to_string(salt);
}

namespace {

// The transport whose CallService is looking up an address on this thread, if any: calls it makes
// from inside that lookup are not retried on their own (see CallService).
thread_local const RetryingTransport* looking_up = nullptr;

// Marks the current thread as looking up for `transport` while it exists (nesting restores the outer).
class LookupScope {
 public:
  explicit LookupScope(const RetryingTransport* transport) : outer_(looking_up) {
    looking_up = transport;
  }
  ~LookupScope() { looking_up = outer_; }
  LookupScope(const LookupScope&) = delete;
  LookupScope& operator=(const LookupScope&) = delete;

 private:
  const RetryingTransport* outer_;
};

}  // namespace

CallResponse RetryingTransport::Call(const ServiceAddress& address, const CallRequest& request,
                                     const CallOptions& options) {
  if (looking_up == this) return inner_.Call(address, request, options);
  return CallService(ServiceLookup{[&address] { return address; }, nullptr}, request, options);
}

CallResponse RetryingTransport::CallService(const ServiceLookup& lookup, const CallRequest& request,
                                            const CallOptions& options) {
  CallRequest numbered = request;
  if (options.exactly_once) {
    numbered.client_id = client_id_;
    numbered.request_number = next_request_number_.fetch_add(1);
  }
  const bool repeatable = options.idempotent || options.exactly_once;
  const std::uint64_t first_attempt_ms = now_ms_();
  std::uint32_t backoff_ms = policy_.backoff_initial_ms;
  for (std::uint32_t attempt = 1;; ++attempt) {
    try {
      ServiceAddress address;
      {
        LookupScope scope(this);
        address = lookup.resolve();
      }
      return inner_.Call(address, numbered, options);
    } catch (const RpcError& error) {
      // Refused or reset: the server may be back elsewhere, so the next lookup asks the DIR.
      if (error.kind() == ErrorKind::kTransport && lookup.forget) lookup.forget();
      if (!repeatable || !error.IsTransient() ||
          (policy_.attempts_max != 0 && attempt >= policy_.attempts_max)) {
        throw;
      }
      // The next attempt must start inside the window; a backoff that would end past it is cut to
      // end exactly there, so the last chance is not lost to rounding.
      const std::uint64_t elapsed_ms = now_ms_() - first_attempt_ms;
      if (elapsed_ms >= policy_.retry_window_ms) throw;
      backoff_ms = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(backoff_ms, policy_.retry_window_ms - elapsed_ms));
    }
    sleep_(backoff_ms);
    backoff_ms = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(policy_.backoff_max_ms, std::uint64_t{backoff_ms} * 2));
  }
}

}  // namespace xtreemfs::rpc
