// mount.xtreemfs: mounts a volume through FUSE. Order matters: the volume is checked before
// mounting (so a bad URL fails on the terminal), the process daemonizes after mounting, and the
// RPC client (which owns a thread) is created only after the fork.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <malloc.h>
#include <pthread.h>
#include <unistd.h>

#include "fuse/fuse_operations.h"
#include "fuse/request_loop.h"

namespace {

using xtreemfs::fuse_adapter::LogLevel;
using xtreemfs::fuse_adapter::MountContext;

void OpenVolume(MountContext& context) {
  xtreemfs::rpc::RetryPolicy retry_policy;
  retry_policy.attempts_max = context.options.attempts_max;
  retry_policy.retry_window_ms = context.options.retry_window_ms;
  retry_policy.slow_server_wait_max_ms = context.options.slow_server_wait_ms;
  xtreemfs::rpc::RpcClientOptions rpc_options;
  rpc_options.tls = context.options.tls;
  rpc_options.io_threads = context.options.network_threads;
  context.rpc_client = std::make_unique<xtreemfs::rpc::RpcClient>(rpc_options);
  context.transport =
      std::make_unique<xtreemfs::rpc::RetryingTransport>(*context.rpc_client, retry_policy);
  xtreemfs::client::VolumeOptions volume_options;
  volume_options.timeout_ms = context.options.timeout_ms;
  volume_options.metadata_cache_ttl_ms = context.options.metadata_cache_ttl_ms;
  volume_options.stat_ahead_misses = context.options.stat_ahead_misses;
  volume_options.absent_names_misses = context.options.absent_names_misses;
  // A name known absent here is trusted as long as the kernel keeps a negative entry.
  volume_options.absent_names_ttl_ms = context.options.NegativeCacheTtlMs();
  volume_options.uuid_cache_ttl_ms = context.options.uuid_cache_ttl_ms;
  volume_options.io = context.options.io;
  volume_options.chain_retry_window_ms = context.options.retry_window_ms;
  volume_options.warn = [&context](const std::string& message) {
    context.log.Log(LogLevel::kWarn, message);
  };
  context.volume = xtreemfs::client::Volume::Open(*context.transport, context.options.url,
                                                  context.clock, volume_options);
  // The MRC is asked once too (statvfs as this process's user), so a mount that cannot speak to it
  // (unreachable, or a TLS MRC and no --tls-ca) fails here, on the terminal, naming it.
  xtreemfs::client::UserCredentials user;
  user.set_uid(getuid());
  user.set_gid(getgid());
  user.set_username(std::to_string(getuid()));
  context.volume->Statvfs(user);
  xtreemfs::client::LockClientOptions lock_options = context.options.locks;
  lock_options.warn = [&context](const std::string& message) {
    context.log.Log(LogLevel::kWarn, message);
  };
  context.caller_groups = std::make_unique<xtreemfs::fuse_adapter::CallerGroups>(
      context.clock, context.options.caller_groups_ttl_ms);
  context.locks = std::make_unique<xtreemfs::client::LockClient>(
      *context.volume, xtreemfs::client::LockClient::NewClientUuid(), lock_options);
}

void CloseVolume(MountContext& context) {
  context.locks.reset();
  context.volume.reset();
  context.transport.reset();
  context.rpc_client.reset();
}

// libfuse's own loop (--fuse-clone-fd, --fuse-idle-threads): every worker reads /dev/fuse (on a
// descriptor of its own with clone_fd).
int RunLibfuseLoop(MountContext& context, struct fuse_session* session) {
  struct fuse_loop_config* loop_config = fuse_loop_cfg_create();
  fuse_loop_cfg_set_max_threads(loop_config, context.options.fuse_threads);
  if (context.options.fuse_idle_threads) {
    fuse_loop_cfg_set_idle_threads(loop_config, *context.options.fuse_idle_threads);
  }
  fuse_loop_cfg_set_clone_fd(loop_config, context.options.fuse_clone_fd ? 1 : 0);
  const int exit_code = fuse_session_loop_mt(session, loop_config) == 0 ? 0 : 1;
  fuse_loop_cfg_destroy(loop_config);
  return exit_code;
}

// A reading thread's request buffer (libfuse allocates it at the first read), freed when the thread
// ends, also by cancellation in its read.
struct RequestBuffer {
  struct fuse_buf buffer {};
  ~RequestBuffer() { std::free(buffer.mem); }
};

// Reads one kernel request and handles it (RequestLoop::ServeOne); false once the session ended:
// unmounted (libfuse reports ENODEV as 0), or a read failed (`read_failed`).
bool ServeOneRequest(struct fuse_session* session, std::atomic<bool>& read_failed) {
  thread_local RequestBuffer request;
  if (fuse_session_exited(session)) return false;
  // Only the read may be cancelled (RequestLoop::Stop), never a request half handled, as in libfuse.
  pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, nullptr);
  const int received = fuse_session_receive_buf(session, &request.buffer);
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, nullptr);
  if (received == -EINTR) return true;
  if (received <= 0) {
    if (received < 0) read_failed = true;
    fuse_session_exit(session);
    return false;
  }
  fuse_session_process_buf(session, &request.buffer);
  return true;
}

// The mount's loop (fuse/request_loop.h): --fuse-readers threads read, up to --fuse-threads in all.
int RunRequestLoop(MountContext& context, struct fuse_session* session) {
  std::atomic<bool> read_failed{false};
  xtreemfs::fuse_adapter::RequestLoop loop(
      std::min(context.options.fuse_readers, context.options.fuse_threads),
      context.options.fuse_threads,
      [session, &read_failed] { return ServeOneRequest(session, read_failed); });
  loop.Start();
  // A signal (libfuse's handlers end the session) interrupts the wait, as does the end of a read.
  while (!fuse_session_exited(session)) loop.WaitForEnd();
  loop.Stop();
  return read_failed ? 1 : 0;
}

int RunMount(MountContext& context, const std::string& program_name) {
  // Fails early, on the terminal, for an unknown volume or an unreachable DIR/MRC.
  try {
    OpenVolume(context);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: cannot open volume '%s' at %s:%u: %s\n", program_name.c_str(),
                 context.options.url.volume_name.c_str(), context.options.url.host.c_str(),
                 static_cast<unsigned>(context.options.url.port), error.what());
    return 1;
  }
  CloseVolume(context);

  std::vector<std::string> fuse_arguments{program_name};
  if (context.options.fuse_debug) fuse_arguments.push_back("-d");
  // The source names the DIR with its scheme (xtreemfs@pbrpcs://host:port/volume), so tools that find
  // the volume from a path in the mount (xtfsutil) speak to the DIR as the mount does.
  const xtreemfs::rpc::ServiceAddress dir{context.options.url.host, context.options.url.port,
                                          context.options.url.scheme.value_or(xtreemfs::rpc::Scheme::kPlain)};
  std::string option_list =
      "fsname=xtreemfs@" + dir.ToUrl() + "/" + context.options.url.volume_name + ",subtype=xtreemfs";
  // The kernel checks every caller against the modes it caches (default_permissions): without it, an
  // entry or attributes cached after one user's lookup answer another user who lacks search
  // permission on the directory, for the cache's lifetime. The rules are the MRC's too (POSIX modes,
  // root bypasses them), and the MRC still checks each change with the caller's credentials.
  option_list += ",default_permissions";
  for (const std::string& option : context.options.fuse_options) option_list += "," + option;
  fuse_arguments.push_back("-o");
  fuse_arguments.push_back(option_list);
  std::vector<char*> argv;
  for (std::string& argument : fuse_arguments) argv.push_back(argument.data());
  struct fuse_args args = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());

  const struct fuse_lowlevel_ops operations = xtreemfs::fuse_adapter::MakeFuseOperations();
  struct fuse_session* session = fuse_session_new(&args, &operations, sizeof operations, &context);
  if (session == nullptr) {
    std::fprintf(stderr, "%s: invalid FUSE options: %s\n", program_name.c_str(), option_list.c_str());
    return 1;
  }
  int exit_code = 1;
  // Resolved while it is still a plain folder (later, resolving it would ask this mount itself).
  if (char* resolved = realpath(context.options.mount_point.c_str(), nullptr)) {
    context.mount_point_absolute = resolved;
    std::free(resolved);
  }
  if (fuse_session_mount(session, context.options.mount_point.c_str()) != 0) {
    std::fprintf(stderr, "%s: cannot mount on '%s'\n", program_name.c_str(),
                 context.options.mount_point.c_str());
  } else {
    if (fuse_set_signal_handlers(session) == 0) {
      if (fuse_daemonize(context.options.foreground ? 1 : 0) == 0) {
        try {
          OpenVolume(context);
          context.locks->StartRenewal();  // a thread: only after the fork
          context.session = session;
          context.log.Log(LogLevel::kInfo, "mounted volume " + context.options.url.volume_name +
                                               " on " + context.options.mount_point);
          const bool libfuse_loop =
              context.options.fuse_clone_fd || context.options.fuse_idle_threads.has_value();
          exit_code = libfuse_loop ? RunLibfuseLoop(context, session) : RunRequestLoop(context, session);
        } catch (const std::exception& error) {
          context.log.Log(LogLevel::kError, std::string("cannot open volume: ") + error.what());
        }
      }
      fuse_remove_signal_handlers(session);
    }
    fuse_session_unmount(session);
  }
  // Runs the destroy operation (buffered data of unreleased handles) if init ran.
  fuse_session_destroy(session);
  context.session = nullptr;
  fuse_opt_free_args(&args);
  CloseVolume(context);
  return exit_code;
}

}  // namespace

// Buffers of up to a FUSE request (1 MiB) plus its RPC record come from the heap and are reused.
// glibc serves blocks above its mmap threshold (128 KiB at first) with a fresh mapping each time, so
// every 1 MiB O_DIRECT request faulted in, zeroed and unmapped its buffers again (perf: page faults
// were 28 % of the mount's CPU writing 1 MiB requests, 10 % reading). The heap keeps at most
// kHeapTrimBytes free at its top; the I/O budget (--io-buffer-bytes) bounds what is in use.
constexpr int kMmapThresholdBytes = 4 << 20;
constexpr int kHeapTrimBytes = 64 << 20;

int main(int argc, char** argv) {
  mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes);
  mallopt(M_TRIM_THRESHOLD, kHeapTrimBytes);
  const std::string program_name = "mount.xtreemfs";
  MountContext context;
  try {
    context.options = xtreemfs::fuse_adapter::ParseMountOptions(
        std::vector<std::string>(argv + 1, argv + argc));
  } catch (const xtreemfs::fuse_adapter::UsageError& error) {
    std::fprintf(stderr, "%s: %s\n\n%s", program_name.c_str(), error.what(),
                 xtreemfs::fuse_adapter::MountUsage(program_name).c_str());
    return 2;
  }
  if (context.options.show_help) {
    std::fputs(xtreemfs::fuse_adapter::MountUsage(program_name).c_str(), stdout);
    return 0;
  }
  if (!context.log.Open(context.options.log_file_path, context.options.foreground,
                        context.options.log_level)) {
    std::fprintf(stderr, "%s: cannot open log file '%s'\n", program_name.c_str(),
                 context.options.log_file_path.c_str());
    return 1;
  }
  return RunMount(context, program_name);
}
