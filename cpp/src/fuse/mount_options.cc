#include "fuse/mount_options.h"

#include <limits>

#include "rpc/rpc_error.h"

namespace xtreemfs::fuse_adapter {
namespace {

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
    } else if (argument.size() > 1 && argument[0] == '-') {
      throw UsageError("unknown option '" + argument + "'");
    } else {
      positional.push_back(argument);
    }
  }
  if (options.show_help) {
    return options;
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
  options.mount_point = positional[1];
  return options;
}

std::string MountUsage(const std::string& program_name) {
  return "Usage: " + program_name + " [options] [pbrpc://]host[:port]/volume MOUNTPOINT\n"
         "\n"
         "Mounts an XtreemFS volume through FUSE. The DIR's default port is 32638.\n"
         "\n"
         "Options:\n"
         "  -f, --foreground     stay in the foreground (default: run as a daemon)\n"
         "  -d, --debug          print every FUSE request (implies -f)\n"
         "  -o OPT[,OPT...]      FUSE mount options, e.g. allow_other, ro, default_permissions\n"
         "  --metadata-cache-ttl-ms N\n"
         "                       how long file attributes and names are trusted, by the client's\n"
         "                       metadata cache and by the kernel each; a change made by another\n"
         "                       client is visible after at most 2 * N ms (default 1000; 0: no\n"
         "                       caching, every stat asks the MRC)\n"
         "  --log-level LEVEL    error, warn (default), info or debug\n"
         "  --log-file PATH      append log lines to PATH (default: stderr in the foreground,\n"
         "                       nowhere as a daemon)\n"
         "  --timeout-ms N       timeout of one request to a server (default 30000)\n"
         "  --retries N          repeats of an idempotent request after a transient error\n"
         "                       (default 2)\n"
         "  -h, --help           print this help\n"
         "\n"
         "Unmount with umount.xtreemfs MOUNTPOINT (or fusermount3 -u MOUNTPOINT).\n";
}

}  // namespace xtreemfs::fuse_adapter
