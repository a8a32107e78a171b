#include "rpc/rpc_error.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace xtreemfs::rpc {
namespace {

ErrorResponse ResponseOf(ErrorType type, std::uint32_t posix_errno) {
  ErrorResponse response;
  response.set_error_type(type);
  response.set_posix_errno(posix_errno);
  response.set_error_message("detail");
  return response;
}

TEST(RpcErrorTest, ServerErrorTypesMapToTheAgreedErrno) {
  // ERRNO keeps the server's errno; AUTH_FAILED, INVALID_ARGS, OVERLOADED, INTERNAL map to fixed errnos.
  EXPECT_EQ(RpcErrorFromResponse(ResponseOf(ERRNO, ENOENT)).posix_errno(), ENOENT);
  EXPECT_EQ(RpcErrorFromResponse(ResponseOf(ERRNO, ENOTEMPTY)).posix_errno(), ENOTEMPTY);
  EXPECT_EQ(RpcErrorFromResponse(ResponseOf(AUTH_FAILED, 0)).posix_errno(), EACCES);
  EXPECT_EQ(RpcErrorFromResponse(ResponseOf(INVALID_ARGS, 0)).posix_errno(), EINVAL);
  EXPECT_EQ(RpcErrorFromResponse(ResponseOf(OVERLOADED, 0)).posix_errno(), EAGAIN);
  EXPECT_EQ(RpcErrorFromResponse(ResponseOf(INTERNAL, 0)).posix_errno(), EIO);
}

TEST(RpcErrorTest, ErrnoFromServerOverridesNothingForNonErrnoTypes) {
  // Only ERRNO uses posix_errno: an AUTH_FAILED carrying some other errno still yields EACCES.
  EXPECT_EQ(RpcErrorFromResponse(ResponseOf(AUTH_FAILED, ENOENT)).posix_errno(), EACCES);
  EXPECT_EQ(RpcErrorFromResponse(ResponseOf(OVERLOADED, EIO)).posix_errno(), EAGAIN);
}

TEST(RpcErrorTest, ErrnoWithoutNumberAndUnknownTypesBecomeEio) {
  // Defensive mappings: ERRNO with errno 0 and an error type this client does not know give EIO.
  EXPECT_EQ(RpcErrorFromResponse(ResponseOf(ERRNO, 0)).posix_errno(), EIO);
  RpcError unknown = RpcErrorFromResponse(ResponseOf(static_cast<ErrorType>(99), 0));
  EXPECT_EQ(unknown.kind(), ErrorKind::kInternal);
  EXPECT_EQ(unknown.posix_errno(), EIO);
}

TEST(RpcErrorTest, LocalKindsMapToTimeoutAndIoErrors) {
  // A timeout is ETIMEDOUT; a lost connection is EIO.
  EXPECT_EQ(RpcError::Of(ErrorKind::kTimeout, "x").posix_errno(), ETIMEDOUT);
  EXPECT_EQ(RpcError::Of(ErrorKind::kTransport, "x").posix_errno(), EIO);
}

TEST(RpcErrorTest, OnlyTransportTimeoutAndOverloadAreTransient) {
  // Retry decisions depend on IsTransient: POSIX, auth and internal errors are final.
  EXPECT_TRUE(RpcError::Of(ErrorKind::kTransport, "x").IsTransient());
  EXPECT_TRUE(RpcError::Of(ErrorKind::kTimeout, "x").IsTransient());
  EXPECT_TRUE(RpcError::Of(ErrorKind::kOverloaded, "x").IsTransient());
  EXPECT_FALSE(RpcError::Errno(ENOENT, "x").IsTransient());
  // A server's ETIMEDOUT: the request waited past its deadline in the server's queue, not executed.
  EXPECT_TRUE(RpcError::Errno(ETIMEDOUT, "x").IsTransient());
  EXPECT_TRUE(RpcError::Errno(ETIMEDOUT, "x").WasDroppedPastDeadline());
  EXPECT_FALSE(RpcError::Of(ErrorKind::kTimeout, "x").WasDroppedPastDeadline());
  EXPECT_FALSE(RpcError::Of(ErrorKind::kAuthFailed, "x").IsTransient());
  EXPECT_FALSE(RpcError::Of(ErrorKind::kInternal, "x").IsTransient());
  EXPECT_FALSE(RpcError::Of(ErrorKind::kInvalidArgs, "x").IsTransient());
}

TEST(RpcErrorTest, MessageNamesKindAndServerText) {
  // what() says which kind of error it was and keeps the server's message.
  RpcError error = RpcErrorFromResponse(ResponseOf(AUTH_FAILED, 0));
  EXPECT_EQ(std::string(error.what()), "AUTH_FAILED: detail");
}

}  // namespace
}  // namespace xtreemfs::rpc
