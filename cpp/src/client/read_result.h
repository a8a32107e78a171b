// The bytes of one read as the runs they arrived in: the OSDs' answers (or read-ahead objects),
// shared rather than copied, and the zeros of holes, without joining them into one buffer. The FUSE
// adapter hands the runs to the kernel as they are (fuse_reply_iov), so a byte read through the
// mount is copied once less in user space (issue 10: joining the pieces of a 1 MiB read, and the
// read-ahead's copy of each piece out of its object, were copies of every byte read).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xtreemfs::client {

// A range of a buffer that its owner keeps alive (no copy).
struct SharedBytes {
  std::shared_ptr<const std::string> owner;
  std::size_t offset = 0;
  std::size_t length = 0;

  std::string_view view() const {
    return owner == nullptr ? std::string_view() : std::string_view(*owner).substr(offset, length);
  }
};

class ReadResult {
 public:
  // Zero runs point into one static buffer of this size (longer holes are several runs), which is
  // never written, so its pages stay the kernel's shared zero page.
  static constexpr std::size_t kZeroRunBytesMax = 1 << 20;

  void Append(SharedBytes bytes) {
    if (bytes.length == 0) return;
    size_bytes_ += bytes.length;
    runs_.push_back(Run{std::move(bytes.owner), bytes.offset, bytes.length});
  }
  // Takes `bytes` over (no copy).
  void Append(std::string bytes) {
    const std::size_t length = bytes.size();
    Append(SharedBytes{std::make_shared<const std::string>(std::move(bytes)), 0, length});
  }
  void AppendZeros(std::uint64_t length_bytes) {
    size_bytes_ += length_bytes;
    while (length_bytes > 0) {
      const std::size_t run = static_cast<std::size_t>(std::min<std::uint64_t>(length_bytes, kZeroRunBytesMax));
      runs_.push_back(Run{nullptr, 0, run});
      length_bytes -= run;
    }
  }

  std::uint64_t size() const { return size_bytes_; }
  bool empty() const { return size_bytes_ == 0; }
  std::size_t run_count() const { return runs_.size(); }

  // Calls visit(const char* data, std::size_t length) for each run in order (never an empty one).
  template <typename Visit>
  void ForEachRun(Visit visit) const {
    for (const Run& run : runs_) {
      visit(run.owner == nullptr ? Zeros() : run.owner->data() + run.offset, run.length);
    }
  }

  // The bytes in one string (a copy): for callers that need them contiguous.
  std::string Join() const {
    std::string joined;
    joined.reserve(size_bytes_);
    ForEachRun([&](const char* data, std::size_t length) { joined.append(data, length); });
    return joined;
  }

 private:
  struct Run {
    std::shared_ptr<const std::string> owner;  // null: zeros
    std::size_t offset = 0;
    std::size_t length = 0;
  };
  static const char* Zeros() {
    // Zero-initialised static storage (.bss), never written: no memory until read, then the zero page.
    static char zeros[kZeroRunBytesMax];
    return zeros;
  }

  std::vector<Run> runs_;
  std::uint64_t size_bytes_ = 0;
};

}  // namespace xtreemfs::client
