#include "rpc/scheme.h"

#include <cctype>
#include <cerrno>

#include "rpc/rpc_error.h"

namespace xtreemfs::rpc {
namespace {

constexpr const char* kPlainName = "pbrpc";
constexpr const char* kTlsName = "pbrpcs";
constexpr const char* kGridSslName = "pbrpcg";

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

}  // namespace

const char* SchemeName(Scheme scheme) {
  return scheme == Scheme::kTls ? kTlsName : kPlainName;
}

Scheme ParseScheme(std::string_view name) {
  const std::string lower = Lower(name);
  if (lower == kPlainName) return Scheme::kPlain;
  if (lower == kTlsName) return Scheme::kTls;
  if (lower == kGridSslName) {
    throw RpcError::Errno(EINVAL, "scheme '" + std::string(name) +
                                      "' (XtreemFS's TLS-for-the-handshake-only mode) is not "
                                      "supported; use pbrpcs (TLS) or pbrpc (plain)");
  }
  throw RpcError::Errno(EINVAL, "unknown scheme '" + std::string(name) +
                                    "'; expected pbrpc (plain) or pbrpcs (TLS)");
}

std::optional<Scheme> SchemeOfMapping(std::string_view protocol) {
  if (protocol.empty()) return Scheme::kPlain;
  try {
    return ParseScheme(protocol);
  } catch (const RpcError&) {
    return std::nullopt;
  }
}

SchemeSplit SplitScheme(const std::string& url) {
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return SchemeSplit{std::nullopt, url};
  return SchemeSplit{ParseScheme(std::string_view(url).substr(0, scheme_end)),
                     url.substr(scheme_end + 3)};
}

}  // namespace xtreemfs::rpc
