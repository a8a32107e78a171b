#include "client/replica_chain.h"

#include <gtest/gtest.h>

#include "rpc/rpc_error.h"

namespace xtreemfs::client {
namespace {

xtreemfs::common::XLocSet XLoc(const std::vector<std::vector<std::string>>& replicas) {
  xtreemfs::common::XLocSet xlocs;
  xlocs.set_version(1);
  for (const auto& osds : replicas) {
    auto* replica = xlocs.add_replicas();
    for (const auto& osd : osds) replica->add_osd_uuids(osd);
  }
  return xlocs;
}

// Updates go to the first replica's OSDs and reads to the last one's, position by position.
TEST(ReplicaChainsTest, HeadTakesUpdatesTailServesReads) {
  const ReplicaChains chains =
      ReplicaChains::FromXLoc(XLoc({{"h0", "h1"}, {"m0", "m1"}, {"t0", "t1"}}), "v:1");
  EXPECT_EQ(chains.replica_count, 3u);
  EXPECT_EQ(chains.head_osd_uuids, (std::vector<std::string>{"h0", "h1"}));
  EXPECT_EQ(chains.tail_osd_uuids, (std::vector<std::string>{"t0", "t1"}));
}

// An unreplicated file reads and writes the same stripe.
TEST(ReplicaChainsTest, OneReplicaIsHeadAndTail) {
  const ReplicaChains chains = ReplicaChains::FromXLoc(XLoc({{"a", "b", "c"}}), "v:2");
  EXPECT_EQ(chains.replica_count, 1u);
  EXPECT_EQ(chains.head_osd_uuids, chains.tail_osd_uuids);
}

// No replica, or replicas of different widths, cannot form chains.
TEST(ReplicaChainsTest, MalformedXLocsAreRefusedNamingTheFile) {
  try {
    ReplicaChains::FromXLoc(XLoc({{"a", "b"}, {"c"}}), "v:3");
    FAIL() << "uneven replicas accepted";
  } catch (const rpc::RpcError& error) {
    EXPECT_NE(std::string(error.what()).find("v:3"), std::string::npos) << error.what();
  }
  EXPECT_THROW(ReplicaChains::FromXLoc(XLoc({}), "v:4"), rpc::RpcError);
}

}  // namespace
}  // namespace xtreemfs::client
