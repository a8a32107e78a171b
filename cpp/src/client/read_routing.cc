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

bool MayStealReadOf(const StreamClassifier& stream) {
  return stream.pattern == AccessPattern::kRandom && stream.jump_run >= stream.confirm_requests;
}

bool ThiefIdle(int own_queued_requests, std::int64_t own_dirty_bytes) {
  if (own_queued_requests < 0 || own_dirty_bytes < 0) {
    throw std::invalid_argument("own queued requests and own dirty bytes must be >= 0, were " +
                                std::to_string(own_queued_requests) + " and " + std::to_string(own_dirty_bytes));
  }
  return own_queued_requests == 0 && own_dirty_bytes == 0;
}

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

std::optional<int> StealThief(int queued_reads_min, int routed_replica, const std::vector<int>& queued,
                              const std::vector<std::int64_t>& dirty_bytes) {
  if (routed_replica < 0 || routed_replica >= static_cast<int>(queued.size())) {
    throw std::invalid_argument("routed replica " + std::to_string(routed_replica) + " is not in the group");
  }
  if (dirty_bytes.size() != queued.size()) {
    throw std::invalid_argument(std::to_string(dirty_bytes.size()) + " write-back reports for " +
                                std::to_string(queued.size()) + " replicas");
  }
  for (int replica = static_cast<int>(queued.size()) - 1; replica >= 0; --replica) {
    if (replica != routed_replica && ThiefIdle(queued[replica], dirty_bytes[replica])) {
      const std::optional<int> victim = StealVictim(queued_reads_min, replica, queued);
      if (victim && *victim == routed_replica) {
        return replica;
      }
    }
  }
  return std::nullopt;
}

RouteDecision RouteRead(xtreemfs::common::ReadRouting routing, int stream_ordinal, const StreamClassifier& stream,
                        const std::vector<int>& queued, const std::vector<std::int64_t>& dirty_bytes,
                        int steal_queued_reads_min) {
  const int replica_count = static_cast<int>(queued.size());
  if (replica_count == 0) {
    throw std::invalid_argument("a group needs at least one replica");
  }
  if (routing == xtreemfs::common::READ_ROUTING_ROUND_ROBIN) {
    const int replica = RoundRobinReplica(stream_ordinal, replica_count);
    return RouteDecision{replica, replica};
  }
  const int routed = PatternAwareReplica(stream.pattern, replica_count);
  if (routing == xtreemfs::common::READ_ROUTING_PATTERN_NO_STEALING  // ReplicationRules.steals
      || !MayStealReadOf(stream)) {
    return RouteDecision{routed, routed};
  }
  return RouteDecision{routed, StealThief(steal_queued_reads_min, routed, queued, dirty_bytes).value_or(routed)};
}

void ReplicaLoads::Reported(const std::string& osd_uuid, int queued_requests,
                            std::int64_t write_back_dirty_bytes) {
  const std::int64_t now_ms = monotonic_ms_();
  std::lock_guard<std::mutex> lock(mutex_);
  reports_[osd_uuid] =
      Report{Load{std::max(0, queued_requests), std::max<std::int64_t>(0, write_back_dirty_bytes)}, now_ms};
  if (reports_.size() > kOsdsMax) {
    auto oldest = std::min_element(reports_.begin(), reports_.end(), [](const auto& a, const auto& b) {
      return a.second.at_ms < b.second.at_ms;
    });
    reports_.erase(oldest);
  }
}

ReplicaLoads::Load ReplicaLoads::LoadOf(const std::string& osd_uuid) const {
  const std::int64_t now_ms = monotonic_ms_();
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = reports_.find(osd_uuid);
  if (found == reports_.end() || now_ms - found->second.at_ms > kLoadReportMaxAgeMs) {
    return Load{};
  }
  return found->second.load;
}

}  // namespace xtreemfs::client
