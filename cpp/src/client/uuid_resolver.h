// Resolves service UUIDs (MRC, OSDs) to addresses through the DIR's address mappings, caching each
// answer for a TTL, like the Java foundation.stubs.UuidResolver.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "client/clock.h"
#include "rpc/transport.h"

namespace xtreemfs::client {

class UuidResolver {
 public:
  // Bounds the cache: when full, expired entries are dropped, and if none expired, all are.
  static constexpr std::size_t kCacheEntriesMax = 4096;

  UuidResolver(rpc::Transport& transport, rpc::ServiceAddress dir_address, std::uint32_t cache_ttl_ms,
               Clock& clock, rpc::CallOptions call_options);

  // The address of `uuid` from its first mapping of a scheme RpcClient speaks (pbrpc or pbrpcs),
  // with that scheme. Throws RpcError(ENOENT) naming the UUID when the DIR knows no such mapping
  // for it, or the DIR's error.
  rpc::ServiceAddress Resolve(const std::string& uuid);
  // Forgets a cached address, e.g. after a connection to it failed.
  void Invalidate(const std::string& uuid);

  const rpc::ServiceAddress& dir_address() const { return dir_address_; }

 private:
  struct Entry {
    rpc::ServiceAddress address;
    std::int64_t expires_monotonic_ms;
  };

  rpc::Transport& transport_;
  const rpc::ServiceAddress dir_address_;
  const std::uint32_t cache_ttl_ms_;
  Clock& clock_;
  const rpc::CallOptions call_options_;
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> cache_;  // guarded by mutex_; size <= kCacheEntriesMax
};

// Credentials the client uses towards the DIR, the same as the Java stubs.
const xtreemfs::rpc::UserCredentials& DirCredentials();

}  // namespace xtreemfs::client
