// A mounted volume: finds the volume's MRC through the DIR, wraps the MRC's metadata operations, and
// opens files (FileHandle). Thread-safe; every operation takes the caller's credentials because
// FUSE requests carry the calling process's uid and gids.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "client/absent_names.h"
#include "client/clock.h"
#include "client/dir_url.h"
#include "client/metadata_cache.h"
#include "client/read_routing.h"
#include "client/io_pool.h"
#include "client/uuid_resolver.h"
#include "common.pb.h"
#include "mrc.pb.h"
#include "rpc/transport.h"

namespace xtreemfs::client {

class FileHandle;
struct FileState;

struct VolumeOptions {
  std::uint32_t timeout_ms = 30000;           // per RPC attempt
  std::uint32_t uuid_cache_ttl_ms = 60000;    // how long a UUID's address is trusted
  // Renew an XCap when it expires within this margin, so an operation never starts with a cap that
  // may expire in flight.
  std::uint32_t xcap_renew_margin_ms = 60000;
  // Metadata cache (Stat by path): entry lifetime (0 disables the cache) and bound.
  std::uint32_t metadata_cache_ttl_ms = 1000;
  std::uint32_t metadata_cache_entries_max = 65536;
  // Stat-ahead: after this many Getattr cache misses that found an entry in one directory (within
  // one TTL, without a listing of it in between), the directory is listed with attributes
  // (MRC_READDIR, up to `stat_ahead_entries_max` entries) into the metadata cache, so that stat of
  // its other entries is served locally, as `ls -l`, `find` or a backup tool ask, and so is the
  // kernel's lookup before each unlink of an unlink loop. Listed again only while it pays: when the
  // directory's getattrs in the last TTL (or in the current one so far, when more) times
  // kListedEntriesPerGetattr (volume.cc: what a getattr round trip costs in listed entries) reach
  // the entries the previous listing brought (entries live one TTL), or while the getattrs the
  // previous listing answered did. 0 disables it.
  std::uint32_t stat_ahead_misses = 8;
  std::uint32_t stat_ahead_entries_max = 32768;
  // Absent names (client/absent_names.h): after this many lookups in one directory that the MRC
  // answered ENOENT within `absent_names_ttl_ms`, the directory's names are listed (names only, up
  // to `absent_names_max`) and a lookup of any other name is answered ENOENT here for
  // `absent_names_ttl_ms` from the listing's start: every create's lookup of its new name then
  // costs no MRC round trip. The mount passes its negative TTL (the kernel keeps a missing name as
  // long). 0 (either) disables it.
  std::uint32_t absent_names_misses = 4;
  std::uint32_t absent_names_ttl_ms = 1000;
  std::uint32_t absent_names_max = 65536;
  IoOptions io;  // I/O threads, write-behind and read-ahead windows, buffer budget
  // How long one OSD request of a replicated file follows its chain through failures (reporting a
  // member that gives no answer to the MRC, taking the re-formed XLoc): the mount's --retry-window-ms.
  std::uint32_t chain_retry_window_ms = 60000;
  std::uint32_t chain_backoff_initial_ms = 100;
  std::uint32_t chain_backoff_max_ms = 2000;
  // Receives warnings for the mount's log (the client core has none): a server's address taken as last
  // known because the DIR did not answer (UuidResolver::Resolve). May be empty.
  std::function<void(const std::string& message)> warn;
};

// The read-only xtreemfs.* extended attributes this client computes from MRC_GET_FILE_LAYOUT;
// other xtreemfs.* names go to the MRC as they are (it knows xtreemfs.locations,
// xtreemfs.volume_id, xtreemfs.volume_name, xtreemfs.striping_policy, xtreemfs.truncate_epoch).
inline constexpr const char* kXattrUrl = "xtreemfs.url";
inline constexpr const char* kXattrFileId = "xtreemfs.file_id";
inline constexpr const char* kXattrObjectSize = "xtreemfs.object_size";
inline constexpr const char* kXattrStripeWidth = "xtreemfs.stripe_width";
inline constexpr const char* kXattrLocations = "xtreemfs.locations";
inline constexpr const char* kXattrReservation = "xtreemfs.reservation";

using xtreemfs::rpc::UserCredentials;

class Volume {
 public:
  // Looks the volume up at the DIR (DIR_VOLUME_GET -> MRC uuid -> DIR_ADDRESS_MAPPINGS_GET).
  // `transport` and `clock` must outlive the volume. Throws RpcError (ENOENT for an unknown volume).
  static std::unique_ptr<Volume> Open(rpc::Transport& transport, const DirUrl& url, Clock& clock,
                                      VolumeOptions options = VolumeOptions());
  ~Volume();

  const std::string& volume_name() const { return volume_name_; }
  const std::string& volume_id() const { return volume_id_; }
  // The MRC's UUID; its address is looked up through the UUID cache before every attempt of a call.
  const std::string& mrc_uuid() const { return mrc_uuid_; }
  // pbrpc[s]://dir-host:port/volume (the DIR's scheme), the value of xtreemfs.url.
  const std::string& url() const { return url_; }
  MetadataCache& metadata_cache() { return metadata_cache_; }

  // Metadata operations: thin wrappers of the MRC procedures of the same name. Paths are
  // volume-relative ("/a/b"). Errors arrive as RpcError with the errno FUSE returns.
  // Getattr answers from the metadata cache when it can, except for files open in this process
  // (their size and times change with every write, so they always come from the MRC), and reports
  // the size this process knows of a file it wrote when that is newer (ApplyLocalSize).
  // Every mutating operation drops the cache entries it affects (the path, its parent directory,
  // other names of the same inode, whole subtrees for rename and rmdir), also when it fails,
  // because a timed-out request may still have been applied.
  xtreemfs::mrc::Stat Getattr(const UserCredentials& user, const std::string& path);
  // What Getattr answers without asking the MRC (a fresh cache entry of a file not open here), or
  // nothing. Lets a caller skip gathering credentials (FUSE reads the caller's groups from /proc)
  // for a stat the cache serves.
  std::optional<xtreemfs::mrc::Stat> CachedStat(const std::string& path);
  // Getattr of a name that may not exist (a lookup): nothing when the MRC answers ENOENT, without
  // an exception on the way (rpc::CallOptions::errno_as_value), or when the name is known absent
  // (AbsentNames, without asking); other errors are thrown as RpcError.
  std::optional<xtreemfs::mrc::Stat> GetattrIfExists(const UserCredentials& user,
                                                     const std::string& path);
  // Whether GetattrIfExists answers nothing for `path` without asking the MRC (AbsentNames).
  bool KnownAbsent(const std::string& path);
  // A size of a file and its truncate epoch; ordered by epoch, then size (see ApplyLocalSize).
  struct KnownSize {
    std::uint64_t size_bytes = 0;
    std::uint32_t truncate_epoch = 0;
  };
  // Sets the size of `stat`, an MRC answer about a regular file (getattr, lookup, a listing's
  // entry), to the newest size this process knows of the file, when that is newer: the kernel
  // takes a size it is handed as the file's end and puts the next O_APPEND write there, so an
  // answer below a size this process already accepted makes that write overwrite bytes (two
  // appenders of one mount lost lines so, tests/system/fuse_posix_e2e.sh). Newest: the later
  // truncate epoch, and within one epoch the larger size (a shrink always takes a new epoch). The
  // sizes known here: the FileState of a file open here, and the size at the close of a file
  // closed here (closed_sizes_). Both are needed, because an answer the MRC read before a size
  // report reached it can arrive after the report completed, and even after the last close.
  void ApplyLocalSize(xtreemfs::mrc::Stat& stat);
  xtreemfs::mrc::Stat Setattr(const UserCredentials& user, const std::string& path,
                              const xtreemfs::mrc::Stat& stat, std::uint32_t to_set);
  xtreemfs::mrc::Stat Mkdir(const UserCredentials& user, const std::string& path, std::uint32_t mode);
  xtreemfs::mrc::Stat Mknod(const UserCredentials& user, const std::string& path, std::uint32_t mode,
                            std::uint64_t rdev);
  void Rmdir(const UserCredentials& user, const std::string& path);
  // Drops a link. When it was the file's last one, the MRC has the file's OSDs delete its objects
  // in the background (servers/mrc/README.md, "Deletion"): one MRC call, no OSD call here.
  void Unlink(const UserCredentials& user, const std::string& path);
  // `flags`: RENAME_NOREPLACE = 1, RENAME_EXCHANGE = 2. An overwritten file's objects are deleted
  // by the MRC, as for Unlink.
  void Rename(const UserCredentials& user, const std::string& source_path,
              const std::string& target_path, std::uint32_t flags);
  xtreemfs::mrc::Stat Link(const UserCredentials& user, const std::string& existing_path,
                           const std::string& link_path);
  xtreemfs::mrc::Stat Symlink(const UserCredentials& user, const std::string& target,
                              const std::string& link_path);
  std::string Readlink(const UserCredentials& user, const std::string& path);
  // One batch of entries from `offset` (entries already seen, "." and ".." included). A non-empty
  // `after_name` (only with offset >= 3) continues right after that name, numbering from `offset`: the
  // MRC seeks to it instead of counting `offset` entries from the start (linear paging).
  xtreemfs::mrc::ReaddirResponse Readdir(const UserCredentials& user, const std::string& path,
                                         std::uint64_t offset, std::uint32_t limit, bool names_only,
                                         const std::string& after_name = "");
  // xattrs: user.* are stored by the MRC; xtreemfs.* are read-only layout attributes (setting or
  // removing them is EPERM); names of other namespaces have no value here (ENODATA, answered
  // without asking the MRC: the kernel asks security.capability before every write).
  std::string Getxattr(const UserCredentials& user, const std::string& path, const std::string& name);
  // Whether `name` may have a value here (user.* or xtreemfs.*); Getxattr of any other name is
  // ENODATA without a call, so a caller may answer it without credentials.
  static bool MayHaveXattr(const std::string& name);
  void Setxattr(const UserCredentials& user, const std::string& path, const std::string& name,
                const std::string& value, std::uint32_t flags);
  // The MRC's user.* names followed by the xtreemfs.* names that have a value for `path`.
  std::vector<std::string> Listxattr(const UserCredentials& user, const std::string& path);
  void Removexattr(const UserCredentials& user, const std::string& path, const std::string& name);
  xtreemfs::mrc::StatvfsResponse Statvfs(const UserCredentials& user);
  void Access(const UserCredentials& user, const std::string& path, std::uint32_t mode);
  xtreemfs::mrc::FileLayoutResponse GetFileLayout(const UserCredentials& user, const std::string& path);

  // Opens (or creates, with O_CREAT in `flags`) a file; `flags` are Linux open(2) flags.
  std::unique_ptr<FileHandle> OpenFile(const UserCredentials& user, const std::string& path,
                                       std::uint32_t flags, std::uint32_t mode);

  // The I/O pool and buffer budget shared by this volume's files (tests check the bounds).
  IoResources& io_resources() { return io_; }

 private:
  friend class FileHandle;
  friend class LockClient;  // lock calls and lease renewals at head OSDs (client/lock_client.h)

  Volume(rpc::Transport& transport, Clock& clock, VolumeOptions options, std::string volume_name,
         std::string volume_id, std::string mrc_uuid, std::unique_ptr<UuidResolver> resolver);

  // Finds `service_uuid` through the UUID cache before every attempt and forgets its address
  // after an attempt could not connect (see rpc::ServiceLookup). Valid while `service_uuid` lives.
  rpc::ServiceLookup LookupOf(const std::string& service_uuid);
  // Calls an MRC procedure and parses its response.
  template <typename Response>
  Response CallMrc(std::uint32_t procedure_id, const UserCredentials& user,
                   const google::protobuf::MessageLite& request, bool idempotent);
  // CallMrc's call, unparsed; with `errno_as_value` an ERRNO answer is returned, not thrown.
  rpc::CallResponse CallMrcRaw(std::uint32_t procedure_id, const UserCredentials& user,
                               const google::protobuf::MessageLite& request, bool idempotent,
                               bool errno_as_value);
  // Calls an OSD procedure by the OSD's UUID (LookupOf). `repeat_only_while_alive` (with
  // `idempotent`): rpc::CallOptions's, for a replicated file's calls, whose failures the chain handles.
  rpc::CallResponse CallOsd(const std::string& osd_uuid, std::uint32_t procedure_id,
                            const UserCredentials& user, const google::protobuf::MessageLite& request,
                            std::string_view data, bool idempotent, bool repeat_only_while_alive = false);
  // CallOsd as one asynchronous attempt (rpc::Transport::CallServiceAsync): `done` runs on the
  // transport's io thread, or before this returns; the caller repeats a failed call synchronously.
  // `data_owner` (may be null) keeps `data` alive: then the record is sent from it, not a copy.
  void CallOsdAsync(const std::string& osd_uuid, std::uint32_t procedure_id,
                    const UserCredentials& user, const google::protobuf::MessageLite& request,
                    std::string_view data, rpc::CallDone done,
                    std::shared_ptr<const void> data_owner = nullptr);
  // The size/epoch state shared by all handles of one file (created on first open).
  std::shared_ptr<FileState> StateOfFile(const std::string& file_id, std::uint64_t size_bytes,
                                         std::uint32_t truncate_epoch);
  void ForgetFileIfUnused(const std::string& file_id);
  // Drops the cached Stats of every name of the file (`file_id` "volume:inode"): a change made
  // here (a size report, which also sets mtime and ctime) makes them stale, and the bumped
  // generation keeps out an answer fetched before the change.
  void InvalidateFileAttributes(const std::string& file_id);
  // Keeps `known` (FileState's, at the close of a handle, when the MRC has been told it) for
  // ApplyLocalSize after the file's handles are gone; merged with what is kept already.
  void RememberClosedSize(const std::string& file_id, KnownSize known);
  // ApplyLocalSize of a regular file's Stat from the cache, in one look-up of the file: nothing
  // (false) when a handle of the file is open here, whose size and times change with every write
  // (the MRC answers those), else the size kept at its last close when newer (true).
  bool ApplyLocalSizeUnlessOpen(xtreemfs::mrc::Stat& stat);
  // ApplyLocalSize's work on a regular file: the newest known size into `stat`; with `when_open`
  // false it stops (false) at an open handle, changing nothing.
  bool NewestLocalSize(xtreemfs::mrc::Stat& stat, bool when_open);
  // Runs a mutating MRC call, then `invalidate` — also when the call throws.
  template <typename Call, typename Invalidate>
  auto Mutate(Call call, Invalidate invalidate) -> decltype(call());
  // Drops every cached name of the inode at `path` (hard links too) and `path` itself.
  void InvalidateNames(const std::string& path);
  // InvalidateNames, plus the parent directory (its mtime, ctime or link count changed).
  void InvalidateEntry(const std::string& path);
  // InvalidateEntry after a change of the entry `path` whose answer carried the parent directory
  // as the change left it (`directory`, when present): that Stat replaces the directory's entry
  // instead of dropping it, so the kernel's getattr of the directory after the change (with
  // default_permissions it needs fresh attributes) costs no MRC_GETATTR. `generation` is the
  // cache's, taken before the call: a change made here meanwhile (maybe newer than this answer)
  // keeps the Stat out, and the directory is dropped.
  void InvalidateEntryKeepingDirectory(const std::string& path,
                                       const xtreemfs::mrc::Stat* directory,
                                       std::uint64_t generation);
  std::string LayoutAttribute(const UserCredentials& user, const std::string& path,
                              const std::string& name);
  // Counts a Getattr miss that found an entry in `directory`; lists the directory into the cache
  // when the misses reach options_.stat_ahead_misses (see VolumeOptions). Never throws: a failed
  // listing (e.g. no read permission) only means no stat-ahead.
  void NoteMissAndStatAhead(const UserCredentials& user, const std::string& directory);
  // A lookup in `directory` answered ENOENT by the MRC: lists the directory's names when
  // AbsentNames asks for it. Never throws (a failed listing only means no knowledge).
  void NoteAbsentAndList(const UserCredentials& user, const std::string& directory);
  // A getattr the cache answered: counted for the rate of the directory, if stat-ahead tracks it.
  void NoteHit(const std::string& path);

  rpc::Transport& transport_;
  Clock& clock_;
  const VolumeOptions options_;
  const std::string volume_name_;
  const std::string volume_id_;
  const std::string mrc_uuid_;
  std::unique_ptr<UuidResolver> resolver_;
  std::string url_;
  MetadataCache metadata_cache_;
  // Stat-ahead state per directory (see NoteMissAndStatAhead); bounded: cleared when it reaches
  // kStatAheadDirectoriesMax directories.
  struct StatAhead {
    std::uint32_t misses = 0;
    std::int64_t listed_at_ms = 0;  // when the last listing started; 0: never
    bool listing = false;           // one listing of a directory at a time
    std::uint64_t listed_entries = 0;  // what the last listing brought; 0: never listed
    // Getattrs in the directory (cache hits and misses) per TTL-long window: the current one and
    // the last whole one (0 when the directory sat idle for a window or more).
    std::int64_t window_start_ms = 0;
    std::uint64_t window_lookups = 0;
    std::uint64_t last_window_lookups = 0;
    // Getattrs the cache answered in the directory within one TTL of the last listing's start: the
    // round trips that listing saved, measured at the pace of a loop whose lookups are local.
    std::uint64_t listing_hits = 0;
  };
  // Counts a getattr in `directory` for stat-ahead's rate (hits only for directories it tracks).
  void CountLookup(StatAhead& state, std::int64_t now_ms);
  // Names known not to exist: listed after ENOENT answers, corrected by every change made here.
  AbsentNames absent_names_;
  std::mutex stat_ahead_mutex_;
  std::unordered_map<std::string, StatAhead> stat_ahead_;  // guarded by stat_ahead_mutex_
  std::mutex files_mutex_;
  // Open files by file id; an entry lives while a handle of the file is open (bounded by the
  // number of open handles).
  std::unordered_map<std::string, std::weak_ptr<FileState>> files_;
  // The sizes of the kClosedFileSizesMax files closed here most recently (RememberClosedSize), by
  // file id; guarded by files_mutex_. An answer read at the MRC before the last close's size report
  // arrived is on its way for at most one call's time (a readdir page is kept for the metadata TTL):
  // only as many closes of other files meanwhile could push the size out.
  std::list<std::string> closed_files_;  // most recently closed first
  std::unordered_map<std::string, std::pair<KnownSize, std::list<std::string>::iterator>> closed_sizes_;
  // The loads OSDs reported with their read answers, which reads are routed by (read_routing.h).
  ReplicaLoads replica_loads_{[this] { return clock_.MonotonicMs(); }};
  // The round-robin binding's stream numbers, in order of first read.
  std::atomic<int> next_read_stream_ordinal_{0};
  // Last member: destroyed first, so its workers stop while everything they use still exists.
  IoResources io_{options_.io};
};

}  // namespace xtreemfs::client
