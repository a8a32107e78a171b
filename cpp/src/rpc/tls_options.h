// What a client needs to speak TLS to the servers (see RpcClient).
#pragma once

#include <string>

namespace xtreemfs::rpc {

// TLS to the servers whose scheme is pbrpcs (see scheme.h). The client trusts the CA
// certificates in authority_file and checks that each server's certificate names the host or IP
// address it connects to; with certificate_file and private_key_file (PEM) it presents a client
// certificate, for servers that require one.
struct TlsOptions {
  std::string authority_file;    // empty: plain TCP only (pbrpcs servers are refused)
  std::string certificate_file;  // optional, together with private_key_file
  std::string private_key_file;

  bool enabled() const { return !authority_file.empty(); }
};

}  // namespace xtreemfs::rpc
