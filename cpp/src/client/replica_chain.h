// A file's replicas as chains, the C++ mirror of foundation.replication.ReplicaChain (common.proto XLocSet):
// for stripe position p, replicas[0].osd_uuids[p] (the head) forwards updates to replicas[1].osd_uuids[p]
// and so on to the last replica (the tail). Clients send writes, truncates, fsyncs and unlinks to the head;
// reads go to the replica the volume's read routing picks (read_routing.h): a member with an update its
// successor has not acknowledged passes the read down the chain (servers/osd README, "Consistent reads").
#pragma once

#include <string>
#include <vector>

#include "common.pb.h"

namespace xtreemfs::client {

struct ReplicaChains {
  std::vector<std::string> head_osd_uuids;  // by stripe position: where updates go
  // By replica (0 = head), then by stripe position: the chain of position p is replica_osd_uuids[r][p].
  std::vector<std::vector<std::string>> replica_osd_uuids;
  xtreemfs::common::ReadRouting read_routing = xtreemfs::common::READ_ROUTING_PATTERN;  // filled in
  std::size_t replica_count = 0;

  // By replica: whether it is being filled (XLoc Replica.filling); such a replica serves no reads.
  std::vector<bool> replica_filling;

  // The members of one stripe position that may serve reads, head first: the chain without a filling
  // replica (as foundation.replication.ReplicaChain.readableChainAt).
  std::vector<std::string> ReadableChainAt(std::size_t stripe_position) const;

  // Throws RpcError(kInternal) naming the problem when the XLoc has no replica, a replica without
  // OSDs, or replicas of different widths.
  static ReplicaChains FromXLoc(const xtreemfs::common::XLocSet& xlocs, const std::string& file_id);
};

}  // namespace xtreemfs::client
