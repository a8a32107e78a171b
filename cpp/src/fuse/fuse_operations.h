// The libfuse3 high-level operations of mount.xtreemfs, each a thin translation onto client::Volume
// and client::FileHandle; errors come back as -errno.
#pragma once

#define FUSE_USE_VERSION 312
#include <fuse.h>

#include <memory>
#include <mutex>
#include <set>

#include "client/clock.h"
#include "client/lock_client.h"
#include "client/volume.h"
#include "fuse/hard_link_names.h"
#include "fuse/log.h"
#include "fuse/mount_options.h"
#include "rpc/retrying_transport.h"
#include "rpc/rpc_client.h"

namespace xtreemfs::fuse_adapter {

// Everything the operations need, reachable from fuse_get_context()->private_data. The volume is
// opened after the process daemonized (threads do not survive fork), before requests are served.
struct MountContext {
  MountOptions options;
  Logger log;
  client::SystemClock clock;
  std::unique_ptr<rpc::RpcClient> rpc_client;
  std::unique_ptr<rpc::RetryingTransport> transport;
  std::unique_ptr<client::Volume> volume;
  // Handles the kernel has not released yet, so destroy (unmount, or a signal ending the loop)
  // can still send what they buffered.
  std::mutex open_handles_mutex;
  std::set<client::FileHandle*> open_handles;  // guarded by open_handles_mutex
  std::unique_ptr<client::LockClient> locks;  // created with the volume, destroyed before it
  // Names of multiply-linked files the kernel holds attributes of, so a change through one name
  // refreshes the others at once (hard_link_names.h).
  HardLinkNames hard_link_names{kHardLinkNamesMax};
  static constexpr std::size_t kHardLinkNamesMax = 1 << 16;
};

struct fuse_operations MakeFuseOperations();

}  // namespace xtreemfs::fuse_adapter
