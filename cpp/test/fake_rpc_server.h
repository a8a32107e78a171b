// A loopback server speaking the record framing, for RpcClient tests: each request goes to a
// handler that decides the reply (answer, error, silence, closed connection or garbage bytes).
#pragma once

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <asio.hpp>

#include "rpc/record.h"
#include "rpc/transport.h"

namespace xtreemfs::rpc::testing {

struct FakeReply {
  enum class Action { kRespond, kFail, kIgnore, kCloseConnection, kSendGarbage };
  Action action = Action::kRespond;
  std::string message_bytes;
  std::string data;
  ErrorResponse error;

  static FakeReply Respond(std::string message_bytes, std::string data = "") {
    FakeReply reply;
    reply.message_bytes = std::move(message_bytes);
    reply.data = std::move(data);
    return reply;
  }
  static FakeReply Fail(ErrorType type, std::uint32_t posix_errno, std::string message) {
    FakeReply reply;
    reply.action = Action::kFail;
    reply.error.set_error_type(type);
    reply.error.set_posix_errno(posix_errno);
    reply.error.set_error_message(std::move(message));
    return reply;
  }
  static FakeReply Of(Action action) {
    FakeReply reply;
    reply.action = action;
    return reply;
  }
};

class FakeRpcServer {
 public:
  using Handler = std::function<FakeReply(const Record& request)>;

  explicit FakeRpcServer(Handler handler)
      : handler_(std::move(handler)),
        acceptor_(io_context_, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    Accept();
    thread_ = std::thread([this] { io_context_.run(); });
  }

  ~FakeRpcServer() {
    asio::post(io_context_, [this] { io_context_.stop(); });
    thread_.join();
  }

  // Closes every accepted connection (the client sees the peer's close) and returns once they are
  // closed; the server keeps accepting new ones.
  void CloseConnections() {
    std::promise<void> closed;
    asio::post(io_context_, [&] {
      for (auto& weak : sessions_) {
        if (auto session = weak.lock()) {
          asio::error_code ignored;
          session->socket.close(ignored);
        }
      }
      sessions_.clear();
      closed.set_value();
    });
    closed.get_future().wait();
  }

  ServiceAddress address() const {
    return ServiceAddress{"127.0.0.1", acceptor_.local_endpoint().port()};
  }
  int connections_accepted() const { return connections_accepted_.load(); }

 private:
  struct Session : std::enable_shared_from_this<Session> {
    Session(asio::ip::tcp::socket socket, FakeRpcServer& server)
        : socket(std::move(socket)), server(server), decoder(FrameLimits{}) {}

    void Read() {
      socket.async_read_some(asio::buffer(buffer), [self = shared_from_this()](
                                                       const asio::error_code& error, std::size_t n) {
        if (error) return;
        self->decoder.Feed(self->buffer.data(), n);
        while (auto record = self->decoder.Next()) {
          if (!self->Reply(*record)) return;
        }
        self->Read();
      });
    }

    // Returns false when the connection was closed.
    bool Reply(const Record& request) {
      FakeReply reply = server.handler_(request);
      RpcHeader header;
      header.set_call_id(request.header.call_id());
      header.set_message_type(RESPONSE);
      std::string bytes;
      switch (reply.action) {
        case FakeReply::Action::kIgnore: return true;
        case FakeReply::Action::kCloseConnection: socket.close(); return false;
        case FakeReply::Action::kSendGarbage: bytes.assign(12, '\xff'); break;
        case FakeReply::Action::kFail:
          *header.mutable_error_response() = reply.error;
          bytes = EncodeRecord(header, nullptr, "");
          break;
        case FakeReply::Action::kRespond: {
          bytes = EncodeRecord(header, nullptr, reply.data);
          // Splice the prepared message bytes in: rewrite the marker's message length.
          RecordMarker marker = DecodeRecordMarker(bytes.data());
          marker.message_length_bytes = static_cast<std::uint32_t>(reply.message_bytes.size());
          EncodeRecordMarker(marker, bytes.data());
          bytes.insert(kRecordMarkerSizeBytes + marker.header_length_bytes, reply.message_bytes);
          break;
        }
      }
      asio::error_code ignored;
      asio::write(socket, asio::buffer(bytes), ignored);
      return true;
    }

    asio::ip::tcp::socket socket;
    FakeRpcServer& server;
    RecordDecoder decoder;
    std::array<char, 65536> buffer{};
  };

  void Accept() {
    acceptor_.async_accept([this](const asio::error_code& error, asio::ip::tcp::socket socket) {
      if (error) return;
      connections_accepted_.fetch_add(1);
      auto session = std::make_shared<Session>(std::move(socket), *this);
      sessions_.push_back(session);  // on the io thread only, like every use of sessions_
      session->Read();
      Accept();
    });
  }

  Handler handler_;
  asio::io_context io_context_;
  asio::ip::tcp::acceptor acceptor_;
  std::atomic<int> connections_accepted_{0};
  std::vector<std::weak_ptr<Session>> sessions_;  // touched on the io thread only
  std::thread thread_;
};

}  // namespace xtreemfs::rpc::testing
