#include "rpc/rpc_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "fake_rpc_server.h"
#include "rpc/retrying_transport.h"

namespace xtreemfs::rpc {
namespace {

using testing::FakeReply;
using testing::FakeRpcServer;

// A loopback port that refuses connections for as long as this object lives: bound, never listening. A port
// merely closed again (a server's that has stopped) could be bound by another process in the meantime (tests
// run in parallel, and every server binds port 0), and a call meant to be refused would reach that process.
class RefusingPort {
 public:
  RefusingPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in bound{};
    bound.sin_family = AF_INET;
    bound.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(bound);
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&bound), sizeof(bound)) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
      const int error = errno;
      if (fd_ >= 0) ::close(fd_);
      throw std::system_error(error, std::generic_category(), "cannot bind a loopback port to refuse on");
    }
    port_ = ntohs(bound.sin_port);
  }
  ~RefusingPort() { ::close(fd_); }
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;

  ServiceAddress address() const {
    ServiceAddress address;
    address.host = "127.0.0.1";
    address.port = port_;
    return address;
  }

 private:
  int fd_;
  std::uint16_t port_ = 0;
};

// Echoes the request's message and data back, and the procedure id as message when it is empty.
FakeReply Echo(const Record& request) {
  return FakeReply::Respond(request.message_bytes, request.data);
}

CallRequest RequestWith(const google::protobuf::MessageLite* message, std::string_view data) {
  CallRequest request;
  request.interface_id = 20001;
  request.procedure_id = 4;
  request.message = message;
  request.data = data;
  return request;
}

CallOptions TimeoutOf(std::uint32_t timeout_ms) {
  CallOptions options;
  options.timeout_ms = timeout_ms;
  return options;
}

int ErrnoOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const RpcError& error) {
    return error.posix_errno();
  }
  return 0;
}

TEST(RpcClientTest, CallSendsHeaderMessageAndDataAndReturnsTheAnswer) {
  // A call reaches the server with ids, credentials and timeout set, and the answer comes back intact.
  RequestHeader seen;
  FakeRpcServer server([&](const Record& request) {
    seen = request.header.request_header();
    return Echo(request);
  });
  RpcClient client;
  UserCredentials credentials;
  credentials.set_username("alice");
  credentials.set_uid(1000);
  ErrorResponse message;
  message.set_error_message("hello");
  const std::string data("data\0bytes", 10);
  CallRequest request = RequestWith(&message, data);
  request.credentials = &credentials;
  CallResponse response = client.Call(server.address(), request, TimeoutOf(5000));
  EXPECT_EQ(ParseResponse<ErrorResponse>(response).error_message(), "hello");
  EXPECT_EQ(response.data, data);
  EXPECT_EQ(seen.interface_id(), 20001u);
  EXPECT_EQ(seen.procedure_id(), 4u);
  EXPECT_EQ(seen.timeout_ms(), 5000u);
  EXPECT_EQ(seen.user_credentials().username(), "alice");
  EXPECT_EQ(seen.user_credentials().uid(), 1000u);
}

TEST(RpcClientTest, CredentialsSharedByConcurrentCallsReachTheServerWholeAndStayTheCallers) {
  // The caller's credentials are lent to each call's header while it is encoded, not copied (the
  // mount passes one UserCredentials per open file to every request of it): calls from several
  // threads at once, synchronous and asynchronous, all carry them whole, and the caller's object is
  // left as it was (the header lets go of it instead of destroying it).
  std::mutex seen_mutex;
  std::vector<UserCredentials> seen;
  FakeRpcServer server([&](const Record& request) {
    std::lock_guard<std::mutex> lock(seen_mutex);
    seen.push_back(request.header.request_header().user_credentials());
    return Echo(request);
  });
  RpcClient client;
  UserCredentials credentials;
  credentials.set_username("a-user-name-longer-than-the-short-string-buffer");
  credentials.set_uid(1000);
  credentials.set_gid(100);
  for (std::uint32_t gid : {4u, 24u, 27u, 30u}) credentials.add_supplementary_gids(gid);
  const UserCredentials original = credentials;
  constexpr int kThreads = 4;
  constexpr int kCallsPerThread = 50;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        CallRequest request = RequestWith(nullptr, "x");
        request.credentials = &credentials;
        if ((t + i) % 2 == 0) {
          client.Call(server.address(), request, TimeoutOf(10000));
          continue;
        }
        std::promise<std::exception_ptr> outcome;
        ServiceLookup lookup{[&] { return server.address(); }, nullptr};
        client.CallServiceAsync(lookup, request, TimeoutOf(10000),
                                [&](CallResponse, std::exception_ptr error) { outcome.set_value(error); });
        if (outcome.get_future().get()) failures.fetch_add(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(kThreads * kCallsPerThread));
  for (const UserCredentials& arrived : seen) {
    EXPECT_EQ(arrived.SerializeAsString(), original.SerializeAsString());
  }
  EXPECT_EQ(credentials.SerializeAsString(), original.SerializeAsString());
}

TEST(RpcClientTest, SuccessiveCallsOfOneThreadCarryOnlyTheirOwnHeaderFields) {
  // Each thread encodes its calls' headers in one reused header (no allocation per call): a call's
  // header carries exactly its own fields, nothing left from the thread's previous call (the
  // credentials it was lent, an exactly-once call's client id and number, its ids and timeout).
  std::mutex seen_mutex;
  std::vector<RpcHeader> seen;
  FakeRpcServer server([&](const Record& request) {
    std::lock_guard<std::mutex> lock(seen_mutex);
    seen.push_back(request.header);
    return Echo(request);
  });
  RpcClient client;
  UserCredentials credentials;
  credentials.set_username("a-user-name-longer-than-the-short-string-buffer");
  credentials.set_uid(1000);
  CallRequest numbered = RequestWith(nullptr, "x");
  numbered.credentials = &credentials;
  numbered.client_id = "a-client-id-longer-than-the-short-string-buffer";
  numbered.request_number = 7;
  CallRequest plain = RequestWith(nullptr, "y");
  plain.interface_id = 20002;
  plain.procedure_id = 9;
  client.Call(server.address(), numbered, TimeoutOf(10000));
  client.Call(server.address(), plain, TimeoutOf(9000));
  client.Call(server.address(), numbered, TimeoutOf(8000));
  ASSERT_EQ(seen.size(), 3u);
  RpcHeader expected_numbered;
  expected_numbered.set_call_id(seen[0].call_id());
  expected_numbered.set_message_type(REQUEST);
  RequestHeader* request_header = expected_numbered.mutable_request_header();
  request_header->set_interface_id(20001);
  request_header->set_procedure_id(4);
  *request_header->mutable_user_credentials() = credentials;
  request_header->set_timeout_ms(10000);
  request_header->set_client_id(std::string(numbered.client_id));
  request_header->set_request_number(7);
  RpcHeader expected_plain;
  expected_plain.set_call_id(seen[1].call_id());
  expected_plain.set_message_type(REQUEST);
  expected_plain.mutable_request_header()->set_interface_id(20002);
  expected_plain.mutable_request_header()->set_procedure_id(9);
  expected_plain.mutable_request_header()->set_timeout_ms(9000);
  EXPECT_EQ(seen[0].SerializeAsString(), expected_numbered.SerializeAsString());
  EXPECT_EQ(seen[1].SerializeAsString(), expected_plain.SerializeAsString());
  expected_numbered.set_call_id(seen[2].call_id());
  expected_numbered.mutable_request_header()->set_timeout_ms(8000);
  EXPECT_EQ(seen[2].SerializeAsString(), expected_numbered.SerializeAsString());
  EXPECT_EQ(credentials.username(), "a-user-name-longer-than-the-short-string-buffer");
}

TEST(RpcClientTest, ExactlyOnceCallsThroughARetryingTransportCarryItsClientIdAndTheirOwnNumbers) {
  // The request header names the retrying transport's client (CallRequest holds a view of its id,
  // not a copy) and numbers each exactly-once call; other calls carry neither.
  std::mutex seen_mutex;
  std::vector<RequestHeader> seen;
  FakeRpcServer server([&](const Record& request) {
    std::lock_guard<std::mutex> lock(seen_mutex);
    seen.push_back(request.header.request_header());
    return Echo(request);
  });
  RpcClient client;
  RetryingTransport transport(client, RetryPolicy{}, nullptr, nullptr,
                              "a-client-id-longer-than-the-short-string-buffer");
  CallOptions exactly_once = TimeoutOf(5000);
  exactly_once.exactly_once = true;
  transport.Call(server.address(), RequestWith(nullptr, "a"), exactly_once);
  transport.Call(server.address(), RequestWith(nullptr, "b"), TimeoutOf(5000));
  transport.Call(server.address(), RequestWith(nullptr, "c"), exactly_once);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].client_id(), "a-client-id-longer-than-the-short-string-buffer");
  EXPECT_EQ(seen[2].client_id(), "a-client-id-longer-than-the-short-string-buffer");
  EXPECT_NE(seen[0].request_number(), 0u);
  EXPECT_GT(seen[2].request_number(), seen[0].request_number());
  EXPECT_EQ(seen[1].client_id(), "");
  EXPECT_EQ(seen[1].request_number(), 0u);
}

TEST(RpcClientTest, CallsToOneServerShareOneConnection) {
  // Sequential calls to the same address reuse the connection instead of reconnecting.
  FakeRpcServer server(Echo);
  RpcClient client;
  for (int i = 0; i < 5; ++i) {
    client.Call(server.address(), RequestWith(nullptr, ""), TimeoutOf(5000));
  }
  EXPECT_EQ(server.connections_accepted(), 1);
  EXPECT_EQ(client.ConnectionsOpened(), 1u);
}

TEST(RpcClientTest, ConcurrentCallsGetTheirOwnAnswers) {
  // Answers are matched to callers by call id even with many calls in flight on one connection.
  FakeRpcServer server(Echo);
  RpcClient client;
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 50;
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        const std::string data = std::to_string(t) + "/" + std::to_string(i);
        CallResponse response =
            client.Call(server.address(), RequestWith(nullptr, data), TimeoutOf(10000));
        if (response.data != data) mismatches.fetch_add(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(server.connections_accepted(), 1);
}

TEST(RpcClientTest, LargeConcurrentCallsArriveWholeAndInOrderOfTheirBytes) {
  // Callers send their records themselves while the connection is idle, and leave the rest of a
  // record the socket does not take at once to the io thread. With 1 MiB records from 8 threads
  // the socket's buffer fills, so sends end part-way: every record must still reach the server
  // whole, never interleaved with another, and each answer its caller. Half the threads give their
  // data an owner, so their large records are sent from the caller's bytes (head and data as two
  // pieces, a partial send ending in either), the others copy it into the record.
  FakeRpcServer server(Echo);
  RpcClient client;
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 6;
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        std::string data((i % 2 == 0) ? (1 << 20) : 17, '\0');
        for (std::size_t b = 0; b < data.size(); ++b) data[b] = static_cast<char>(t * 31 + i * 7 + b);
        auto owned = std::make_shared<const std::string>(data);
        CallRequest request = RequestWith(nullptr, *owned);
        if (t % 2 == 0) request.data_owner = owned;
        CallResponse response = client.Call(server.address(), request, TimeoutOf(20000));
        if (response.data != data) mismatches.fetch_add(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(server.connections_accepted(), 1);
}

// The outcome of one CallServiceAsync, waited for by the test.
struct AsyncOutcome {
  std::promise<void> done;
  CallResponse response;
  std::exception_ptr error;
  std::thread::id thread;
  std::atomic<int> completions{0};
};

CallDone RecordInto(AsyncOutcome& outcome) {
  return [&outcome](CallResponse response, std::exception_ptr error) {
    outcome.response = std::move(response);
    outcome.error = error;
    outcome.thread = std::this_thread::get_id();
    if (outcome.completions.fetch_add(1) == 0) outcome.done.set_value();
  };
}

ServiceLookup LookupAt(const ServiceAddress& address) {
  return ServiceLookup{[address] { return address; }, nullptr};
}

TEST(RpcClientTest, AsyncCallsCompleteOnTheIoThreadWithTheAnswerAnErrorOrATimeout) {
  // An answer, a server error and no answer at all each complete the call exactly once, on the io
  // thread (not the caller's), and nothing of the client waits meanwhile.
  FakeRpcServer server([](const Record& request) {
    if (request.data == "fail") return FakeReply::Fail(ERRNO, EROFS, "read-only");
    if (request.data == "ignore") return FakeReply::Of(FakeReply::Action::kIgnore);
    return Echo(request);
  });
  RpcClient client;
  AsyncOutcome answered;
  AsyncOutcome failed;
  AsyncOutcome unanswered;
  client.CallServiceAsync(LookupAt(server.address()), RequestWith(nullptr, "data"), TimeoutOf(5000),
                          RecordInto(answered));
  client.CallServiceAsync(LookupAt(server.address()), RequestWith(nullptr, "fail"), TimeoutOf(5000),
                          RecordInto(failed));
  const auto started = std::chrono::steady_clock::now();
  client.CallServiceAsync(LookupAt(server.address()), RequestWith(nullptr, "ignore"), TimeoutOf(200),
                          RecordInto(unanswered));
  answered.done.get_future().wait();
  failed.done.get_future().wait();
  unanswered.done.get_future().wait();
  const auto waited = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(answered.error, nullptr);
  EXPECT_EQ(answered.response.data, "data");
  EXPECT_EQ(ErrnoOf([&] { std::rethrow_exception(failed.error); }), EROFS);
  EXPECT_EQ(ErrnoOf([&] { std::rethrow_exception(unanswered.error); }), ETIMEDOUT);
  EXPECT_GE(waited, std::chrono::milliseconds(200));
  EXPECT_NE(answered.thread, std::this_thread::get_id());
  EXPECT_NE(unanswered.thread, std::this_thread::get_id());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(answered.completions.load() + failed.completions.load() + unanswered.completions.load(), 3);
  EXPECT_EQ(client.CallsWaiting(), 0u);
}

TEST(RpcClientTest, AsyncCallsSentTogetherFromManyThreadsAreEachSentOnceAndAnswered) {
  // Callers combine their sends (a caller that finds another sending leaves its record to it): no
  // record may be left behind (its call would time out) or sent twice, and every answer must reach
  // its own call. Many threads fire calls without waiting, so sends overlap all the time.
  std::atomic<int> received{0};
  FakeRpcServer server([&received](const Record& request) {
    received.fetch_add(1);
    return Echo(request);
  });
  RpcClient client;
  constexpr int kThreads = 16;
  constexpr int kCallsPerThread = 200;
  std::atomic<int> answered{0};
  std::atomic<int> wrong{0};
  std::promise<void> all_done;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        const std::string data = std::to_string(t) + "/" + std::to_string(i) + std::string(i % 7 * 300, 'x');
        client.CallServiceAsync(LookupAt(server.address()), RequestWith(nullptr, data), TimeoutOf(20000),
                                [&, data](CallResponse response, std::exception_ptr error) {
                                  if (error || response.data != data) wrong.fetch_add(1);
                                  if (answered.fetch_add(1) + 1 == kThreads * kCallsPerThread) {
                                    all_done.set_value();
                                  }
                                });
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(all_done.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << answered.load() << " of " << kThreads * kCallsPerThread << " calls answered";
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(received.load(), kThreads * kCallsPerThread);  // none sent twice
  EXPECT_EQ(server.connections_accepted(), 1);
  EXPECT_EQ(client.CallsWaiting(), 0u);
}

TEST(RpcClientTest, ConnectionsAreServedByTheIoThreadsInTurnAndLargeAnswersArriveWhole) {
  // With three io threads, three servers' connections each get a thread of their own: their
  // asynchronous calls complete on three different threads, none the caller's, and large answers
  // (received straight into their records) arrive intact on each.
  FakeRpcServer first(Echo);
  FakeRpcServer second(Echo);
  FakeRpcServer third(Echo);
  RpcClientOptions options;
  options.io_threads = 3;
  RpcClient client(options);
  constexpr int kCallsPerServer = 24;
  std::mutex mutex;
  std::map<int, std::set<std::thread::id>> threads_by_server;
  std::atomic<int> answered{0};
  std::atomic<int> wrong{0};
  std::promise<void> all_done;
  const FakeRpcServer* servers[] = {&first, &second, &third};
  for (int i = 0; i < kCallsPerServer; ++i) {
    for (int s = 0; s < 3; ++s) {
      std::string data(i % 2 == 0 ? 300 * 1024 + i : 100 + i, '\0');
      for (std::size_t b = 0; b < data.size(); ++b) data[b] = static_cast<char>(s * 53 + i * 7 + b);
      client.CallServiceAsync(LookupAt(servers[s]->address()), RequestWith(nullptr, data), TimeoutOf(20000),
                              [&, s, data](CallResponse response, std::exception_ptr error) {
                                if (error || response.data != data) wrong.fetch_add(1);
                                {
                                  std::lock_guard<std::mutex> lock(mutex);
                                  threads_by_server[s].insert(std::this_thread::get_id());
                                }
                                if (answered.fetch_add(1) + 1 == 3 * kCallsPerServer) all_done.set_value();
                              });
    }
  }
  ASSERT_EQ(all_done.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << answered.load() << " of " << 3 * kCallsPerServer << " calls answered";
  EXPECT_EQ(wrong.load(), 0);
  std::set<std::thread::id> all_threads;
  for (int s = 0; s < 3; ++s) {
    ASSERT_EQ(threads_by_server[s].size(), 1u) << "server " << s << " completed on several threads";
    all_threads.insert(*threads_by_server[s].begin());
  }
  EXPECT_EQ(all_threads.size(), 3u);
  EXPECT_EQ(all_threads.count(std::this_thread::get_id()), 0u);
  EXPECT_EQ(client.CallsWaiting(), 0u);
  options.io_threads = 0;
  EXPECT_EQ(ErrnoOf([&] { RpcClient unusable(options); }), EINVAL);
}

TEST(RpcClientTest, CallsQueuedWhileTheIoThreadIsMidWriteAreEachSentOnceAndAnswered) {
  // The io thread writes what the socket did not take at once (writing_), and callers arriving
  // meanwhile must queue behind that write: a record left queued with no write to follow would never
  // be sent, and neither would a ping on the same connection after its call timed out (the
  // slow-server rule would then take a live server for dead). Forced here rather than hoped for: the
  // server stops reading (its handler holds on "hold"), 45 MiB of records cannot fit the socket
  // buffers, so the io thread is mid-write once its posted work ran; then 8 threads queue small
  // calls, asynchronous and synchronous, and the server reads again. Three rounds.
  std::mutex gate_mutex;
  std::condition_variable gate_changed;
  bool holding = false;
  std::atomic<int> received{0};
  FakeRpcServer server([&](const Record& request) {
    received.fetch_add(1);
    if (request.data == "hold") {
      std::unique_lock<std::mutex> lock(gate_mutex);
      gate_changed.wait(lock, [&] { return !holding; });
    }
    if (request.data.size() > 1024) return FakeReply::Respond("", std::to_string(request.data.size()));
    return Echo(request);
  });
  RpcClient client;
  ASSERT_EQ(client.Call(server.address(), RequestWith(nullptr, "first"), TimeoutOf(10000)).data, "first");
  constexpr int kRounds = 3;
  constexpr int kLargeRecords = 3;
  constexpr std::size_t kLargeBytes = 15 << 20;
  constexpr int kThreads = 8;
  constexpr int kSmallCallsPerThread = 40;
  const std::string large(kLargeBytes, 'L');
  for (int round = 0; round < kRounds; ++round) {
    const int received_before = received.load();
    {
      std::lock_guard<std::mutex> lock(gate_mutex);
      holding = true;
    }
    std::atomic<int> answered{0};
    std::atomic<int> wrong{0};
    const int expected = 1 + kLargeRecords + kThreads * (kSmallCallsPerThread + 1);
    std::promise<void> all_done;
    auto count = [&](bool right) {
      if (!right) wrong.fetch_add(1);
      if (answered.fetch_add(1) + 1 == expected) all_done.set_value();
    };
    client.CallServiceAsync(LookupAt(server.address()), RequestWith(nullptr, "hold"), TimeoutOf(30000),
                            [&](CallResponse response, std::exception_ptr error) {
                              count(!error && response.data == "hold");
                            });
    for (int i = 0; i < kLargeRecords; ++i) {
      client.CallServiceAsync(LookupAt(server.address()), RequestWith(nullptr, large), TimeoutOf(30000),
                              [&](CallResponse response, std::exception_ptr error) {
                                count(!error && response.data == std::to_string(kLargeBytes));
                              });
    }
    // Everything posted so far ran on the io thread: its write of the large records is in progress
    // and cannot finish while the server does not read.
    std::promise<void> io_thread_passed;
    client.RunOnIoThread([&] { io_thread_passed.set_value(); });
    io_thread_passed.get_future().wait();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kSmallCallsPerThread; ++i) {
          const std::string data = std::to_string(round) + "/" + std::to_string(t) + "/" + std::to_string(i);
          client.CallServiceAsync(LookupAt(server.address()), RequestWith(nullptr, data), TimeoutOf(30000),
                                  [&, data](CallResponse response, std::exception_ptr error) {
                                    count(!error && response.data == data);
                                  });
        }
        // A synchronous call (as a ping is) queued behind the same write.
        const std::string ping = "ping " + std::to_string(t);
        std::string answer;
        try {
          answer = client.Call(server.address(), RequestWith(nullptr, ping), TimeoutOf(30000)).data;
        } catch (const RpcError&) {
        }
        count(answer == ping);
      });
    }
    // The synchronous calls wait for the server, so they are queued before it reads again.
    const auto queued_by = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (client.CallsWaiting() < static_cast<std::size_t>(expected) &&
           std::chrono::steady_clock::now() < queued_by) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(client.CallsWaiting(), static_cast<std::size_t>(expected)) << "round " << round;
    {
      std::lock_guard<std::mutex> lock(gate_mutex);
      holding = false;
    }
    gate_changed.notify_all();
    ASSERT_EQ(all_done.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready)
        << "round " << round << ": " << answered.load() << " of " << expected << " calls answered";
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(wrong.load(), 0) << "round " << round;
    EXPECT_EQ(received.load() - received_before, expected) << "round " << round;  // none sent twice
  }
  EXPECT_EQ(server.connections_accepted(), 1);
  EXPECT_EQ(client.CallsWaiting(), 0u);
}

// A server whose reading can be stopped: while held, its handler blocks on the request "hold", so
// nothing more is read from that connection and a large record cannot leave the client's socket.
// Records the data of every request it decoded (the server never decodes a cut record).
class HoldingServer {
 public:
  HoldingServer()
      : server_([this](const Record& request) {
          {
            std::unique_lock<std::mutex> lock(mutex_);
            received_.push_back(request.data.size() > 1024 ? "large" : request.data);
            if (request.data == "hold") changed_.wait(lock, [this] { return !holding_; });
          }
          return FakeReply::Respond("", request.data.size() > 1024 ? "large" : request.data);
        }) {}
  // A test that failed while the server held "hold" must not leave its thread waiting (the server's
  // destructor joins it).
  ~HoldingServer() { Release(); }

  void Hold() {
    std::lock_guard<std::mutex> lock(mutex_);
    holding_ = true;
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      holding_ = false;
    }
    changed_.notify_all();
  }
  std::vector<std::string> Received() {
    std::lock_guard<std::mutex> lock(mutex_);
    return received_;
  }
  FakeRpcServer& server() { return server_; }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool holding_ = false;
  std::vector<std::string> received_;
  FakeRpcServer server_;  // last: its thread stops before the members its handler uses
};

// 15 MiB (under the 16 MiB frame limit): more than loopback's socket buffers of both ends hold, so a
// record of it stays partly written while the server does not read.
const std::string& LargeData() {
  static const std::string large(15 << 20, 'L');
  return large;
}

// Sends "hold" asynchronously and waits until the server holds it; `hold_errno` gets its outcome.
void HoldServer(RpcClient& client, HoldingServer& holding, std::promise<int>& hold_errno) {
  holding.Hold();
  client.CallServiceAsync(LookupAt(holding.server().address()), RequestWith(nullptr, "hold"),
                          TimeoutOf(60000), [&hold_errno](CallResponse, std::exception_ptr error) {
                            int code = 0;
                            try {
                              if (error) std::rethrow_exception(error);
                            } catch (const RpcError& failure) {
                              code = failure.posix_errno();
                            }
                            hold_errno.set_value(code);
                          });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((holding.Received().empty() || holding.Received().back() != "hold") &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(holding.Received().back(), "hold");
}

// Waits until everything posted to the io thread so far ran.
void PassIoThread(RpcClient& client) {
  std::promise<void> passed;
  client.RunOnIoThread([&passed] { passed.set_value(); });
  passed.get_future().wait();
}

TEST(RpcClientTest, ATimedOutCallWhoseRecordWasNotSentYetIsNeverSent) {
  // A call that times out while its record still waits behind others in the send queue (a server
  // that stopped reading) takes its record out: it was left queued and sent once the server read
  // again, so a stale request (a write of old bytes) reached the server after its retry and after
  // whatever the caller sent next. The connection stays open for the calls still under way.
  std::promise<int> hold_errno;  // before the client: its close may complete the calls
  std::promise<int> large_errno;
  HoldingServer holding;
  RpcClient client;
  ASSERT_EQ(client.Call(holding.server().address(), RequestWith(nullptr, "first"), TimeoutOf(10000)).data,
            "first");
  HoldServer(client, holding, hold_errno);
  client.CallServiceAsync(LookupAt(holding.server().address()), RequestWith(nullptr, LargeData()),
                          TimeoutOf(60000), [&](CallResponse response, std::exception_ptr error) {
                            large_errno.set_value(error ? -1 : response.data == "large" ? 0 : -2);
                          });
  PassIoThread(client);  // the large record is being written and cannot finish
  EXPECT_EQ(ErrnoOf([&] {
              client.Call(holding.server().address(), RequestWith(nullptr, "stale"), TimeoutOf(200));
            }),
            ETIMEDOUT);
  holding.Release();
  EXPECT_EQ(hold_errno.get_future().get(), 0);
  EXPECT_EQ(large_errno.get_future().get(), 0);
  EXPECT_EQ(client.Call(holding.server().address(), RequestWith(nullptr, "after"), TimeoutOf(10000)).data,
            "after");
  EXPECT_EQ(holding.Received(), (std::vector<std::string>{"first", "hold", "large", "after"}));
  EXPECT_EQ(holding.server().connections_accepted(), 1);
  EXPECT_EQ(client.CallsWaiting(), 0u);
}

TEST(RpcClientTest, ACallTimedOutInTheMiddleOfItsRecordClosesItsConnectionBeforeTheCallerGoesOn) {
  // The rest of a partly written record cannot be withheld without desynchronising the stream, and
  // sending it would deliver the stale request late (after a retry on another connection). The
  // connection is closed (reset) before the timeout reaches the caller: the other calls on it fail
  // (and are retried by their callers), the server never decodes the cut record, and the record's
  // borrowed bytes are released instead of being held until a server that stopped reading reads
  // again (a FUSE worker waits for them: kBorrowedWriteBytesMin). Synchronous and asynchronous calls.
  for (const bool synchronous : {true, false}) {
    SCOPED_TRACE(synchronous ? "synchronous" : "asynchronous");
    std::promise<int> hold_errno;  // before the client: its close may complete the calls
    std::future<int> hold_failed = hold_errno.get_future();
    std::promise<int> large_errno;
    HoldingServer holding;
    RpcClient client;
    HoldServer(client, holding, hold_errno);
    auto owner = std::make_shared<std::string>(LargeData());
    std::weak_ptr<std::string> watched = owner;
    CallRequest large = RequestWith(nullptr, *owner);
    large.data_owner = std::move(owner);
    if (synchronous) {
      EXPECT_EQ(ErrnoOf([&] { client.Call(holding.server().address(), large, TimeoutOf(300)); }),
                ETIMEDOUT);
    } else {
      client.CallServiceAsync(LookupAt(holding.server().address()), large, TimeoutOf(300),
                              [&](CallResponse, std::exception_ptr error) {
                                int code = 0;
                                try {
                                  if (error) std::rethrow_exception(error);
                                } catch (const RpcError& failure) {
                                  code = failure.posix_errno();
                                }
                                // The connection is closed before the timeout is reported.
                                large_errno.set_value(
                                    hold_failed.wait_for(std::chrono::seconds(0)) == std::future_status::ready
                                        ? code
                                        : -1);
                              });
      EXPECT_EQ(large_errno.get_future().get(), ETIMEDOUT);
    }
    large = CallRequest();
    ASSERT_EQ(hold_failed.wait_for(std::chrono::seconds(0)), std::future_status::ready);
    EXPECT_EQ(hold_failed.get(), EIO);  // failed by the close
    // The close queues the aborted write's handler (which holds the record) behind whatever was
    // posted while the close ran: after two passes it has run and let go of the record.
    PassIoThread(client);
    PassIoThread(client);
    EXPECT_TRUE(watched.expired());
    holding.Release();
    EXPECT_EQ(client.Call(holding.server().address(), RequestWith(nullptr, "after"), TimeoutOf(10000)).data,
              "after");
    EXPECT_EQ(holding.Received(), (std::vector<std::string>{"hold", "after"}));
    EXPECT_EQ(holding.server().connections_accepted(), 2);
    EXPECT_EQ(client.CallsWaiting(), 0u);
  }
}

TEST(RpcClientTest, AsyncCallsTimeOutAtTheirOwnDeadlinesWhateverTheOrderOfTheirTimeouts) {
  // One timer per connection serves every asynchronous call's deadline: a later call with a shorter
  // timeout fails first, the longer one at its own deadline, and a call after the timer ran out of
  // calls (unarmed) still times out; answered calls are not failed later by the timer.
  FakeRpcServer server([](const Record& request) {
    if (request.data == "ignore") return FakeReply::Of(FakeReply::Action::kIgnore);
    return Echo(request);
  });
  RpcClient client;
  AsyncOutcome long_timeout;
  AsyncOutcome short_timeout;
  AsyncOutcome answered;
  const auto started = std::chrono::steady_clock::now();
  client.CallServiceAsync(LookupAt(server.address()), RequestWith(nullptr, "ignore"), TimeoutOf(600),
                          RecordInto(long_timeout));
  client.CallServiceAsync(LookupAt(server.address()), RequestWith(nullptr, "data"), TimeoutOf(300),
                          RecordInto(answered));
  client.CallServiceAsync(LookupAt(server.address()), RequestWith(nullptr, "ignore"), TimeoutOf(200),
                          RecordInto(short_timeout));
  short_timeout.done.get_future().wait();
  const auto short_waited = std::chrono::steady_clock::now() - started;
  long_timeout.done.get_future().wait();
  const auto long_waited = std::chrono::steady_clock::now() - started;
  answered.done.get_future().wait();
  EXPECT_GE(short_waited, std::chrono::milliseconds(200));
  EXPECT_LT(short_waited, std::chrono::milliseconds(600));
  EXPECT_GE(long_waited, std::chrono::milliseconds(600));
  EXPECT_EQ(ErrnoOf([&] { std::rethrow_exception(short_timeout.error); }), ETIMEDOUT);
  EXPECT_EQ(ErrnoOf([&] { std::rethrow_exception(long_timeout.error); }), ETIMEDOUT);
  EXPECT_EQ(answered.error, nullptr);

  AsyncOutcome after_idle;
  const auto restarted = std::chrono::steady_clock::now();
  client.CallServiceAsync(LookupAt(server.address()), RequestWith(nullptr, "ignore"), TimeoutOf(150),
                          RecordInto(after_idle));
  ASSERT_EQ(after_idle.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_GE(std::chrono::steady_clock::now() - restarted, std::chrono::milliseconds(150));
  EXPECT_EQ(ErrnoOf([&] { std::rethrow_exception(after_idle.error); }), ETIMEDOUT);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(long_timeout.completions.load() + short_timeout.completions.load() + answered.completions.load() +
                after_idle.completions.load(),
            4);
  EXPECT_EQ(client.CallsWaiting(), 0u);
}

TEST(RpcClientTest, AsyncCallToARefusedAddressFailsOnceWithATransportError) {
  const RefusingPort unused_port;
  const ServiceAddress unused = unused_port.address();
  RpcClient client;
  AsyncOutcome refused;
  client.CallServiceAsync(LookupAt(unused), RequestWith(nullptr, ""), TimeoutOf(10000),
                          RecordInto(refused));
  ASSERT_EQ(refused.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(ErrnoOf([&] { std::rethrow_exception(refused.error); }), EIO);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(refused.completions.load(), 1);
}

TEST(RpcClientTest, ServerErrorsArriveAsRpcErrorWithErrno) {
  // An ERRNO answer throws RpcError carrying the server's errno and message.
  FakeRpcServer server([](const Record&) {
    return FakeReply::Fail(ERRNO, ENOTEMPTY, "directory not empty: /a");
  });
  RpcClient client;
  try {
    client.Call(server.address(), RequestWith(nullptr, ""), TimeoutOf(5000));
    FAIL() << "expected an error";
  } catch (const RpcError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::kErrno);
    EXPECT_EQ(error.posix_errno(), ENOTEMPTY);
    EXPECT_NE(std::string(error.what()).find("directory not empty: /a"), std::string::npos);
  }
}

TEST(RpcClientTest, ErrnoAnswersComeBackAsValuesWhenAskedAndOtherErrorsAreStillThrown) {
  // errno_as_value: an ERRNO answer is returned (no exception), any other error kind is thrown.
  FakeRpcServer server([](const Record& request) {
    if (request.data == "overloaded") return FakeReply::Fail(OVERLOADED, EAGAIN, "queue full");
    return FakeReply::Fail(ERRNO, ENOENT, "no such file or directory: '/f7'");
  });
  RpcClient client;
  CallOptions options = TimeoutOf(5000);
  options.errno_as_value = true;
  CallResponse answer = client.Call(server.address(), RequestWith(nullptr, ""), options);
  EXPECT_EQ(answer.errno_answer, ENOENT);
  EXPECT_EQ(answer.errno_message, "no such file or directory: '/f7'");
  EXPECT_TRUE(answer.message_bytes.empty());
  EXPECT_EQ(ErrnoOf([&] { client.Call(server.address(), RequestWith(nullptr, "overloaded"), options); }),
            EAGAIN);
  // Without the option the same answer is thrown as before.
  EXPECT_EQ(ErrnoOf([&] { client.Call(server.address(), RequestWith(nullptr, ""), TimeoutOf(5000)); }),
            ENOENT);
}

TEST(RpcClientTest, UnansweredCallTimesOutWithEtimedout) {
  // A server that never answers makes the call fail with ETIMEDOUT after about its timeout.
  FakeRpcServer server([](const Record&) { return FakeReply::Of(FakeReply::Action::kIgnore); });
  RpcClient client;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ErrnoOf([&] { client.Call(server.address(), RequestWith(nullptr, ""), TimeoutOf(200)); }),
            ETIMEDOUT);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, std::chrono::milliseconds(200));
  EXPECT_LT(elapsed, std::chrono::milliseconds(5000));
}

TEST(RpcClientTest, ClosedConnectionFailsTheCallAndTheNextCallReconnects) {
  // The server closing the connection fails the waiting call (EIO); the next call opens a new one.
  std::atomic<int> calls{0};
  FakeRpcServer server([&](const Record& request) {
    if (calls.fetch_add(1) == 0) return FakeReply::Of(FakeReply::Action::kCloseConnection);
    return Echo(request);
  });
  RpcClient client;
  EXPECT_EQ(ErrnoOf([&] { client.Call(server.address(), RequestWith(nullptr, ""), TimeoutOf(5000)); }),
            EIO);
  CallResponse response = client.Call(server.address(), RequestWith(nullptr, "again"), TimeoutOf(5000));
  EXPECT_EQ(response.data, "again");
  EXPECT_EQ(server.connections_accepted(), 2);
}

TEST(RpcClientTest, APeerCloseSeenBeforeTheCompletionOfASuccessfulWriteFailsTheCallOnce) {
  // A killed server (an OSD restart) closes its end while calls are being sent. When the io thread
  // sees the close (end of stream on the read) in the same round in which a new call's record was
  // written, the close runs between the write's completion and its handler: that handler must not
  // touch the write queue the close emptied (it popped from an empty queue and destroyed the record
  // a second time, which crashed the mount during fio at iodepth 8). Held io thread, so the order is
  // fixed: [read sees end of stream, call B's send] -> B's write completes -> close -> B's handler.
  std::atomic<int> calls{0};
  FakeRpcServer server([&](const Record& request) {
    if (calls.fetch_add(1) == 0) return Echo(request);
    return FakeReply::Of(FakeReply::Action::kIgnore);
  });
  RpcClient client;
  EXPECT_EQ(client.Call(server.address(), RequestWith(nullptr, "a"), TimeoutOf(5000)).data, "a");

  std::promise<void> held;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  client.RunOnIoThread([&held, released] {
    held.set_value();
    released.wait();
  });
  held.get_future().wait();
  // The server's end closes while the io thread is held; on loopback the end of stream is in the
  // client's socket when close returns.
  server.CloseConnections();
  std::promise<int> outcome;
  std::thread caller([&] {
    outcome.set_value(
        ErrnoOf([&] { client.Call(server.address(), RequestWith(nullptr, "b"), TimeoutOf(10000)); }));
  });
  // Call B's record is queued behind the held task once it counts as waiting.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (client.CallsWaiting() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(client.CallsWaiting(), 1u);
  release.set_value();
  std::future<int> result = outcome.get_future();
  ASSERT_EQ(result.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  caller.join();
  // The close failed B (it was sent on the closed connection, the server never answered it).
  EXPECT_EQ(result.get(), EIO);
  // The client still works: a fresh connection carries the next call (the server ignores it).
  EXPECT_EQ(ErrnoOf([&] { client.Call(server.address(), RequestWith(nullptr, "c"), TimeoutOf(200)); }),
            ETIMEDOUT);
  EXPECT_EQ(server.connections_accepted(), 2);
}

TEST(RpcClientTest, MalformedResponseClosesTheConnectionWithEio) {
  // A response with an invalid record marker fails the call as a transport error instead of hanging.
  FakeRpcServer server([](const Record&) { return FakeReply::Of(FakeReply::Action::kSendGarbage); });
  RpcClient client;
  try {
    client.Call(server.address(), RequestWith(nullptr, ""), TimeoutOf(5000));
    FAIL() << "expected an error";
  } catch (const RpcError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::kTransport);
    EXPECT_EQ(error.posix_errno(), EIO);
    EXPECT_NE(std::string(error.what()).find("malformed"), std::string::npos);
  }
}

TEST(RpcClientTest, RefusedConnectionFailsFastWithTransportError) {
  // Calling a port nobody listens on fails with a transport error well before the call timeout.
  const RefusingPort unused_port;
  const ServiceAddress unused = unused_port.address();
  RpcClient client;
  const auto start = std::chrono::steady_clock::now();
  try {
    client.Call(unused, RequestWith(nullptr, ""), TimeoutOf(10000));
    FAIL() << "expected an error";
  } catch (const RpcError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::kTransport);
    EXPECT_TRUE(error.IsTransient());
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(5000));
}

TEST(RpcClientTest, UnusableTlsFilesAreNamedAtConstruction) {
  RpcClientOptions options;
  options.tls.authority_file = "/nonexistent/ca.pem";
  try {
    RpcClient client(options);
    FAIL() << "a missing CA file was accepted";
  } catch (const RpcError& error) {
    EXPECT_EQ(error.posix_errno(), EINVAL);
    EXPECT_NE(std::string(error.what()).find("/nonexistent/ca.pem"), std::string::npos) << error.what();
  }
}

TEST(RpcClientTest, ATlsServerCalledWithoutTlsOptionsIsRefusedAtOnceNamingIt) {
  // The scheme says the server speaks TLS and this client has no CA: kAuthFailed (not transient,
  // so no retry waits on it) naming the server and the reason, with nothing sent.
  FakeRpcServer server(Echo);
  RpcClient client;
  ServiceAddress tls_address = server.address();
  tls_address.scheme = Scheme::kTls;
  const auto start = std::chrono::steady_clock::now();
  try {
    client.Call(tls_address, RequestWith(nullptr, ""), TimeoutOf(30000));
    FAIL() << "a TLS server was called without TLS options";
  } catch (const RpcError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::kAuthFailed);
    EXPECT_FALSE(error.IsTransient());
    EXPECT_NE(std::string(error.what()).find(tls_address.ToUrl()), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("no TLS configuration"), std::string::npos) << error.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(5000));
  EXPECT_EQ(client.ConnectionsOpened(), 0u);
  // The same server by its plain scheme is served.
  EXPECT_EQ(client.Call(server.address(), RequestWith(nullptr, "x"), TimeoutOf(5000)).data, "x");
}

TEST(RpcClientTest, OversizedRequestDataIsRejectedLocally) {
  // Data larger than the frame limit would be rejected by the server; the client refuses it with EINVAL.
  RpcClientOptions options;
  options.frame_limits.data_bytes_max = 16;
  RpcClient client(options);
  EXPECT_EQ(ErrnoOf([&] {
              client.Call(ServiceAddress{"127.0.0.1", 1}, RequestWith(nullptr, std::string(17, 'x')),
                          TimeoutOf(1000));
            }),
            EINVAL);
}


CallOptions OwnConnectionOf(std::uint32_t timeout_ms) {
  CallOptions options = TimeoutOf(timeout_ms);
  options.callers_own_connection = true;
  return options;
}

// Holds the client's io thread until destroyed: whatever needs it (the shared connection's answers)
// waits meanwhile.
class HeldIoThread {
 public:
  explicit HeldIoThread(RpcClient& client) {
    client.RunOnIoThread([this] {
      held_.set_value();
      release_.get_future().wait();
    });
    held_.get_future().wait();
  }
  ~HeldIoThread() { release_.set_value(); }

 private:
  std::promise<void> held_;
  std::promise<void> release_;
};

TEST(RpcClientTest, CallsOnTheCallersOwnConnectionAreAnsweredWithoutTheIoThreadOnOneConnection) {
  // The caller receives its answers itself: they arrive while the io thread is held (on the shared
  // connection the same calls would wait for it and time out), and one thread's calls reuse one
  // connection.
  FakeRpcServer server(Echo);
  RpcClient client;
  {
    HeldIoThread held(client);
    for (int i = 0; i < 5; ++i) {
      const std::string data = "call " + std::to_string(i);
      EXPECT_EQ(client.Call(server.address(), RequestWith(nullptr, data), OwnConnectionOf(5000)).data, data);
    }
  }
  EXPECT_EQ(server.connections_accepted(), 1);
  EXPECT_EQ(client.ConnectionsOpened(), 1u);
  // A call without the option still takes the shared connection.
  EXPECT_EQ(client.Call(server.address(), RequestWith(nullptr, "shared"), TimeoutOf(5000)).data, "shared");
  EXPECT_EQ(server.connections_accepted(), 2);
}

TEST(RpcClientTest, ThreadsCallingOnTheirOwnConnectionsGetTheirOwnAnswers) {
  // Each thread has its own connection, so concurrent calls never take another's answer.
  FakeRpcServer server(Echo);
  RpcClient client;
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const std::string data = std::to_string(t) + "/" + std::to_string(i);
        if (client.Call(server.address(), RequestWith(nullptr, data), OwnConnectionOf(5000)).data != data) {
          wrong.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(server.connections_accepted(), 4);
}

TEST(RpcClientTest, OwnConnectionsPastTheirMaximumAndHostNamesTakeTheSharedConnection) {
  // own_connections_max bounds the connections; a host name (no bounded lookup on the caller's
  // thread) takes the shared connection; both are still answered.
  FakeRpcServer server(Echo);
  RpcClientOptions options;
  options.own_connections_max = 1;
  RpcClient client(options);
  EXPECT_EQ(client.Call(server.address(), RequestWith(nullptr, "a"), OwnConnectionOf(5000)).data, "a");
  std::thread([&] {
    EXPECT_EQ(client.Call(server.address(), RequestWith(nullptr, "b"), OwnConnectionOf(5000)).data, "b");
  }).join();
  EXPECT_EQ(client.Call(server.address(), RequestWith(nullptr, "c"), OwnConnectionOf(5000)).data, "c");
  EXPECT_EQ(server.connections_accepted(), 2);  // this thread's own, and the shared one
  RpcClient named_client;
  ServiceAddress named = server.address();
  named.host = "localhost";
  EXPECT_EQ(named_client.Call(named, RequestWith(nullptr, "d"), OwnConnectionOf(5000)).data, "d");
}

TEST(RpcClientTest, ErrorsOnTheCallersOwnConnectionAreThoseOfTheSharedOne) {
  // Server errors (thrown, or as values when asked), timeouts, a close and a malformed answer fail the
  // call as on the shared connection; a call after a failure connects anew and is answered.
  std::atomic<int> calls{0};
  FakeRpcServer server([&](const Record& request) {
    calls.fetch_add(1);
    if (request.data == "errno") return FakeReply::Fail(ERRNO, ENOENT, "no such file or directory: '/f'");
    if (request.data == "ignore") return FakeReply::Of(FakeReply::Action::kIgnore);
    if (request.data == "close") return FakeReply::Of(FakeReply::Action::kCloseConnection);
    if (request.data == "garbage") return FakeReply::Of(FakeReply::Action::kSendGarbage);
    return Echo(request);
  });
  RpcClient client;
  EXPECT_EQ(ErrnoOf([&] { client.Call(server.address(), RequestWith(nullptr, "errno"), OwnConnectionOf(5000)); }),
            ENOENT);
  CallOptions as_value = OwnConnectionOf(5000);
  as_value.errno_as_value = true;
  CallResponse answer = client.Call(server.address(), RequestWith(nullptr, "errno"), as_value);
  EXPECT_EQ(answer.errno_answer, ENOENT);
  EXPECT_EQ(answer.errno_message, "no such file or directory: '/f'");
  EXPECT_EQ(server.connections_accepted(), 1);  // an answered error keeps the connection

  EXPECT_EQ(ErrnoOf([&] { client.Call(server.address(), RequestWith(nullptr, "ignore"), OwnConnectionOf(200)); }),
            ETIMEDOUT);
  EXPECT_EQ(client.Call(server.address(), RequestWith(nullptr, "after timeout"), OwnConnectionOf(5000)).data,
            "after timeout");
  EXPECT_EQ(server.connections_accepted(), 2);  // the timed-out call's connection was closed

  try {
    client.Call(server.address(), RequestWith(nullptr, "close"), OwnConnectionOf(5000));
    FAIL() << "expected an error";
  } catch (const RpcError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::kTransport);
    EXPECT_TRUE(error.IsTransient());
  }
  try {
    client.Call(server.address(), RequestWith(nullptr, "garbage"), OwnConnectionOf(5000));
    FAIL() << "expected an error";
  } catch (const RpcError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::kTransport);
    EXPECT_NE(std::string(error.what()).find("malformed"), std::string::npos) << error.what();
  }
  EXPECT_EQ(client.Call(server.address(), RequestWith(nullptr, "again"), OwnConnectionOf(5000)).data, "again");
  EXPECT_EQ(server.connections_accepted(), 4);

  const RefusingPort refusing;
  try {
    client.Call(refusing.address(), RequestWith(nullptr, ""), OwnConnectionOf(5000));
    FAIL() << "expected an error";
  } catch (const RpcError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::kTransport);
    EXPECT_TRUE(error.IsTransient());
  }
}

TEST(RpcClientTest, AnIdleOwnConnectionTheServerClosedIsReplacedBeforeTheNextCall) {
  // Nobody reads an idle own connection; one the server closed (a restart) is found closed before it
  // is used, so the next call is answered instead of failing its attempt.
  FakeRpcServer server(Echo);
  RpcClient client;
  EXPECT_EQ(client.Call(server.address(), RequestWith(nullptr, "a"), OwnConnectionOf(5000)).data, "a");
  server.CloseConnections();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // past the idle check's 1 s
  EXPECT_EQ(client.Call(server.address(), RequestWith(nullptr, "b"), OwnConnectionOf(5000)).data, "b");
  EXPECT_EQ(server.connections_accepted(), 2);
}

TEST(RpcClientTest, ExactlyOnceCallsOnTheCallersOwnConnectionAreRetriedWithTheirNumberAfterAClose) {
  // A server restart in the middle of a call (the connection closed) is retried by RetryingTransport
  // with the same request number, on a new connection of the caller's.
  std::mutex mutex;
  std::vector<std::uint64_t> numbers;
  FakeRpcServer server([&](const Record& request) {
    std::lock_guard<std::mutex> lock(mutex);
    numbers.push_back(request.header.request_header().request_number());
    if (numbers.size() == 1) return FakeReply::Of(FakeReply::Action::kCloseConnection);
    return Echo(request);
  });
  RpcClient client;
  RetryPolicy policy;
  policy.backoff_initial_ms = 1;
  RetryingTransport transport(client, policy);
  CallOptions options = OwnConnectionOf(5000);
  options.exactly_once = true;
  EXPECT_EQ(transport.Call(server.address(), RequestWith(nullptr, "create"), options).data, "create");
  std::lock_guard<std::mutex> lock(mutex);
  ASSERT_EQ(numbers.size(), 2u);
  EXPECT_NE(numbers[0], 0u);
  EXPECT_EQ(numbers[0], numbers[1]);
  EXPECT_EQ(server.connections_accepted(), 2);
}

}  // namespace
}  // namespace xtreemfs::rpc
