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

TEST(DirUrlTest, TheSchemeSaysWhetherTheDirSpeaksTls) {
  // pbrpcs:// is TLS, pbrpc:// plain (any case); without a scheme the mount decides.
  EXPECT_EQ(ParseDirUrl("pbrpcs://h:7/v").scheme, rpc::Scheme::kTls);
  EXPECT_EQ(ParseDirUrl("PBRPCS://h:7/v").scheme, rpc::Scheme::kTls);
  EXPECT_EQ(ParseDirUrl("pbrpc://h:7/v").scheme, rpc::Scheme::kPlain);
  EXPECT_FALSE(ParseDirUrl("h:7/v").scheme.has_value());
  EXPECT_EQ(ParseDirUrl("pbrpcs://h:7/v").host, "h");
  try {
    ParseDirUrl("pbrpcg://h/v");
    ADD_FAILURE() << "accepted pbrpcg";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), EINVAL);
    EXPECT_NE(std::string(error.what()).find("not supported"), std::string::npos) << error.what();
  }
}

TEST(DirUrlTest, SchemeNamesAndMappingProtocols) {
  // The one table of scheme names: each parses back to itself; mappings without a protocol are
  // plain; protocols this transport does not speak are none.
  for (rpc::Scheme scheme : {rpc::Scheme::kPlain, rpc::Scheme::kTls}) {
    EXPECT_EQ(rpc::ParseScheme(rpc::SchemeName(scheme)), scheme);
  }
  EXPECT_EQ(rpc::SchemeOfMapping(""), rpc::Scheme::kPlain);
  EXPECT_EQ(rpc::SchemeOfMapping("pbrpcs"), rpc::Scheme::kTls);
  EXPECT_FALSE(rpc::SchemeOfMapping("pbrpcg").has_value());
  EXPECT_FALSE(rpc::SchemeOfMapping("http").has_value());
  EXPECT_THROW(rpc::ParseScheme("https"), rpc::RpcError);
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
