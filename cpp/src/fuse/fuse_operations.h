// The libfuse3 low-level operations of mount.xtreemfs, each a thin translation of one kernel request
// (by node id, NodeTable turns it into the MRC's path) onto client::Volume and client::FileHandle;
// errors are answered with the errno of the client's RpcError.
#pragma once

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <set>

#include "client/clock.h"
#include "client/lock_client.h"
#include "client/volume.h"
#include "fuse/caller_groups.h"
#include "fuse/log.h"
#include "fuse/mount_options.h"
#include "fuse/node_table.h"
#include "rpc/retrying_transport.h"
#include "rpc/rpc_client.h"

namespace xtreemfs::fuse_adapter {

// Everything the operations need, reachable from fuse_req_userdata(). The volume is
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
  // Callers' supplementary groups, reused for --caller-groups-ttl-ms; created with the volume.
  std::unique_ptr<CallerGroups> caller_groups;
  // The kernel's node ids and the MRC's files and names behind them (node_table.h).
  NodeTable nodes;
  // For the kernel invalidations (fuse_lowlevel_notify_inval_*); set before the loop starts.
  struct fuse_session* session = nullptr;
  // The mount point as an absolute path (resolved before mounting): finds the mount's bdi.
  std::string mount_point_absolute;
  std::once_flag kernel_read_ahead_once;  // --kernel-read-ahead-bytes is applied once, after init
  // The kernel's window was set (--kernel-read-ahead-bytes, 4 MiB by default): it reads ahead of
  // buffered readers in requests of up to 1 MiB, several in flight, so handles opened afterwards
  // leave their own read-ahead off (both at once fetched objects twice, see mount_options.h).
  std::atomic<bool> kernel_reads_ahead{false};
};

struct fuse_lowlevel_ops MakeFuseOperations();

}  // namespace xtreemfs::fuse_adapter
