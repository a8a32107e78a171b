// Time behind a seam: the client reads clocks only through this interface, so tests control TTLs
// and capability expiry without sleeping.
#pragma once

#include <chrono>
#include <cstdint>

namespace xtreemfs::client {

class Clock {
 public:
  virtual ~Clock() = default;
  // For durations and cache TTLs; never goes backwards.
  virtual std::int64_t MonotonicMs() = 0;
  // Epoch milliseconds, comparable with XCap.expires_ms set by the MRC.
  virtual std::int64_t WallMs() = 0;
};

class SystemClock : public Clock {
 public:
  std::int64_t MonotonicMs() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  std::int64_t WallMs() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace xtreemfs::client
