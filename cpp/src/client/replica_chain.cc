#include "client/replica_chain.h"

#include "rpc/rpc_error.h"

namespace xtreemfs::client {

ReplicaChains ReplicaChains::FromXLoc(const xtreemfs::common::XLocSet& xlocs,
                                      const std::string& file_id) {
  if (xlocs.replicas_size() == 0) {
    throw rpc::RpcError::Of(rpc::ErrorKind::kInternal,
                            "the XLoc of file " + file_id + " lists no replica");
  }
  const int width = xlocs.replicas(0).osd_uuids_size();
  for (const auto& replica : xlocs.replicas()) {
    if (replica.osd_uuids_size() != width || width == 0) {
      throw rpc::RpcError::Of(rpc::ErrorKind::kInternal,
                              "the XLoc of file " + file_id + " (version " +
                                  std::to_string(xlocs.version()) +
                                  ") has replicas of different or zero widths");
    }
  }
  ReplicaChains chains;
  const auto& head = xlocs.replicas(0).osd_uuids();
  chains.head_osd_uuids.assign(head.begin(), head.end());
  for (const auto& replica : xlocs.replicas()) {
    chains.replica_osd_uuids.emplace_back(replica.osd_uuids().begin(), replica.osd_uuids().end());
    chains.replica_filling.push_back(replica.filling());
  }
  // As foundation.replication.ReplicationRules.readRouting: absent or unknown means pattern.
  chains.read_routing = xlocs.read_routing() == xtreemfs::common::READ_ROUTING_ROUND_ROBIN ||
                                xlocs.read_routing() == xtreemfs::common::READ_ROUTING_PATTERN_NO_STEALING
                            ? xlocs.read_routing()
                            : xtreemfs::common::READ_ROUTING_PATTERN;
  chains.replica_count = static_cast<std::size_t>(xlocs.replicas_size());
  return chains;
}

std::vector<std::string> ReplicaChains::ReadableChainAt(std::size_t stripe_position) const {
  std::vector<std::string> chain;
  chain.reserve(replica_osd_uuids.size());
  for (std::size_t replica = 0; replica < replica_osd_uuids.size(); ++replica) {
    if (replica >= replica_filling.size() || !replica_filling[replica]) {
      chain.push_back(replica_osd_uuids[replica].at(stripe_position));
    }
  }
  return chain;
}

}  // namespace xtreemfs::client
