// A file's replicas as chains, the C++ mirror of foundation.replication.ReplicaChain (common.proto XLocSet):
// for stripe position p, replicas[0].osd_uuids[p] (the head) forwards updates to replicas[1].osd_uuids[p]
// and so on to the last replica (the tail). Clients send writes, truncates, fsyncs and unlinks to the head
// and read from the tail, which holds only what the whole chain applied.
#pragma once

#include <string>
#include <vector>

#include "common.pb.h"

namespace xtreemfs::client {

struct ReplicaChains {
  std::vector<std::string> head_osd_uuids;  // by stripe position: where updates go
  std::vector<std::string> tail_osd_uuids;  // by stripe position: where reads go
  std::size_t replica_count = 0;

  // Throws RpcError(kInternal) naming the problem when the XLoc has no replica, a replica without
  // OSDs, or replicas of different widths.
  static ReplicaChains FromXLoc(const xtreemfs::common::XLocSet& xlocs, const std::string& file_id);
};

}  // namespace xtreemfs::client
