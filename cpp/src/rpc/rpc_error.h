// The one error type of the C++ client: what went wrong (kind) and the POSIX errno a FUSE operation
// returns for it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "rpc.pb.h"

namespace xtreemfs::rpc {

// Error kinds exist only where a caller reacts differently, as in rpc.proto's ErrorType; kTransport
// and kTimeout are local (no answer arrived).
enum class ErrorKind {
  kErrno,        // the server reported a POSIX error
  kRedirect,     // ask redirect_to_service_uuid instead (not used by the servers yet)
  kAuthFailed,   // bad or expired capability or credentials
  kInvalidArgs,  // malformed request, unknown interface or procedure
  kOverloaded,   // a bounded server queue was full: back off and retry
  kInternal,     // server bug, I/O failure, or an unparseable response
  kChainMemberUnreachable,  // a chain member (redirect_to_service_uuid) did not answer its predecessor
  kXLocOutdated,            // the request's XLoc is older than the OSD's: fetch the current one, retry
  kTransport,    // could not connect, or the connection closed before the answer arrived
  kTimeout,      // no answer within the call's timeout
};

const char* ErrorKindName(ErrorKind kind);

// The errno a caller returns for an error of `kind`. `reported_errno` is used only for kErrno
// (a server that reports ERRNO without a number yields EIO).
int PosixErrnoFor(ErrorKind kind, std::uint32_t reported_errno);

class RpcError : public std::runtime_error {
 public:
  RpcError(ErrorKind kind, int posix_errno, const std::string& message,
           std::string redirect_to_service_uuid = "");

  // An error of `kind` whose errno follows PosixErrnoFor (reported_errno only matters for kErrno).
  static RpcError Of(ErrorKind kind, const std::string& message, std::uint32_t reported_errno = 0);
  // Convenience for local POSIX errors (EINVAL for a bad URL, ENOENT for an unknown UUID, ...).
  static RpcError Errno(int posix_errno, const std::string& message);

  ErrorKind kind() const { return kind_; }
  // The message without the kind prefix that what() adds.
  const std::string& message() const { return message_; }
  int posix_errno() const { return posix_errno_; }
  const std::string& redirect_to_service_uuid() const { return redirect_to_service_uuid_; }
  // True when repeating the same call later may succeed: no answer arrived, the server was
  // overloaded, or it dropped the request past its deadline. Only idempotent calls are repeated.
  bool IsTransient() const;
  // The OSD's and the MRC's ERRNO ETIMEDOUT: the request waited in the server's queues past the
  // caller's deadline and was not executed (StorageStage, MetadataOp). The server is alive.
  bool WasDroppedPastDeadline() const;

 private:
  ErrorKind kind_;
  int posix_errno_;
  std::string message_;
  std::string redirect_to_service_uuid_;
};

// Maps a server's ErrorResponse to an RpcError; unknown error types (a newer server) become kInternal.
RpcError RpcErrorFromResponse(const xtreemfs::rpc::ErrorResponse& response);

}  // namespace xtreemfs::rpc
