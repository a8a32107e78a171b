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
  const auto& tail = xlocs.replicas(xlocs.replicas_size() - 1).osd_uuids();
  chains.head_osd_uuids.assign(head.begin(), head.end());
  chains.tail_osd_uuids.assign(tail.begin(), tail.end());
  chains.replica_count = static_cast<std::size_t>(xlocs.replicas_size());
  return chains;
}

}  // namespace xtreemfs::client
