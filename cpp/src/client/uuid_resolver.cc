#include "client/uuid_resolver.h"

#include <cerrno>
#include <optional>

#include "dir.pb.h"

namespace xtreemfs::client {

const xtreemfs::rpc::UserCredentials& DirCredentials() {
  static const xtreemfs::rpc::UserCredentials credentials = [] {
    xtreemfs::rpc::UserCredentials built;
    built.set_username("xtreemfs");
    return built;
  }();
  return credentials;
}

UuidResolver::UuidResolver(rpc::Transport& transport, rpc::ServiceAddress dir_address,
                           std::uint32_t cache_ttl_ms, Clock& clock, rpc::CallOptions call_options,
                           std::function<void(const std::string& message)> warn)
    : transport_(transport),
      dir_address_(std::move(dir_address)),
      cache_ttl_ms_(cache_ttl_ms),
      clock_(clock),
      call_options_(call_options),
      warn_(std::move(warn)) {}

rpc::ServiceAddress UuidResolver::Resolve(const std::string& uuid) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = cache_.find(uuid);
    if (found != cache_.end() && found->second.expires_monotonic_ms > clock_.MonotonicMs()) {
      return found->second.address;
    }
  }
  // The DIR is asked without holding the lock; concurrent misses for one UUID may both ask.
  xtreemfs::dir::AddressMappingsGetRequest request;
  request.set_uuid(uuid);
  rpc::CallRequest call;
  call.interface_id = xtreemfs::dir::DIR_INTERFACE_ID;
  call.procedure_id = xtreemfs::dir::DIR_ADDRESS_MAPPINGS_GET;
  call.credentials = &DirCredentials();
  call.message = &request;
  rpc::CallOptions options = call_options_;
  options.idempotent = true;
  rpc::CallResponse response;
  try {
    response = transport_.Call(dir_address_, call, options);
  } catch (const rpc::RpcError& error) {
    // An answer (ENOENT, AUTH_FAILED...) is the DIR's word and stands; only its silence falls back.
    if (!error.IsTransient()) throw;
    std::optional<rpc::ServiceAddress> last_known = LastKnownAfterDirFailure(uuid, error);
    if (!last_known) throw;
    return *std::move(last_known);
  }
  const auto mappings = rpc::ParseResponse<xtreemfs::dir::AddressMappingSet>(response);
  const xtreemfs::dir::AddressMapping* chosen = nullptr;
  std::optional<rpc::Scheme> scheme;
  std::string protocols;
  for (const auto& mapping : mappings.mappings()) {
    protocols += (protocols.empty() ? "" : ", ") + mapping.protocol();
    scheme = rpc::SchemeOfMapping(mapping.protocol());
    if (scheme.has_value()) {
      chosen = &mapping;
      break;
    }
  }
  if (chosen == nullptr || chosen->port() == 0 || chosen->port() > 65535) {
    throw rpc::RpcError::Errno(
        ENOENT, "no pbrpc or pbrpcs address known for service UUID '" + uuid + "'" +
                    (protocols.empty() ? "" : " (it has: " + protocols + ")"));
  }
  rpc::ServiceAddress address{chosen->address(), static_cast<std::uint16_t>(chosen->port()), *scheme};
  std::lock_guard<std::mutex> lock(mutex_);
  if (cache_.size() >= kCacheEntriesMax) {
    const std::int64_t now_ms = clock_.MonotonicMs();
    for (auto entry = cache_.begin(); entry != cache_.end();) {
      entry = entry->second.expires_monotonic_ms <= now_ms ? cache_.erase(entry) : std::next(entry);
    }
    if (cache_.size() >= kCacheEntriesMax) {
      cache_.clear();
    }
  }
  cache_[uuid] = Entry{address, clock_.MonotonicMs() + cache_ttl_ms_};
  return address;
}

std::optional<rpc::ServiceAddress> UuidResolver::LastKnownAfterDirFailure(const std::string& uuid,
                                                                        const rpc::RpcError& error) {
  std::string warning;
  rpc::ServiceAddress address;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = cache_.find(uuid);
    if (found == cache_.end()) return std::nullopt;
    Entry& entry = found->second;
    // Expired by age only: the server was reachable there, so trust it for another TTL instead of
    // making every call wait for the DIR's failure (a DIR that does not answer costs a timeout).
    if (entry.expires_monotonic_ms != kInvalidated) {
      entry.expires_monotonic_ms = clock_.MonotonicMs() + cache_ttl_ms_;
    }
    if (!entry.dir_outage_warned) {
      entry.dir_outage_warned = true;
      warning = "the DIR at " + dir_address_.ToUrl() + " did not answer (" + error.message() +
                "): calls to " + uuid + " go to its last known address " + entry.address.ToUrl();
    }
    address = entry.address;
  }
  if (!warning.empty() && warn_) warn_(warning);
  return address;
}

void UuidResolver::Invalidate(const std::string& uuid) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = cache_.find(uuid);
  if (found != cache_.end()) found->second.expires_monotonic_ms = kInvalidated;
}

}  // namespace xtreemfs::client
