// Resolves service UUIDs (MRC, OSDs) to addresses through the DIR's address mappings, caching each
// answer for a TTL, like the Java foundation.stubs.UuidResolver.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "client/clock.h"
#include "rpc/rpc_error.h"
#include "rpc/transport.h"

namespace xtreemfs::client {

class UuidResolver {
 public:
  // Bounds the cache: when full, expired entries are dropped, and if none expired, all are.
  static constexpr std::size_t kCacheEntriesMax = 4096;

  // `warn` (may be empty) gets a line for the mount's log when a lookup falls back to a last known
  // address because the DIR did not answer: once per UUID and DIR outage.
  UuidResolver(rpc::Transport& transport, rpc::ServiceAddress dir_address, std::uint32_t cache_ttl_ms,
               Clock& clock, rpc::CallOptions call_options,
               std::function<void(const std::string& message)> warn = nullptr);

  // The address of `uuid` from its first mapping of a scheme RpcClient speaks (pbrpc or pbrpcs),
  // with that scheme. Throws RpcError(ENOENT) naming the UUID when the DIR knows no such mapping
  // for it, or the DIR's error.
  //
  // A DIR that does not answer (refused, reset, no answer in time, OVERLOADED) is no reason to stop
  // calling a server whose address this resolver knew: the address last learnt for `uuid` is returned
  // instead of the error (an expired one is then trusted for another TTL before the DIR is asked again;
  // an invalidated one is asked for again at the next lookup). The DIR is needed only to find servers
  // that moved, so a DIR restart, however long, is no pause for I/O to servers that stayed where they
  // were (a DIR outage longer than the retry window failed buffered writes with EIO before:
  // restart_transparent_e2e.sh at load 33, the DIR back after 88 s). A UUID never resolved still fails.
  rpc::ServiceAddress Resolve(const std::string& uuid);
  // Forgets a cached address, e.g. after a connection to it failed: the next lookup asks the DIR
  // (the address is kept only as the last known one, see Resolve).
  void Invalidate(const std::string& uuid);

  const rpc::ServiceAddress& dir_address() const { return dir_address_; }

 private:
  struct Entry {
    rpc::ServiceAddress address;
    std::int64_t expires_monotonic_ms;  // kInvalidated after Invalidate
    bool dir_outage_warned = false;     // `warn_` was told of the current DIR outage for this UUID
  };
  static constexpr std::int64_t kInvalidated = INT64_MIN;

  // The last known address of `uuid` after the DIR failed with the transient `error`, if any.
  std::optional<rpc::ServiceAddress> LastKnownAfterDirFailure(const std::string& uuid,
                                                              const rpc::RpcError& error);

  rpc::Transport& transport_;
  const rpc::ServiceAddress dir_address_;
  const std::uint32_t cache_ttl_ms_;
  Clock& clock_;
  const rpc::CallOptions call_options_;
  const std::function<void(const std::string& message)> warn_;
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> cache_;  // guarded by mutex_; size <= kCacheEntriesMax
};

// Credentials the client uses towards the DIR, the same as the Java stubs.
const xtreemfs::rpc::UserCredentials& DirCredentials();

}  // namespace xtreemfs::client
