// The client's metadata cache: alone (TTL, bound, LRU, generations) and inside Volume against a
// fake MRC namespace (hits avoid MRC calls, every local mutation drops the right entries, files open
// here bypass it), plus the xtreemfs.* xattrs Volume computes.
#include "client/metadata_cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "client/directory_listing.h"
#include "client/file_handle.h"
#include "client/volume.h"
#include "fake_cluster.h"
#include "fuse/mount_options.h"

namespace xtreemfs::client {
namespace {

using testing::FakeClock;
using testing::FakeCluster;
using xtreemfs::mrc::Stat;

constexpr std::uint32_t kObjectSizeBytes = 4096;
constexpr std::uint32_t kStripeWidth = 2;
constexpr std::uint32_t kTtlMs = 1000;

Stat StatOf(std::uint64_t inode, std::uint32_t mode) {
  Stat stat;
  stat.set_inode(inode);
  stat.set_mode(mode);
  return stat;
}

// ------------------------------------------------------------------------- MetadataCache alone

TEST(MetadataCacheTest, EntriesExpireAfterTheTtl) {
  FakeClock clock;
  MetadataCache cache(clock, kTtlMs, 100);
  cache.Put("/a", StatOf(5, 0100644), cache.Generation());
  clock.Advance(kTtlMs - 1);
  ASSERT_TRUE(cache.Get("/a").has_value());
  EXPECT_EQ(cache.Get("/a")->inode(), 5u);
  clock.Advance(1);
  EXPECT_FALSE(cache.Get("/a").has_value());
  EXPECT_EQ(cache.size(), 0u);  // an expired entry found by Get is dropped
}

TEST(MetadataCacheTest, ZeroTtlDisablesTheCache) {
  FakeClock clock;
  MetadataCache cache(clock, 0, 100);
  EXPECT_FALSE(cache.enabled());
  cache.Put("/a", StatOf(5, 0100644), cache.Generation());
  EXPECT_FALSE(cache.Get("/a").has_value());
  EXPECT_EQ(cache.size(), 0u);
}

TEST(MetadataCacheTest, BoundedByEntryCountEvictingTheLeastRecentlyUsed) {
  FakeClock clock;
  MetadataCache cache(clock, kTtlMs, 3);
  cache.Put("/a", StatOf(1, 0100644), cache.Generation());
  cache.Put("/b", StatOf(2, 0100644), cache.Generation());
  cache.Put("/c", StatOf(3, 0100644), cache.Generation());
  ASSERT_TRUE(cache.Get("/a").has_value());  // /a is now the most recently used, /b the least
  cache.Put("/d", StatOf(4, 0100644), cache.Generation());
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_TRUE(cache.Get("/a").has_value());
  EXPECT_FALSE(cache.Get("/b").has_value());
  EXPECT_TRUE(cache.Get("/c").has_value());
  EXPECT_TRUE(cache.Get("/d").has_value());
  for (int i = 0; i < 1000; ++i) {
    cache.Put("/many" + std::to_string(i), StatOf(100 + i, 0100644), cache.Generation());
  }
  EXPECT_EQ(cache.size(), 3u);
}

TEST(MetadataCacheTest, PutAfterAnInvalidationDuringTheFetchStoresNothing) {
  // A getattr that started before a local change must not put the old Stat back.
  FakeClock clock;
  MetadataCache cache(clock, kTtlMs, 100);
  const std::uint64_t generation = cache.Generation();
  cache.Invalidate("/unrelated");
  cache.Put("/a", StatOf(1, 0100644), generation);
  EXPECT_FALSE(cache.Get("/a").has_value());
  cache.Put("/a", StatOf(1, 0100644), cache.Generation());
  EXPECT_TRUE(cache.Get("/a").has_value());
}

TEST(MetadataCacheTest, SubtreeInvalidationDropsExactlyThePathAndItsDescendants) {
  FakeClock clock;
  MetadataCache cache(clock, kTtlMs, 100);
  for (const char* path : {"/a", "/a/x", "/a/x/y", "/a0", "/ab", "/b"}) {
    cache.Put(path, StatOf(std::hash<std::string>()(path), 040755), cache.Generation());
  }
  cache.InvalidateSubtree("/a");
  EXPECT_FALSE(cache.Get("/a").has_value());
  EXPECT_FALSE(cache.Get("/a/x").has_value());
  EXPECT_FALSE(cache.Get("/a/x/y").has_value());
  EXPECT_TRUE(cache.Get("/a0").has_value());
  EXPECT_TRUE(cache.Get("/ab").has_value());
  EXPECT_TRUE(cache.Get("/b").has_value());
  cache.InvalidateSubtree("/");
  EXPECT_EQ(cache.size(), 0u);
}

TEST(MetadataCacheTest, InodeInvalidationDropsEveryNameOfTheInode) {
  FakeClock clock;
  MetadataCache cache(clock, kTtlMs, 100);
  cache.Put("/f", StatOf(7, 0100644), cache.Generation());
  cache.Put("/d/g", StatOf(7, 0100644), cache.Generation());
  cache.Put("/h", StatOf(8, 0100644), cache.Generation());
  cache.Put("/f", StatOf(7, 0100600), cache.Generation());  // replacing keeps the index exact
  cache.InvalidateInode(7);
  EXPECT_FALSE(cache.Get("/f").has_value());
  EXPECT_FALSE(cache.Get("/d/g").has_value());
  EXPECT_TRUE(cache.Get("/h").has_value());
}

// A listing's page of `count` entries "f0".."f<count-1>" (in byte order, as the MRC sends them) with
// inodes from `first_inode` on, after "." and "..".
google::protobuf::RepeatedPtrField<xtreemfs::mrc::DirectoryEntry> ListingOf(int count,
                                                                           std::uint64_t first_inode) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.push_back("f" + std::to_string(i));
  std::sort(names.begin(), names.end());
  google::protobuf::RepeatedPtrField<xtreemfs::mrc::DirectoryEntry> entries;
  for (const char* dot : {".", ".."}) {
    auto* entry = entries.Add();
    entry->set_name(dot);
    *entry->mutable_stat() = StatOf(1, 040755);
  }
  for (const auto& name : names) {
    auto* entry = entries.Add();
    entry->set_name(name);
    *entry->mutable_stat() = StatOf(first_inode + std::stoull(name.substr(1)), 0100644);
  }
  return entries;
}

TEST(MetadataCacheTest, AListingsEntriesAreStoredUnderTheirPathsUnlessAnInvalidationRacedWithIt) {
  // A page of 3,000 entries (stored over several holds of the lock): each name's Stat under its
  // path, "." and ".." not at all; listed again, every entry is refreshed in place (the inode index
  // stays exact: dropping an inode drops only its one path); a page fetched before an invalidation
  // stores nothing.
  FakeClock clock;
  MetadataCache cache(clock, kTtlMs, 10000);
  const auto page = ListingOf(3000, 100);
  EXPECT_EQ(cache.PutListed("/d", page, cache.Generation()), 3000u);
  EXPECT_EQ(cache.size(), 3000u);
  for (int i = 0; i < 3000; i += 7) {
    auto stat = cache.Get("/d/f" + std::to_string(i));
    ASSERT_TRUE(stat.has_value()) << i;
    EXPECT_EQ(stat->inode(), 100u + i);
  }
  EXPECT_FALSE(cache.Get("/d/.").has_value());
  EXPECT_FALSE(cache.Get("/d/..").has_value());
  clock.Advance(kTtlMs / 2);
  EXPECT_EQ(cache.PutListed("/d", ListingOf(3000, 100), cache.Generation()), 3000u);
  EXPECT_EQ(cache.size(), 3000u);
  clock.Advance(kTtlMs / 2 + 1);  // the first listing's TTL is over, the second's is not
  EXPECT_TRUE(cache.Get("/d/f2999").has_value());
  cache.InvalidateInode(100 + 1234);
  EXPECT_FALSE(cache.Get("/d/f1234").has_value());
  EXPECT_EQ(cache.size(), 2999u);
  // Entries of the root directory: "/name".
  EXPECT_EQ(cache.PutListed("/", ListingOf(2, 9000), cache.Generation()), 2u);
  EXPECT_EQ(cache.Get("/f1")->inode(), 9001u);

  const std::uint64_t generation = cache.Generation();
  cache.Invalidate("/unrelated");
  EXPECT_EQ(cache.PutListed("/e", ListingOf(10, 500), generation), 0u);
  EXPECT_FALSE(cache.Get("/e/f0").has_value());
}

TEST(MetadataCacheTest, AListingLargerThanTheBoundLeavesTheBoundAndItsNewestEntries) {
  // 2,500 listed entries into a cache of 1,000 that holds two entries already: 1,000 entries remain,
  // the last 1,000 names of the page; each remaining path and its inode still find each other.
  FakeClock clock;
  MetadataCache cache(clock, kTtlMs, 1000);
  cache.Put("/a", StatOf(1, 0100644), cache.Generation());
  cache.Put("/b", StatOf(2, 0100644), cache.Generation());
  const auto page = ListingOf(2500, 100);
  EXPECT_EQ(cache.PutListed("/d", page, cache.Generation()), 2500u);
  EXPECT_EQ(cache.size(), 1000u);
  EXPECT_FALSE(cache.Get("/a").has_value());
  for (int i = page.size() - 1000; i < page.size(); ++i) {
    ASSERT_TRUE(cache.Get("/d/" + page.Get(i).name()).has_value()) << page.Get(i).name();
  }
  EXPECT_FALSE(cache.Get("/d/" + page.Get(page.size() - 1001).name()).has_value());
  const std::string last = "/d/" + page.Get(page.size() - 1).name();
  cache.InvalidateInode(cache.CachedInode(last).value());
  EXPECT_FALSE(cache.Get(last).has_value());
  EXPECT_EQ(cache.size(), 999u);
}

TEST(MetadataCacheTest, ParentOf) {
  EXPECT_EQ(MetadataCache::ParentOf("/a/b/c"), "/a/b");
  EXPECT_EQ(MetadataCache::ParentOf("/a"), "/");
  EXPECT_EQ(MetadataCache::ParentOf("/"), "/");
}

// ------------------------------------------------------------------------ Volume with the cache

// A namespace MRC in front of FakeCluster: directories, special files, links, renames, xattrs and
// readdir are kept here; regular files are opened (and their size kept) by FakeCluster, whose DIR
// and OSDs serve the rest. Counts the MRC calls by procedure. `ticks_` stands in for time: every
// change sets ctime (and a directory's mtime) to the next tick, so tests see which Stat is fresh.
class NamespaceMrc : public rpc::Transport {
 public:
  explicit NamespaceMrc(FakeCluster& inner) : inner_(inner) {
    nodes["/"] = StatOf(1, 040755);
    nodes["/"].set_nlink(2);
  }

  rpc::CallResponse Call(const rpc::ServiceAddress& address, const rpc::CallRequest& request,
                         const rpc::CallOptions& options) override {
    if (address.port != FakeCluster::kMrcPort) return inner_.Call(address, request, options);
    ++mrc_calls[request.procedure_id];
    const std::string bytes = request.message->SerializeAsString();
    using namespace xtreemfs::mrc;
    switch (request.procedure_id) {
      case MRC_GETATTR: {
        const auto path = Parse<PathRequest>(bytes).path();
        GetattrResponse response;
        *response.mutable_stat() = Existing(path);
        if (after_getattr_read) {
          // What happens while the answer is on its way back (the store was read already).
          auto hook = std::move(after_getattr_read);
          after_getattr_read = nullptr;
          hook();
        }
        return Answer(response);
      }
      case MRC_SETATTR: {
        const auto setattr = Parse<SetattrRequest>(bytes);
        const std::uint64_t inode = ExistingNode(setattr.path()).inode();
        for (auto& [path, stat] : nodes) {  // hard links are copies of one inode's Stat here
          if (stat.inode() != inode) continue;
          if (setattr.to_set() & SETATTR_MODE) {
            stat.set_mode((stat.mode() & S_IFMT) | (setattr.stat().mode() & 07777));
          }
          if (setattr.to_set() & SETATTR_UID) stat.set_uid(setattr.stat().uid());
        }
        TouchInode(inode);
        GetattrResponse response;
        *response.mutable_stat() = Existing(setattr.path());
        return Answer(response);
      }
      case MRC_MKDIR: {
        const auto mkdir = Parse<MkdirRequest>(bytes);
        return AnswerStat(Create(mkdir.path(), S_IFDIR | mkdir.mode()));
      }
      case MRC_MKNOD: {
        const auto mknod = Parse<MknodRequest>(bytes);
        return AnswerStat(Create(mknod.path(), mknod.mode()));
      }
      case MRC_SYMLINK: {
        const auto symlink = Parse<LinkRequest>(bytes);
        return AnswerStat(Create(symlink.link_path(), S_IFLNK | 0777));
      }
      case MRC_LINK: {
        const auto link = Parse<LinkRequest>(bytes);
        const Stat existing = Existing(link.target_path());
        if (nodes.count(link.link_path()) != 0) throw rpc::RpcError::Errno(EEXIST, link.link_path());
        ExistingNode(ParentOf(link.link_path()));
        nodes[link.link_path()] = existing;
        for (auto& [path, stat] : nodes) {
          if (stat.inode() == existing.inode()) stat.set_nlink(stat.nlink() + 1);
        }
        TouchInode(existing.inode());
        TouchDirectory(ParentOf(link.link_path()));
        return AnswerStat(nodes[link.link_path()]);
      }
      case MRC_UNLINK: {
        const auto path = Parse<PathRequest>(bytes).path();
        const Stat removed = Existing(path);
        if (S_ISDIR(removed.mode())) throw rpc::RpcError::Errno(EISDIR, path);
        Remove(path);
        if (inner_files_.erase(path) != 0) return inner_.Call(address, request, options);
        // As the MRC: the directory as the unlink left it.
        UnlinkResponse response;
        if (unlink_answers_directory) *response.mutable_directory_stat() = Existing(ParentOf(path));
        if (during_unlink) during_unlink();
        return Answer(response);
      }
      case MRC_RMDIR: {
        const auto path = Parse<PathRequest>(bytes).path();
        if (!S_ISDIR(Existing(path).mode())) throw rpc::RpcError::Errno(ENOTDIR, path);
        for (const auto& [other, stat] : nodes) {
          if (other.rfind(path + "/", 0) == 0) throw rpc::RpcError::Errno(ENOTEMPTY, path);
        }
        Remove(path);
        return Answer(xtreemfs::rpc::Empty());
      }
      case MRC_RENAME: {
        const auto rename = Parse<RenameRequest>(bytes);
        const Stat moved = Existing(rename.source_path());
        ExistingNode(ParentOf(rename.target_path()));
        if (nodes.count(rename.target_path()) != 0) Remove(rename.target_path());
        std::map<std::string, Stat> renamed;
        for (auto node = nodes.begin(); node != nodes.end();) {
          const std::string& path = node->first;
          if (path == rename.source_path() || path.rfind(rename.source_path() + "/", 0) == 0) {
            renamed[rename.target_path() + path.substr(rename.source_path().size())] = node->second;
            node = nodes.erase(node);
          } else {
            ++node;
          }
        }
        nodes.insert(renamed.begin(), renamed.end());
        TouchInode(moved.inode());
        TouchDirectory(ParentOf(rename.source_path()));
        TouchDirectory(ParentOf(rename.target_path()));
        return Answer(UnlinkResponse());
      }
      case MRC_READDIR: {
        // As the MRC: "." at 0, ".." at 1, then names in byte order; by position, or after a name.
        const auto readdir = Parse<ReaddirRequest>(bytes);
        last_readdir_offset = readdir.offset();
        if (readdir.names_only()) ++names_only_readdirs;
        last_readdir_after_name = readdir.after_name();
        std::vector<std::pair<std::string, std::string>> listing{
            {".", readdir.path()}, {"..", ParentOf(readdir.path())}};
        Existing(readdir.path());
        const std::string prefix = readdir.path() == "/" ? "/" : readdir.path() + "/";
        for (const auto& [path, stat] : nodes) {
          if (path.rfind(prefix, 0) != 0 || path == prefix ||
              path.find('/', prefix.size()) != std::string::npos) {
            continue;
          }
          listing.emplace_back(path.substr(prefix.size()), path);
        }
        std::size_t first = static_cast<std::size_t>(readdir.offset());
        if (!readdir.after_name().empty()) {
          first = 2;
          while (first < listing.size() && listing[first].first <= readdir.after_name()) ++first;
        }
        const std::size_t limit = readdir.limit() == 0 ? 1024 : readdir.limit();
        ReaddirResponse response;
        std::uint64_t offset = readdir.offset();
        std::size_t index = first;
        for (; index < listing.size() && static_cast<std::size_t>(response.entries_size()) < limit;
             ++index) {
          auto* entry = response.add_entries();
          entry->set_name(listing[index].first);
          entry->set_next_offset(++offset);
          if (!readdir.names_only()) *entry->mutable_stat() = Existing(listing[index].second);
        }
        response.set_end_of_directory(index >= listing.size());
        return Answer(response);
      }
      case MRC_SETXATTR:
      case MRC_REMOVEXATTR: {
        const auto xattr = Parse<XattrRequest>(bytes);
        TouchInode(Existing(xattr.path()).inode());
        if (request.procedure_id == MRC_SETXATTR) {
          xattrs[xattr.path()][xattr.name()] = xattr.value();
        } else {
          xattrs[xattr.path()].erase(xattr.name());
        }
        return Answer(xtreemfs::rpc::Empty());
      }
      case MRC_GETXATTR: {
        const auto xattr = Parse<XattrRequest>(bytes);
        Existing(xattr.path());
        XattrValue value;
        if (xattr.name() == "xtreemfs.locations") {
          value.set_value("{\"locations of\":\"" + xattr.path() + "\"}");
        } else {
          auto& stored = xattrs[xattr.path()];
          if (stored.count(xattr.name()) == 0) throw rpc::RpcError::Errno(ENODATA, xattr.name());
          value.set_value(stored[xattr.name()]);
        }
        return Answer(value);
      }
      case MRC_LISTXATTR: {
        const auto path = Parse<PathRequest>(bytes).path();
        Existing(path);
        XattrNames names;
        for (const auto& [name, value] : xattrs[path]) names.add_names(name);
        return Answer(names);
      }
      case MRC_GET_FILE_LAYOUT: {
        const auto path = Parse<PathRequest>(bytes).path();
        FileLayoutResponse response;
        *response.mutable_stat() = Existing(path);
        response.set_volume_id("vol-1");
        response.set_volume_name("demo");
        response.set_file_id("vol-1:" + std::to_string(response.stat().inode()));
        if (inner_files_.count(path) != 0) {
          auto* replica = response.mutable_xlocs()->add_replicas();
          replica->mutable_striping_policy()->set_type(xtreemfs::common::RAID0);
          replica->mutable_striping_policy()->set_object_size_bytes(kObjectSizeBytes);
          replica->mutable_striping_policy()->set_width(kStripeWidth);
          replica->add_osd_uuids("osd-0");
          replica->add_osd_uuids("osd-1");
        }
        response.mutable_reservation()->set_type(xtreemfs::common::SEQUENTIAL);
        response.mutable_reservation()->set_capacity_bytes(1u << 30);
        response.mutable_reservation()->set_throughput_bytes_per_second(150ull << 20);
        return Answer(response);
      }
      case MRC_OPEN: {
        const auto open = Parse<OpenRequest>(bytes);
        const bool exists = nodes.count(open.path()) != 0;
        if (!exists && (open.flags() & O_CREAT) != 0) ExistingNode(ParentOf(open.path()));
        auto answer = inner_.Call(address, request, options);
        auto response = Parse<OpenResponse>(answer.message_bytes);
        if (!exists) {
          const std::string& file_id = response.credentials().xcap().file_id();
          Stat stat = StatOf(std::stoull(file_id.substr(file_id.find(':') + 1)), S_IFREG | 0644);
          stat.set_nlink(1);
          nodes[open.path()] = stat;
          inner_files_.insert(open.path());
          TouchDirectory(ParentOf(open.path()));
        }
        // As the MRC: the answer carries the file's Stat, and a create's its directory's.
        *response.mutable_stat() = nodes[open.path()];
        if (!exists && create_answers_directory) {
          *response.mutable_directory_stat() = Existing(ParentOf(open.path()));
        }
        if (!exists && during_create) during_create();
        answer.message_bytes = response.SerializeAsString();
        return answer;
      }
    }
    return inner_.Call(address, request, options);  // capabilities and file sizes
  }

  int Calls(std::uint32_t procedure_id) { return mrc_calls[procedure_id]; }

  // Runs once, in the next MRC_GETATTR after its Stat was read and before it is answered.
  std::function<void()> after_getattr_read;
  // The MRC's state; tests change it directly to act as another client.
  std::map<std::string, Stat> nodes;
  std::map<std::string, std::map<std::string, std::string>> xattrs;
  std::map<std::uint32_t, int> mrc_calls;
  std::uint64_t last_readdir_offset = 0;
  int names_only_readdirs = 0;  // listings of names only (AbsentNames)
  std::string last_readdir_after_name;
  // MRC_UNLINK's answer carries the directory's Stat (an older MRC's, or a repeat's, does not).
  bool unlink_answers_directory = true;
  // Runs inside MRC_UNLINK after its answer was made: another change racing with it.
  std::function<void()> during_unlink;
  // The same two for a creating MRC_OPEN.
  bool create_answers_directory = true;
  std::function<void()> during_create;

 private:
  template <typename Message>
  static Message Parse(const std::string& bytes) {
    Message message;
    message.ParseFromString(bytes);
    return message;
  }
  static rpc::CallResponse Answer(const google::protobuf::MessageLite& message) {
    return rpc::CallResponse{message.SerializeAsString(), ""};
  }
  static rpc::CallResponse AnswerStat(const Stat& stat) {
    xtreemfs::mrc::GetattrResponse response;
    *response.mutable_stat() = stat;
    return Answer(response);
  }
  static std::string ParentOf(const std::string& path) { return MetadataCache::ParentOf(path); }

  Stat& ExistingNode(const std::string& path) {
    auto found = nodes.find(path);
    if (found == nodes.end()) throw rpc::RpcError::Errno(ENOENT, path);
    return found->second;
  }
  // The Stat as the MRC reports it: a regular file's size is FakeCluster's.
  Stat Existing(const std::string& path) {
    Stat stat = ExistingNode(path);
    if (inner_files_.count(path) != 0) {
      stat.set_size_bytes(inner_.mrc_size_of(path));
      stat.set_truncate_epoch(inner_.mrc_epoch_of(path));
    }
    return stat;
  }
  Stat Create(const std::string& path, std::uint32_t mode) {
    if (nodes.count(path) != 0) throw rpc::RpcError::Errno(EEXIST, path);
    Stat& parent = ExistingNode(ParentOf(path));
    Stat stat = StatOf(next_inode_++, mode);
    stat.set_nlink(S_ISDIR(mode) ? 2 : 1);
    stat.set_ctime_ns(++ticks_);
    nodes[path] = stat;
    if (S_ISDIR(mode)) parent.set_nlink(parent.nlink() + 1);
    TouchDirectory(ParentOf(path));
    return stat;
  }
  void Remove(const std::string& path) {
    const Stat removed = nodes.at(path);
    nodes.erase(path);
    for (auto& [other, stat] : nodes) {
      if (stat.inode() == removed.inode()) {
        stat.set_nlink(stat.nlink() - 1);
        stat.set_ctime_ns(++ticks_);
      }
    }
    if (S_ISDIR(removed.mode())) {
      Stat& parent = nodes.at(ParentOf(path));
      parent.set_nlink(parent.nlink() - 1);
    }
    TouchDirectory(ParentOf(path));
  }
  void TouchInode(std::uint64_t inode) {
    const std::uint64_t now = ++ticks_;
    for (auto& [path, stat] : nodes) {
      if (stat.inode() == inode) stat.set_ctime_ns(now);
    }
  }
  void TouchDirectory(const std::string& path) {
    Stat& directory = nodes.at(path);
    directory.set_mtime_ns(++ticks_);
    directory.set_ctime_ns(ticks_);
  }

  FakeCluster& inner_;
  std::set<std::string> inner_files_;  // regular files FakeCluster opened (and keeps the size of)
  std::uint64_t next_inode_ = 1000;    // FakeCluster's own inodes count from 2
  std::uint64_t ticks_ = 0;
};

class VolumeCacheTest : public ::testing::Test {
 protected:
  VolumeCacheTest() { OpenVolume(kTtlMs); }

  void OpenVolume(std::uint32_t ttl_ms) {
    VolumeOptions options;
    options.metadata_cache_ttl_ms = ttl_ms;
    volume = Volume::Open(mrc, ParseDirUrl("dir/demo"), clock, options);
  }
  int Getattrs() { return mrc.Calls(xtreemfs::mrc::MRC_GETATTR); }
  // Whether getattr of `path` was answered by the MRC (and not the cache).
  bool FetchedFromMrc(const std::string& path) {
    const int before = Getattrs();
    volume->Getattr(user, path);
    return Getattrs() == before + 1;
  }
  int ErrnoOfGetattr(const std::string& path) {
    try {
      volume->Getattr(user, path);
      return 0;
    } catch (const rpc::RpcError& error) {
      return error.posix_errno();
    }
  }

  FakeClock clock;
  FakeCluster cluster{clock, 2, kStripeWidth, kObjectSizeBytes};
  NamespaceMrc mrc{cluster};
  UserCredentials user;
  std::unique_ptr<Volume> volume;
};

TEST_F(VolumeCacheTest, RepeatedGetattrIsAnsweredFromTheCacheUntilTheTtl) {
  volume->Mkdir(user, "/d", 0755);
  EXPECT_TRUE(FetchedFromMrc("/d"));
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(FetchedFromMrc("/d"));
  // Another client changes the mode: invisible within the TTL, visible after it.
  mrc.nodes["/d"].set_mode(040700);
  clock.Advance(kTtlMs - 1);
  EXPECT_EQ(volume->Getattr(user, "/d").mode(), 040755u);
  clock.Advance(1);
  EXPECT_EQ(volume->Getattr(user, "/d").mode(), 040700u);
}

TEST_F(VolumeCacheTest, ZeroTtlAsksTheMrcEveryTime) {
  OpenVolume(0);
  volume->Mkdir(user, "/d", 0755);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(FetchedFromMrc("/d"));
}

TEST_F(VolumeCacheTest, SetattrDropsThePathAndTheInodesOtherNames) {
  volume->Mknod(user, "/f", S_IFREG | 0644, 0);
  volume->Link(user, "/f", "/g");
  volume->Getattr(user, "/f");
  volume->Getattr(user, "/g");
  Stat stat;
  stat.set_mode(0600);
  volume->Setattr(user, "/f", stat, xtreemfs::mrc::SETATTR_MODE);
  EXPECT_EQ(volume->Getattr(user, "/f").mode(), S_IFREG | 0600u);
  EXPECT_EQ(volume->Getattr(user, "/g").mode(), S_IFREG | 0600u);
  EXPECT_FALSE(FetchedFromMrc("/f"));  // cached again after the refetch
}

TEST_F(VolumeCacheTest, CreatingANameRefreshesTheParentDirectory) {
  volume->Mkdir(user, "/d", 0755);
  const Stat before = volume->Getattr(user, "/d");
  volume->Mkdir(user, "/d/sub", 0755);
  Stat after = volume->Getattr(user, "/d");
  EXPECT_GT(after.mtime_ns(), before.mtime_ns());
  EXPECT_EQ(after.nlink(), 3u);
  volume->Mknod(user, "/d/fifo", S_IFIFO | 0644, 0);
  EXPECT_TRUE(FetchedFromMrc("/d"));
  volume->Symlink(user, "target", "/d/link");
  EXPECT_TRUE(FetchedFromMrc("/d"));
  // A creating open's answer carries the directory as the create left it: kept, not fetched.
  volume->OpenFile(user, "/d/file", O_CREAT | O_RDWR, 0644)->Close();
  EXPECT_FALSE(FetchedFromMrc("/d"));
  EXPECT_EQ(volume->Getattr(user, "/d").mtime_ns(), mrc.nodes["/d"].mtime_ns());
  EXPECT_EQ(volume->Getattr(user, "/d/fifo").mode(), S_IFIFO | 0644u);
}

TEST_F(VolumeCacheTest, UnlinkDropsTheNameItsParentAndTheOtherHardLinks) {
  volume->Mknod(user, "/f", S_IFREG | 0644, 0);
  volume->Link(user, "/f", "/g");
  EXPECT_EQ(volume->Getattr(user, "/f").nlink(), 2u);
  EXPECT_EQ(volume->Getattr(user, "/g").nlink(), 2u);
  volume->Getattr(user, "/");
  volume->Unlink(user, "/g");
  EXPECT_EQ(ErrnoOfGetattr("/g"), ENOENT);
  EXPECT_EQ(volume->Getattr(user, "/f").nlink(), 1u);
  // The parent is replaced by the Stat the unlink's answer carries (the directory as it left it).
  EXPECT_FALSE(FetchedFromMrc("/"));
  EXPECT_EQ(volume->Getattr(user, "/").mtime_ns(), mrc.nodes["/"].mtime_ns());
}

TEST_F(VolumeCacheTest, LinkRefreshesTheExistingNamesLinkCount) {
  volume->Mknod(user, "/f", S_IFREG | 0644, 0);
  EXPECT_EQ(volume->Getattr(user, "/f").nlink(), 1u);
  volume->Link(user, "/f", "/g");
  EXPECT_EQ(volume->Getattr(user, "/f").nlink(), 2u);
}

TEST_F(VolumeCacheTest, RmdirDropsTheDirectoryAndItsParent) {
  volume->Mkdir(user, "/d", 0755);
  volume->Mkdir(user, "/d/e", 0755);
  volume->Getattr(user, "/d/e");
  EXPECT_EQ(volume->Getattr(user, "/d").nlink(), 3u);
  volume->Rmdir(user, "/d/e");
  EXPECT_EQ(ErrnoOfGetattr("/d/e"), ENOENT);
  EXPECT_EQ(volume->Getattr(user, "/d").nlink(), 2u);
}

TEST_F(VolumeCacheTest, RenameOfADirectoryDropsEverythingUnderBothPaths) {
  volume->Mkdir(user, "/a", 0755);
  volume->Mkdir(user, "/a/sub", 0755);
  volume->Mknod(user, "/a/sub/f", S_IFREG | 0644, 0);
  volume->Mkdir(user, "/b", 0755);
  volume->Mknod(user, "/b/old", S_IFREG | 0644, 0);
  for (const char* path : {"/a", "/a/sub", "/a/sub/f", "/b", "/b/old"}) volume->Getattr(user, path);
  volume->Rename(user, "/a", "/c", 0);
  EXPECT_EQ(ErrnoOfGetattr("/a"), ENOENT);
  EXPECT_EQ(ErrnoOfGetattr("/a/sub"), ENOENT);
  EXPECT_EQ(ErrnoOfGetattr("/a/sub/f"), ENOENT);
  EXPECT_EQ(volume->Getattr(user, "/c/sub/f").mode(), S_IFREG | 0644u);
  // A rename onto an existing file replaces it; the target name shows the moved file at once.
  const std::uint64_t moved_inode = volume->Getattr(user, "/c/sub/f").inode();
  volume->Rename(user, "/c/sub/f", "/b/old", 0);
  EXPECT_EQ(volume->Getattr(user, "/b/old").inode(), moved_inode);
  EXPECT_EQ(ErrnoOfGetattr("/c/sub/f"), ENOENT);
}

TEST_F(VolumeCacheTest, AFailedMutationStillDropsWhatItMightHaveChanged) {
  // A timed-out rename may have happened at the MRC; the cache must not keep serving the old names.
  volume->Mkdir(user, "/d", 0755);
  volume->Getattr(user, "/d");
  EXPECT_THROW(volume->Rename(user, "/d", "/missing/x", 0), rpc::RpcError);
  EXPECT_TRUE(FetchedFromMrc("/d"));
}

TEST_F(VolumeCacheTest, XattrChangesRefreshTheCtime) {
  volume->Mknod(user, "/f", S_IFREG | 0644, 0);
  const Stat before = volume->Getattr(user, "/f");
  volume->Setxattr(user, "/f", "user.color", "blue", 0);
  const Stat set = volume->Getattr(user, "/f");
  EXPECT_GT(set.ctime_ns(), before.ctime_ns());
  volume->Removexattr(user, "/f", "user.color");
  EXPECT_GT(volume->Getattr(user, "/f").ctime_ns(), set.ctime_ns());
}

TEST_F(VolumeCacheTest, ReaddirWithStatsFillsTheCache) {
  volume->Mkdir(user, "/d", 0755);
  volume->Mknod(user, "/d/x", S_IFREG | 0644, 0);
  volume->Mknod(user, "/d/y", S_IFREG | 0644, 0);
  volume->Readdir(user, "/d", 0, 100, false);
  EXPECT_FALSE(FetchedFromMrc("/d/x"));
  EXPECT_FALSE(FetchedFromMrc("/d/y"));
  // A names-only listing carries no Stats and caches nothing.
  volume->Mknod(user, "/d/z", S_IFREG | 0644, 0);
  volume->Readdir(user, "/d", 0, 100, true);
  EXPECT_TRUE(FetchedFromMrc("/d/z"));
}

TEST_F(VolumeCacheTest, RepeatedMissesInOneDirectoryListItIntoTheCache) {
  // Stat-ahead: after 8 getattrs the cache could not answer in /d, /d is listed with attributes
  // (from offset 2: "." and ".." are not needed and offset 0 would count as an access for atime),
  // and stat of its other entries needs no round trip.
  volume->Mkdir(user, "/d", 0755);
  for (int i = 0; i < 20; ++i) volume->Mknod(user, "/d/f" + std::to_string(i), S_IFREG | 0644, 0);
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(FetchedFromMrc("/d/f" + std::to_string(i)));
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), 1);
  EXPECT_EQ(mrc.last_readdir_offset, 2u);
  for (int i = 8; i < 20; ++i) EXPECT_FALSE(FetchedFromMrc("/d/f" + std::to_string(i)));
  // Within a TTL of that listing, misses (names created since) do not list again; after it they do.
  for (int i = 20; i < 40; ++i) mrc.nodes["/d/f" + std::to_string(i)] = StatOf(100 + i, S_IFREG | 0644);
  for (int i = 20; i < 30; ++i) EXPECT_TRUE(FetchedFromMrc("/d/f" + std::to_string(i)));
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), 1);
  clock.Advance(kTtlMs);
  for (int i = 30; i < 38; ++i) EXPECT_TRUE(FetchedFromMrc("/d/f" + std::to_string(i)));
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), 2);
  EXPECT_FALSE(FetchedFromMrc("/d/f38"));
  // Names that do not exist count for nothing: a create loop's lookups never list the directory
  // with attributes (they list its names once: AbsentNames, below).
  clock.Advance(kTtlMs);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(ErrnoOfGetattr("/d/new" + std::to_string(i)), ENOENT);
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR) - mrc.names_only_readdirs, 2);
}

TEST_F(VolumeCacheTest, LookupsOfNewNamesAreAnsweredHereAfterTheDirectorysNamesWereListed) {
  // A create loop: the lookup of each new name finds nothing. After 4 such answers from the MRC the
  // directory's names are listed (names only), and further new names are missing without a call
  // for one TTL from the listing; names created here are asked for again (and found).
  volume->Mkdir(user, "/d", 0755);
  volume->Mknod(user, "/d/old", S_IFREG | 0644, 0);
  const int before = Getattrs();
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(volume->GetattrIfExists(user, "/d/f" + std::to_string(i)));
  EXPECT_EQ(Getattrs(), before + 4);
  EXPECT_EQ(mrc.names_only_readdirs, 1);
  for (int i = 4; i < 50; ++i) {
    const std::string path = "/d/f" + std::to_string(i);
    EXPECT_FALSE(volume->GetattrIfExists(user, path).has_value());
    volume->Mknod(user, path, S_IFREG | 0644, 0);
    EXPECT_TRUE(volume->GetattrIfExists(user, path).has_value());  // asked for: created here
  }
  EXPECT_EQ(Getattrs(), before + 4 + 46);  // only the created names' getattrs
  EXPECT_TRUE(volume->GetattrIfExists(user, "/d/old").has_value());
  // Another client's new name is missing here until a TTL after the listing started.
  mrc.nodes["/d/elsewhere"] = StatOf(5000, S_IFREG | 0644);
  EXPECT_FALSE(volume->GetattrIfExists(user, "/d/elsewhere").has_value());
  clock.Advance(kTtlMs);
  EXPECT_TRUE(volume->GetattrIfExists(user, "/d/elsewhere").has_value());
  // A name removed here is asked for (and missing); a renamed directory's knowledge goes with it.
  volume->Unlink(user, "/d/f4");
  EXPECT_EQ(ErrnoOfGetattr("/d/f4"), ENOENT);
  volume->Rename(user, "/d", "/e", 0);
  EXPECT_TRUE(volume->GetattrIfExists(user, "/e/f5").has_value());
}

TEST_F(VolumeCacheTest, AbsentNamesCanBeTurnedOff) {
  VolumeOptions options;
  options.metadata_cache_ttl_ms = kTtlMs;
  options.absent_names_misses = 0;
  volume = Volume::Open(mrc, ParseDirUrl("dir/demo"), clock, options);
  volume->Mkdir(user, "/d", 0755);
  const int before = Getattrs();
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(volume->GetattrIfExists(user, "/d/f" + std::to_string(i)));
  EXPECT_EQ(Getattrs(), before + 20);
  EXPECT_EQ(mrc.names_only_readdirs, 0);
}

TEST_F(VolumeCacheTest, StatAheadListsAgainOnlyWhileTheListingsPay) {
  // A getattr round trip costs about as much as 32 listed entries: a listing of 200 entries pays
  // when at least 7 getattrs per TTL come for the directory; at a slower pace the entries would
  // expire unused and getattrs go to the MRC one by one.
  volume->Mkdir(user, "/d", 0755);
  for (int i = 0; i < 200; ++i) volume->Mknod(user, "/d/f" + std::to_string(i), S_IFREG | 0644, 0);
  for (int i = 0; i < 8; ++i) volume->Getattr(user, "/d/f" + std::to_string(i));
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), 1);  // the first listing is a probe
  // A slow pace: 4 getattrs per TTL for three TTLs; no second listing.
  for (int window = 0; window < 3; ++window) {
    clock.Advance(kTtlMs);
    for (int i = 0; i < 4; ++i) volume->Getattr(user, "/d/f" + std::to_string(10 + 4 * window + i));
  }
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), 1);
  // A burst after the slow pace (an unlink loop's lookups after a pause): listed within its first
  // TTL, at the first check (every 8 misses) at which its getattrs so far pay: the 12th.
  clock.Advance(kTtlMs);
  for (int i = 0; i < 11; ++i) EXPECT_TRUE(FetchedFromMrc("/d/f" + std::to_string(50 + i)));
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), 1);
  EXPECT_TRUE(FetchedFromMrc("/d/f61"));
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), 2);
  for (int i = 62; i < 100; ++i) EXPECT_FALSE(FetchedFromMrc("/d/f" + std::to_string(i)));
}

TEST_F(VolumeCacheTest, StatAheadListsAgainWhileThePreviousListingPaid) {
  // The pace seen without a listing is that of a loop slowed by its own round trips, so it alone
  // would not list again what a listing serves at a faster pace. A listing whose entries answered
  // enough getattrs within its TTL (13 x 32 >= 400 entries) is repeated at the next check; one
  // that answered too few is not (at 8 misses x 32 < 400 the pace alone does not pay either).
  volume->Mkdir(user, "/d", 0755);
  for (int i = 0; i < 400; ++i) volume->Mknod(user, "/d/f" + std::to_string(i), S_IFREG | 0644, 0);
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(FetchedFromMrc("/d/f" + std::to_string(i)));
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), 1);  // the probe
  for (int i = 8; i < 21; ++i) EXPECT_FALSE(FetchedFromMrc("/d/f" + std::to_string(i)));
  clock.Advance(2 * kTtlMs);  // the entries expired; no whole window of getattrs before this one
  for (int i = 21; i < 29; ++i) EXPECT_TRUE(FetchedFromMrc("/d/f" + std::to_string(i)));
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), 2);  // the probe paid: listed again
  for (int i = 29; i < 32; ++i) EXPECT_FALSE(FetchedFromMrc("/d/f" + std::to_string(i)));
  clock.Advance(2 * kTtlMs);
  for (int i = 32; i < 40; ++i) EXPECT_TRUE(FetchedFromMrc("/d/f" + std::to_string(i)));
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), 2);  // 3 getattrs did not pay for 400 entries
}

TEST_F(VolumeCacheTest, AnUnlinksAnswerServesTheDirectorysNextGetattr) {
  // The kernel asks for a directory's attributes after every unlink in it (default_permissions):
  // the unlink's answer carries them, so that getattr needs no round trip and shows the new mtime.
  volume->Mkdir(user, "/d", 0755);
  for (const char* name : {"/d/f", "/d/g", "/d/h"}) volume->Mknod(user, name, S_IFREG | 0644, 0);
  const Stat before = volume->Getattr(user, "/d");
  volume->Unlink(user, "/d/f");
  EXPECT_FALSE(FetchedFromMrc("/d"));
  EXPECT_EQ(volume->Getattr(user, "/d").mtime_ns(), mrc.nodes["/d"].mtime_ns());
  EXPECT_GT(volume->Getattr(user, "/d").mtime_ns(), before.mtime_ns());
  EXPECT_EQ(ErrnoOfGetattr("/d/f"), ENOENT);
  // A change made here while the unlink was under way may be newer than the answer: not kept.
  mrc.during_unlink = [&] { volume->Mknod(user, "/d/new", S_IFREG | 0644, 0); };
  volume->Unlink(user, "/d/g");
  mrc.during_unlink = nullptr;
  EXPECT_TRUE(FetchedFromMrc("/d"));
  EXPECT_EQ(volume->Getattr(user, "/d").mtime_ns(), mrc.nodes["/d"].mtime_ns());
  // An answer without it (an older MRC, a repeat answered from its recorded outcome): asked for.
  mrc.unlink_answers_directory = false;
  volume->Unlink(user, "/d/h");
  EXPECT_TRUE(FetchedFromMrc("/d"));
}

TEST_F(VolumeCacheTest, ACreatesAnswerServesTheDirectorysNextGetattr) {
  // The kernel asks for a directory's attributes after every create in it (default_permissions):
  // the creating open's answer carries them, so that getattr needs no round trip and shows the
  // new mtime.
  volume->Mkdir(user, "/d", 0755);
  const Stat before = volume->Getattr(user, "/d");
  volume->OpenFile(user, "/d/f", O_CREAT | O_EXCL | O_WRONLY, 0644)->Close();
  EXPECT_FALSE(FetchedFromMrc("/d"));
  EXPECT_EQ(volume->Getattr(user, "/d").mtime_ns(), mrc.nodes["/d"].mtime_ns());
  EXPECT_GT(volume->Getattr(user, "/d").mtime_ns(), before.mtime_ns());
  // An open that creates nothing changes no directory: the directory is asked for again.
  volume->OpenFile(user, "/d/f", O_CREAT | O_WRONLY, 0644)->Close();
  EXPECT_TRUE(FetchedFromMrc("/d"));
  // A change made here while the create was under way may be newer than the answer: not kept.
  mrc.during_create = [&] { volume->Mknod(user, "/d/new", S_IFREG | 0644, 0); };
  volume->OpenFile(user, "/d/g", O_CREAT | O_EXCL | O_WRONLY, 0644)->Close();
  mrc.during_create = nullptr;
  EXPECT_TRUE(FetchedFromMrc("/d"));
  EXPECT_EQ(volume->Getattr(user, "/d").mtime_ns(), mrc.nodes["/d"].mtime_ns());
  // An answer without it (an older MRC, a repeat answered from its recorded outcome): asked for.
  mrc.create_answers_directory = false;
  volume->OpenFile(user, "/d/h", O_CREAT | O_EXCL | O_WRONLY, 0644)->Close();
  EXPECT_TRUE(FetchedFromMrc("/d"));
}

TEST_F(VolumeCacheTest, StatAheadCanBeTurnedOff) {
  VolumeOptions options;
  options.metadata_cache_ttl_ms = kTtlMs;
  options.stat_ahead_misses = 0;
  volume = Volume::Open(mrc, ParseDirUrl("dir/demo"), clock, options);
  volume->Mkdir(user, "/d", 0755);
  for (int i = 0; i < 20; ++i) volume->Mknod(user, "/d/f" + std::to_string(i), S_IFREG | 0644, 0);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(FetchedFromMrc("/d/f" + std::to_string(i)));
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), 0);
}

TEST_F(VolumeCacheTest, TheCreatingOpensAnswerServesTheFirstGetattrOfItsHandleOnce) {
  // libfuse asks for a new file's attributes with its handle right after create: the create's
  // answer is used once; later, or after a write, the handle's getattr goes to the MRC as usual.
  auto file = volume->OpenFile(user, "/new", O_CREAT | O_EXCL | O_WRONLY, 0644);
  const auto created = file->TakeCreatedStat();
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->inode(), mrc.nodes["/new"].inode());
  EXPECT_FALSE(file->TakeCreatedStat().has_value());
  auto second = volume->OpenFile(user, "/new2", O_CREAT | O_WRONLY, 0644);
  second->Write(0, "bytes");
  EXPECT_FALSE(second->TakeCreatedStat().has_value());  // stale: the size changed
  auto opened = volume->OpenFile(user, "/new", O_RDONLY, 0);
  EXPECT_FALSE(opened->TakeCreatedStat().has_value());  // not a create
}

TEST_F(VolumeCacheTest, OpenFilesBypassTheCacheAndTheLastCloseDropsTheInode) {
  auto file = volume->OpenFile(user, "/f", O_CREAT | O_RDWR, 0644);
  EXPECT_EQ(volume->Getattr(user, "/f").size_bytes(), 0u);
  file->Write(0, std::string(100, 'x'));
  EXPECT_TRUE(FetchedFromMrc("/f"));
  EXPECT_EQ(volume->Getattr(user, "/f").size_bytes(), 100u);  // the local size wins
  file->Fsync();
  EXPECT_EQ(volume->Getattr(user, "/f").size_bytes(), 100u);
  file->Write(100, std::string(50, 'y'));
  file->Close();
  file.reset();
  EXPECT_TRUE(FetchedFromMrc("/f"));  // cached while open, dropped on the last close
  EXPECT_EQ(volume->Getattr(user, "/f").size_bytes(), 150u);
  EXPECT_FALSE(FetchedFromMrc("/f"));
}

TEST_F(VolumeCacheTest, ASizeReportDropsTheFilesCachedAttributes) {
  // fuse_io_e2e.sh: rewriting a file's bytes in place and closing it showed the old mtime. The
  // report at close sets mtime and ctime at the MRC, but the Stat the open's lookup had cached
  // stayed, and a getattr arriving while the release was under way (the file no longer counted as
  // open here, the release's invalidation not yet done) served it.
  volume->OpenFile(user, "/f", O_CREAT | O_WRONLY, 0644)->Close();
  volume->Getattr(user, "/f");
  ASSERT_TRUE(volume->metadata_cache().Get("/f").has_value());
  auto file = volume->OpenFile(user, "/f", O_WRONLY, 0);
  const std::uint64_t generation = volume->metadata_cache().Generation();
  const xtreemfs::mrc::Stat before = *volume->metadata_cache().Get("/f");
  file->Write(0, "same bytes");
  file->Flush();
  EXPECT_FALSE(volume->metadata_cache().Get("/f").has_value()) << "the report left the old Stat cached";
  // An answer fetched before the report cannot be stored after it.
  EXPECT_FALSE(volume->metadata_cache().Put("/f", before, generation));
  file->Close();
}

TEST_F(VolumeCacheTest, AFilesSizeIsNeverAnsweredBelowWhatWasWrittenHere) {
  // Two appenders of one mount (tests/system/fuse_posix_e2e.sh): one closes, and its size report
  // completes while a getattr, read at the MRC before the report arrived, is on its way back. The
  // kernel takes the answered size as the end of the file for the next O_APPEND write; answering
  // the MRC's older size made that write overwrite the line just appended.
  auto appender = volume->OpenFile(user, "/appended", O_CREAT | O_WRONLY | O_APPEND, 0644);
  auto other = volume->OpenFile(user, "/appended", O_WRONLY | O_APPEND, 0);
  appender->Write(0, "a line 1\n");
  mrc.after_getattr_read = [&] { appender->Flush(); };
  EXPECT_EQ(volume->Getattr(user, "/appended").size_bytes(), 9u);
  EXPECT_EQ(cluster.mrc_size_of("/appended"), 9u);  // the report did complete during the getattr
  // The same when the file's last handle is closed meanwhile (size report, then the close).
  other->Write(9, "b line 1\n");
  mrc.after_getattr_read = [&] {
    appender.reset();
    other.reset();
  };
  EXPECT_EQ(volume->Getattr(user, "/appended").size_bytes(), 18u);
  EXPECT_EQ(cluster.mrc_size_of("/appended"), 18u);
  // A listing's entry read before the reports (readdirplus hands the kernel its attributes too).
  Stat listed = mrc.nodes["/appended"];
  ASSERT_EQ(listed.truncate_epoch(), 0u);
  listed.set_size_bytes(9);
  volume->ApplyLocalSize(listed);
  EXPECT_EQ(listed.size_bytes(), 18u);
  // Another client grew the file in the same truncate epoch: its larger size shows.
  listed.set_size_bytes(100);
  volume->ApplyLocalSize(listed);
  EXPECT_EQ(listed.size_bytes(), 100u);
  // A truncate here that the answer predates (its epoch is older): the truncated size, while the
  // file is open and after its close.
  auto truncating = volume->OpenFile(user, "/appended", O_WRONLY, 0);
  truncating->Truncate(4);
  listed.set_size_bytes(18);
  volume->ApplyLocalSize(listed);
  EXPECT_EQ(listed.size_bytes(), 4u);
  truncating.reset();
  listed = mrc.nodes["/appended"];
  listed.set_size_bytes(18);
  volume->ApplyLocalSize(listed);
  EXPECT_EQ(listed.size_bytes(), 4u);
  // A truncate by another client (an epoch newer than any known here): the MRC's size.
  listed.set_truncate_epoch(cluster.mrc_epoch_of("/appended") + 1);
  listed.set_size_bytes(2);
  volume->ApplyLocalSize(listed);
  EXPECT_EQ(listed.size_bytes(), 2u);
}

TEST_F(VolumeCacheTest, CachedStatIsWhatGetattrServesWithoutTheMrc) {
  // The FUSE layer gathers the caller's credentials only when CachedStat has nothing.
  volume->Mkdir(user, "/d", 0755);
  EXPECT_FALSE(volume->CachedStat("/d"));  // dropped by the mkdir: Getattr would ask the MRC
  volume->Getattr(user, "/d");
  const int before = Getattrs();
  ASSERT_TRUE(volume->CachedStat("/d"));
  EXPECT_EQ(volume->CachedStat("/d")->mode(), 040755u);
  EXPECT_EQ(Getattrs(), before);
  clock.Advance(kTtlMs);
  EXPECT_FALSE(volume->CachedStat("/d"));
  // A file open here always comes from the MRC (its size changes with every write).
  auto file = volume->OpenFile(user, "/f", O_CREAT | O_RDWR, 0644);
  volume->Getattr(user, "/f");
  EXPECT_FALSE(volume->CachedStat("/f"));
  EXPECT_TRUE(Volume::MayHaveXattr("user.a"));
  EXPECT_TRUE(Volume::MayHaveXattr("xtreemfs.url"));
  EXPECT_FALSE(Volume::MayHaveXattr("security.capability"));
}

TEST_F(VolumeCacheTest, TruncateByPathIsVisibleAtOnce) {
  {
    auto file = volume->OpenFile(user, "/f", O_CREAT | O_RDWR, 0644);
    file->Write(0, std::string(3 * kObjectSizeBytes, 'x'));
    file->Close();
  }
  EXPECT_EQ(volume->Getattr(user, "/f").size_bytes(), 3u * kObjectSizeBytes);
  {
    auto file = volume->OpenFile(user, "/f", O_WRONLY, 0);
    file->Truncate(10);
    file->Close();
  }
  EXPECT_EQ(volume->Getattr(user, "/f").size_bytes(), 10u);
}

// --------------------------------------------------------------------------- xtreemfs.* xattrs

int ErrnoOf(const std::function<void()>& call) {
  try {
    call();
    return 0;
  } catch (const rpc::RpcError& error) {
    return error.posix_errno();
  }
}

TEST_F(VolumeCacheTest, LayoutAttributesOfAFile) {
  volume->OpenFile(user, "/f", O_CREAT | O_RDWR, 0644)->Close();
  const std::uint64_t inode = volume->Getattr(user, "/f").inode();
  EXPECT_EQ(volume->Getxattr(user, "/f", "xtreemfs.url"), "pbrpc://dir:32638/demo");
  EXPECT_EQ(volume->Getxattr(user, "/f", "xtreemfs.file_id"), "vol-1:" + std::to_string(inode));
  EXPECT_EQ(volume->Getxattr(user, "/f", "xtreemfs.object_size"), std::to_string(kObjectSizeBytes));
  EXPECT_EQ(volume->Getxattr(user, "/f", "xtreemfs.stripe_width"), std::to_string(kStripeWidth));
  const std::string reservation = volume->Getxattr(user, "/f", "xtreemfs.reservation");
  EXPECT_NE(reservation.find("\"type\":\"SEQUENTIAL\""), std::string::npos) << reservation;
  EXPECT_NE(reservation.find("\"capacity_bytes\":\"1073741824\""), std::string::npos) << reservation;
  EXPECT_NE(reservation.find("\"throughput_bytes_per_second\":\"157286400\""), std::string::npos) << reservation;
  // xtreemfs.locations comes from the MRC as it is.
  EXPECT_EQ(volume->Getxattr(user, "/f", "xtreemfs.locations"), "{\"locations of\":\"/f\"}");

  volume->Setxattr(user, "/f", "user.a", "1", 0);
  const auto names = volume->Listxattr(user, "/f");
  EXPECT_EQ(names, (std::vector<std::string>{"user.a", "xtreemfs.url", "xtreemfs.file_id",
                                             "xtreemfs.object_size", "xtreemfs.stripe_width",
                                             "xtreemfs.locations", "xtreemfs.reservation"}));
}

TEST_F(VolumeCacheTest, DirectoriesListOnlyTheAttributesTheyHave) {
  volume->Mkdir(user, "/d", 0755);
  EXPECT_EQ(volume->Listxattr(user, "/d"),
            (std::vector<std::string>{"xtreemfs.url", "xtreemfs.file_id", "xtreemfs.reservation"}));
  EXPECT_EQ(ErrnoOf([&] { volume->Getxattr(user, "/d", "xtreemfs.stripe_width"); }), ENODATA);
  EXPECT_EQ(ErrnoOf([&] { volume->Getxattr(user, "/missing", "xtreemfs.url"); }), ENOENT);
}

TEST_F(VolumeCacheTest, LayoutAttributesAreReadOnlyAndOtherNamespacesEmpty) {
  volume->Mknod(user, "/f", S_IFREG | 0644, 0);
  const int setxattrs = mrc.Calls(xtreemfs::mrc::MRC_SETXATTR);
  EXPECT_EQ(ErrnoOf([&] { volume->Setxattr(user, "/f", "xtreemfs.stripe_width", "4", 0); }), EPERM);
  EXPECT_EQ(ErrnoOf([&] { volume->Setxattr(user, "/f", "xtreemfs.new", "4", 0); }), EPERM);
  EXPECT_EQ(ErrnoOf([&] { volume->Removexattr(user, "/f", "xtreemfs.url"); }), EPERM);
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_SETXATTR), setxattrs);
  // The kernel asks security.capability before writes: answered here, without an MRC call.
  const int getxattrs = mrc.Calls(xtreemfs::mrc::MRC_GETXATTR);
  EXPECT_EQ(ErrnoOf([&] { volume->Getxattr(user, "/f", "security.capability"); }), ENODATA);
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_GETXATTR), getxattrs);
}

// ------------------------------------------------------------------------------ mount option

TEST(MetadataCacheMountOptionTest, TtlOptionParsesAndRejectsValuesOutsideItsRange) {
  using fuse_adapter::ParseMountOptions;
  EXPECT_EQ(ParseMountOptions({"dir/demo", "/mnt"}).metadata_cache_ttl_ms, 1000u);
  EXPECT_EQ(ParseMountOptions({"--metadata-cache-ttl-ms", "0", "dir/demo", "/mnt"})
                .metadata_cache_ttl_ms,
            0u);
  EXPECT_EQ(ParseMountOptions({"dir/demo", "/mnt", "--metadata-cache-ttl-ms=250"})
                .metadata_cache_ttl_ms,
            250u);
  try {
    ParseMountOptions({"--metadata-cache-ttl-ms", "3600001", "dir/demo", "/mnt"});
    FAIL() << "expected a usage error";
  } catch (const fuse_adapter::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--metadata-cache-ttl-ms"), std::string::npos);
  }
  EXPECT_NE(fuse_adapter::MountUsage("mount.xtreemfs").find("--metadata-cache-ttl-ms"),
            std::string::npos);
}


// ------------------------------------------------------------------- DirectoryListing (opendir)

// Reads a whole directory the way the kernel does: requests of `per_request` entries, each from
// the offset the previous one reached; returns the names.
std::vector<std::string> ListAll(DirectoryListing& listing, const UserCredentials& user,
                                 int per_request, bool with_stats) {
  std::vector<std::string> names;
  std::uint64_t offset = 0;
  for (;;) {
    int taken = 0;
    bool end = false;
    while (taken < per_request) {
      const auto position = listing.At(user, offset, with_stats);
      if (position.index >= position.page->entries_size()) {
        end = true;
        break;
      }
      for (int i = position.index; i < position.page->entries_size() && taken < per_request; ++i) {
        const auto& entry = position.page->entries(i);
        EXPECT_EQ(entry.has_stat(), with_stats) << entry.name();
        names.push_back(entry.name());
        offset = entry.next_offset();
        ++taken;
      }
    }
    if (end) return names;
  }
}

TEST_F(VolumeCacheTest, AListingServesTheKernelsRequestsFromPagesContinuedByName) {
  volume->Mkdir(user, "/d", 0755);
  for (int i = 0; i < 250; ++i) {
    volume->Mknod(user, "/d/f" + std::to_string(1000 + i), S_IFREG | 0644, 0);
  }
  DirectoryListing listing(*volume, clock, [] { return std::string("/d"); }, 100, kTtlMs);
  const int before = mrc.Calls(xtreemfs::mrc::MRC_READDIR);
  const auto names = ListAll(listing, user, 30, false);
  ASSERT_EQ(names.size(), 252u);
  EXPECT_EQ(names[0], ".");
  EXPECT_EQ(names[1], "..");
  EXPECT_EQ(names[2], "f1000");
  EXPECT_EQ(names[251], "f1249");
  // 252 entries in pages of 100: three pages, not one per request of 30; the later pages continue
  // after the last name of the one before (the MRC seeks to it instead of counting from the start).
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR) - before, 3);
  EXPECT_EQ(mrc.last_readdir_offset, 200u);
  EXPECT_EQ(mrc.last_readdir_after_name, "f1197");
}

TEST_F(VolumeCacheTest, AListingKeepsOffsetsForSeeksAndListsEveryUnchangedNameOnce) {
  volume->Mkdir(user, "/d", 0755);
  for (int i = 0; i < 50; ++i) volume->Mknod(user, "/d/f" + std::to_string(100 + i), S_IFREG | 0644, 0);
  DirectoryListing listing(*volume, clock, [] { return std::string("/d"); }, 10, kTtlMs);
  // telldir/seekdir: an offset handed out earlier names the same entry again.
  auto position = listing.At(user, 0, false);
  ASSERT_EQ(position.page->entries(5).name(), "f103");
  const std::uint64_t told = position.page->entries(4).next_offset();  // the offset of f103
  for (std::uint64_t offset = 10; offset < 30; ++offset) listing.At(user, offset, false);
  position = listing.At(user, told, false);
  EXPECT_EQ(position.page->entries(position.index).name(), "f103");
  // Names removed and added while a listing goes on do not make it skip or repeat the others.
  std::vector<std::string> names;
  std::uint64_t offset = 0;
  for (int round = 0;; ++round) {
    position = listing.At(user, offset, false);
    if (position.index >= position.page->entries_size()) break;
    const auto& entry = position.page->entries(position.index);
    names.push_back(entry.name());
    offset = entry.next_offset();
    if (round == 15) {
      // Two listed names go and one comes before them, one after: positions shift by one, which
      // made a listing by position skip an unchanged name.
      volume->Unlink(user, "/d/f101");
      volume->Unlink(user, "/d/f102");
      volume->Mknod(user, "/d/f099", S_IFREG | 0644, 0);
      volume->Mknod(user, "/d/f200", S_IFREG | 0644, 0);
    }
  }
  std::vector<std::string> unchanged;
  for (int i = 0; i < 50; ++i) {
    if (i != 1 && i != 2) unchanged.push_back("f" + std::to_string(100 + i));
  }
  std::vector<std::string> listed_unchanged;
  for (const auto& name : names) {
    if (name != "." && name != ".." && name != "f101" && name != "f102" && name != "f099" &&
        name != "f200") {
      listed_unchanged.push_back(name);
    }
  }
  EXPECT_EQ(listed_unchanged, unchanged);
  // rewinddir shows the directory as it is now.
  position = listing.At(user, 0, false);
  EXPECT_EQ(position.page->entries(2).name(), "f099");
}

TEST_F(VolumeCacheTest, AListingFetchesAttributesWhenAskedAndAgainAfterTheTtl) {
  volume->Mkdir(user, "/d", 0755);
  for (int i = 0; i < 5; ++i) volume->Mknod(user, "/d/f" + std::to_string(i), S_IFREG | 0644, 0);
  DirectoryListing listing(*volume, clock, [] { return std::string("/d"); }, 100, kTtlMs);
  EXPECT_EQ(ListAll(listing, user, 3, false).size(), 7u);
  const int names_only = mrc.Calls(xtreemfs::mrc::MRC_READDIR);
  // readdirplus after a names-only listing: fetched again with attributes, once.
  EXPECT_EQ(ListAll(listing, user, 3, true).size(), 7u);
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), names_only + 1);  // offset 0 always asks
  auto position = listing.At(user, 4, true);
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), names_only + 1);
  EXPECT_EQ(position.page->entries(position.index).name(), "f2");
  // Attributes are trusted for one TTL; after it the page is fetched again, after the name before.
  mrc.nodes["/d/f2"].set_mode(S_IFREG | 0600);
  clock.Advance(kTtlMs);
  position = listing.At(user, 4, true);
  EXPECT_EQ(mrc.Calls(xtreemfs::mrc::MRC_READDIR), names_only + 2);
  EXPECT_EQ(mrc.last_readdir_after_name, "f1");
  EXPECT_EQ(position.page->entries(position.index).stat().mode(), static_cast<std::uint32_t>(S_IFREG | 0600));
}

}  // namespace
}  // namespace xtreemfs::client
