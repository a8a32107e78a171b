#include "client/directory_listing.h"

#include <utility>

namespace xtreemfs::client {

DirectoryListing::DirectoryListing(Volume& volume, Clock& clock,
                                   std::function<std::string()> path_of,
                                   std::uint32_t page_entries, std::uint32_t page_ttl_ms)
    : volume_(volume),
      clock_(clock),
      path_of_(std::move(path_of)),
      page_entries_(page_entries),
      page_ttl_ms_(page_ttl_ms) {}

std::uint64_t DirectoryListing::PageEnd() const {
  return page_.entries_size() == 0 ? page_start_
                                   : page_.entries(page_.entries_size() - 1).next_offset();
}

void DirectoryListing::Fetch(const UserCredentials& user, std::uint64_t offset,
                             const std::string& after_name, bool with_stats) {
  // Invalid until the answer arrived: a failed fetch leaves nothing half-held.
  held_ = false;
  page_ = volume_.Readdir(user, path_of_(), offset, page_entries_, !with_stats, after_name);
  ++fetches_;
  // Each entry names the offset after it; the MRC numbers them one by one from `offset`.
  for (int i = 0; i < page_.entries_size(); ++i) {
    if (page_.entries(i).next_offset() != offset + static_cast<std::uint64_t>(i) + 1) {
      throw rpc::RpcError::Of(rpc::ErrorKind::kInternal,
                              "MRC readdir offsets do not count up from " + std::to_string(offset));
    }
  }
  page_start_ = offset;
  page_with_stats_ = with_stats;
  page_fetched_ms_ = clock_.MonotonicMs();
  held_ = true;
}

DirectoryListing::Position DirectoryListing::At(const UserCredentials& user, std::uint64_t offset,
                                                bool with_stats) {
  // Names do not go stale for a listing (POSIX leaves names changed meanwhile unspecified); the
  // attributes a page carries are trusted for the metadata TTL, like every other answer.
  const bool usable =
      held_ && (!with_stats || (page_with_stats_ && clock_.MonotonicMs() - page_fetched_ms_ <
                                                        static_cast<std::int64_t>(page_ttl_ms_)));
  // rewinddir (offset 0) shows the directory as it is now, and is the listing's atime access.
  if (usable && offset != 0 && offset >= page_start_) {
    const std::uint64_t end = PageEnd();
    if (offset < end || (offset == end && page_.end_of_directory())) {
      return Position{&page_, static_cast<int>(offset - page_start_)};
    }
  }
  // Continue after the name before `offset` when the held page has it (the next page, or this one
  // again with attributes or fresh); otherwise (a seek, a first read) by position.
  std::string after_name;
  if (held_ && offset >= 3 && offset > page_start_ && offset <= PageEnd()) {
    after_name = page_.entries(static_cast<int>(offset - page_start_) - 1).name();
  }
  Fetch(user, offset, after_name, with_stats);
  return Position{&page_, 0};
}

}  // namespace xtreemfs::client
