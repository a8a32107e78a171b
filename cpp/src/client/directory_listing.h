#pragma once

// One open directory's listing (opendir .. releasedir in the mount).
//
// The kernel reads a directory in FUSE readdir requests (on this machine's kernel 6.18 about 700-1,000
// short names each, judged from the MRC calls per `ls`; one 4 KiB page on older kernels), each naming
// the offset it reached. Asking the MRC for every such request, from that
// offset by position, made a listing quadratic: the MRC counted `offset` entries from the
// directory's start for every request, and what did not fit the request was thrown away.
// A listing instead keeps the last MRC page it fetched and serves every offset inside it; the next
// page continues after the last name of the page held (MRC_READDIR `after_name`), so a whole
// listing costs O(entries) at the MRC and one round trip per `page_entries` entries.
//
// Offsets are the MRC's positions ("." 0, ".." 1, then names in byte order); they stay stable for
// the kernel's telldir/seekdir: an offset inside the held page is served from it, offset 0
// (rewinddir) and any other offset ask the MRC by position. Entries created or removed while a
// listing goes on do not shift a continuation: every name present throughout is listed exactly
// once (POSIX leaves names added or removed meanwhile unspecified).

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "client/volume.h"

namespace xtreemfs::client {

class DirectoryListing {
 public:
  // `path_of` names the directory at each fetch (it may be renamed while open). A page with
  // attributes held longer than `page_ttl_ms` is fetched again when asked for (they may be stale).
  DirectoryListing(Volume& volume, Clock& clock, std::function<std::string()> path_of,
                   std::uint32_t page_entries, std::uint32_t page_ttl_ms);

  // The held page and the index of the entry at `offset` in it, fetching a page when `offset` is
  // not inside the held one (or `with_stats` asks for attributes it lacks). An index equal to the
  // page's size means the end of the directory. The caller holds `mutex()` while it uses the page.
  struct Position {
    const xtreemfs::mrc::ReaddirResponse* page;
    int index;
  };
  Position At(const UserCredentials& user, std::uint64_t offset, bool with_stats);

  std::mutex& mutex() { return mutex_; }
  // MRC_READDIR calls made by this listing (tests).
  std::uint64_t fetches() const { return fetches_; }

 private:
  // The offset of the held page's first entry and of the position after its last.
  std::uint64_t PageEnd() const;
  void Fetch(const UserCredentials& user, std::uint64_t offset, const std::string& after_name,
             bool with_stats);

  Volume& volume_;
  Clock& clock_;
  std::function<std::string()> path_of_;
  const std::uint32_t page_entries_;
  const std::uint32_t page_ttl_ms_;
  std::mutex mutex_;
  bool held_ = false;
  xtreemfs::mrc::ReaddirResponse page_;
  std::uint64_t page_start_ = 0;
  bool page_with_stats_ = false;
  std::int64_t page_fetched_ms_ = 0;
  std::uint64_t fetches_ = 0;
};

}  // namespace xtreemfs::client
