#include "client/read_routing.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace xtreemfs::client {

StreamClassifier StreamClassifier::Start(std::int64_t window_bytes, int confirm_requests) {
  if (window_bytes < 0 || confirm_requests < 1) {
    throw std::invalid_argument("need window_bytes >= 0 and confirm_requests >= 1");
  }
  StreamClassifier classifier;
  classifier.window_bytes = window_bytes;
  classifier.confirm_requests = confirm_requests;
  return classifier;
}

StreamClassifier StreamClassifier::Observe(std::int64_t offset_bytes, std::int64_t length_bytes) const {
  if (offset_bytes < 0 || length_bytes <= 0) {
    throw std::invalid_argument("need offset_bytes >= 0 and length_bytes > 0");
  }
  const bool follows =
      next_offset_bytes >= 0 && std::llabs(offset_bytes - next_offset_bytes) <= window_bytes;
  StreamClassifier next = *this;
  next.follow_run = follows ? std::min(follow_run + 1, confirm_requests) : 0;
  next.jump_run = follows ? 0 : std::min(jump_run + 1, confirm_requests);
  if (next.follow_run >= confirm_requests) {
    next.pattern = AccessPattern::kSequential;
  } else if (next.jump_run >= confirm_requests) {
    next.pattern = AccessPattern::kRandom;
  }
  next.next_offset_bytes = offset_bytes + length_bytes;
  return next;
}

int PatternAwareReplica(AccessPattern pattern, int replica_count) {
  return pattern == AccessPattern::kRandom ? 0 : std::min(1, replica_count - 1);
}

int RoundRobinReplica(int stream_ordinal, int replica_count) { return stream_ordinal % replica_count; }

std::optional<int> StealVictim(int queued_reads_min, int idle_replica, const std::vector<int>& queued) {
  if (idle_replica < 0 || idle_replica >= static_cast<int>(queued.size())) {
    throw std::invalid_argument("idle replica " + std::to_string(idle_replica) + " is not in the group");
  }
  int victim = -1;
  int victim_queued = queued_reads_min - 1;
  for (int replica = 0; replica < static_cast<int>(queued.size()); ++replica) {
    if (replica != idle_replica && queued[replica] > victim_queued) {
      victim = replica;
      victim_queued = queued[replica];
    }
  }
  return victim < 0 ? std::nullopt : std::optional<int>(victim);
}

std::optional<int> StealThief(int queued_reads_min, int routed_replica, const std::vector<int>& queued) {
  if (routed_replica < 0 || routed_replica >= static_cast<int>(queued.size())) {
    throw std::invalid_argument("routed replica " + std::to_string(routed_replica) + " is not in the group");
  }
  for (int replica = static_cast<int>(queued.size()) - 1; replica >= 0; --replica) {
    if (replica != routed_replica && queued[replica] == 0) {
      const std::optional<int> victim = StealVictim(queued_reads_min, replica, queued);
      if (victim && *victim == routed_replica) {
        return replica;
      }
    }
  }
  return std::nullopt;
}

RouteDecision RouteRead(xtreemfs::common::ReadRouting routing, int stream_ordinal, AccessPattern pattern,
                        const std::vector<int>& queued, int steal_queued_reads_min) {
  const int replica_count = static_cast<int>(queued.size());
  if (replica_count == 0) {
    throw std::invalid_argument("a group needs at least one replica");
  }
  if (routing == xtreemfs::common::READ_ROUTING_ROUND_ROBIN) {
    const int replica = RoundRobinReplica(stream_ordinal, replica_count);
    return RouteDecision{replica, replica};
  }
  const int routed = PatternAwareReplica(pattern, replica_count);
  if (routing == xtreemfs::common::READ_ROUTING_PATTERN_NO_STEALING) {  // ReplicationRules.steals
    return RouteDecision{routed, routed};
  }
  return RouteDecision{routed, StealThief(steal_queued_reads_min, routed, queued).value_or(routed)};
}

void ReplicaLoads::Reported(const std::string& osd_uuid, int queued_requests) {
  const std::int64_t now_ms = monotonic_ms_();
  std::lock_guard<std::mutex> lock(mutex_);
  reports_[osd_uuid] = Report{std::max(0, queued_requests), now_ms};
  if (reports_.size() > kOsdsMax) {
    auto oldest = std::min_element(reports_.begin(), reports_.end(), [](const auto& a, const auto& b) {
      return a.second.at_ms < b.second.at_ms;
    });
    reports_.erase(oldest);
  }
}

int ReplicaLoads::QueuedRequests(const std::string& osd_uuid) const {
  const std::int64_t now_ms = monotonic_ms_();
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = reports_.find(osd_uuid);
  if (found == reports_.end() || now_ms - found->second.at_ms > kLoadReportMaxAgeMs) {
    return 0;
  }
  return found->second.queued_requests;
}

}  // namespace xtreemfs::client
