#include "client/uuid_resolver.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "fake_cluster.h"

namespace xtreemfs::client {
namespace {

using testing::FakeClock;
using testing::FakeCluster;

class UuidResolverTest : public ::testing::Test {
 protected:
  FakeClock clock;
  FakeCluster cluster{clock, 2, 2, 4096};
  UuidResolver resolver{cluster, rpc::ServiceAddress{"dir", FakeCluster::kDirPort}, 1000, clock,
                        rpc::CallOptions()};

  int DirLookups() {
    return cluster.CountCalls(xtreemfs::dir::DIR_INTERFACE_ID, xtreemfs::dir::DIR_ADDRESS_MAPPINGS_GET);
  }
};

TEST_F(UuidResolverTest, ResolvesThroughTheDirAndCachesWithinTheTtl) {
  // The first lookup asks the DIR; lookups within the TTL are answered from the cache.
  EXPECT_EQ(resolver.Resolve("osd-1"), (rpc::ServiceAddress{"osd-1", FakeCluster::kOsdPort}));
  clock.Advance(999);
  EXPECT_EQ(resolver.Resolve("osd-1").host, "osd-1");
  EXPECT_EQ(DirLookups(), 1);
}

TEST_F(UuidResolverTest, AsksTheDirAgainAfterTheTtlOrAnInvalidation) {
  // An expired or invalidated entry is fetched again from the DIR.
  resolver.Resolve("osd-0");
  clock.Advance(1000);
  resolver.Resolve("osd-0");
  EXPECT_EQ(DirLookups(), 2);
  resolver.Invalidate("osd-0");
  resolver.Resolve("osd-0");
  EXPECT_EQ(DirLookups(), 3);
}

TEST_F(UuidResolverTest, TheAddressCarriesTheSchemeTheServerRegistered) {
  // A TLS server registers pbrpcs: its address says so, and the RPC client speaks TLS to it; a
  // mapping without a protocol is plain, and pbrpcg (not spoken here) is an error naming it.
  cluster.mapping_protocols["osd-0"] = "pbrpcs";
  cluster.mapping_protocols["osd-1"] = "";
  cluster.mapping_protocols["mrc-1"] = "pbrpcg";
  EXPECT_EQ(resolver.Resolve("osd-0"),
            (rpc::ServiceAddress{"osd-0", FakeCluster::kOsdPort, rpc::Scheme::kTls}));
  EXPECT_EQ(resolver.Resolve("osd-0").ToUrl(),
            "pbrpcs://osd-0:" + std::to_string(FakeCluster::kOsdPort));
  EXPECT_EQ(resolver.Resolve("osd-1").scheme, rpc::Scheme::kPlain);
  try {
    resolver.Resolve("mrc-1");
    FAIL() << "expected an error";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), ENOENT);
    EXPECT_NE(std::string(error.what()).find("mrc-1"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("pbrpcg"), std::string::npos);
  }
}

TEST_F(UuidResolverTest, UnknownUuidIsEnoent) {
  // A UUID without any address mapping fails with ENOENT naming the UUID.
  try {
    resolver.Resolve("nobody");
    FAIL() << "expected an error";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.posix_errno(), ENOENT);
    EXPECT_NE(std::string(error.what()).find("nobody"), std::string::npos);
  }
}

}  // namespace
}  // namespace xtreemfs::client
