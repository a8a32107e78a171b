// Command line of mount.xtreemfs: `mount.xtreemfs [options] [pbrpc[s]://]host[:port]/volume MOUNTPOINT`
// (pbrpcs:// for a TLS DIR, which needs --tls-ca; without a scheme, TLS when --tls-ca is given). The
// other servers are spoken to by the scheme each registered at the DIR.
// Options may also follow the positional arguments, as mount(8) passes `-o ...` last.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "client/dir_url.h"
#include "client/io_pool.h"
#include "client/lock_client.h"
#include "rpc/tls_options.h"

namespace xtreemfs::fuse_adapter {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

struct MountOptions {
  bool show_help = false;
  bool foreground = false;
  bool fuse_debug = false;                 // -d: libfuse prints every request; implies foreground
  std::vector<std::string> fuse_options;   // from -o, split at ',', passed to libfuse as given
  // Client metadata cache lifetime, also the kernel's attribute and entry timeout; 0 disables both.
  std::uint32_t metadata_cache_ttl_ms = 1000;
  // How long the kernel keeps the answer that a name does not exist (a negative entry); unset: the
  // metadata cache TTL; 0: never kept. A name created by another client is seen after at most this.
  std::optional<std::uint32_t> negative_cache_ttl_ms;
  std::uint32_t NegativeCacheTtlMs() const {
    return negative_cache_ttl_ms.value_or(metadata_cache_ttl_ms);
  }
  // Getattr misses in one directory after which the client lists it into its cache; 0: never.
  std::uint32_t stat_ahead_misses = 8;
  // Lookups that found no entry in one directory before its names are listed (client/absent_names.h).
  std::uint32_t absent_names_misses = 4;
  // How long a calling thread's supplementary groups, read from /proc, are reused (caller_groups.h);
  // 0: read for every request that the MRC checks permissions for.
  std::uint32_t caller_groups_ttl_ms = 1000;
  LogLevel log_level = LogLevel::kWarn;
  std::string log_file_path;               // empty: stderr in the foreground, nothing as a daemon
  std::uint32_t timeout_ms = 30000;        // per RPC attempt
  std::uint32_t attempts_max = 0;          // per repeatable RPC, 0: no cap (--retries N: N + 1)
  std::uint32_t retry_window_ms = 60000;   // repeatable RPCs retry this long (--retry-window-ms)
  // Unanswered attempts to a server that answers its pings (alive, slow) wait this long in all before
  // the call fails; 0: a slow server counts as unreachable (--slow-server-wait-ms; rpc::RetryPolicy).
  std::uint32_t slow_server_wait_ms = 600000;
  std::uint32_t uuid_cache_ttl_ms = 60000; // how long an OSD's address from the DIR is used
  client::LockClientOptions locks;         // --flock-nonblocking-wait-ms
  client::IoOptions io;                    // --io-threads, write-behind, read-ahead, buffer budget
  rpc::TlsOptions tls;                     // --tls-ca, --tls-cert, --tls-key
  // libfuse's worker threads (--fuse-threads): each handles one kernel request at a time, waiting for
  // its OSD or MRC calls (except the asynchronous reads and writes the io thread answers), so this
  // bounds the other requests of the whole mount in flight. libfuse's own
  // default of 10 held a queue depth of 32 (fio libaio, O_DIRECT) to 10 requests.
  std::uint32_t fuse_threads = 64;
  // Of those, how many read kernel requests at a time (--fuse-readers; at most fuse_threads): one
  // whose request waits for a server keeps its place while another reader is free, else hands it to
  // another thread (fuse/request_loop.h), so a queued request always has a reader. Every request
  // the kernel queues wakes a thread waiting in read, so fewer readers mean more requests taken by
  // a reader that is about to read anyway, without a wake-up.
  std::uint32_t fuse_readers = 2;
  // libfuse's max_idle_threads (--fuse-idle-threads), for libfuse's own loop (--fuse-clone-fd): a
  // worker that finishes its request while more than this many others wait ends; unset: all stay.
  std::optional<std::uint32_t> fuse_idle_threads;
  // libfuse's clone_fd (--fuse-clone-fd): each worker reads and answers kernel requests on a /dev/fuse
  // descriptor of its own (FUSE_DEV_IOC_CLONE), so replies are matched in that descriptor's own
  // processing queue instead of one queue and lock shared by every worker. Runs libfuse's own loop
  // (every worker reads; --fuse-readers does not apply).
  bool fuse_clone_fd = false;
  // Threads receiving the servers' answers (--network-threads; rpc::RpcClientOptions::io_threads):
  // each connection is served by one, in turn, and completes its asynchronous reads and writes there
  // (the reply to the kernel included), so the answers of the OSDs of a stripe are received and
  // answered in parallel.
  std::uint32_t network_threads = 1;

  // The kernel's read-ahead window of this mount (its bdi's read_ahead_kb), set once the connection
  // is initialised; 0 leaves the kernel's (128 KiB, which FUSE's init can only lower). A buffered
  // sequential reader then gets requests of up to 1 MiB, several in flight, instead of 128 KiB ones
  // one or two at a time. Needs root (sysfs); otherwise the kernel's window stays and the log says so.
  // Once the window is written, files opened afterwards leave the client's own read-ahead off
  // (fuse_operations.cc HandOver): the kernel's requests then go to the OSDs as they come, each object
  // piece once. Measured (tests/bench/fuse/README.md, session 11): the cold buffered read faster at
  // less mount and OSD CPU per MiB than the client's read-ahead behind the kernel's 128 KiB.
  // 0 (or 131072, the kernel's window with the client's read-ahead off) is the way back.
  std::uint64_t kernel_read_ahead_bytes = 4u << 20;
  client::DirUrl url;
  std::string mount_point;
};

// Thrown for a command line that cannot be used; what() says why, for the user.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses argv[1..]; throws UsageError. With --help, the positional arguments may be missing.
MountOptions ParseMountOptions(const std::vector<std::string>& arguments);

std::string MountUsage(const std::string& program_name);

}  // namespace xtreemfs::fuse_adapter
