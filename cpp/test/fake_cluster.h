// In-memory DIR, MRC and OSDs behind the Transport seam, for client-core tests without sockets.
// The fake follows the team's shared decisions where the client depends on them: object n is
// accepted only by the OSD at stripe position n mod width; reads return what is stored (short
// reads); size updates under an older truncate epoch are ignored, under the current one only grow
// the size, except the first update after MRC_FTRUNCATE, which sets it.
#pragma once

#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "client/clock.h"
#include "dir.pb.h"
#include "mrc.pb.h"
#include "osd.pb.h"
#include "rpc/transport.h"

namespace xtreemfs::client::testing {

// Deterministic pseudo-random bytes: file contents whose every offset differs between seeds.
inline std::string PatternOf(std::size_t length_bytes, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::string bytes(length_bytes, '\0');
  for (char& byte : bytes) byte = static_cast<char>(generator() & 0xff);
  return bytes;
}

class FakeClock : public Clock {
 public:
  std::int64_t MonotonicMs() override { return monotonic_ms; }
  std::int64_t WallMs() override { return wall_ms; }
  void Advance(std::int64_t duration_ms) {
    monotonic_ms += duration_ms;
    wall_ms += duration_ms;
  }
  std::int64_t monotonic_ms = 1000;
  std::int64_t wall_ms = 1'700'000'000'000;
};

struct CallRecord {
  rpc::ServiceAddress address;
  std::uint32_t interface_id;
  std::uint32_t procedure_id;
};

class FakeCluster : public rpc::Transport {
 public:
  static constexpr std::uint16_t kDirPort = 32638;
  static constexpr std::uint16_t kMrcPort = 32636;
  static constexpr std::uint16_t kOsdPort = 32640;
  static constexpr std::uint64_t kXCapLifetimeMs = 600000;

  FakeCluster(FakeClock& clock, std::uint32_t osd_count, std::uint32_t stripe_width,
              std::uint32_t object_size_bytes)
      : clock_(clock), stripe_width_(stripe_width), object_size_bytes_(object_size_bytes) {
    for (std::uint32_t i = 0; i < osd_count; ++i) osd_uuids_.push_back("osd-" + std::to_string(i));
  }

  rpc::CallResponse Call(const rpc::ServiceAddress& address, const rpc::CallRequest& request,
                         const rpc::CallOptions&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    calls.push_back(CallRecord{address, request.interface_id, request.procedure_id});
    const std::string message_bytes =
        request.message == nullptr ? std::string() : request.message->SerializeAsString();
    if (address.port == kDirPort && address.host == "dir") return Dir(request, message_bytes);
    if (address.host == "mrc-host" && address.port == PortOf("mrc-1")) return Mrc(request, message_bytes);
    if (address.host.rfind("osd-", 0) == 0 && address.port == PortOf(address.host)) {
      return Osd(address.host, request, message_bytes);
    }
    throw rpc::RpcError::Of(rpc::ErrorKind::kTransport, "no fake service at " + address.ToString());
  }

  int CountCalls(std::uint32_t interface_id, std::uint32_t procedure_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    int count = 0;
    for (const auto& call : calls) {
      if (call.interface_id == interface_id && call.procedure_id == procedure_id) ++count;
    }
    return count;
  }

  // Test inspection and fault injection; guarded by mutex_ while calls run.
  std::vector<CallRecord> calls;
  std::vector<xtreemfs::mrc::UpdateFileSizeRequest> size_updates;
  std::vector<std::string> placement_violations;  // objects sent to the wrong OSD
  std::map<std::string, int> unlinks_by_osd;
  std::map<std::string, int> truncates_by_osd;
  int auth_failures_to_inject = 0;                 // next OSD calls answer AUTH_FAILED
  // Advisory locks (OSD_LOCK_*): granted locks by file id, in grant order. Simplified: conflicts
  // and unlocks by overlap, no merging or splitting (the OSD's LockManagerTest covers those).
  std::vector<std::pair<std::string, xtreemfs::osd::Lock>> granted_locks;
  std::map<std::string, int> lock_calls_by_osd;
  // A service (by UUID: "mrc-1", "osd-N") restarted on another port: the DIR maps it there, and its
  // old port refuses connections (a transport error), as a real restart on a new port does.
  void MoveServiceForTest(const std::string& uuid, std::uint16_t port) {
    std::lock_guard<std::mutex> lock(mutex_);
    moved_ports_[uuid] = port;
  }
  // Chain replication: files created from now on get `replicas` replicas (replica r on the OSDs
  // osd-(r * width + i)); a write, truncate or fsync at a member is applied down the chain of the
  // request's XLoc, as the OSDs forward it, and a dead successor fails it CHAIN_MEMBER_UNREACHABLE.
  // A request with an older XLoc version than the file's is XLOC_OUTDATED (servers/osd README).
  void ReplicateForTest(std::uint32_t replicas) {
    std::lock_guard<std::mutex> lock(mutex_);
    replicas_ = replicas;
  }
  // A replica added as the head of a file's chain (as MRC_ADD_REPLICA does for a file with one
  // replica), under the next XLoc version: the OSDs then refuse the older one (XLOC_OUTDATED).
  void AddHeadReplicaForTest(const std::string& path, std::vector<std::string> osds) {
    std::lock_guard<std::mutex> lock(mutex_);
    File& file = files_.at(path);
    if (file.chain.empty()) file.chain.emplace_back(osd_uuids_.begin(), osd_uuids_.begin() + stripe_width_);
    file.chain.insert(file.chain.begin(), std::move(osds));
    ++file.xloc_version;
  }
  // OSDs that give no answer (killed); the fake DIR shows them dead, so MRC_REPLICA_FAILED removes
  // them from a chain as the MRC does (ReplicaFailedOp).
  std::set<std::string> dead_osds;
  // The protocol the fake DIR's mapping of a service UUID names (default "pbrpc"); set before use.
  std::map<std::string, std::string> mapping_protocols;
  int replica_reports = 0;
  int fsyncs = 0;
  std::uint32_t xloc_version_of(const std::string& path) { return files_.at(path).xloc_version; }
  std::uint64_t mrc_size_of(const std::string& path) { return files_.at(path).size_bytes; }
  std::uint32_t mrc_epoch_of(const std::string& path) { return files_.at(path).truncate_epoch; }
  // Moves a file to another path in the fake MRC (a rename by another client).
  void RenameForTest(const std::string& from, const std::string& to) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto node = files_.extract(from);
    node.key() = to;
    files_.insert(std::move(node));
  }

 private:
  struct File {
    std::string file_id;
    std::uint64_t size_bytes = 0;
    std::uint32_t truncate_epoch = 0;
    bool truncate_pending = false;
    std::vector<std::vector<std::string>> chain;  // replicas, head first; empty: osd_uuids_[0..width)
    std::uint32_t xloc_version = 1;
  };

  // Caller holds mutex_.
  std::uint16_t PortOf(const std::string& uuid) const {
    auto moved = moved_ports_.find(uuid);
    if (moved != moved_ports_.end()) return moved->second;
    return uuid == "mrc-1" ? kMrcPort : kOsdPort;
  }

  template <typename Message>
  static Message Parse(const std::string& bytes) {
    Message message;
    message.ParseFromString(bytes);
    return message;
  }

  static rpc::CallResponse Answer(const google::protobuf::MessageLite& message, std::string data = "") {
    return rpc::CallResponse{message.SerializeAsString(), std::move(data)};
  }

  rpc::CallResponse Dir(const rpc::CallRequest& request, const std::string& bytes) {
    if (request.procedure_id == xtreemfs::dir::DIR_VOLUME_GET) {
      const auto get = Parse<xtreemfs::dir::VolumeGetRequest>(bytes);
      if (get.volume_name() != "demo") {
        throw rpc::RpcError::Errno(ENOENT, "volume '" + get.volume_name() + "' not found");
      }
      xtreemfs::dir::VolumeRegistration registration;
      registration.set_volume_id("vol-1");
      registration.set_volume_name("demo");
      registration.set_mrc_uuid("mrc-1");
      return Answer(registration);
    }
    if (request.procedure_id == xtreemfs::dir::DIR_ADDRESS_MAPPINGS_GET) {
      const auto get = Parse<xtreemfs::dir::AddressMappingsGetRequest>(bytes);
      xtreemfs::dir::AddressMappingSet set;
      if (get.uuid() == "mrc-1" || get.uuid().rfind("osd-", 0) == 0) {
        auto* mapping = set.add_mappings();
        mapping->set_uuid(get.uuid());
        const auto protocol = mapping_protocols.find(get.uuid());
        mapping->set_protocol(protocol == mapping_protocols.end() ? "pbrpc" : protocol->second);
        mapping->set_address(get.uuid() == "mrc-1" ? "mrc-host" : get.uuid());
        mapping->set_port(PortOf(get.uuid()));
      }
      return Answer(set);
    }
    throw rpc::RpcError::Of(rpc::ErrorKind::kInvalidArgs, "fake DIR: unsupported procedure");
  }

  xtreemfs::common::FileCredentials CredentialsOf(const File& file, xtreemfs::common::AccessMode mode) {
    xtreemfs::common::FileCredentials credentials;
    auto* xcap = credentials.mutable_xcap();
    xcap->set_file_id(file.file_id);
    xcap->set_volume_id("vol-1");
    xcap->set_access_mode(mode);
    xcap->set_expires_ms(static_cast<std::uint64_t>(clock_.WallMs()) + kXCapLifetimeMs);
    xcap->set_truncate_epoch(file.truncate_epoch);
    std::vector<std::vector<std::string>> chain = file.chain;
    if (chain.empty()) chain.emplace_back(osd_uuids_.begin(), osd_uuids_.begin() + stripe_width_);
    for (const auto& osds : chain) {
      auto* replica = credentials.mutable_xlocs()->add_replicas();
      replica->mutable_striping_policy()->set_type(xtreemfs::common::RAID0);
      replica->mutable_striping_policy()->set_object_size_bytes(object_size_bytes_);
      replica->mutable_striping_policy()->set_width(stripe_width_);
      for (const auto& osd : osds) replica->add_osd_uuids(osd);
    }
    if (!file.chain.empty()) credentials.mutable_xlocs()->set_version(file.xloc_version);
    return credentials;
  }

  File* FileById(const std::string& file_id) {
    for (auto& [path, file] : files_) {
      if (file.file_id == file_id) return &file;
    }
    return nullptr;
  }

  rpc::CallResponse Mrc(const rpc::CallRequest& request, const std::string& bytes) {
    using namespace xtreemfs::mrc;
    switch (request.procedure_id) {
      case MRC_OPEN: {
        const auto open = Parse<OpenRequest>(bytes);
        auto found = files_.find(open.path());
        if (found == files_.end()) {
          if ((open.flags() & O_CREAT) == 0) throw rpc::RpcError::Errno(ENOENT, open.path());
          File file;
          file.file_id = "vol-1:" + std::to_string(next_inode_++);
          if (replicas_ > 1) {
            for (std::uint32_t r = 0; r < replicas_; ++r) {
              file.chain.emplace_back(osd_uuids_.begin() + r * stripe_width_,
                                      osd_uuids_.begin() + (r + 1) * stripe_width_);
            }
          }
          found = files_.emplace(open.path(), file).first;
        } else if ((open.flags() & O_TRUNC) != 0) {
          found->second.size_bytes = 0;
          ++found->second.truncate_epoch;
        }
        OpenResponse response;
        const bool writable = (open.flags() & O_ACCMODE) != O_RDONLY;
        *response.mutable_credentials() = CredentialsOf(
            found->second, writable ? xtreemfs::common::ACCESS_MODE_READ_WRITE
                                    : xtreemfs::common::ACCESS_MODE_READ);
        response.mutable_stat()->set_size_bytes(found->second.size_bytes);
        return Answer(response);
      }
      case MRC_GETATTR: {
        const auto path = Parse<PathRequest>(bytes);
        auto found = files_.find(path.path());
        if (found == files_.end()) throw rpc::RpcError::Errno(ENOENT, path.path());
        GetattrResponse response;
        response.mutable_stat()->set_size_bytes(found->second.size_bytes);
        response.mutable_stat()->set_mode(0100644);
        const std::string& file_id = found->second.file_id;
        response.mutable_stat()->set_inode(std::stoull(file_id.substr(file_id.find(':') + 1)));
        return Answer(response);
      }
      case MRC_RENEW_CAPABILITY: {
        const auto renew = Parse<XCapRequest>(bytes);
        File* file = FileById(renew.xcap().file_id());
        if (file == nullptr) throw rpc::RpcError::Errno(ENOENT, renew.xcap().file_id());
        // Like the real MRC: an expired capability is not renewed.
        if (static_cast<std::int64_t>(renew.xcap().expires_ms()) <= clock_.WallMs()) {
          throw rpc::RpcError::Of(rpc::ErrorKind::kAuthFailed, "capability expired");
        }
        XCapResponse response;
        *response.mutable_xcap() = renew.xcap();
        response.mutable_xcap()->set_expires_ms(static_cast<std::uint64_t>(clock_.WallMs()) +
                                                kXCapLifetimeMs);
        response.mutable_xcap()->set_truncate_epoch(file->truncate_epoch);
        return Answer(response);
      }
      case MRC_FTRUNCATE: {
        const auto truncate = Parse<XCapRequest>(bytes);
        File* file = FileById(truncate.xcap().file_id());
        if (file == nullptr) throw rpc::RpcError::Errno(ENOENT, truncate.xcap().file_id());
        ++file->truncate_epoch;
        file->truncate_pending = true;
        XCapResponse response;
        *response.mutable_xcap() = truncate.xcap();
        response.mutable_xcap()->set_truncate_epoch(file->truncate_epoch);
        return Answer(response);
      }
      case MRC_UPDATE_FILE_SIZE: {
        const auto update = Parse<UpdateFileSizeRequest>(bytes);
        size_updates.push_back(update);
        File* file = FileById(update.xcap().file_id());
        if (file == nullptr) throw rpc::RpcError::Errno(ENOENT, update.xcap().file_id());
        const auto& size = update.new_file_size();
        if (size.truncate_epoch() == file->truncate_epoch) {
          if (file->truncate_pending) {
            file->size_bytes = size.size_bytes();
            file->truncate_pending = false;
          } else {
            file->size_bytes = std::max(file->size_bytes, size.size_bytes());
          }
        }
        return Answer(xtreemfs::rpc::Empty());
      }
      case MRC_UNLINK: {
        const auto path = Parse<PathRequest>(bytes);
        auto found = files_.find(path.path());
        if (found == files_.end()) throw rpc::RpcError::Errno(ENOENT, path.path());
        // The real MRC records the deletion and has the OSDs delete the objects itself.
        files_.erase(found);
        return Answer(UnlinkResponse());
      }
      case MRC_REPLICA_FAILED: {
        const auto report = Parse<ReplicaFailedRequest>(bytes);
        ++replica_reports;
        File* file = FileById(report.xcap().file_id());
        if (file == nullptr) throw rpc::RpcError::Errno(ENOENT, report.xcap().file_id());
        const std::string& failed = report.failed_osd_uuid();
        if (!failed.empty() && report.xloc_version() == file->xloc_version &&
            dead_osds.count(failed) != 0 && file->chain.size() > 1) {
          for (auto replica = file->chain.begin(); replica != file->chain.end(); ++replica) {
            if (std::find(replica->begin(), replica->end(), failed) != replica->end()) {
              file->chain.erase(replica);
              ++file->xloc_version;
              break;
            }
          }
        }
        return Answer(CredentialsOf(*file, xtreemfs::common::ACCESS_MODE_READ).xlocs());
      }
      case MRC_MKDIR: {
        const auto mkdir = Parse<MkdirRequest>(bytes);
        if (files_.count(mkdir.path()) != 0) throw rpc::RpcError::Errno(EEXIST, mkdir.path());
        File directory;
        directory.file_id = "vol-1:" + std::to_string(next_inode_++);
        files_[mkdir.path()] = directory;
        GetattrResponse response;
        response.mutable_stat()->set_mode(040000 | mkdir.mode());
        return Answer(response);
      }
    }
    throw rpc::RpcError::Of(rpc::ErrorKind::kInvalidArgs, "fake MRC: unsupported procedure " +
                                                              std::to_string(request.procedure_id));
  }

  void CheckXCap(const xtreemfs::common::XCap& xcap, const std::string& file_id, bool write) {
    if (auth_failures_to_inject > 0) {
      --auth_failures_to_inject;
      throw rpc::RpcError::Of(rpc::ErrorKind::kAuthFailed, "injected: capability rejected");
    }
    if (static_cast<std::int64_t>(xcap.expires_ms()) <= clock_.WallMs()) {
      throw rpc::RpcError::Of(rpc::ErrorKind::kAuthFailed, "capability expired");
    }
    if (xcap.file_id() != file_id) {
      throw rpc::RpcError::Of(rpc::ErrorKind::kAuthFailed, "capability for another file");
    }
    if (write && xcap.access_mode() == xtreemfs::common::ACCESS_MODE_READ) {
      throw rpc::RpcError::Of(rpc::ErrorKind::kAuthFailed, "read-only capability");
    }
  }

  void CheckPlacement(const std::string& osd_uuid, const xtreemfs::common::FileCredentials& credentials,
                      std::uint64_t object_number) {
    const auto position = object_number % credentials.xlocs().replicas(0).striping_policy().width();
    for (const auto& replica : credentials.xlocs().replicas()) {
      if (replica.osd_uuids(static_cast<int>(position)) == osd_uuid) return;
    }
    placement_violations.push_back("object " + std::to_string(object_number) + " sent to " + osd_uuid);
  }

  // XLOC_OUTDATED for a request of a replicated file whose XLoc is older than the file's.
  void CheckXLoc(const xtreemfs::common::FileCredentials& credentials, const std::string& file_id) {
    const File* file = FileById(file_id);
    if (file != nullptr && !file->chain.empty() && credentials.xlocs().version() < file->xloc_version) {
      throw rpc::RpcError::Of(rpc::ErrorKind::kXLocOutdated,
                              "fake OSD: XLoc version " + std::to_string(credentials.xlocs().version()) +
                                  " is older than " + std::to_string(file->xloc_version));
    }
  }

  // The members after `osd_uuid` in the request's chain (what it forwards to), in order.
  static std::vector<std::string> SuccessorsOf(const std::string& osd_uuid,
                                               const xtreemfs::common::FileCredentials& credentials) {
    std::vector<std::string> successors;
    const auto& replicas = credentials.xlocs().replicas();
    for (int r = 0; r < replicas.size(); ++r) {
      for (int position = 0; position < replicas[r].osd_uuids_size(); ++position) {
        if (replicas[r].osd_uuids(position) != osd_uuid) continue;
        for (int next = r + 1; next < replicas.size(); ++next) {
          successors.push_back(replicas[next].osd_uuids(position));
        }
        return successors;
      }
    }
    return successors;
  }

  // Runs `apply` on this OSD and then on each successor, as the chain forwards an update; a dead
  // successor stops it with CHAIN_MEMBER_UNREACHABLE naming it (what the predecessor answers).
  template <typename Apply>
  void DownTheChain(const std::string& osd_uuid, const xtreemfs::common::FileCredentials& credentials,
                    Apply apply) {
    apply(osd_uuid);
    for (const std::string& successor : SuccessorsOf(osd_uuid, credentials)) {
      if (dead_osds.count(successor) != 0) {
        throw rpc::RpcError(rpc::ErrorKind::kChainMemberUnreachable, EIO,
                            "fake OSD: " + successor + " gives no answer", successor);
      }
      apply(successor);
    }
  }

  rpc::CallResponse Osd(const std::string& osd_uuid, const rpc::CallRequest& request,
                        const std::string& bytes) {
    using namespace xtreemfs::osd;
    if (dead_osds.count(osd_uuid) != 0) {
      throw rpc::RpcError::Of(rpc::ErrorKind::kTransport, "fake: " + osd_uuid + " is dead");
    }
    switch (request.procedure_id) {
      case OSD_WRITE: {
        const auto write = Parse<WriteRequest>(bytes);
        CheckXCap(write.credentials().xcap(), write.file_id(), true);
        CheckXLoc(write.credentials(), write.file_id());
        CheckPlacement(osd_uuid, write.credentials(), write.object_number());
        const std::size_t end = write.offset() + request.data.size();
        xtreemfs::common::OsdWriteResponse response;
        const std::uint64_t file_end = write.object_number() * object_size_bytes_ + end;
        std::uint64_t& largest = largest_end_[{osd_uuid, write.file_id()}];
        if (file_end > largest) {
          largest = file_end;
          response.mutable_new_file_size()->set_size_bytes(file_end);
          response.mutable_new_file_size()->set_truncate_epoch(write.credentials().xcap().truncate_epoch());
        }
        DownTheChain(osd_uuid, write.credentials(), [&](const std::string& member) {
          std::string& object = objects_[{member, write.file_id(), write.object_number()}];
          if (object.size() < end) object.resize(end, '\0');
          object.replace(write.offset(), request.data.size(), request.data);
        });
        return Answer(response);
      }
      case OSD_READ: {
        const auto read = Parse<ReadRequest>(bytes);
        CheckXCap(read.credentials().xcap(), read.file_id(), false);
        CheckXLoc(read.credentials(), read.file_id());
        CheckPlacement(osd_uuid, read.credentials(), read.object_number());
        auto found = objects_.find({osd_uuid, read.file_id(), read.object_number()});
        std::string data;
        if (found != objects_.end() && found->second.size() > read.offset()) {
          data = found->second.substr(read.offset(), read.length());
        }
        return Answer(ReadResponse(), data);
      }
      case OSD_TRUNCATE: {
        const auto truncate = Parse<TruncateRequest>(bytes);
        CheckXCap(truncate.credentials().xcap(), truncate.file_id(), true);
        ++truncates_by_osd[osd_uuid];
        for (auto entry = objects_.begin(); entry != objects_.end();) {
          const auto& [osd, file_id, object_number] = entry->first;
          const std::uint64_t object_start = object_number * object_size_bytes_;
          if (osd == osd_uuid && file_id == truncate.file_id()) {
            if (object_start >= truncate.new_file_size_bytes()) {
              entry = objects_.erase(entry);
              continue;
            }
            const std::uint64_t keep = truncate.new_file_size_bytes() - object_start;
            if (entry->second.size() > keep) entry->second.resize(keep);
          }
          ++entry;
        }
        largest_end_[{osd_uuid, truncate.file_id()}] = truncate.new_file_size_bytes();
        return Answer(xtreemfs::common::OsdWriteResponse());
      }
      case OSD_UNLINK: {
        const auto unlink = Parse<FileRequest>(bytes);
        CheckXCap(unlink.credentials().xcap(), unlink.file_id(), true);
        ++unlinks_by_osd[osd_uuid];
        return Answer(xtreemfs::rpc::Empty());
      }
      case OSD_FSYNC: {
        const auto fsync = Parse<FileRequest>(bytes);
        CheckXCap(fsync.credentials().xcap(), fsync.file_id(), false);
        CheckXLoc(fsync.credentials(), fsync.file_id());
        DownTheChain(osd_uuid, fsync.credentials(), [](const std::string&) {});
        ++fsyncs;
        return Answer(xtreemfs::rpc::Empty());
      }
      case OSD_PING:
        return Answer(xtreemfs::rpc::Empty());
      case OSD_LOCK_ACQUIRE:
      case OSD_LOCK_CHECK:
      case OSD_LOCK_RELEASE:
        return LockCall(osd_uuid, request.procedure_id, Parse<LockRequest>(bytes));
      case OSD_LOCK_RENEW: {
        ++lock_calls_by_osd[osd_uuid];
        const auto renew = Parse<LockRenewRequest>(bytes);
        LockRenewResponse response;
        response.set_lease_ms(kLockLeaseMs);
        for (const auto& [file_id, lock] : granted_locks) {
          if (lock.client_uuid() == renew.client_uuid()) {
            response.set_locks_held(response.locks_held() + 1);
          }
        }
        return Answer(response);
      }
    }
    throw rpc::RpcError::Of(rpc::ErrorKind::kInvalidArgs, "fake OSD: unsupported procedure");
  }

  static constexpr std::uint32_t kLockLeaseMs = 3000;

  static bool LocksOverlap(const xtreemfs::osd::Lock& a, const xtreemfs::osd::Lock& b) {
    if (a.kind() == xtreemfs::osd::LOCK_KIND_FLOCK) return true;
    const auto end = [](const xtreemfs::osd::Lock& lock) {
      return lock.length_bytes() == 0 ? UINT64_MAX : lock.offset_bytes() + lock.length_bytes();
    };
    return a.offset_bytes() < end(b) && b.offset_bytes() < end(a);
  }

  rpc::CallResponse LockCall(const std::string& osd_uuid, std::uint32_t procedure_id,
                             const xtreemfs::osd::LockRequest& call) {
    CheckXCap(call.credentials().xcap(), call.file_id(), false);
    ++lock_calls_by_osd[osd_uuid];
    const auto& wanted = call.lock();
    const auto same_owner = [&](const xtreemfs::osd::Lock& lock) {
      return lock.client_uuid() == wanted.client_uuid() && lock.owner() == wanted.owner();
    };
    xtreemfs::osd::LockResponse response;
    response.set_lease_ms(kLockLeaseMs);
    if (procedure_id == xtreemfs::osd::OSD_LOCK_RELEASE) {
      for (auto it = granted_locks.begin(); it != granted_locks.end();) {
        const bool drop = it->first == call.file_id() && same_owner(it->second) &&
                          it->second.kind() == wanted.kind() && LocksOverlap(it->second, wanted);
        it = drop ? granted_locks.erase(it) : it + 1;
      }
      return Answer(response);
    }
    for (const auto& [file_id, lock] : granted_locks) {
      if (file_id == call.file_id() && !same_owner(lock) && lock.kind() == wanted.kind() &&
          (lock.exclusive() || wanted.exclusive()) && LocksOverlap(lock, wanted)) {
        if (procedure_id == xtreemfs::osd::OSD_LOCK_ACQUIRE) {
          throw rpc::RpcError::Errno(EAGAIN, "fake OSD: lock held by pid " + std::to_string(lock.pid()));
        }
        *response.mutable_conflicting() = lock;
        return Answer(response);
      }
    }
    if (procedure_id == xtreemfs::osd::OSD_LOCK_ACQUIRE) granted_locks.emplace_back(call.file_id(), wanted);
    return Answer(response);
  }

  std::mutex mutex_;
  FakeClock& clock_;
  const std::uint32_t stripe_width_;
  const std::uint32_t object_size_bytes_;
  std::vector<std::string> osd_uuids_;
  std::map<std::string, File> files_;
  std::map<std::string, std::uint16_t> moved_ports_;  // by service UUID, see MoveServiceForTest
  std::uint64_t next_inode_ = 2;
  std::uint32_t replicas_ = 1;
  std::map<std::tuple<std::string, std::string, std::uint64_t>, std::string> objects_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> largest_end_;
};

// A DIR that is down (killed, restarting) while `down` is set: every DIR call is refused, as a
// connection to a dead port is; the other servers' calls pass to `inner`. Counts the DIR calls tried.
class DirOutageTransport : public rpc::Transport {
 public:
  explicit DirOutageTransport(rpc::Transport& inner) : inner_(inner) {}

  rpc::CallResponse Call(const rpc::ServiceAddress& address, const rpc::CallRequest& request,
                         const rpc::CallOptions& options) override {
    if (request.interface_id == xtreemfs::dir::DIR_INTERFACE_ID) {
      ++dir_calls;
      if (down) {
        throw rpc::RpcError::Of(rpc::ErrorKind::kTransport,
                                "cannot connect to " + address.ToString() + ": Connection refused");
      }
    }
    return inner_.Call(address, request, options);
  }

  std::atomic<bool> down{false};
  std::atomic<int> dir_calls{0};

 private:
  rpc::Transport& inner_;
};

}  // namespace xtreemfs::client::testing
