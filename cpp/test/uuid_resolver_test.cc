#include "client/uuid_resolver.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

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

// A resolver asking its DIR through a DirOutageTransport, with its warnings collected.
class UuidResolverDirOutageTest : public ::testing::Test {
 protected:
  FakeClock clock;
  FakeCluster cluster{clock, 2, 2, 4096};
  testing::DirOutageTransport dir{cluster};
  std::vector<std::string> warnings;
  UuidResolver resolver{dir, rpc::ServiceAddress{"dir", FakeCluster::kDirPort}, 1000, clock, rpc::CallOptions(),
                        [this](const std::string& message) { warnings.push_back(message); }};
};

TEST_F(UuidResolverDirOutageTest, AKnownAddressIsUsedWhileTheDirDoesNotAnswer) {
  // restart_transparent_e2e.sh at load 33: the DIR was away 88 s, longer than the 60 s retry window,
  // and a buffered write to a live OSD ended in EIO because its address had expired and only the DIR
  // could renew it. The last known address keeps serving, for another TTL per failed DIR call.
  const rpc::ServiceAddress osd0{"osd-0", FakeCluster::kOsdPort};
  EXPECT_EQ(resolver.Resolve("osd-0"), osd0);
  dir.down = true;
  clock.Advance(1000);
  EXPECT_EQ(resolver.Resolve("osd-0"), osd0);
  EXPECT_EQ(dir.dir_calls.load(), 2);
  clock.Advance(999);
  EXPECT_EQ(resolver.Resolve("osd-0"), osd0);
  EXPECT_EQ(dir.dir_calls.load(), 2);  // trusted for another TTL: calls do not each wait for the DIR
  // After a refused connection the DIR is asked at the next lookup; down, the last address is tried
  // again (a server restarting on its port).
  resolver.Invalidate("osd-0");
  EXPECT_EQ(resolver.Resolve("osd-0"), osd0);
  EXPECT_EQ(dir.dir_calls.load(), 3);
  EXPECT_EQ(resolver.Resolve("osd-0"), osd0);
  EXPECT_EQ(dir.dir_calls.load(), 4);
  // One warning per UUID and outage, naming the DIR's error and the address taken.
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("Connection refused"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("osd-0"), std::string::npos) << warnings[0];
  // The DIR back: its answers count again, and the next outage is warned of again.
  dir.down = false;
  EXPECT_EQ(resolver.Resolve("osd-0"), osd0);
  EXPECT_EQ(dir.dir_calls.load(), 5);
  dir.down = true;
  clock.Advance(1000);
  EXPECT_EQ(resolver.Resolve("osd-0"), osd0);
  EXPECT_EQ(warnings.size(), 2u);
}

TEST_F(UuidResolverDirOutageTest, AUuidNeverResolvedStillFailsAndTheDirsAnswersStand) {
  // Without a known address the DIR's failure is the lookup's (the caller's retry window repeats it).
  dir.down = true;
  try {
    resolver.Resolve("osd-1");
    FAIL() << "expected an error";
  } catch (const rpc::RpcError& error) {
    EXPECT_EQ(error.kind(), rpc::ErrorKind::kTransport);
  }
  // An answer is not an outage: a mapping the DIR no longer offers is an error, not the old address.
  dir.down = false;
  resolver.Resolve("osd-1");
  cluster.mapping_protocols["osd-1"] = "pbrpcg";
  clock.Advance(1000);
  EXPECT_THROW(resolver.Resolve("osd-1"), rpc::RpcError);
  EXPECT_TRUE(warnings.empty());
}

}  // namespace
}  // namespace xtreemfs::client
