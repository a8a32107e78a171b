// RPC client over TCP, or TLS (OpenSSL through asio's ssl::stream), with the record framing of
// record.h. TLS or plain TCP per server, by the address's scheme (what the server registered at the
// DIR, or the volume URL gave); a TLS server called by a client without TLS options fails at once
// with kAuthFailed naming the server. One connection per server address and scheme, shared by all
// calls and threads; a closed connection is replaced on the next call. Calls are synchronous for
// the caller (CallServiceAsync: completed on the io thread of the connection); `io_threads` threads
// run the socket work, each connection on one of them (assigned in turn as connections open), so the
// answers of different servers are received, decoded and completed in parallel.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "rpc/record.h"
#include "rpc/tls_options.h"
#include "rpc/transport.h"

namespace asio {
class io_context;
namespace ssl {
class context;
}
}

namespace xtreemfs::rpc {

struct RpcClientOptions {
  TlsOptions tls;
  FrameLimits frame_limits;
  std::uint32_t connect_timeout_ms = 5000;
  // Calls waiting for an answer on one connection; one more fails at once with OVERLOADED (EAGAIN)
  // instead of queueing without bound.
  std::uint32_t pending_calls_per_connection_max = 4096;
  // Threads running the connections' socket work; connection k (in opening order) is served by
  // thread k mod io_threads, which also runs its asynchronous calls' completions. At least 1.
  std::uint32_t io_threads = 1;
  // Connections of one thread to one server for its synchronous calls (CallOptions::
  // callers_own_connection), in all; calls past them take the shared connection.
  std::uint32_t own_connections_max = 64;
};

class Connection;
class OwnConnection;

// Invariants: every Call returns or throws at the latest timeout_ms after it started (plus the time
// to encode, and to close its connection when it timed out in the middle of sending); every pending
// call is completed exactly once (response, error, close or timeout). A call that timed out sends
// nothing more once its timeout is reported: its record is taken out of the send queue when none of
// it was written, and its connection is reset when part of it was (the server drops a cut record;
// the connection's other calls fail as on any close), so a retry, on this connection or a new one,
// is never followed by the stale attempt's bytes from this client.
class RpcClient : public Transport {
 public:
  // Throws RpcError(EINVAL) naming the file when TLS files cannot be loaded.
  explicit RpcClient(RpcClientOptions options = RpcClientOptions());
  ~RpcClient() override;
  RpcClient(const RpcClient&) = delete;
  RpcClient& operator=(const RpcClient&) = delete;

  // Sends one request and waits for its answer. Does not retry (see RetryingTransport).
  CallResponse Call(const ServiceAddress& address, const CallRequest& request,
                    const CallOptions& options) override;

  // Sends one request and returns; `done` runs on the io thread with the answer, the error or the
  // timeout after options.timeout_ms (or on the calling thread when the request cannot be sent).
  // The address is looked up once; does not retry.
  void CallServiceAsync(const ServiceLookup& lookup, const CallRequest& request,
                        const CallOptions& options, CallDone done) override;
  // Connections opened so far (including replaced ones); lets tests observe reuse and reconnects.
  std::uint64_t ConnectionsOpened() const { return connections_opened_.load(); }
  // Calls sent (their records queued for the io thread) and not yet answered, failed or timed out.
  std::size_t CallsWaiting();
  // Runs `task` on the first io thread (the only one with io_threads 1) after the work queued so far.
  // Tests hold the io thread with it to put socket events and calls into a chosen order; `task` must
  // not call this client.
  void RunOnIoThread(std::function<void()> task);

 private:
  std::shared_ptr<Connection> ConnectionTo(const ServiceAddress& address);
  // Throws kAuthFailed when the address speaks TLS and this client has no TLS configuration.
  void RequireTransportFor(const ServiceAddress& address) const;
  // The encoded record of a request (call id `call_id`); throws EINVAL for oversized data.
  std::shared_ptr<const OutgoingRecord> EncodeCall(std::uint64_t call_id, const CallRequest& request,
                                                   const CallOptions& options) const;

  RpcClientOptions options_;
  std::unique_ptr<asio::ssl::context> tls_context_;  // null: no TLS options, plain TCP only
  std::vector<std::unique_ptr<asio::io_context>> io_contexts_;  // one per io thread
  std::vector<std::thread> io_threads_;
  std::atomic<std::uint64_t> next_call_id_{1};
  std::atomic<std::uint64_t> connections_opened_{0};
  std::mutex connections_mutex_;
  std::map<ServiceAddress, std::shared_ptr<Connection>> connections_;  // guarded by connections_mutex_
  // The calling thread's connection to `address` for CallOptions::callers_own_connection; null when
  // the address cannot have one (TLS, a host name) or own_connections_max are taken.
  OwnConnection* OwnConnectionTo(const ServiceAddress& address);
  std::mutex own_connections_mutex_;
  // Never removed before the client ends (a thread's connection is used by it alone, without the
  // lock); bounded by own_connections_max. Guarded by own_connections_mutex_.
  std::map<std::pair<std::thread::id, ServiceAddress>, std::unique_ptr<OwnConnection>> own_connections_;
};

}  // namespace xtreemfs::rpc
