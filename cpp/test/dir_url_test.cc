#include "client/dir_url.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "rpc/rpc_error.h"

namespace xtreemfs::client {
namespace {

TEST(DirUrlTest, FullUrlWithSchemeHostPortAndVolume) {
  // All parts of pbrpc://host:port/volume are taken as written.
  DirUrl url = ParseDirUrl("pbrpc://dir.example.org:12345/demo");
  EXPECT_EQ(url.host, "dir.example.org");
  EXPECT_EQ(url.port, 12345);
  EXPECT_EQ(url.volume_name, "demo");
}

TEST(DirUrlTest, SchemeAndPortAreOptional) {
  // Without scheme and port the DIR default port 32638 is used.
  DirUrl url = ParseDirUrl("localhost/demo");
  EXPECT_EQ(url.host, "localhost");
  EXPECT_EQ(url.port, kDirPortDefault);
  EXPECT_EQ(url.volume_name, "demo");
  EXPECT_EQ(ParseDirUrl("pbrpc://localhost/demo").port, 32638);
  EXPECT_EQ(ParseDirUrl("127.0.0.1:1/v").port, 1);
}

TEST(DirUrlTest, BracketedIpv6LiteralWithAndWithoutPort) {
  // IPv6 literals are bracketed so their colons are not taken for the port separator.
  DirUrl with_port = ParseDirUrl("[::1]:4000/vol");
  EXPECT_EQ(with_port.host, "::1");
  EXPECT_EQ(with_port.port, 4000);
  DirUrl without_port = ParseDirUrl("pbrpc://[fe80::2]/vol");
  EXPECT_EQ(without_port.host, "fe80::2");
  EXPECT_EQ(without_port.port, kDirPortDefault);
}

TEST(DirUrlTest, OneTrailingSlashIsAccepted) {
  // "host/volume/" names the same volume as "host/volume".
  EXPECT_EQ(ParseDirUrl("host/volume/").volume_name, "volume");
}

TEST(DirUrlTest, MalformedUrlsAreEinval) {
  // Each malformed form is rejected with EINVAL rather than guessed at.
  for (const char* bad : {"", "host", "host/", "/volume", "http://host/volume", "host:/volume",
                          "host:0/volume", "host:65536/volume", "host:12a/volume",
                          "host/volume/sub", "[::1/volume", "[::1]x/volume", "pbrpc:///volume",
                          "host:99999999999/volume"}) {
    try {
      ParseDirUrl(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const rpc::RpcError& error) {
      EXPECT_EQ(error.posix_errno(), EINVAL) << bad;
    }
  }
}

}  // namespace
}  // namespace xtreemfs::client
