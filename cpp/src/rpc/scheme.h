// How a server's RPC port is spoken, by XtreemFS's scheme names: pbrpc (plain TCP) and pbrpcs (TLS).
// Servers register the scheme they serve in their DIR address mapping (AddressMapping.protocol), and a
// user may write it in the volume URL (pbrpcs://dir/volume); RpcClient speaks TLS or plain TCP per
// server by it. The one place the C++ client knows and parses these names (the Java servers' and
// client's is foundation.rpc.RpcScheme). XtreemFS's pbrpcg (TLS for the handshake only) is recognised
// and refused by name.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace xtreemfs::rpc {

enum class Scheme { kPlain, kTls };

// "pbrpc" or "pbrpcs".
const char* SchemeName(Scheme scheme);

// Parses a scheme name (case-insensitive). Throws RpcError(EINVAL) naming an unknown scheme, or
// pbrpcg as not supported.
Scheme ParseScheme(std::string_view name);

// The scheme of a DIR address mapping's protocol: "" (a registration that named none) is pbrpc;
// nullopt for protocols this transport does not speak (another kind of mapping, or pbrpcg).
std::optional<Scheme> SchemeOfMapping(std::string_view protocol);

// `[scheme://]rest` split at its scheme; `scheme` is nullopt when the text has no "://".
struct SchemeSplit {
  std::optional<Scheme> scheme;
  std::string rest;
};

// Throws RpcError(EINVAL) naming an unknown or unsupported scheme.
SchemeSplit SplitScheme(const std::string& url);

}  // namespace xtreemfs::rpc
