// A minimal thread-safe logger for the mount process: one line per event, with UTC time and level.
#pragma once

#include <cstdio>
#include <ctime>
#include <mutex>
#include <string>

#include "fuse/mount_options.h"

namespace xtreemfs::fuse_adapter {

class Logger {
 public:
  Logger() = default;
  ~Logger() {
    if (owned_file_ != nullptr) std::fclose(owned_file_);
  }
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  // Sends lines to `path` (appending), to stderr when `path` is empty and `use_stderr`, else nowhere.
  // Returns false when the file cannot be opened.
  bool Open(const std::string& path, bool use_stderr, LogLevel level) {
    std::lock_guard<std::mutex> lock(mutex_);
    level_ = level;
    if (!path.empty()) {
      owned_file_ = std::fopen(path.c_str(), "a");
      output_ = owned_file_;
      return owned_file_ != nullptr;
    }
    output_ = use_stderr ? stderr : nullptr;
    return true;
  }

  bool Enabled(LogLevel level) const { return output_ != nullptr && level <= level_; }

  void Log(LogLevel level, const std::string& message) {
    if (!Enabled(level)) return;
    static const char* const kNames[] = {"ERROR", "WARN", "INFO", "DEBUG"};
    char time_text[32];
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    std::strftime(time_text, sizeof time_text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    std::lock_guard<std::mutex> lock(mutex_);
    std::fprintf(output_, "%s %s mount.xtreemfs: %s\n", time_text, kNames[static_cast<int>(level)],
                 message.c_str());
    std::fflush(output_);
  }

 private:
  std::mutex mutex_;
  LogLevel level_ = LogLevel::kWarn;
  std::FILE* output_ = nullptr;
  std::FILE* owned_file_ = nullptr;
};

}  // namespace xtreemfs::fuse_adapter
