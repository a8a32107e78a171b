// The C++ port of qos.routing against the decisions the Java code made (tests/vectors/read-routing.json):
// same reads and loads in, same pattern and replicas out.
#include "client/read_routing.h"

#include <gtest/gtest.h>
#include <google/protobuf/util/json_util.h>

#include <fstream>
#include <sstream>

#include "read_routing_vectors.pb.h"

namespace xtreemfs::client {
namespace {

xtreemfs::test::ReadRoutingVectors LoadVectors() {
  const std::string path = std::string(XTREEMFS_VECTORS_DIR) + "/read-routing.json";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream text;
  text << in.rdbuf();
  xtreemfs::test::ReadRoutingVectors vectors;
  const auto status = google::protobuf::util::JsonStringToMessage(text.str(), &vectors);
  EXPECT_TRUE(status.ok()) << path << ": " << status.ToString();
  return vectors;
}

TEST(ReadRoutingTest, DefaultsAreTheJavaClients) {
  const auto vectors = LoadVectors();
  EXPECT_EQ(vectors.defaults().window_bytes(), kClassifierWindowBytesDefault);
  EXPECT_EQ(vectors.defaults().confirm_requests(), kClassifierConfirmRequestsDefault);
  EXPECT_EQ(vectors.defaults().steal_queued_reads_min(), kStealQueuedReadsMinDefault);
}

TEST(ReadRoutingTest, EveryVectorRoutesAsInJava) {
  const auto vectors = LoadVectors();
  ASSERT_GE(vectors.cases_size(), 20);
  int reads = 0;
  int stolen = 0;
  for (const auto& routing_case : vectors.cases()) {
    SCOPED_TRACE(routing_case.name());
    ASSERT_TRUE(routing_case.routing() == "pattern" || routing_case.routing() == "round-robin" ||
                routing_case.routing() == "pattern-no-stealing");
    const auto routing = routing_case.routing() == "pattern"       ? xtreemfs::common::READ_ROUTING_PATTERN
                         : routing_case.routing() == "round-robin" ? xtreemfs::common::READ_ROUTING_ROUND_ROBIN
                                                                   : xtreemfs::common::READ_ROUTING_PATTERN_NO_STEALING;
    StreamClassifier classifier =
        StreamClassifier::Start(routing_case.window_bytes(), routing_case.confirm_requests());
    int index = 0;
    for (const auto& read : routing_case.reads()) {
      SCOPED_TRACE("read " + std::to_string(index++));
      ASSERT_EQ(read.queued_size(), routing_case.replicas());
      classifier = classifier.Observe(read.offset_bytes(), read.length_bytes());
      EXPECT_EQ(classifier.pattern == AccessPattern::kSequential ? "SEQUENTIAL" : "RANDOM", read.pattern());
      const std::vector<int> queued(read.queued().begin(), read.queued().end());
      const RouteDecision decision = RouteRead(routing, routing_case.stream_ordinal(), classifier.pattern,
                                               queued, routing_case.steal_queued_reads_min());
      EXPECT_EQ(decision.routed_replica, read.routed_replica());
      EXPECT_EQ(decision.replica, read.replica());
      ++reads;
      stolen += read.replica() != read.routed_replica() ? 1 : 0;
    }
  }
  EXPECT_GE(reads, 500);
  EXPECT_GT(stolen, 0);  // the stealing rule is exercised, not only the routers
}

TEST(ReadRoutingTest, UnspecifiedRoutingIsPattern) {
  EXPECT_EQ(RouteRead(xtreemfs::common::READ_ROUTING_UNSPECIFIED, 3, AccessPattern::kSequential, {0, 0, 0}, 2)
                .replica,
            1);
  // The idle replica nearest the tail steals from the loaded head.
  EXPECT_EQ(RouteRead(xtreemfs::common::READ_ROUTING_UNSPECIFIED, 3, AccessPattern::kRandom, {5, 0, 0}, 2).replica,
            2);
}

TEST(ReadRoutingTest, PatternWithoutStealingNeverSteals) {
  // The same loads as above: with stealing the tail would take the read.
  const RouteDecision decision =
      RouteRead(xtreemfs::common::READ_ROUTING_PATTERN_NO_STEALING, 3, AccessPattern::kRandom, {5, 0, 0}, 2);
  EXPECT_EQ(decision.routed_replica, 0);
  EXPECT_EQ(decision.replica, 0);
  EXPECT_EQ(RouteRead(xtreemfs::common::READ_ROUTING_PATTERN_NO_STEALING, 3, AccessPattern::kSequential, {0, 4, 0}, 2)
                .replica,
            1);
}

TEST(ReadRoutingTest, ALoadReportAgesIntoIdle) {
  std::int64_t now_ms = 1000;
  ReplicaLoads loads([&] { return now_ms; });
  EXPECT_EQ(loads.QueuedRequests("osd-a"), 0);
  loads.Reported("osd-a", 7);
  loads.Reported("osd-b", -3);
  EXPECT_EQ(loads.QueuedRequests("osd-a"), 7);
  EXPECT_EQ(loads.QueuedRequests("osd-b"), 0);
  now_ms += kLoadReportMaxAgeMs;
  EXPECT_EQ(loads.QueuedRequests("osd-a"), 7);
  now_ms += 1;
  EXPECT_EQ(loads.QueuedRequests("osd-a"), 0);
}

}  // namespace
}  // namespace xtreemfs::client
