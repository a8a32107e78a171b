// The C++ port of qos.routing against the decisions the Java code made (tests/vectors/read-routing.json):
// same reads and loads in, same pattern and replicas out.
#include "client/read_routing.h"

#include <gtest/gtest.h>
#include <google/protobuf/util/json_util.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

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
  int kept_for_write_back = 0;
  int kept_unconfirmed = 0;
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
      EXPECT_EQ(MayStealReadOf(classifier), read.stealable());
      const std::vector<int> queued(read.queued().begin(), read.queued().end());
      ASSERT_EQ(read.dirty_bytes_size(), routing_case.replicas());
      const std::vector<std::int64_t> dirty_bytes(read.dirty_bytes().begin(), read.dirty_bytes().end());
      const RouteDecision decision = RouteRead(routing, routing_case.stream_ordinal(), classifier, queued,
                                               dirty_bytes, routing_case.steal_queued_reads_min());
      EXPECT_EQ(decision.routed_replica, read.routed_replica());
      EXPECT_EQ(decision.replica, read.replica());
      ++reads;
      stolen += read.replica() != read.routed_replica() ? 1 : 0;
      // A read the router's replica kept although it is loaded enough to be stolen from: because no
      // other replica was idle but one only for its write-back, or because the stream was not confirmed.
      const int routed = read.routed_replica();
      if (routing == xtreemfs::common::READ_ROUTING_PATTERN && read.replica() == routed &&
          read.queued(routed) >= routing_case.steal_queued_reads_min()) {
        bool idle_thief = false;
        bool flushing_thief = false;
        for (int replica = 0; replica < routing_case.replicas(); ++replica) {
          if (replica != routed && read.queued(replica) == 0) {
            (dirty_bytes[replica] == 0 ? idle_thief : flushing_thief) = true;
          }
        }
        kept_for_write_back += read.stealable() && flushing_thief && !idle_thief ? 1 : 0;
        kept_unconfirmed += !read.stealable() && read.pattern() == "RANDOM" && idle_thief ? 1 : 0;
      }
    }
  }
  EXPECT_GE(reads, 500);
  EXPECT_GT(stolen, 0);  // the stealing rule is exercised, not only the routers
  // ... and both of its conditions: reads kept because the idle replica flushes write-back, and reads of a
  // random stream not yet confirmed kept at a loaded head.
  EXPECT_GT(kept_for_write_back, 0);
  EXPECT_GT(kept_unconfirmed, 0);
}

TEST(ReadRoutingTest, UnspecifiedRoutingIsPattern) {
  const std::vector<std::int64_t> clean = {0, 0, 0};
  const StreamClassifier sequential = StreamClassifier::Start(kClassifierWindowBytesDefault, 2)
                                          .Observe(0, 4096)
                                          .Observe(4096, 4096)
                                          .Observe(8192, 4096);
  EXPECT_EQ(RouteRead(xtreemfs::common::READ_ROUTING_UNSPECIFIED, 3, sequential, {0, 0, 0}, clean, 2).replica, 1);
  // The idle replica nearest the tail steals a confirmed random stream's read from the loaded head.
  const StreamClassifier random =
      StreamClassifier::Start(kClassifierWindowBytesDefault, 2).Observe(0, 4096).Observe(10 << 20, 4096);
  EXPECT_EQ(RouteRead(xtreemfs::common::READ_ROUTING_UNSPECIFIED, 3, random, {5, 0, 0}, clean, 2).replica, 2);
}

TEST(ReadRoutingTest, ThiefIdleNamesBadFigures) {
  EXPECT_TRUE(ThiefIdle(0, 0));
  EXPECT_FALSE(ThiefIdle(0, 1));
  EXPECT_FALSE(ThiefIdle(1, 0));
  EXPECT_THROW(ThiefIdle(-1, 0), std::invalid_argument);
  EXPECT_THROW(StealThief(2, 0, {5, 0, 0}, {0}), std::invalid_argument);
}

TEST(ReadRoutingTest, PatternWithoutStealingNeverSteals) {
  // The same loads as above: with stealing the tail would take the confirmed random stream's read.
  const std::vector<std::int64_t> clean = {0, 0, 0};
  const StreamClassifier random =
      StreamClassifier::Start(kClassifierWindowBytesDefault, 2).Observe(0, 4096).Observe(10 << 20, 4096);
  const RouteDecision decision =
      RouteRead(xtreemfs::common::READ_ROUTING_PATTERN_NO_STEALING, 3, random, {5, 0, 0}, clean, 2);
  EXPECT_EQ(decision.routed_replica, 0);
  EXPECT_EQ(decision.replica, 0);
  EXPECT_EQ(RouteRead(xtreemfs::common::READ_ROUTING_UNSPECIFIED, 3, random, {5, 0, 0}, clean, 2).replica, 2);
  const StreamClassifier sequential = StreamClassifier::Start(kClassifierWindowBytesDefault, 2)
                                          .Observe(0, 131072)
                                          .Observe(131072, 131072)
                                          .Observe(262144, 131072);
  EXPECT_EQ(RouteRead(xtreemfs::common::READ_ROUTING_PATTERN_NO_STEALING, 3, sequential, {0, 4, 0}, clean, 2).replica,
            1);
}

TEST(ReadRoutingTest, ALoadReportAgesIntoIdle) {
  std::int64_t now_ms = 1000;
  ReplicaLoads loads([&] { return now_ms; });
  EXPECT_EQ(loads.LoadOf("osd-a").queued_requests, 0);
  loads.Reported("osd-a", 7, 8192);
  loads.Reported("osd-b", -3, -1);
  EXPECT_EQ(loads.LoadOf("osd-a").queued_requests, 7);
  EXPECT_EQ(loads.LoadOf("osd-a").write_back_dirty_bytes, 8192);
  EXPECT_EQ(loads.LoadOf("osd-b").queued_requests, 0);
  EXPECT_EQ(loads.LoadOf("osd-b").write_back_dirty_bytes, 0);
  now_ms += kLoadReportMaxAgeMs;
  EXPECT_EQ(loads.LoadOf("osd-a").queued_requests, 7);
  now_ms += 1;
  EXPECT_EQ(loads.LoadOf("osd-a").queued_requests, 0);
  EXPECT_EQ(loads.LoadOf("osd-a").write_back_dirty_bytes, 0);
}

}  // namespace
}  // namespace xtreemfs::client
