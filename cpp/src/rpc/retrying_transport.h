// Retries of calls that may be repeated (idempotent, or exactly-once through the server's outcome
// record) after transient errors (no answer, connection refused or reset, OVERLOADED), for as long as
// a server restart may take: every attempt starts within `retry_window_ms` of the first, with a
// doubling backoff capped at `backoff_max_ms`. Answers (errno, redirect, auth, internal errors) and
// calls that may not be repeated pass through unchanged.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "rpc/transport.h"

namespace xtreemfs::rpc {

struct RetryPolicy {
  // Total attempts including the first; 0: no cap, the window alone decides (mount option --retries).
  std::uint32_t attempts_max = 0;
  std::uint32_t backoff_initial_ms = 100;
  std::uint32_t backoff_max_ms = 2000;
  // A retry starts only within this many ms of the first attempt; a server that is back within it
  // (a JVM restart) costs the caller a pause, not an error (mount option --retry-window-ms).
  std::uint32_t retry_window_ms = 60000;
};

class RetryingTransport : public Transport {
 public:
  using SleepFunction = std::function<void(std::uint32_t duration_ms)>;
  using NowFunction = std::function<std::uint64_t()>;  // monotonic milliseconds

  // `sleep` and `now_ms` are the seams tests replace to run without real waiting; the defaults sleep
  // the thread and read the steady clock. `client_id` names this client in exactly-once requests
  // (unique per process: NewClientId()).
  RetryingTransport(Transport& inner, RetryPolicy policy, SleepFunction sleep = nullptr,
                    NowFunction now_ms = nullptr, std::string client_id = NewClientId());

  // Worst-case duration: retry_window_ms plus one attempt's timeout_ms (an attempt started inside
  // the window runs to its own timeout). An exactly-once call gets the next request number of this
  // client, the same in every attempt.
  CallResponse Call(const ServiceAddress& address, const CallRequest& request,
                    const CallOptions& options) override;
  // Like Call, with the address looked up before every attempt; a lookup's own failure (the DIR
  // unreachable) counts as the attempt's. A call made by the lookup through this transport (the
  // DIR_ADDRESS_MAPPINGS_GET of a UUID resolver) gets a single attempt, because this loop repeats
  // it: retry windows never nest, so the worst-case duration above holds.
  CallResponse CallService(const ServiceLookup& lookup, const CallRequest& request,
                           const CallOptions& options) override;

  // One attempt, as the Transport contract says: the caller repeats a failed call synchronously
  // (CallService) to get the retry window. Exactly-once calls take the synchronous path at once,
  // since they need a request number.
  void CallServiceAsync(const ServiceLookup& lookup, const CallRequest& request,
                        const CallOptions& options, CallDone done) override {
    if (options.exactly_once) {
      Transport::CallServiceAsync(lookup, request, options, std::move(done));
    } else {
      inner_.CallServiceAsync(lookup, request, options, std::move(done));
    }
  }

  const std::string& client_id() const { return client_id_; }

  // "cpp-<host>-<pid>-<random>": unique per process, at most 128 bytes.
  static std::string NewClientId();

 private:
  Transport& inner_;
  RetryPolicy policy_;
  SleepFunction sleep_;
  NowFunction now_ms_;
  std::string client_id_;
  std::atomic<std::uint64_t> next_request_number_{1};
};

}  // namespace xtreemfs::rpc
