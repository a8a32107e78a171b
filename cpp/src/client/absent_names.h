// Which names of a directory this mount knows not to exist, so that the lookup of a new name (the
// kernel asks before every create, and it is a miss) is answered without a round trip to the MRC.
//
// Knowledge comes from a listing of the directory's names (MRC_READDIR, names only), taken after
// `misses` lookups in it that the MRC answered ENOENT within one TTL, and is trusted for `ttl_ms`
// from the moment the listing started. Every name a change through this mount may have added or
// removed (create, mkdir, mknod, symlink, link, rename, unlink, rmdir; also when the change failed,
// since a timed-out change may have been applied) joins the directory's names at once, i.e. it is
// never answered absent from here again until the next listing shows it gone. So within one mount a
// name is never wrongly absent; a name another client creates is seen after at most `ttl_ms` (the
// promise the kernel's negative entries already make with the same TTL, see the mount's
// --negative-cache-ttl-ms). Thread-safe; bounded: at most kDirectoriesMax directories (all are
// forgotten when one more comes) and `names_max` names per listing (a larger directory is not
// listed and its lookups ask the MRC as before).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "client/clock.h"

namespace xtreemfs::client {

class AbsentNames {
 public:
  static constexpr std::size_t kDirectoriesMax = 1024;

  // `ttl_ms` 0 or `misses` 0 disables it (KnownAbsent always false, no listings).
  AbsentNames(Clock& clock, std::uint32_t ttl_ms, std::uint32_t misses, std::size_t names_max);

  bool enabled() const { return ttl_ms_ > 0 && misses_ > 0; }
  std::size_t names_max() const { return names_max_; }

  // Whether `name` is known not to exist in `directory` (a volume-relative path).
  bool KnownAbsent(const std::string& directory, const std::string& name);
  // A lookup in `directory` that the MRC answered ENOENT. Returns a listing ticket (non-zero) when
  // the caller should list the directory's names now; it must then call Listed with the ticket.
  std::uint64_t NoteMiss(const std::string& directory);
  // The names a listing with `ticket` found (`complete`: every name; false after an error or when
  // the directory has more than names_max names). Changes noted since the ticket was issued join them.
  void Listed(const std::string& directory, std::uint64_t ticket, std::vector<std::string> names,
              bool complete);
  // A change through this mount may have added or removed the entry `path` ("/dir/name").
  void NoteChanged(const std::string& path);
  // `path` and every directory below it were renamed or removed: their knowledge goes.
  void ForgetSubtree(const std::string& path);

 private:
  struct Directory {
    std::unordered_set<std::string> names;  // listed, plus every name changed here since
    std::int64_t trusted_until_ms = 0;      // the listing's start + ttl; 0: nothing known
    std::uint64_t listing_ticket = 0;       // non-zero while a listing runs
    std::int64_t listing_started_ms = 0;
    std::vector<std::string> changed_during_listing;
    std::uint32_t misses = 0;  // ENOENT answers in the window starting at window_start_ms
    std::int64_t window_start_ms = 0;
  };

  Clock& clock_;
  const std::uint32_t ttl_ms_;
  const std::uint32_t misses_;
  const std::size_t names_max_;
  std::mutex mutex_;
  std::unordered_map<std::string, Directory> directories_;  // guarded by mutex_
  std::uint64_t next_ticket_ = 1;                            // guarded by mutex_
};

}  // namespace xtreemfs::client
