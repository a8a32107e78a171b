#include "rpc/retrying_transport.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "dir.pb.h"
#include "mrc.pb.h"
#include "osd.pb.h"

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

void RetryingTransport::CallServiceAsync(const ServiceLookup& lookup, const CallRequest& request,
                                         const CallOptions& options, CallDone done) {
  if (options.exactly_once) {
    Transport::CallServiceAsync(lookup, request, options, std::move(done));
    return;
  }
  // By reference (the lookup is used only before the inner call returns): two pointers each, which
  // std::function holds without allocating, on the path of every O_DIRECT request.
  const ServiceLookup single_attempt{
      [this, &lookup] {
        LookupScope scope(this);
        return lookup.resolve();
      },
      lookup.forget ? std::function<void()>([&lookup] { lookup.forget(); }) : nullptr};
  inner_.CallServiceAsync(single_attempt, request, options, std::move(done));
}

std::uint32_t RetryingTransport::PingProcedureOf(std::uint32_t interface_id) {
  switch (interface_id) {
    case xtreemfs::osd::OSD_INTERFACE_ID: return xtreemfs::osd::OSD_PING;
    case xtreemfs::mrc::MRC_INTERFACE_ID: return xtreemfs::mrc::MRC_PING;
    case xtreemfs::dir::DIR_INTERFACE_ID: return xtreemfs::dir::DIR_PING;
    default: return 0;
  }
}

bool RetryingTransport::AnswersPing(const ServiceAddress& address, std::uint32_t interface_id,
                                    std::uint32_t timeout_ms) {
  CallRequest ping;
  ping.interface_id = interface_id;
  ping.procedure_id = PingProcedureOf(interface_id);
  if (ping.procedure_id == 0) return false;
  CallOptions options;
  options.timeout_ms = timeout_ms;
  try {
    inner_.Call(address, ping, options);
    return true;
  } catch (const RpcError& error) {
    // Any answer came from a live server; only no answer at all says it may be gone.
    return error.kind() != ErrorKind::kTransport && error.kind() != ErrorKind::kTimeout;
  }
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
  // Time of attempts whose server answered its ping afterwards (see the header: slow is not dead).
  std::uint64_t alive_ms = 0;
  std::uint32_t backoff_ms = policy_.backoff_initial_ms;
  // Doubled after every attempt an alive server did not answer in time, so a call that takes longer
  // than timeout_ms every time (not only the first: forcing thousands of files) still completes.
  CallOptions attempt_options = options;
  // `attempt` counts the attempts attempts_max caps: not those whose server proved alive.
  for (std::uint32_t attempt = 1;; ++attempt) {
    ServiceAddress address;
    bool resolved = false;
    const std::uint64_t attempt_start_ms = now_ms_();
    try {
      {
        LookupScope scope(this);
        address = lookup.resolve();
      }
      resolved = true;
      return inner_.Call(address, numbered, attempt_options);
    } catch (const RpcError& error) {
      // Refused or reset: the server may be back elsewhere, so the next lookup asks the DIR.
      if (error.kind() == ErrorKind::kTransport && lookup.forget) lookup.forget();
      if (!repeatable || !error.IsTransient()) throw;
      // A request the server dropped past its deadline is an answer (alive), and nothing was
      // applied; the caller's own timeout usually comes first, but under load the answer may win.
      if (policy_.slow_server_wait_max_ms != 0 &&
          (error.WasDroppedPastDeadline() ||
           (error.kind() == ErrorKind::kTimeout && resolved &&
            AnswersPing(address, request.interface_id, options.timeout_ms)))) {
        alive_ms += now_ms_() - attempt_start_ms;
        if (alive_ms >= policy_.slow_server_wait_max_ms) {
          throw RpcError(error.kind(), error.posix_errno(),
                         error.message() + "; the server answered its pings but not this call for " +
                             std::to_string(alive_ms) + " ms in all (slow-server limit " +
                             std::to_string(policy_.slow_server_wait_max_ms) + " ms)");
        }
        // Alive: nothing to wait out, and this attempt does not count; send the call again with twice
        // the time (the server also gets the longer deadline, so it does not drop the repeat).
        attempt_options.timeout_ms = static_cast<std::uint32_t>(std::min<std::uint64_t>(
            std::uint64_t{attempt_options.timeout_ms} * 2,
            std::max(options.timeout_ms, policy_.slow_server_wait_max_ms)));
        --attempt;
        continue;
      }
      if (options.repeat_only_while_alive) throw;
      if (policy_.attempts_max != 0 && attempt >= policy_.attempts_max) throw;
      // The next attempt must start inside the window; a backoff that would end past it is cut to
      // end exactly there, so the last chance is not lost to rounding.
      const std::uint64_t unanswered_ms = now_ms_() - first_attempt_ms - alive_ms;
      if (unanswered_ms >= policy_.retry_window_ms) throw;
      backoff_ms = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(backoff_ms, policy_.retry_window_ms - unanswered_ms));
    }
    sleep_(backoff_ms);
    backoff_ms = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(policy_.backoff_max_ms, std::uint64_t{backoff_ms} * 2));
  }
}

}  // namespace xtreemfs::rpc
