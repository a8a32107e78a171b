// The volume URL users give tools and mount.xtreemfs: [pbrpc[s]://]host[:port]/volume.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rpc/scheme.h"

namespace xtreemfs::client {

constexpr std::uint16_t kDirPortDefault = 32638;

struct DirUrl {
  std::string host;  // host name or IP literal (IPv6 without brackets)
  std::uint16_t port = kDirPortDefault;
  std::string volume_name;
  // The scheme the URL gives (pbrpcs: the DIR speaks TLS); nullopt: none given, the mount decides.
  std::optional<rpc::Scheme> scheme;
};

// Parses `[pbrpc[s]://]host[:port]/volume` (the scheme by rpc::SplitScheme). IPv6 literals are written in brackets ("[::1]:32638/v").
// One trailing '/' after the volume is accepted. Throws RpcError(EINVAL) naming the bad part: an
// unknown scheme, an empty host, a port outside 1..65535 or not a number, a missing or empty volume,
// or a volume name containing '/'.
DirUrl ParseDirUrl(const std::string& url);

}  // namespace xtreemfs::client
