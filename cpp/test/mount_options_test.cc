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
  EXPECT_EQ(options.attempts_max, 0u);
  EXPECT_EQ(options.retry_window_ms, 60000u);
  EXPECT_EQ(options.slow_server_wait_ms, 600000u);
  EXPECT_EQ(options.uuid_cache_ttl_ms, 60000u);
  EXPECT_EQ(options.locks.flock_nonblocking_wait_ms, 500u);
}

TEST(MountOptionsTest, NegativeCacheTtlFollowsTheMetadataTtlUnlessGiven) {
  EXPECT_EQ(ParseMountOptions({"dir/v", "/m"}).NegativeCacheTtlMs(), 1000u);
  EXPECT_EQ(ParseMountOptions({"--metadata-cache-ttl-ms", "250", "dir/v", "/m"}).NegativeCacheTtlMs(),
            250u);
  EXPECT_EQ(ParseMountOptions({"--metadata-cache-ttl-ms", "250", "--negative-cache-ttl-ms=0",
                               "dir/v", "/m"})
                .NegativeCacheTtlMs(),
            0u);
  EXPECT_THROW(ParseMountOptions({"--negative-cache-ttl-ms", "x", "dir/v", "/m"}), UsageError);
  // Listing a directory's names after lookups that found nothing: 4 by default, 0 turns it off.
  EXPECT_EQ(ParseMountOptions({"dir/v", "/m"}).absent_names_misses, 4u);
  EXPECT_EQ(ParseMountOptions({"--absent-names-misses=0", "dir/v", "/m"}).absent_names_misses, 0u);
  EXPECT_THROW(ParseMountOptions({"--absent-names-misses", "-1", "dir/v", "/m"}), UsageError);
  // Callers' groups reused for 1 s by default; 0 reads them for every request.
  EXPECT_EQ(ParseMountOptions({"dir/v", "/m"}).caller_groups_ttl_ms, 1000u);
  EXPECT_EQ(ParseMountOptions({"--caller-groups-ttl-ms=0", "dir/v", "/m"}).caller_groups_ttl_ms, 0u);
  EXPECT_THROW(ParseMountOptions({"--caller-groups-ttl-ms", "3600001", "dir/v", "/m"}), UsageError);
  EXPECT_NE(MountUsage("mount.xtreemfs").find("--caller-groups-ttl-ms"), std::string::npos);
}

TEST(MountOptionsTest, OptionsBeforeAndAfterPositionalsAreParsed) {
  // mount(8) passes -o last; -f, -o lists, log and timeout options work in any position.
  MountOptions options = ParseMountOptions({"-f", "--log-level=debug", "host/v", "/mnt",
                                            "-o", "allow_other,ro", "-odefault_permissions",
                                            "--log-file", "/tmp/l", "--timeout-ms", "500",
                                            "--retries=0", "--retry-window-ms", "1500",
                                            "--uuid-cache-ttl-ms=700", "--slow-server-wait-ms=0",
                                            "--flock-nonblocking-wait-ms", "0"});
  EXPECT_TRUE(options.foreground);
  EXPECT_EQ(options.log_level, LogLevel::kDebug);
  EXPECT_EQ(options.fuse_options,
            (std::vector<std::string>{"allow_other", "ro", "default_permissions"}));
  EXPECT_EQ(options.log_file_path, "/tmp/l");
  EXPECT_EQ(options.timeout_ms, 500u);
  EXPECT_EQ(options.attempts_max, 1u);
  EXPECT_EQ(options.retry_window_ms, 1500u);
  EXPECT_EQ(options.slow_server_wait_ms, 0u);
  EXPECT_EQ(options.uuid_cache_ttl_ms, 700u);
  EXPECT_EQ(options.locks.flock_nonblocking_wait_ms, 0u);
}

TEST(MountOptionsTest, DebugImpliesForegroundAndHelpNeedsNoPositionals) {
  // -d keeps the process in the foreground; --help alone is a valid command line.
  EXPECT_TRUE(ParseMountOptions({"-d", "h/v", "/m"}).foreground);
  EXPECT_TRUE(ParseMountOptions({"--help"}).show_help);
  EXPECT_NE(MountUsage("mount.xtreemfs").find("[pbrpc[s]://]host[:port]/volume MOUNTPOINT"),
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

TEST(MountOptionsTest, TlsOptionsNameTheCaAndAClientCertificateAndPbrpcsAsksForThem) {
  MountOptions plain = ParseMountOptions({"h/v", "/m"});
  EXPECT_FALSE(plain.tls.enabled());
  MountOptions tls = ParseMountOptions({"--tls-ca", "/t/ca.pem", "--tls-cert=/t/me.pem", "--tls-key",
                                        "/t/me.key", "pbrpcs://h:7/v", "/m"});
  EXPECT_TRUE(tls.tls.enabled());
  EXPECT_EQ(tls.tls.authority_file, "/t/ca.pem");
  EXPECT_EQ(tls.tls.certificate_file, "/t/me.pem");
  EXPECT_EQ(tls.tls.private_key_file, "/t/me.key");
  EXPECT_EQ(tls.url.host, "h");
  EXPECT_EQ(tls.url.port, 7);
  EXPECT_EQ(tls.url.scheme, rpc::Scheme::kTls);
  // Without a scheme the DIR is spoken to as the options say; pbrpc:// keeps it plain with a CA.
  EXPECT_EQ(plain.url.scheme, rpc::Scheme::kPlain);
  EXPECT_EQ(ParseMountOptions({"--tls-ca", "/t/ca.pem", "h/v", "/m"}).url.scheme, rpc::Scheme::kTls);
  EXPECT_EQ(ParseMountOptions({"--tls-ca", "/t/ca.pem", "pbrpc://h/v", "/m"}).url.scheme,
            rpc::Scheme::kPlain);
  const std::vector<std::vector<std::string>> bad_lines = {
      {"pbrpcs://h/v", "/m"},                                    // TLS URL without the CA
      {"--tls-cert", "/t/me.pem", "--tls-key", "/t/k", "h/v", "/m"},  // certificate without a CA
      {"--tls-ca", "/t/ca.pem", "--tls-cert", "/t/me.pem", "h/v", "/m"},  // certificate without key
      {"--tls-ca=", "h/v", "/m"}};
  for (const auto& line : bad_lines) {
    EXPECT_THROW(ParseMountOptions(line), UsageError) << ::testing::PrintToString(line);
  }
}

TEST(MountOptionsTest, IoOptionsSetThreadsWindowsAndBudgetAndCanTurnBufferingOff) {
  // --io-threads, the two windows and the budget are parsed; --no-* and 0 switch buffering off;
  // out-of-range values are usage errors naming the option.
  const MountOptions defaults = ParseMountOptions({"h/v", "/m"});
  EXPECT_EQ(defaults.io.threads, 8u);
  EXPECT_EQ(defaults.fuse_threads, 64u);
  EXPECT_EQ(ParseMountOptions({"--fuse-threads", "12", "h/v", "/m"}).fuse_threads, 12u);
  EXPECT_FALSE(defaults.fuse_clone_fd);
  EXPECT_TRUE(ParseMountOptions({"--fuse-clone-fd", "h/v", "/m"}).fuse_clone_fd);
  EXPECT_THROW(ParseMountOptions({"--fuse-threads", "0", "h/v", "/m"}), UsageError);
  EXPECT_EQ(defaults.fuse_readers, 2u);
  EXPECT_EQ(ParseMountOptions({"--fuse-readers", "1", "h/v", "/m"}).fuse_readers, 1u);
  EXPECT_THROW(ParseMountOptions({"--fuse-readers", "0", "h/v", "/m"}), UsageError);
  EXPECT_FALSE(defaults.fuse_idle_threads.has_value());
  EXPECT_EQ(ParseMountOptions({"--fuse-idle-threads=4", "h/v", "/m"}).fuse_idle_threads, 4u);
  EXPECT_THROW(ParseMountOptions({"--fuse-idle-threads", "0", "h/v", "/m"}), UsageError);
  EXPECT_EQ(defaults.network_threads, 1u);
  EXPECT_EQ(ParseMountOptions({"--network-threads", "3", "h/v", "/m"}).network_threads, 3u);
  EXPECT_THROW(ParseMountOptions({"--network-threads", "0", "h/v", "/m"}), UsageError);
  EXPECT_THROW(ParseMountOptions({"--network-threads", "65", "h/v", "/m"}), UsageError);
  EXPECT_EQ(defaults.io.write_behind_bytes, 4u << 20);
  EXPECT_EQ(defaults.io.read_ahead_bytes, 4u << 20);
  EXPECT_EQ(defaults.io.buffer_bytes_max, 64u << 20);
  const MountOptions set = ParseMountOptions({"--io-threads", "3", "--write-behind-bytes=65536",
                                              "--read-ahead-bytes", "0", "--io-buffer-bytes",
                                              "2097152", "h/v", "/m"});
  EXPECT_EQ(set.io.threads, 3u);
  EXPECT_EQ(set.io.write_behind_bytes, 65536u);
  EXPECT_EQ(set.io.read_ahead_bytes, 0u);
  EXPECT_EQ(set.io.buffer_bytes_max, 2097152u);
  const MountOptions off = ParseMountOptions({"--no-write-behind", "--no-read-ahead", "h/v", "/m"});
  EXPECT_EQ(off.io.write_behind_bytes, 0u);
  EXPECT_EQ(off.io.read_ahead_bytes, 0u);
  try {
    ParseMountOptions({"--io-threads", "0", "h/v", "/m"});
    FAIL() << "expected a usage error";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--io-threads"), std::string::npos);
  }
  EXPECT_THROW(ParseMountOptions({"--io-buffer-bytes", "1000", "h/v", "/m"}), UsageError);
  EXPECT_NE(MountUsage("mount.xtreemfs").find("--write-behind-bytes"), std::string::npos);
}

TEST(MountOptionsTest, KernelReadAheadIsFourMebibytesUnlessGivenAndIsBounded) {
  // The kernel's read-ahead window of the mount: 4 MiB unless given, 0 (the kernel's own) is the
  // way back, more than 64 MiB is a usage error.
  EXPECT_EQ(ParseMountOptions({"h/v", "/m"}).kernel_read_ahead_bytes, 4u << 20);
  EXPECT_EQ(ParseMountOptions({"--kernel-read-ahead-bytes", "0", "h/v", "/m"}).kernel_read_ahead_bytes, 0u);
  EXPECT_EQ(ParseMountOptions({"--kernel-read-ahead-bytes", "4194304", "h/v", "/m"}).kernel_read_ahead_bytes,
            4u << 20);
  EXPECT_EQ(ParseMountOptions({"--kernel-read-ahead-bytes=1048576", "h/v", "/m"}).kernel_read_ahead_bytes,
            1u << 20);
  EXPECT_THROW(ParseMountOptions({"--kernel-read-ahead-bytes", "67108865", "h/v", "/m"}), UsageError);
  EXPECT_NE(MountUsage("mount.xtreemfs").find("--kernel-read-ahead-bytes"), std::string::npos);
}

}  // namespace
}  // namespace xtreemfs::fuse_adapter
