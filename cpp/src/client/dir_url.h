// The volume URL users give tools and mount.xtreemfs: [pbrpc://]host[:port]/volume.
#pragma once

#include <cstdint>
#include <string>

namespace xtreemfs::client {

constexpr std::uint16_t kDirPortDefault = 32638;

struct DirUrl {
  std::string host;  // host name or IP literal (IPv6 without brackets)
  std::uint16_t port = kDirPortDefault;
  std::string volume_name;
};

// Parses `[pbrpc://]host[:port]/volume`. IPv6 literals are written in brackets ("[::1]:32638/v").
// One trailing '/' after the volume is accepted. Throws RpcError(EINVAL) naming the bad part: an
// unknown scheme, an empty host, a port outside 1..65535 or not a number, a missing or empty volume,
// or a volume name containing '/'.
DirUrl ParseDirUrl(const std::string& url);

}  // namespace xtreemfs::client
