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

// Updates go to the first replica's OSDs; each position's chain runs head to tail; routing defaults to pattern.
TEST(ReplicaChainsTest, HeadTakesUpdatesAndChainsRunHeadToTail) {
  const ReplicaChains chains =
      ReplicaChains::FromXLoc(XLoc({{"h0", "h1"}, {"m0", "m1"}, {"t0", "t1"}}), "v:1");
  EXPECT_EQ(chains.replica_count, 3u);
  EXPECT_EQ(chains.head_osd_uuids, (std::vector<std::string>{"h0", "h1"}));
  EXPECT_EQ(chains.replica_osd_uuids.back(), (std::vector<std::string>{"t0", "t1"}));
  EXPECT_EQ(chains.ReadableChainAt(1), (std::vector<std::string>{"h1", "m1", "t1"}));
  EXPECT_EQ(chains.read_routing, xtreemfs::common::READ_ROUTING_PATTERN);
  auto round_robin = XLoc({{"a"}, {"b"}});
  round_robin.set_read_routing(xtreemfs::common::READ_ROUTING_ROUND_ROBIN);
  EXPECT_EQ(ReplicaChains::FromXLoc(round_robin, "v:5").read_routing, xtreemfs::common::READ_ROUTING_ROUND_ROBIN);
  auto no_stealing = round_robin;
  no_stealing.set_read_routing(xtreemfs::common::READ_ROUTING_PATTERN_NO_STEALING);
  EXPECT_EQ(ReplicaChains::FromXLoc(no_stealing, "v:5").read_routing,
            xtreemfs::common::READ_ROUTING_PATTERN_NO_STEALING);
}

// A replica being filled (inserted before the tail) is no read candidate; every member still is a chain member.
TEST(ReplicaChainsTest, AFillingReplicaIsNotReadable) {
  auto xlocs = XLoc({{"h0"}, {"m0"}, {"f0"}, {"t0"}});
  xlocs.mutable_replicas(2)->set_filling(true);
  const ReplicaChains chains = ReplicaChains::FromXLoc(xlocs, "v:2");
  EXPECT_EQ(chains.replica_osd_uuids,
            (std::vector<std::vector<std::string>>{{"h0"}, {"m0"}, {"f0"}, {"t0"}}));
  EXPECT_EQ(chains.replica_filling, (std::vector<bool>{false, false, true, false}));
  EXPECT_EQ(chains.ReadableChainAt(0), (std::vector<std::string>{"h0", "m0", "t0"}));
  EXPECT_EQ(ReplicaChains::FromXLoc(XLoc({{"h0"}, {"t0"}}), "v:3").ReadableChainAt(0),
            (std::vector<std::string>{"h0", "t0"}));
}

// An unreplicated file reads and writes the same stripe.
TEST(ReplicaChainsTest, OneReplicaIsHeadAndTail) {
  const ReplicaChains chains = ReplicaChains::FromXLoc(XLoc({{"a", "b", "c"}}), "v:2");
  EXPECT_EQ(chains.replica_count, 1u);
  EXPECT_EQ(chains.head_osd_uuids, chains.replica_osd_uuids.back());
  EXPECT_EQ(chains.ReadableChainAt(2), (std::vector<std::string>{"c"}));
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
