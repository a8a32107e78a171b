#include "fuse/mount_options.h"

#include <gtest/gtest.h>

namespace xtreemfs::fuse_adapter {
namespace {

TEST(MountOptionsTest, UrlAndMountPointWithDefaults) {
  // Two positional arguments give the volume URL and mount point; defaults daemonize at warn level.
  MountOptions options = ParseMountOptions({"pbrpc://dir:1234/demo", "/mnt/x"});
  EXPECT_EQ(options.url.host, "dir");
  EXPECT_EQ(options.url.port, 1234);
  EXPECT_EQ(options.url.volume_name, "demo");
  EXPECT_EQ(options.mount_point, "/mnt/x");
  EXPECT_FALSE(options.foreground);
  EXPECT_EQ(options.log_level, LogLevel::kWarn);
  EXPECT_EQ(options.attempts_max, 3u);
}

TEST(MountOptionsTest, OptionsBeforeAndAfterPositionalsAreParsed) {
  // mount(8) passes -o last; -f, -o lists, log and timeout options work in any position.
  MountOptions options = ParseMountOptions({"-f", "--log-level=debug", "host/v", "/mnt",
                                            "-o", "allow_other,ro", "-odefault_permissions",
                                            "--log-file", "/tmp/l", "--timeout-ms", "500",
                                            "--retries=0"});
  EXPECT_TRUE(options.foreground);
  EXPECT_EQ(options.log_level, LogLevel::kDebug);
  EXPECT_EQ(options.fuse_options,
            (std::vector<std::string>{"allow_other", "ro", "default_permissions"}));
  EXPECT_EQ(options.log_file_path, "/tmp/l");
  EXPECT_EQ(options.timeout_ms, 500u);
  EXPECT_EQ(options.attempts_max, 1u);
}

TEST(MountOptionsTest, DebugImpliesForegroundAndHelpNeedsNoPositionals) {
  // -d keeps the process in the foreground; --help alone is a valid command line.
  EXPECT_TRUE(ParseMountOptions({"-d", "h/v", "/m"}).foreground);
  EXPECT_TRUE(ParseMountOptions({"--help"}).show_help);
  EXPECT_NE(MountUsage("mount.xtreemfs").find("[pbrpc://]host[:port]/volume MOUNTPOINT"),
            std::string::npos);
}

TEST(MountOptionsTest, BadCommandLinesAreUsageErrors) {
  // Missing or extra positionals, unknown options, bad values and bad URLs are rejected.
  const std::vector<std::vector<std::string>> bad_lines = {
      {}, {"h/v"}, {"h/v", "/m", "extra"}, {"--bogus", "h/v", "/m"}, {"h/v", "/m", "-o"},
      {"--log-level=loud", "h/v", "/m"}, {"--timeout-ms", "0", "h/v", "/m"},
      {"--timeout-ms", "x", "h/v", "/m"}, {"http://h/v", "/m"}, {"h/v", "/m", "--log-file"}};
  for (const auto& line : bad_lines) {
    EXPECT_THROW(ParseMountOptions(line), UsageError) << ::testing::PrintToString(line);
  }
}

}  // namespace
}  // namespace xtreemfs::fuse_adapter
