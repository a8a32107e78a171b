#include "client/dir_url.h"

#include <cerrno>

#include "rpc/rpc_error.h"

namespace xtreemfs::client {
namespace {

[[noreturn]] void Reject(const std::string& url, const std::string& reason) {
  throw rpc::RpcError::Errno(EINVAL, "bad volume URL '" + url + "': " + reason +
                                         " (expected [pbrpc[s]://]host[:port]/volume)");
}

std::uint16_t ParsePort(const std::string& url, const std::string& text) {
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos) {
    Reject(url, "port '" + text + "' is not a number");
  }
  const unsigned long port = std::stoul(text);
  if (port == 0 || port > 65535) {
    Reject(url, "port " + text + " outside 1..65535");
  }
  return static_cast<std::uint16_t>(port);
}

}  // namespace

DirUrl ParseDirUrl(const std::string& url) {
  rpc::SchemeSplit split;
  try {
    split = rpc::SplitScheme(url);
  } catch (const rpc::RpcError& error) {
    Reject(url, error.message());
  }
  const std::string rest = split.rest;
  const std::size_t slash = rest.find('/');
  if (slash == std::string::npos) {
    Reject(url, "no volume name");
  }
  const std::string authority = rest.substr(0, slash);
  std::string volume_name = rest.substr(slash + 1);
  if (!volume_name.empty() && volume_name.back() == '/') {
    volume_name.pop_back();
  }
  if (volume_name.empty()) {
    Reject(url, "empty volume name");
  }
  if (volume_name.find('/') != std::string::npos) {
    Reject(url, "volume name '" + volume_name + "' contains '/'");
  }

  DirUrl parsed;
  parsed.volume_name = volume_name;
  parsed.scheme = split.scheme;
  if (!authority.empty() && authority[0] == '[') {
    const std::size_t bracket_end = authority.find(']');
    if (bracket_end == std::string::npos) {
      Reject(url, "unterminated '[' in host");
    }
    parsed.host = authority.substr(1, bracket_end - 1);
    const std::string after = authority.substr(bracket_end + 1);
    if (!after.empty()) {
      if (after[0] != ':') {
        Reject(url, "unexpected '" + after + "' after ']'");
      }
      parsed.port = ParsePort(url, after.substr(1));
    }
  } else {
    const std::size_t colon = authority.find(':');
    parsed.host = authority.substr(0, colon);
    if (colon != std::string::npos) {
      parsed.port = ParsePort(url, authority.substr(colon + 1));
    }
  }
  if (parsed.host.empty()) {
    Reject(url, "empty host");
  }
  return parsed;
}

}  // namespace xtreemfs::client
