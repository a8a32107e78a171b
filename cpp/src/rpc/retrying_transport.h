// Retries of calls that may be repeated (idempotent, or exactly-once through the server's outcome
// record) after transient errors (no answer, connection refused or reset, OVERLOADED), for as long as
// a server restart may take: every attempt starts within `retry_window_ms` of the first, with a
// doubling backoff capped at `backoff_max_ms`. Answers (errno, redirect, auth, internal errors) and
// calls that may not be repeated pass through unchanged.
//
// Slow is not dead (the one place of this rule): an attempt that got no answer within its timeout is
// followed by a ping of the same server (OSD_PING, MRC_PING, DIR_PING: answered on the server's
// network thread, so they prove it accepts and answers calls without waiting behind its work). A
// server that answers is alive and working (an fsync forcing thousands of objects, a write queued
// behind others on a loaded machine): the attempt's time counts neither against the retry window nor
// as one of `attempts_max`, and the call is sent again at once with twice the previous attempt's
// timeout (so a call that needs longer than timeout_ms every time still completes). Only time in which the server did
// not answer its ping uses up the window, so a dead or stopped server still ends in the last error
// once the window is over, while a slow one is waited for up to `slow_server_wait_max_ms`. An ERRNO
// ETIMEDOUT answer (the OSD's and the MRC's "waited past your deadline in my queue, not executed") is
// the same case: the server is alive and applied nothing.
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
  // How long attempts may go unanswered in all while their server answers its pings (mount option
  // --slow-server-wait-ms): past it the call fails with its last timeout, so a server that is alive
  // but never finishes the call (a hung disk) still ends in an error. 0: no ping, a timeout always
  // counts against the window (a slow server is treated like an unreachable one).
  std::uint32_t slow_server_wait_max_ms = 600000;
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

  // Worst-case duration: retry_window_ms plus slow_server_wait_max_ms plus two timeouts (an attempt
  // started inside the window runs to its own timeout, and its ping waits at most as long). An
  // exactly-once call gets the next request number of this client, the same in every attempt.
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
  // since they need a request number. A call made by the lookup through this transport gets a single
  // attempt here too (as in CallService): a DIR that is down fails the attempt at once, and the
  // caller's synchronous repeat has the one window (with a window of its own, the lookup kept the
  // calling thread, a FUSE worker or a write-behind sender, for a whole window before the attempt
  // was even sent, and the caller's repeat then began a second one).
  void CallServiceAsync(const ServiceLookup& lookup, const CallRequest& request,
                        const CallOptions& options, CallDone done) override;

  const std::string& client_id() const { return client_id_; }

  // The procedure that pings a server of `interface_id` (OSD, MRC, DIR), 0 for an unknown interface
  // (not pinged: its timeouts count against the window as before).
  static std::uint32_t PingProcedureOf(std::uint32_t interface_id);

  // "cpp-<host>-<pid>-<random>": unique per process, at most 128 bytes.
  static std::string NewClientId();

 private:
  // True when the server at `address` answers a ping of `interface_id` within `timeout_ms` (any
  // answer, also an error, proves it alive; no answer, a refused or reset connection do not).
  bool AnswersPing(const ServiceAddress& address, std::uint32_t interface_id,
                   std::uint32_t timeout_ms);

  Transport& inner_;
  RetryPolicy policy_;
  SleepFunction sleep_;
  NowFunction now_ms_;
  std::string client_id_;
  std::atomic<std::uint64_t> next_request_number_{1};
};

}  // namespace xtreemfs::rpc
