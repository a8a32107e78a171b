// The seam between the client core and the network: one synchronous call to one service. The real
// implementation is RpcClient; tests substitute in-memory fakes of the DIR, MRC and OSDs.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>

#include <google/protobuf/message_lite.h>

#include "rpc.pb.h"
#include "rpc/rpc_error.h"
#include "rpc/scheme.h"

namespace xtreemfs::rpc {

// A server's RPC address and the scheme its port speaks (from its DIR mapping or the volume URL).
struct ServiceAddress {
  std::string host;
  std::uint16_t port = 0;
  Scheme scheme = Scheme::kPlain;

  // "host:port" ("[v6]:port").
  std::string ToString() const;
  // "scheme://host:port", e.g. "pbrpcs://10.0.0.2:32640".
  std::string ToUrl() const;
  bool operator==(const ServiceAddress& other) const {
    return host == other.host && port == other.port && scheme == other.scheme;
  }
  bool operator<(const ServiceAddress& other) const {
    return std::tie(host, port, scheme) < std::tie(other.host, other.port, other.scheme);
  }
};

struct CallOptions {
  std::uint32_t timeout_ms = 30000;  // per attempt; also sent to the server as the caller's deadline
  // Repeating the call cannot change its outcome (reads, lookups, writes of the same bytes). Only
  // idempotent calls are retried after a transient error.
  bool idempotent = false;
  // The server answers a repeat of an applied request with the outcome it recorded (the MRC's
  // exactly-once requests): RetryingTransport numbers such a call and retries it like an idempotent one.
  bool exactly_once = false;
  // With `idempotent`: the transport repeats the call only after a timeout whose server then answers
  // its ping (slow, not dead: RetryingTransport); every other transient error reaches the caller at
  // once. A replicated file's OSD calls: a member that gives no answer is the chain logic's to report
  // (client::FileHandle::CallStripeOsd), but a member that is only slow must not be reported.
  bool repeat_only_while_alive = false;
  // A server's ERRNO answer comes back in CallResponse::errno_answer instead of as a thrown RpcError.
  // For answers that are a normal outcome, not a failure: a lookup's ENOENT (every create's lookup
  // of its new name) cost the mount two C++ exceptions, whose unwinding (`_Unwind_Find_FDE`) was
  // among the top frames of its create profile. Other errors are thrown as before.
  bool errno_as_value = false;
  // The calling thread sends the call and receives its answer itself, on a plain-TCP connection of
  // its own to the server (RpcClient; TLS addresses and host names take the shared connection): no
  // hand-over of the answer from the io thread. For short calls whose caller waits for them anyway
  // (the mount's MRC calls); not for a thread's many calls at once (they would not share a segment).
  bool callers_own_connection = false;
};

struct CallRequest {
  std::uint32_t interface_id = 0;
  std::uint32_t procedure_id = 0;
  const xtreemfs::rpc::UserCredentials* credentials = nullptr;  // null: empty credentials
  const google::protobuf::MessageLite* message = nullptr;       // null: empty message
  std::string_view data;                                        // raw data segment (object bytes)
  // Keeps `data` alive (may be null): then a large data segment is sent from the caller's buffer
  // instead of being copied into the encoded record (EncodeOutgoingRecord). The owner is held until
  // the record is sent, or until the call ended without its answer (a timeout): then a record not
  // yet begun is taken out of the send queue, and one partly sent closes its connection (RpcClient),
  // so a stale request never follows the caller's retry and the owner is not held for a server that
  // stopped reading.
  std::shared_ptr<const void> data_owner;
  // Set by RetryingTransport for exactly-once calls (RequestHeader.client_id/request_number): a view
  // of the transport's own id, which outlives every call (a copy per call was a malloc and free of
  // its 40-odd bytes on every change the mount sent to the MRC).
  std::string_view client_id;
  std::uint64_t request_number = 0;
};

struct CallResponse {
  std::string message_bytes;
  std::string data;
  // With CallOptions::errno_as_value: the errno of the server's ERRNO answer (0: a response) and
  // its message; message_bytes and data are then empty.
  int errno_answer = 0;
  std::string errno_message{};
};

// A service named by its UUID rather than by an address: `resolve` looks its address up (the UUID
// cache, the DIR when the cached address expired or was forgotten) and `forget` (may be empty) drops
// the cached address after an attempt could not reach it, so the next lookup asks the DIR again.
struct ServiceLookup {
  std::function<ServiceAddress()> resolve;
  std::function<void()> forget;
};

// The end of an asynchronous call: its response, or (error set) the RpcError it failed with.
using CallDone = std::function<void(CallResponse response, std::exception_ptr error)>;

class Transport {
 public:
  virtual ~Transport() = default;
  // Returns the response or throws RpcError (server error, transport failure or timeout).
  // Thread-safe.
  virtual CallResponse Call(const ServiceAddress& address, const CallRequest& request,
                            const CallOptions& options) = 0;
  // Calls the service `lookup` finds. This default looks the address up once and forgets it after a
  // transport failure; RetryingTransport looks it up before every attempt, so a server that came
  // back at another address (a new port) is found within the retry window.
  virtual CallResponse CallService(const ServiceLookup& lookup, const CallRequest& request,
                                   const CallOptions& options) {
    const ServiceAddress address = lookup.resolve();
    try {
      return Call(address, request, options);
    } catch (const RpcError& error) {
      if (error.kind() == ErrorKind::kTransport && lookup.forget) lookup.forget();
      throw;
    }
  }
  // Starts one attempt of the call and returns; `done` runs exactly once: on the transport's io
  // thread when the answer arrives, the call fails or times out (RpcClient), or on the calling
  // thread before this returns. `done` must not block. `lookup` is used before this returns only.
  // Never retried: a caller that wants the retry window repeats a failed call synchronously. This
  // default makes the synchronous call (fakes in tests).
  virtual void CallServiceAsync(const ServiceLookup& lookup, const CallRequest& request,
                                const CallOptions& options, CallDone done) {
    CallResponse response;
    std::exception_ptr error;
    try {
      response = CallService(lookup, request, options);
    } catch (...) {
      error = std::current_exception();
    }
    done(std::move(response), error);
  }
};

// Parses a response message; an unparseable one is an INTERNAL error (EIO) naming the type.
template <typename Message>
Message ParseResponse(const CallResponse& response) {
  Message message;
  if (!message.ParseFromString(response.message_bytes)) {
    throw RpcError::Of(ErrorKind::kInternal,
                       "unparseable " + message.GetTypeName() + " response of " +
                           std::to_string(response.message_bytes.size()) + " bytes");
  }
  return message;
}

}  // namespace xtreemfs::rpc
