#include "fuse/mount_options.h"

#include <limits>

#include "rpc/rpc_error.h"

namespace xtreemfs::fuse_adapter {
namespace {

constexpr std::uint32_t kIoThreadsMax = 256;
constexpr std::uint32_t kFuseThreadsMax = 1024;
constexpr std::uint32_t kNetworkThreadsMax = 64;
constexpr std::uint32_t kBufferBytesMax = 1u << 30;  // 1 GiB: per handle and for the whole mount
constexpr std::uint32_t kKernelReadAheadBytesMax = 64u << 20;

std::uint32_t ParseUnsigned(const std::string& option, const std::string& text, std::uint32_t min,
                            std::uint32_t max) {
  if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos) {
    throw UsageError(option + ": '" + text + "' is not a number");
  }
  const unsigned long long value = std::stoull(text);
  if (value < min || value > max) {
    throw UsageError(option + ": " + text + " outside " + std::to_string(min) + ".." +
                     std::to_string(max));
  }
  return static_cast<std::uint32_t>(value);
}

LogLevel ParseLogLevel(const std::string& text) {
  if (text == "error") return LogLevel::kError;
  if (text == "warn") return LogLevel::kWarn;
  if (text == "info") return LogLevel::kInfo;
  if (text == "debug") return LogLevel::kDebug;
  throw UsageError("--log-level: '" + text + "' is not one of error, warn, info, debug");
}

void AddFuseOptions(MountOptions& options, const std::string& list) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::string option = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!option.empty()) options.fuse_options.push_back(option);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

}  // namespace

MountOptions ParseMountOptions(const std::vector<std::string>& arguments) {
  MountOptions options;
  std::vector<std::string> positional;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    // Options taking a value accept "--name value" and "--name=value".
    auto value_of = [&](const std::string& name) -> std::string {
      if (argument.size() > name.size() && argument.compare(0, name.size() + 1, name + "=") == 0) {
        return argument.substr(name.size() + 1);
      }
      if (i + 1 >= arguments.size()) throw UsageError(name + " needs a value");
      return arguments[++i];
    };
    auto is_option = [&](const std::string& name) {
      return argument == name || argument.compare(0, name.size() + 1, name + "=") == 0;
    };
    if (is_option("--metadata-cache-ttl-ms")) {
      options.metadata_cache_ttl_ms = ParseUnsigned("--metadata-cache-ttl-ms",
                                                    value_of("--metadata-cache-ttl-ms"), 0, 3600000);
    } else if (is_option("--negative-cache-ttl-ms")) {
      options.negative_cache_ttl_ms = ParseUnsigned("--negative-cache-ttl-ms",
                                                    value_of("--negative-cache-ttl-ms"), 0, 3600000);
    } else if (is_option("--absent-names-misses")) {
      options.absent_names_misses =
          ParseUnsigned("--absent-names-misses", value_of("--absent-names-misses"), 0, 1000000);
    } else if (is_option("--caller-groups-ttl-ms")) {
      options.caller_groups_ttl_ms =
          ParseUnsigned("--caller-groups-ttl-ms", value_of("--caller-groups-ttl-ms"), 0, 3600000);
    } else if (is_option("--stat-ahead-misses")) {
      options.stat_ahead_misses =
          ParseUnsigned("--stat-ahead-misses", value_of("--stat-ahead-misses"), 0, 1000000);
    } else if (argument == "-h" || argument == "--help") {
      options.show_help = true;
    } else if (argument == "-f" || argument == "--foreground") {
      options.foreground = true;
    } else if (argument == "-d" || argument == "--debug") {
      options.fuse_debug = true;
      options.foreground = true;
    } else if (argument == "-o") {
      if (i + 1 >= arguments.size()) throw UsageError("-o needs a value");
      AddFuseOptions(options, arguments[++i]);
    } else if (argument.size() > 2 && argument.compare(0, 2, "-o") == 0) {
      AddFuseOptions(options, argument.substr(2));
    } else if (is_option("--log-level")) {
      options.log_level = ParseLogLevel(value_of("--log-level"));
    } else if (is_option("--log-file")) {
      options.log_file_path = value_of("--log-file");
      if (options.log_file_path.empty()) throw UsageError("--log-file: empty path");
    } else if (is_option("--timeout-ms")) {
      options.timeout_ms = ParseUnsigned("--timeout-ms", value_of("--timeout-ms"), 1, 3600000);
    } else if (is_option("--retries")) {
      options.attempts_max = ParseUnsigned("--retries", value_of("--retries"), 0, 100) + 1;
    } else if (is_option("--uuid-cache-ttl-ms")) {
      options.uuid_cache_ttl_ms =
          ParseUnsigned("--uuid-cache-ttl-ms", value_of("--uuid-cache-ttl-ms"), 1, 3600000);
    } else if (is_option("--flock-nonblocking-wait-ms")) {
      options.locks.flock_nonblocking_wait_ms = ParseUnsigned(
          "--flock-nonblocking-wait-ms", value_of("--flock-nonblocking-wait-ms"), 0, 60000);
    } else if (is_option("--retry-window-ms")) {
      options.retry_window_ms =
          ParseUnsigned("--retry-window-ms", value_of("--retry-window-ms"), 0, 3600000);
    } else if (is_option("--slow-server-wait-ms")) {
      options.slow_server_wait_ms =
          ParseUnsigned("--slow-server-wait-ms", value_of("--slow-server-wait-ms"), 0, 86400000);
    } else if (is_option("--fuse-threads")) {
      options.fuse_threads =
          ParseUnsigned("--fuse-threads", value_of("--fuse-threads"), 1, kFuseThreadsMax);
    } else if (is_option("--fuse-readers")) {
      options.fuse_readers =
          ParseUnsigned("--fuse-readers", value_of("--fuse-readers"), 1, kFuseThreadsMax);
    } else if (is_option("--fuse-idle-threads")) {
      options.fuse_idle_threads =
          ParseUnsigned("--fuse-idle-threads", value_of("--fuse-idle-threads"), 1, kFuseThreadsMax);
    } else if (argument == "--fuse-clone-fd") {
      options.fuse_clone_fd = true;
    } else if (is_option("--network-threads")) {
      options.network_threads =
          ParseUnsigned("--network-threads", value_of("--network-threads"), 1, kNetworkThreadsMax);
    } else if (is_option("--io-threads")) {
      options.io.threads = ParseUnsigned("--io-threads", value_of("--io-threads"), 1, kIoThreadsMax);
    } else if (is_option("--write-behind-bytes")) {
      options.io.write_behind_bytes = ParseUnsigned(
          "--write-behind-bytes", value_of("--write-behind-bytes"), 0, kBufferBytesMax);
    } else if (argument == "--no-write-behind") {
      options.io.write_behind_bytes = 0;
    } else if (is_option("--read-ahead-bytes")) {
      options.io.read_ahead_bytes = ParseUnsigned("--read-ahead-bytes",
                                                  value_of("--read-ahead-bytes"), 0, kBufferBytesMax);
    } else if (argument == "--no-read-ahead") {
      options.io.read_ahead_bytes = 0;
    } else if (is_option("--kernel-read-ahead-bytes")) {
      options.kernel_read_ahead_bytes = ParseUnsigned(
          "--kernel-read-ahead-bytes", value_of("--kernel-read-ahead-bytes"), 0, kKernelReadAheadBytesMax);
    } else if (is_option("--io-buffer-bytes")) {
      options.io.buffer_bytes_max = ParseUnsigned("--io-buffer-bytes", value_of("--io-buffer-bytes"),
                                                  1 << 20, kBufferBytesMax);
    } else if (is_option("--tls-ca")) {
      options.tls.authority_file = value_of("--tls-ca");
      if (options.tls.authority_file.empty()) throw UsageError("--tls-ca: empty path");
    } else if (is_option("--tls-cert")) {
      options.tls.certificate_file = value_of("--tls-cert");
      if (options.tls.certificate_file.empty()) throw UsageError("--tls-cert: empty path");
    } else if (is_option("--tls-key")) {
      options.tls.private_key_file = value_of("--tls-key");
      if (options.tls.private_key_file.empty()) throw UsageError("--tls-key: empty path");
    } else if (argument.size() > 1 && argument[0] == '-') {
      throw UsageError("unknown option '" + argument + "'");
    } else {
      positional.push_back(argument);
    }
  }
  if (options.show_help) {
    return options;
  }
  if (!options.tls.enabled() &&
      !(options.tls.certificate_file.empty() && options.tls.private_key_file.empty())) {
    throw UsageError("--tls-cert and --tls-key need --tls-ca (the CA to trust)");
  }
  if (options.tls.certificate_file.empty() != options.tls.private_key_file.empty()) {
    throw UsageError("--tls-cert and --tls-key go together");
  }
  if (positional.size() != 2) {
    throw UsageError("expected a volume URL and a mount point, got " +
                     std::to_string(positional.size()) + " arguments");
  }
  try {
    options.url = client::ParseDirUrl(positional[0]);
  } catch (const rpc::RpcError& error) {
    throw UsageError(error.what());
  }
  // pbrpcs:// (XtreemFS's scheme for TLS) says the DIR speaks TLS: the CA must then be given. Without a
  // scheme the DIR is spoken to as the options say (TLS with --tls-ca); other servers by their scheme.
  if (options.url.scheme == rpc::Scheme::kTls && !options.tls.enabled()) {
    throw UsageError("a pbrpcs:// URL needs --tls-ca (the cluster's CA certificate)");
  }
  if (!options.url.scheme.has_value()) {
    options.url.scheme = options.tls.enabled() ? rpc::Scheme::kTls : rpc::Scheme::kPlain;
  }
  options.mount_point = positional[1];
  // A write-behind object queued from a FUSE request's bytes holds that request's worker until the OSD
  // answered (client::IoOptions): at most a quarter of the workers, so the others keep serving.
  options.io.borrowed_writes_max = options.fuse_threads / 4;
  return options;
}

std::string MountUsage(const std::string& program_name) {
  return "Usage: " + program_name + " [options] [pbrpc[s]://]host[:port]/volume MOUNTPOINT\n"
         "\n"
         "Mounts an XtreemFS volume through FUSE. The DIR's default port is 32638.\n"
         "\n"
         "Options:\n"
         "  -f, --foreground     stay in the foreground (default: run as a daemon)\n"
         "  -d, --debug          print every FUSE request (implies -f)\n"
         "  -o OPT[,OPT...]      FUSE mount options, e.g. allow_other, ro, default_permissions\n"
         "                       (libfuse's session and kernel options; caching is set by the\n"
         "                       options below, not by attr_timeout= or entry_timeout=)\n"
         "  --metadata-cache-ttl-ms N\n"
         "                       how long file attributes and names are trusted, by the client's\n"
         "                       metadata cache and by the kernel each; a change made by another\n"
         "                       client is visible after at most 2 * N ms (default 1000; 0: no\n"
         "                       caching, every stat asks the MRC)\n"
         "  --negative-cache-ttl-ms N\n"
         "                       how long the kernel remembers that a name does not exist, so a\n"
         "                       repeated lookup of it needs no round trip; names created,\n"
         "                       linked or renamed through this mount show at once, a name created\n"
         "                       by another client after at most N ms (default: the metadata\n"
         "                       cache TTL; 0: never remembered)\n"
         "  --absent-names-misses N\n"
         "                       after N lookups in one directory that found no entry, list\n"
         "                       its names (at most 65536) and answer lookups of other names\n"
         "                       as missing without asking the MRC for the negative TTL from\n"
         "                       then (the lookup of every new name before a create); names\n"
         "                       changed through this mount are asked for again, a name created\n"
         "                       by another client shows after at most that TTL (default 4;\n"
         "                       0: never)\n"
         "  --caller-groups-ttl-ms N\n"
         "                       reuse a calling thread's supplementary groups (read from /proc\n"
         "                       for the MRC's permission checks) for N ms; a thread's\n"
         "                       setgroups(2) reaches the MRC after at most N ms, while the kernel\n"
         "                       checks its current groups at once (default 1000; 0: read for\n"
         "                       every request)\n"
         "  --stat-ahead-misses N\n"
         "                       after N stats in one directory that the cache could not answer,\n"
         "                       list the directory with attributes into the cache (at most\n"
         "                       32768 entries, trusted like any cache entry), so that stat of\n"
         "                       its other entries needs no round trip (default 8; 0: never)\n"
         "  --log-level LEVEL    error, warn (default), info or debug\n"
         "  --log-file PATH      append log lines to PATH (default: stderr in the foreground,\n"
         "                       nowhere as a daemon)\n"
         "  --timeout-ms N       timeout of one request to a server (default 30000)\n"
         "  --retry-window-ms N  how long a request that may be repeated (reads, writes, lookups,\n"
         "                       and metadata changes, which the MRC applies exactly once) is\n"
         "                       retried after no answer, a refused or reset connection or an\n"
         "                       overloaded server, with backoff from 100 ms doubling to 2 s: a\n"
         "                       server restart shorter than N is only a pause (default 60000;\n"
         "                       0: no retries). Only time in which the server did not answer\n"
         "                       counts: see --slow-server-wait-ms\n"
         "  --retries N          at most N repeats of such a request, even inside the window\n"
         "                       (default: no cap)\n"
         "  --slow-server-wait-ms N\n"
         "                       a request that got no answer within --timeout-ms is followed by\n"
         "                       a ping of its server; a server that answers is alive but slow\n"
         "                       (an fsync forcing many objects, a loaded machine): that attempt\n"
         "                       counts neither against --retry-window-ms nor --retries, and the\n"
         "                       request is sent again with twice the time, for at most N ms of\n"
         "                       such attempts in all.\n"
         "                       A server that does not answer its ping (dead, stopped) uses up\n"
         "                       the window as before (default 600000; 0: no pings, a slow\n"
         "                       server counts as unreachable)\n"
         "  --uuid-cache-ttl-ms N  how long a server's address learnt from the DIR is used before\n"
         "                       the DIR is asked again; a retry after a refused or reset\n"
         "                       connection asks it at once; while the DIR does not answer, the\n"
         "                       last address learnt stays in use (default 60000)\n"
         "  --flock-nonblocking-wait-ms N  flock(2) with LOCK_NB (flock -n) that meets another\n"
         "                       holder's lock tries again for up to N ms before EWOULDBLOCK: the\n"
         "                       kernel does not wait for the unlock of a closed file's flock, so\n"
         "                       its holder's close(2) may return before the lock is gone\n"
         "                       (default 500; 0: refused at once; at most 60000)\n"
         "  --fuse-threads N     threads taking kernel requests; each waits for the server calls\n"
         "                       of its request, except O_DIRECT reads and writes inside one\n"
         "                       object, which the io thread answers; so at most N other\n"
         "                       requests are in flight (default 64, at most 1024; libfuse's: 10)\n"
         "  --fuse-readers N     of those, N read kernel requests at a time; one whose request\n"
         "                       waits for a server keeps its place while another reader is free,\n"
         "                       else hands it to another thread, so only requests answered\n"
         "                       without waiting are bounded by N (default 2, at most\n"
         "                       --fuse-threads)\n"
         "  --fuse-clone-fd      each FUSE thread reads and answers kernel requests on a /dev/fuse\n"
         "                       descriptor of its own (libfuse's clone_fd and libfuse's own loop,\n"
         "                       in which every thread reads; default: one shared descriptor)\n"
         "  --fuse-idle-threads N  libfuse's own loop (as with --fuse-clone-fd) in which a thread\n"
         "                       finishing its request while N others wait for one ends\n"
         "                       (libfuse's max_idle_threads; default: every thread started stays)\n"
         "  --network-threads N  threads receiving the servers' answers, each connection on one\n"
         "                       in turn; asynchronous reads and writes are answered there, so\n"
         "                       the OSDs of a stripe are served in parallel (default 1, at most 64)\n"
         "  --io-threads N       threads sending OSD requests, shared by all files (default 8,\n"
         "                       at most 256)\n"
         "  --write-behind-bytes N  per open file: written bytes sent to the OSDs asynchronously\n"
         "                       before a write waits (default 4194304; 0 = off). OSD errors of\n"
         "                       buffered writes are returned by the next write, fsync or close\n"
         "  --no-write-behind    the same as --write-behind-bytes 0: every write waits for the OSDs\n"
         "  --read-ahead-bytes N per open file: bytes prefetched ahead of sequential reads\n"
         "                       (default 4194304; 0 = off)\n"
         "  --no-read-ahead      the same as --read-ahead-bytes 0\n"
         "  --kernel-read-ahead-bytes N  the kernel's read-ahead window of this mount, for\n"
         "                       buffered reads (its bdi's read_ahead_kb; needs root; at most\n"
         "                       67108864; default 4194304). Once set, files leave\n"
         "                       --read-ahead-bytes off; 0 keeps the kernel's 128 KiB and the\n"
         "                       client's read-ahead\n"
         "  --io-buffer-bytes N  write-behind and read-ahead memory of all files together; writers\n"
         "                       wait when it is used up (default 67108864, at least 1048576)\n"
         "  --tls-ca FILE        trust the CA certificate(s) in FILE (PEM) for the servers that speak\n"
         "                       TLS: those registered as pbrpcs at the DIR (their *.tls.certificateFile\n"
         "                       is set), and the DIR itself when the URL says pbrpcs:// or gives no\n"
         "                       scheme; plain (pbrpc) servers are still spoken to plainly. Each TLS\n"
         "                       server's certificate must name the address dialled\n"
         "  --tls-cert FILE      with --tls-ca: present this client certificate (PEM), for servers\n"
         "                       that require one; an MRC with mrc.identity.fromCertificate takes\n"
         "                       every caller of this mount to be the certificate's user\n"
         "  --tls-key FILE       the private key (PEM) of --tls-cert\n"
         "  -h, --help           print this help\n"
         "\n"
         "Unmount with umount.xtreemfs MOUNTPOINT (or fusermount3 -u MOUNTPOINT).\n";
}

}  // namespace xtreemfs::fuse_adapter
