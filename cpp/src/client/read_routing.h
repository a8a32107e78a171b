// Read routing of replicated files: a port of the Java package org.xtreemfs.qos.routing (servers/qos), the
// one definition of the rules. StreamClassifier, PatternAwareRouter, RoundRobinBindingRouter and ReadStealing
// (mayStealReadOf, thiefIdle, victimFor, thiefFor, readReplica) are mirrored function by function;
// tests/vectors/read-routing.json, which the Java code generates, holds their decisions and
// cpp/test/read_routing_test.cc replays it, so both clients send the same reads to the same replicas.
// Change the rules in Java first, regenerate the vectors, then here.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common.pb.h"

namespace xtreemfs::client {

enum class AccessPattern { kSequential, kRandom };

// StreamClassifier.WINDOW_BYTES_DEFAULT, CONFIRM_REQUESTS_DEFAULT, ReadStealing.QUEUED_READS_MIN_DEFAULT
// (the vectors' "defaults" check that they agree).
constexpr std::int64_t kClassifierWindowBytesDefault = 64 * 1024;
constexpr int kClassifierConfirmRequestsDefault = 2;
constexpr int kStealQueuedReadsMinDefault = 2;
// client.routing.ReplicaLoads.REPORT_MAX_AGE_MS: an older load report counts as idle.
constexpr std::int64_t kLoadReportMaxAgeMs = 200;

// Immutable, as the Java record: Observe returns the next classifier. A new stream is random.
struct StreamClassifier {
  std::int64_t window_bytes = kClassifierWindowBytesDefault;
  int confirm_requests = kClassifierConfirmRequestsDefault;
  std::int64_t next_offset_bytes = -1;
  int follow_run = 0;
  int jump_run = 0;
  AccessPattern pattern = AccessPattern::kRandom;

  static StreamClassifier Start(std::int64_t window_bytes, int confirm_requests);
  StreamClassifier Observe(std::int64_t offset_bytes, std::int64_t length_bytes) const;
};

// PatternAwareRouter: random reads to the head (0), sequential ones to replica 1 (or the only one).
int PatternAwareReplica(AccessPattern pattern, int replica_count);
// RoundRobinBindingRouter: stream_ordinal mod replica_count.
int RoundRobinReplica(int stream_ordinal, int replica_count);
// ReadStealing.mayStealReadOf: only a read of a stream confirmed random (confirm_requests jumps in a row).
bool MayStealReadOf(const StreamClassifier& stream);
// ReadStealing.thiefIdle: nothing queued and no write-back to flush.
bool ThiefIdle(int own_queued_requests, std::int64_t own_dirty_bytes);
// ReadStealing.victimFor: the replica an idle one takes a queued read from, if any.
std::optional<int> StealVictim(int queued_reads_min, int idle_replica, const std::vector<int>& queued);
// ReadStealing.thiefFor: the idle replica (ThiefIdle with its reported queue and write-back) nearest the
// tail whose victim is `routed_replica`, if any.
std::optional<int> StealThief(int queued_reads_min, int routed_replica, const std::vector<int>& queued,
                              const std::vector<std::int64_t>& dirty_bytes);

struct RouteDecision {
  int routed_replica;  // the router's choice
  int replica;         // after stealing (pattern routing only)
};
// The policy's decision for one read of `stream` (as classified with this read): PATTERN (and
// UNSPECIFIED) routes by its pattern, with stealing (ReadStealing.readReplica: only a read MayStealReadOf
// allows, only by a ThiefIdle replica); PATTERN_NO_STEALING by pattern without; ROUND_ROBIN binds by
// stream ordinal without (as foundation.replication.ReplicationRules.routesByPattern and steals).
// `queued` and `dirty_bytes` are the replicas' reports, head first.
RouteDecision RouteRead(xtreemfs::common::ReadRouting routing, int stream_ordinal, const StreamClassifier& stream,
                        const std::vector<int>& queued, const std::vector<std::int64_t>& dirty_bytes,
                        int steal_queued_reads_min);

// The load each OSD reported with its last read answer (ReadResponse.queued_requests and
// write_back_dirty_bytes); a report older than kLoadReportMaxAgeMs counts as idle (0, 0), so a replica
// nobody reads is probed by a stolen read. Bounded to kOsdsMax OSDs (the oldest report is forgotten).
// Thread-safe.
class ReplicaLoads {
 public:
  static constexpr std::size_t kOsdsMax = 4096;
  struct Load {
    int queued_requests = 0;
    std::int64_t write_back_dirty_bytes = 0;
  };
  explicit ReplicaLoads(std::function<std::int64_t()> monotonic_ms) : monotonic_ms_(std::move(monotonic_ms)) {}
  // Negative figures (a malformed report) count as 0.
  void Reported(const std::string& osd_uuid, int queued_requests, std::int64_t write_back_dirty_bytes);
  Load LoadOf(const std::string& osd_uuid) const;

 private:
  struct Report {
    Load load;
    std::int64_t at_ms;
  };
  std::function<std::int64_t()> monotonic_ms_;
  mutable std::mutex mutex_;
  std::map<std::string, Report> reports_;  // guarded by mutex_
};

}  // namespace xtreemfs::client
