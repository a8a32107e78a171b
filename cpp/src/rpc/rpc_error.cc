#include "rpc/rpc_error.h"

#include <cerrno>

namespace xtreemfs::rpc {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kErrno: return "ERRNO";
    case ErrorKind::kRedirect: return "REDIRECT";
    case ErrorKind::kAuthFailed: return "AUTH_FAILED";
    case ErrorKind::kInvalidArgs: return "INVALID_ARGS";
    case ErrorKind::kOverloaded: return "OVERLOADED";
    case ErrorKind::kInternal: return "INTERNAL";
    case ErrorKind::kChainMemberUnreachable: return "CHAIN_MEMBER_UNREACHABLE";
    case ErrorKind::kXLocOutdated: return "XLOC_OUTDATED";
    case ErrorKind::kTransport: return "TRANSPORT";
    case ErrorKind::kTimeout: return "TIMEOUT";
  }
  return "UNKNOWN";
}

int PosixErrnoFor(ErrorKind kind, std::uint32_t reported_errno) {
  switch (kind) {
    case ErrorKind::kErrno: return reported_errno == 0 ? EIO : static_cast<int>(reported_errno);
    case ErrorKind::kAuthFailed: return EACCES;
    case ErrorKind::kInvalidArgs: return EINVAL;
    case ErrorKind::kOverloaded: return EAGAIN;
    // Both reach an application only when the chain could not be followed within the retry window.
    case ErrorKind::kChainMemberUnreachable:
    case ErrorKind::kXLocOutdated: return EIO;
    case ErrorKind::kTimeout: return ETIMEDOUT;
    // A redirect reaching the caller means no replica handling exists yet: an I/O error.
    case ErrorKind::kRedirect:
    case ErrorKind::kInternal:
    case ErrorKind::kTransport: return EIO;
  }
  return EIO;
}

RpcError::RpcError(ErrorKind kind, int posix_errno, const std::string& message,
                   std::string redirect_to_service_uuid)
    : std::runtime_error(std::string(ErrorKindName(kind)) + ": " + message),
      kind_(kind),
      posix_errno_(posix_errno),
      message_(message),
      redirect_to_service_uuid_(std::move(redirect_to_service_uuid)) {}

RpcError RpcError::Of(ErrorKind kind, const std::string& message, std::uint32_t reported_errno) {
  return RpcError(kind, PosixErrnoFor(kind, reported_errno), message);
}

RpcError RpcError::Errno(int posix_errno, const std::string& message) {
  return RpcError(ErrorKind::kErrno, posix_errno, message);
}

bool RpcError::IsTransient() const {
  return kind_ == ErrorKind::kTransport || kind_ == ErrorKind::kTimeout ||
         kind_ == ErrorKind::kOverloaded || WasDroppedPastDeadline();
}

bool RpcError::WasDroppedPastDeadline() const {
  return kind_ == ErrorKind::kErrno && posix_errno_ == ETIMEDOUT;
}

RpcError RpcErrorFromResponse(const ErrorResponse& response) {
  ErrorKind kind;
  switch (response.error_type()) {
    case ERRNO: kind = ErrorKind::kErrno; break;
    case REDIRECT: kind = ErrorKind::kRedirect; break;
    case AUTH_FAILED: kind = ErrorKind::kAuthFailed; break;
    case INVALID_ARGS: kind = ErrorKind::kInvalidArgs; break;
    case OVERLOADED: kind = ErrorKind::kOverloaded; break;
    case CHAIN_MEMBER_UNREACHABLE: kind = ErrorKind::kChainMemberUnreachable; break;
    case XLOC_OUTDATED: kind = ErrorKind::kXLocOutdated; break;
    default: kind = ErrorKind::kInternal; break;
  }
  return RpcError(kind, PosixErrnoFor(kind, response.posix_errno()), response.error_message(),
                  response.redirect_to_service_uuid());
}

}  // namespace xtreemfs::rpc
