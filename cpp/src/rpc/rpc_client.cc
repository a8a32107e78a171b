#include "rpc/rpc_client.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <deque>
#include <limits>
#include <future>
#include <optional>
#include <unordered_map>
#include <vector>

#include <linux/futex.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <cerrno>

#include <asio.hpp>
#include <asio/ssl.hpp>

#include "rpc/wait_notice.h"

namespace xtreemfs::rpc {

std::string ServiceAddress::ToString() const {
  if (host.find(':') != std::string::npos) {
    return "[" + host + "]:" + std::to_string(port);
  }
  return host + ":" + std::to_string(port);
}

std::string ServiceAddress::ToUrl() const {
  return std::string(SchemeName(scheme)) + "://" + ToString();
}

namespace {

// The answer of a call with CallOptions::errno_as_value whose server answered ERRNO `error`.
CallResponse ErrnoAnswerOf(const RpcError& error) {
  CallResponse answer;
  answer.errno_answer = error.posix_errno();
  answer.errno_message = error.message();
  return answer;
}

// Hands `received_bytes` of one read to `decoder`: first what the read put at `target` (the data
// segment being received, DataTarget), then the rest, which it put into `read_buffer`.
void Decode(RecordDecoder& decoder, const RecordDecoder::Target& target, const char* read_buffer,
            std::size_t received_bytes) {
  const std::size_t into_record = std::min(received_bytes, target.length_bytes);
  if (into_record > 0) decoder.DataReceived(into_record);
  if (received_bytes > into_record) decoder.Feed(read_buffer, received_bytes - into_record);
}

// One caller waiting for its answer, or (with `done`) an asynchronous call's completion. Completed
// at most once; later completions are ignored.
class PendingCall {
 public:
  PendingCall() = default;
  explicit PendingCall(CallDone done) : done_callback_(std::move(done)), async_(true) {}

  void Complete(CallResponse response) {
    if (!MarkDone([&] { response_ = std::move(response); })) return;
    Finish(std::move(response), nullptr);
  }

  void Fail(RpcError error) {
    if (!MarkDone([&] { error_ = error; })) return;
    // A fresh exception, not a copy: copies of a std::runtime_error share one reference-counted
    // message across threads.
    Finish(CallResponse(), std::make_exception_ptr(RpcError(error.kind(), error.posix_errno(),
                                                            error.message(),
                                                            error.redirect_to_service_uuid())));
  }

  bool IsAsync() const { return async_; }

  // Asynchronous calls: when the connection's deadline timer fails the call, and what its timeout
  // error names (built only when it fires). Set before the call is registered, constant after.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::uint32_t interface_id = 0;
  std::uint32_t procedure_id = 0;
  std::uint32_t timeout_ms = 0;

  // Waits until completed or the deadline passes; returns false on timeout. A futex on `answered_`,
  // not a condition variable: glibc's condition variable hands the woken caller its mutex marked
  // contended, so every metadata call paid one more futex system call after its wake-up (perf trace
  // of a create loop: futex wait, then futex wake on the mutex, before the worker could answer).
  bool WaitUntil(std::chrono::steady_clock::time_point deadline) {
    while (answered_.load(std::memory_order_acquire) == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return false;
      const auto left_ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - now).count();
      struct timespec left;
      left.tv_sec = static_cast<time_t>(left_ns / 1000000000);
      left.tv_nsec = static_cast<long>(left_ns % 1000000000);
      // Returns at once when answered_ is no longer 0 (the wake may come before the wait).
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&answered_), FUTEX_WAIT_PRIVATE, 0, &left,
              nullptr, 0);
    }
    return true;
  }

  CallResponse TakeResult(bool errno_as_value) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (error_ && errno_as_value && error_->kind() == ErrorKind::kErrno) return ErrnoAnswerOf(*error_);
    // A fresh exception for this thread: copies of a std::runtime_error share one reference-counted
    // message, whose last release may otherwise happen on the io thread.
    if (error_) {
      throw RpcError(error_->kind(), error_->posix_errno(), error_->message(),
                     error_->redirect_to_service_uuid());
    }
    return std::move(*response_);
  }

 private:
  // Completes the call once: a waiting caller gets what `store` keeps and is woken (returns false);
  // an asynchronous call returns true, and the caller then runs its callback (Finish) unlocked.
  // The completer's reference keeps `this` alive through the wake.
  template <typename Store>
  bool MarkDone(Store store) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (done_) return false;
      done_ = true;
      if (done_callback_) return true;
      store();
    }
    answered_.store(1, std::memory_order_release);
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&answered_), FUTEX_WAKE_PRIVATE, 1, nullptr,
            nullptr, 0);  // one caller waits on a call
    return false;
  }

  void Finish(CallResponse response, std::exception_ptr error) {
    CallDone done = std::move(done_callback_);
    done(std::move(response), error);
  }

  std::mutex mutex_;
  bool done_ = false;
  // 1 once a synchronous call's result is stored (the futex its caller sleeps on in WaitUntil).
  std::atomic<std::uint32_t> answered_{0};
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t), "a futex word");
  std::optional<CallResponse> response_;
  std::optional<RpcError> error_;
  CallDone done_callback_;  // set for asynchronous calls; moved out by the one completion
  const bool async_ = false;
};

RpcError TimeoutError(const ServiceAddress& address, std::uint32_t interface_id,
                      std::uint32_t procedure_id, std::uint32_t timeout_ms) {
  return RpcError::Of(ErrorKind::kTimeout, "no response from " + address.ToString() + " within " +
                                               std::to_string(timeout_ms) + " ms (interface " +
                                               std::to_string(interface_id) + ", procedure " +
                                               std::to_string(procedure_id) + ")");
}

// The unsent bytes of `record` from `skip` on as iovecs (one or two: head, then the referenced data);
// returns how many it wrote to `out`.
std::size_t AddPieces(const OutgoingRecord& record, std::size_t skip, struct iovec* out) {
  std::size_t count = 0;
  if (skip < record.head.size()) {
    out[count].iov_base = const_cast<char*>(record.head.data() + skip);
    out[count].iov_len = record.head.size() - skip;
    ++count;
    skip = 0;
  } else {
    skip -= record.head.size();
  }
  if (skip < record.data.size()) {
    out[count].iov_base = const_cast<char*>(record.data.data() + skip);
    out[count].iov_len = record.data.size() - skip;
    ++count;
  }
  return count;
}

}  // namespace

// One TCP connection (TLS over it when tls_context is set) and the calls waiting on it. Socket
// state is touched only on the io thread; the pending-call table is shared with callers and
// guarded by pending_mutex_.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(asio::io_context& io_context, ServiceAddress address, const RpcClientOptions& options,
             asio::ssl::context* tls_context)
      : io_context_(io_context),
        address_(std::move(address)),
        options_(options),
        resolver_(io_context),
        socket_(io_context),
        connect_timer_(io_context),
        deadline_timer_(io_context),
        decoder_(options.frame_limits) {
    spare_pending_nodes_.reserve(kSparePendingNodesMax);
    if (tls_context != nullptr) {
      tls_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket&>>(socket_, *tls_context);
    }
  }

  // Registers a call, then sends its encoded record (see TrySendOnCallerThread) or queues it for the
  // io thread, which connects first if this is the connection's first use. Registered before the
  // bytes are sent, so an early answer always finds the call. Throws when the connection is already
  // closed (the caller then uses a fresh one) or too many calls wait.
  void Start(std::uint64_t call_id, std::shared_ptr<PendingCall> call,
             std::shared_ptr<const OutgoingRecord> record) {
    bool arm_deadline = false;
    {
      std::lock_guard<std::mutex> lock(pending_mutex_);
      if (closed_) {
        throw RpcError::Of(ErrorKind::kTransport, "connection to " + address_.ToString() + " closed");
      }
      if (pending_.size() >= options_.pending_calls_per_connection_max) {
        throw RpcError::Of(ErrorKind::kOverloaded,
                           std::to_string(pending_.size()) + " calls already wait on " +
                               address_.ToString());
      }
      // The deadline timer is set to the earliest deadline of the asynchronous calls; only a call
      // due before it moves the timer (the io thread's work): calls of equal timeouts, one after
      // the other, never do.
      if (call->IsAsync() && call->deadline < armed_deadline_) {
        armed_deadline_ = call->deadline;
        arm_deadline = true;
      }
      if (spare_pending_nodes_.empty()) {
        pending_.emplace(call_id, std::move(call));
      } else {
        PendingTable::node_type node = std::move(spare_pending_nodes_.back());
        spare_pending_nodes_.pop_back();
        node.key() = call_id;
        node.mapped() = std::move(call);
        pending_.insert(std::move(node));
      }
    }
    if (arm_deadline) asio::post(io_context_, [self = shared_from_this()] { self->ArmDeadlineTimer(); });
    {
      std::lock_guard<std::mutex> lock(batch_mutex_);
      batch_.push_back(QueuedRecord{call_id, std::move(record), 0});
    }
    SendBatch();
  }

  // The caller of a synchronous call gave up waiting (its timeout): the call is forgotten and its
  // record withdrawn (WithdrawRecord). Returns once nothing more of the record can be written, so a
  // retry the caller sends next, here or on a new connection, is never overtaken by this attempt's
  // bytes.
  void Abandon(std::uint64_t call_id) {
    {
      std::lock_guard<std::mutex> lock(pending_mutex_);
      pending_.erase(call_id);
    }
    if (WithdrawRecord(call_id)) return;
    if (io_context_.get_executor().running_in_this_thread()) {
      CloseOnIoThread(CutRecordReason());
      return;
    }
    std::promise<void> closed;
    asio::post(io_context_, [self = shared_from_this(), &closed] {
      self->CloseOnIoThread(self->CutRecordReason());
      closed.set_value();
    });
    closed.get_future().wait();
  }

  bool IsClosed() {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    return closed_;
  }

  std::size_t PendingCount() {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    return pending_.size();
  }

  // Closes the socket and fails every waiting call. Safe from any thread.
  void Close(const std::string& reason) {
    asio::post(io_context_, [self = shared_from_this(), reason] { self->CloseOnIoThread(reason); });
  }

 private:
  enum class State { kIdle, kConnecting, kConnected, kClosed };

  // On a connected plain-TCP connection with nothing queued or being written, sends the records of
  // batch_ from the caller's thread with a non-blocking send: no hand-off to the io thread, which on a
  // busy machine costs a wake-up per call (perf: a quarter of the mount's CPU went to futex waits and
  // switches). Callers combine: a record goes into batch_, and whoever holds send_mutex_ sends
  // everything there in one sendmsg, so a caller that finds another one sending leaves its record to
  // it and returns at once instead of sleeping on the lock (perf: futex waits on this lock, each a
  // task switch), and requests that arrive together reach the server in one segment. Whatever the
  // socket does not take at once (full buffer, an error) is queued for the io thread, which writes the
  // rest or closes the connection on the error; the io thread is told here.
  //
  // No record is left in batch_: a holder of send_mutex_ empties it, and looks again after unlocking;
  // a caller that could not lock added its record before trying, so either it or the holder (on its
  // look after unlocking) finds it. Every holder of send_mutex_ ends with this (WithdrawRecord too).
  void SendBatch() {
    bool io_thread_needed = false;
    while (send_mutex_.try_lock()) {
      io_thread_needed |= SendBatchHoldingSendMutex();
      send_mutex_.unlock();
      std::lock_guard<std::mutex> lock(batch_mutex_);
      if (batch_.empty()) break;
    }
    if (io_thread_needed) {
      asio::post(io_context_, [self = shared_from_this()] { self->SendOnIoThread(); });
    }
  }

  // Takes the record of a call that ended without its answer (timed out) out of what is still to be
  // sent, so a stale request never reaches the server after the caller moved on (a retry, a later
  // write of the same range). Returns true when that is done: the record was sent completely already
  // (nothing left to stop; a retry on this connection follows it in order), or none of it was sent
  // (removed: never sent). Returns false when it was partly written: the rest cannot be withheld
  // without desynchronising the stream, so the caller must close the connection, and the server drops
  // the cut record unread. Either way the record's data owner (borrowed write buffers) is released
  // without waiting for a server that may never read again.
  bool WithdrawRecord(std::uint64_t call_id) {
    bool begun = false;
    {
      // send_mutex_ first: no caller is in the middle of sending records taken out of batch_.
      std::lock_guard<std::mutex> sending(send_mutex_);
      std::lock_guard<std::mutex> writing(write_mutex_);
      {
        std::lock_guard<std::mutex> lock(batch_mutex_);
        auto found = std::find_if(batch_.begin(), batch_.end(),
                                  [&](const QueuedRecord& queued) { return queued.call_id == call_id; });
        if (found != batch_.end()) batch_.erase(found);
      }
      auto found = std::find_if(write_queue_.begin(), write_queue_.end(),
                                [&](const QueuedRecord& queued) { return queued.call_id == call_id; });
      if (found != write_queue_.end()) {
        // Only the front can be under way: the io thread writes it (writing_), or a caller's send
        // left part of it.
        begun = found == write_queue_.begin() && (writing_ || found->sent_bytes > 0);
        if (!begun) write_queue_.erase(found);
      }
    }
    SendBatch();  // records other callers left in batch_ while this held send_mutex_
    return !begun;
  }

  // Sends what batch_ holds (the caller holds send_mutex_); returns true when records were queued for
  // the io thread instead (not connected yet, the io thread writing, a partial send).
  bool SendBatchHoldingSendMutex() {
    // sending_ and batch_ trade their buffers: both keep their capacity (a fresh vector per batch was
    // a malloc and free per send).
    std::vector<QueuedRecord>& records = sending_;
    records.clear();
    {
      std::lock_guard<std::mutex> lock(batch_mutex_);
      records.swap(batch_);
    }
    if (records.empty()) return false;
    struct ClearOnExit {
      std::vector<QueuedRecord>& records;
      ~ClearOnExit() { records.clear(); }  // the records' references go now, not at the next batch
    } clear_on_exit{records};
    {
      std::lock_guard<std::mutex> lock(write_mutex_);
      if (!direct_send_ || writing_ || !write_queue_.empty()) {
        for (auto& queued : records) write_queue_.push_back(std::move(queued));
        return true;
      }
    }
    // Only the holder of send_mutex_ writes the socket now (the io thread writes only what is queued,
    // and nothing is), and a close waits for send_mutex_: the descriptor stays open while it sends.
    std::size_t first = 0;        // the first record not completely sent
    std::size_t first_sent = 0;   // bytes of it sent
    while (first < records.size()) {
      constexpr std::size_t kIovecsMax = 64;  // two per record at most
      struct iovec iov[kIovecsMax];
      std::size_t count = 0;
      for (std::size_t i = first; i < records.size() && count + 2 <= kIovecsMax; ++i) {
        count += AddPieces(*records[i].record, i == first ? first_sent : 0, iov + count);
      }
      struct msghdr message {};
      message.msg_iov = iov;
      message.msg_iovlen = count;
      const ssize_t written = ::sendmsg(socket_.native_handle(), &message, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) break;  // EAGAIN or an error: the io thread's write goes on or fails the connection
      std::size_t left = static_cast<std::size_t>(written);
      while (left > 0) {
        const std::size_t rest = records[first].record->SizeBytes() - first_sent;
        if (left < rest) {
          first_sent += left;
          left = 0;
        } else {
          left -= rest;
          ++first;
          first_sent = 0;
        }
      }
    }
    if (first == records.size()) return false;
    std::lock_guard<std::mutex> lock(write_mutex_);
    for (std::size_t i = first; i < records.size(); ++i) {
      records[i].sent_bytes = i == first ? first_sent : 0;
      write_queue_.push_back(std::move(records[i]));
    }
    return true;
  }

  // Why the other calls of a connection closed for a record cut short (WithdrawRecord) fail.
  std::string CutRecordReason() const {
    return "connection to " + address_.ToString() +
           " reset: a call timed out in the middle of sending its request";
  }

  // Sets the deadline timer to armed_deadline_ (io thread; the timer is touched there only).
  void ArmDeadlineTimer() {
    std::chrono::steady_clock::time_point deadline;
    {
      std::lock_guard<std::mutex> lock(pending_mutex_);
      deadline = armed_deadline_;
    }
    if (state_ == State::kClosed || deadline == std::chrono::steady_clock::time_point::max()) return;
    deadline_timer_.expires_at(deadline);
    deadline_timer_.async_wait([self = shared_from_this()](const asio::error_code& error) {
      if (!error) self->FailOverdueCalls();
    });
  }

  // Fails every asynchronous call past its deadline with a timeout, and sets the timer to the
  // earliest deadline left (none: unarmed until the next call).
  void FailOverdueCalls() {
    const auto now = std::chrono::steady_clock::now();
    std::vector<std::shared_ptr<PendingCall>> overdue;
    std::vector<std::uint64_t> overdue_call_ids;
    {
      std::lock_guard<std::mutex> lock(pending_mutex_);
      armed_deadline_ = std::chrono::steady_clock::time_point::max();
      for (auto entry = pending_.begin(); entry != pending_.end();) {
        const std::shared_ptr<PendingCall>& call = entry->second;
        if (call->IsAsync() && call->deadline <= now) {
          overdue.push_back(call);
          overdue_call_ids.push_back(entry->first);
          entry = pending_.erase(entry);
          continue;
        }
        if (call->IsAsync()) armed_deadline_ = std::min(armed_deadline_, call->deadline);
        ++entry;
      }
    }
    // Withdrawn before the calls fail: their callers may retry at once, and no byte of a stale record
    // may be written after that (see Abandon).
    bool withdrawn = true;
    for (std::uint64_t call_id : overdue_call_ids) withdrawn &= WithdrawRecord(call_id);
    if (!withdrawn) CloseOnIoThread(CutRecordReason());
    for (const auto& call : overdue) {
      call->Fail(TimeoutError(address_, call->interface_id, call->procedure_id, call->timeout_ms));
    }
    ArmDeadlineTimer();
  }

  // The io thread's part of sending: connects on first use, else writes what is queued.
  void SendOnIoThread() {
    if (state_ == State::kClosed) {
      return;  // CloseOnIoThread failed the call already
    }
    if (state_ == State::kIdle) {
      StartConnect();
    } else if (state_ == State::kConnected) {
      WriteNext();
    }
  }

  void StartConnect() {
    state_ = State::kConnecting;
    connect_timer_.expires_after(std::chrono::milliseconds(options_.connect_timeout_ms));
    connect_timer_.async_wait([self = shared_from_this()](const asio::error_code& error) {
      if (!error && self->state_ == State::kConnecting) {
        self->CloseOnIoThread("cannot connect to " + self->address_.ToString() + " within " +
                              std::to_string(self->options_.connect_timeout_ms) + " ms");
      }
    });
    resolver_.async_resolve(
        address_.host, std::to_string(address_.port),
        [self = shared_from_this()](const asio::error_code& error,
                                    asio::ip::tcp::resolver::results_type endpoints) {
          if (self->state_ != State::kConnecting) return;
          if (error) {
            self->CloseOnIoThread("cannot resolve " + self->address_.ToString() + ": " +
                                  error.message());
            return;
          }
          asio::async_connect(self->socket_, endpoints,
                              [self](const asio::error_code& connect_error,
                                     const asio::ip::tcp::endpoint&) {
                                self->OnConnected(connect_error);
                              });
        });
  }

  void OnConnected(const asio::error_code& error) {
    if (state_ != State::kConnecting) return;
    if (error) {
      CloseOnIoThread("cannot connect to " + address_.ToString() + ": " + error.message());
      return;
    }
    asio::error_code ignored;
    socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
    if (tls_ != nullptr) {
      StartHandshake();
      return;
    }
    connect_timer_.cancel();
    state_ = State::kConnected;
    {
      std::lock_guard<std::mutex> lock(write_mutex_);
      direct_send_ = true;  // plain TCP only: a TLS stream is written by the io thread alone
    }
    ReadMore();
    WriteNext();
  }

  // TLS: the server's certificate must chain to the trusted CA and name the host or IP address
  // dialled (as the Java client checks); the connect timeout covers the handshake too.
  void StartHandshake() {
    tls_->set_verify_mode(asio::ssl::verify_peer);
    tls_->set_verify_callback(asio::ssl::host_name_verification(address_.host));
    asio::error_code not_an_address;
    asio::ip::make_address(address_.host, not_an_address);
    if (not_an_address) {  // SNI takes host names only
      SSL_set_tlsext_host_name(tls_->native_handle(), address_.host.c_str());
    }
    tls_->async_handshake(asio::ssl::stream_base::client,
                          [self = shared_from_this()](const asio::error_code& error) {
                            if (self->state_ != State::kConnecting) return;
                            if (error) {
                              self->CloseOnIoThread("TLS handshake with " + self->address_.ToString() +
                                                    " failed: " + error.message());
                              return;
                            }
                            self->connect_timer_.cancel();
                            self->state_ = State::kConnected;
                            self->ReadMore();
                            self->WriteNext();
                          });
  }

  void WriteNext() {
    QueuedRecord next;
    {
      std::lock_guard<std::mutex> lock(write_mutex_);
      if (state_ != State::kConnected || writing_ || write_queue_.empty()) return;
      writing_ = true;
      next = write_queue_.front();
    }
    auto on_written = [self = shared_from_this(), record = next.record](const asio::error_code& error,
                                                                        std::size_t) {
      {
        std::lock_guard<std::mutex> lock(self->write_mutex_);
        self->writing_ = false;
        // A close that ran between the write's completion and this handler (the peer's close seen
        // by the read in the same io round) emptied the queue and failed every call; popping now
        // would destroy a record twice.
        if (self->state_ == State::kClosed) return;
        if (!error) self->write_queue_.pop_front();
      }
      if (error) {
        self->CloseOnIoThread("cannot send to " + self->address_.ToString() + ": " +
                              error.message());
        return;
      }
      self->WriteNext();
    };
    struct iovec pieces[2] = {};
    const std::size_t piece_count = AddPieces(*next.record, next.sent_bytes, pieces);
    std::array<asio::const_buffer, 2> rest{
        asio::const_buffer(pieces[0].iov_base, pieces[0].iov_len), asio::const_buffer()};
    if (piece_count == 2) rest[1] = asio::const_buffer(pieces[1].iov_base, pieces[1].iov_len);
    if (tls_ != nullptr) {
      asio::async_write(*tls_, rest, std::move(on_written));
    } else {
      asio::async_write(socket_, rest, std::move(on_written));
    }
  }

  // Receives into the data segment of the record being received (its own string: no copy) and, past
  // its end, into read_buffer_ for the decoder: one read, one copy at most of a data byte (issue 10).
  // TLS reads fill only the first buffer, which the same accounting handles.
  void ReadMore() {
    const RecordDecoder::Target target = decoder_.DataTarget();
    auto on_read = [self = shared_from_this(), target](const asio::error_code& error,
                                                       std::size_t length_bytes) {
      if (self->state_ != State::kConnected) return;
      if (error) {
        self->CloseOnIoThread("connection to " + self->address_.ToString() + " closed: " +
                              error.message());
        return;
      }
      try {
        Decode(self->decoder_, target, self->read_buffer_.data(), length_bytes);
        while (std::optional<Record> record = self->decoder_.Next()) {
          self->Dispatch(std::move(*record));
        }
      } catch (const MalformedRecordError& malformed) {
        self->CloseOnIoThread("malformed response from " + self->address_.ToString() + ": " +
                              malformed.what());
        return;
      }
      self->ReadMore();
    };
    const std::array<asio::mutable_buffer, 2> buffers{asio::buffer(target.bytes, target.length_bytes),
                                                       asio::buffer(read_buffer_)};
    if (tls_ != nullptr) {
      tls_->async_read_some(buffers, std::move(on_read));
    } else {
      socket_.async_read_some(buffers, std::move(on_read));
    }
  }

  void Dispatch(Record record) {
    std::shared_ptr<PendingCall> call;
    {
      std::lock_guard<std::mutex> lock(pending_mutex_);
      auto found = pending_.find(record.header.call_id());
      if (found == pending_.end()) {
        return;  // the caller timed out and left; the late answer is dropped
      }
      PendingTable::node_type node = pending_.extract(found);
      call = std::move(node.mapped());
      if (spare_pending_nodes_.size() < kSparePendingNodesMax) spare_pending_nodes_.push_back(std::move(node));
    }
    if (record.header.has_error_response() &&
        record.header.error_response().error_type() != ERROR_TYPE_NONE) {
      call->Fail(RpcErrorFromResponse(record.header.error_response()));
      return;
    }
    call->Complete(CallResponse{std::move(record.message_bytes), std::move(record.data)});
  }

  void CloseOnIoThread(const std::string& reason) {
    if (state_ == State::kClosed) return;
    state_ = State::kClosed;
    asio::error_code ignored;
    connect_timer_.cancel();
    deadline_timer_.cancel();
    resolver_.cancel();
    const bool calls_waiting = PendingCount() > 0;
    {
      // Under the send lock: no caller is inside sendmsg() on the descriptor being closed.
      std::lock_guard<std::mutex> sending(send_mutex_);
      std::lock_guard<std::mutex> lock(write_mutex_);
      direct_send_ = false;
      // With calls under way, a reset instead of a graceful close: what the kernel still holds of
      // their records is dropped instead of reaching the server after the calls failed here and were
      // retried elsewhere (a stale write landing after a later one of the same bytes).
      if (calls_waiting || !write_queue_.empty()) {
        socket_.set_option(asio::socket_base::linger(true, 0), ignored);
      }
      socket_.close(ignored);
      write_queue_.clear();
    }
    {
      std::lock_guard<std::mutex> lock(batch_mutex_);
      batch_.clear();  // their calls are failed below
    }
    std::unordered_map<std::uint64_t, std::shared_ptr<PendingCall>> failed;
    {
      std::lock_guard<std::mutex> lock(pending_mutex_);
      closed_ = true;
      armed_deadline_ = std::chrono::steady_clock::time_point::max();
      failed.swap(pending_);
    }
    for (auto& [call_id, call] : failed) {
      call->Fail(RpcError::Of(ErrorKind::kTransport, reason));
    }
  }

  asio::io_context& io_context_;
  const ServiceAddress address_;
  const RpcClientOptions options_;
  asio::ip::tcp::resolver resolver_;
  asio::ip::tcp::socket socket_;
  std::unique_ptr<asio::ssl::stream<asio::ip::tcp::socket&>> tls_;  // over socket_; null: plain
  asio::steady_timer connect_timer_;
  asio::steady_timer deadline_timer_;  // fails overdue asynchronous calls (FailOverdueCalls)
  RecordDecoder decoder_;
  std::array<char, 64 * 1024> read_buffer_{};
  State state_ = State::kIdle;
  // A record to send and how much of it the socket took already (a caller's send may be partial).
  struct QueuedRecord {
    std::uint64_t call_id = 0;  // the call the record belongs to (WithdrawRecord finds it by this)
    std::shared_ptr<const OutgoingRecord> record;
    std::size_t sent_bytes = 0;
  };
  // Held by the one caller sending on its own thread (TrySendOnCallerThread), and by a close; taken
  // before write_mutex_ and batch_mutex_.
  std::mutex send_mutex_;
  // Records of callers waiting to be sent by the holder of send_mutex_. Guarded by batch_mutex_.
  std::mutex batch_mutex_;
  std::vector<QueuedRecord> batch_;
  // The records being sent by the holder of send_mutex_ (empty otherwise). Guarded by send_mutex_.
  std::vector<QueuedRecord> sending_;
  // Guards the sending side, shared by the io thread and callers sending on their own thread.
  std::mutex write_mutex_;
  // Connected over plain TCP and not closed: callers may send themselves. Guarded by write_mutex_.
  bool direct_send_ = false;
  // An io-thread write is in progress (its record is write_queue_.front()). Guarded by write_mutex_.
  bool writing_ = false;
  // Bounded by pending_calls_per_connection_max: every queued record belongs to a registered call
  // (a call that ends without its answer withdraws its record, WithdrawRecord), or to a call whose
  // record is being written (front, writing_).
  // Guarded by write_mutex_.
  std::deque<QueuedRecord> write_queue_;

  using PendingTable = std::unordered_map<std::uint64_t, std::shared_ptr<PendingCall>>;
  // Nodes of answered calls kept for the next calls (a node allocated per call on the caller's thread
  // and freed on the io thread was a malloc and free per call, across threads). Guarded by
  // pending_mutex_, at most kSparePendingNodesMax.
  static constexpr std::size_t kSparePendingNodesMax = 64;
  std::vector<PendingTable::node_type> spare_pending_nodes_;

  std::mutex pending_mutex_;
  bool closed_ = false;  // guarded by pending_mutex_; once true, never false again
  // The earliest deadline of the pending asynchronous calls as the timer knows it (max: unarmed);
  // never later than any pending asynchronous call's deadline. Guarded by pending_mutex_.
  std::chrono::steady_clock::time_point armed_deadline_ = std::chrono::steady_clock::time_point::max();
  PendingTable pending_;
};

// A plain-TCP connection of one thread for its synchronous calls (CallOptions::callers_own_connection):
// the caller sends its record and receives the answer itself, so the answer takes no hop through the
// io thread (session 15's perf of a create: the io thread's epoll wake-up, decode and futex hand-over
// to the waiting caller were 15-20 % of the mount's work per metadata call). It carries one call at
// a time, so the next record in the stream is always the answer of the call under way; a call that
// ends without its answer (timeout, error) closes the connection, so no late answer or stale
// request byte can mix with the next call, which connects anew.
class OwnConnection {
 public:
  OwnConnection(ServiceAddress address, const RpcClientOptions& options)
      : address_(std::move(address)), options_(options), decoder_(options.frame_limits) {
    // A numeric address only: a name lookup (getaddrinfo) could block past the call's deadline. A
    // host name's calls take the shared connection, whose resolver is bounded by its timer.
    struct addrinfo hints {};
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    hints.ai_socktype = SOCK_STREAM;
    struct addrinfo* found = nullptr;
    if (::getaddrinfo(address_.host.c_str(), std::to_string(address_.port).c_str(), &hints, &found) == 0) {
      std::memcpy(&endpoint_, found->ai_addr, found->ai_addrlen);
      endpoint_length_ = found->ai_addrlen;
      ::freeaddrinfo(found);
    }
  }
  ~OwnConnection() { Close(false); }
  OwnConnection(const OwnConnection&) = delete;
  OwnConnection& operator=(const OwnConnection&) = delete;

  bool Usable() const { return endpoint_length_ > 0; }

  // Sends `record` (call id `call_id`) and returns its answer; throws RpcError: the server's error,
  // kTransport (connect, send, a closed or malformed stream) or kTimeout at `deadline`. Opens the
  // connection first when it is closed; `opened` counts that.
  CallResponse Call(std::uint64_t call_id, const OutgoingRecord& record, const CallRequest& request,
                    const CallOptions& options, std::chrono::steady_clock::time_point deadline,
                    std::atomic<std::uint64_t>& opened) {
    // Nobody reads an idle connection (the shared one's io thread sees a server's close at once), so
    // one idle for a while is checked before use: a server that closed it (a restart) would otherwise
    // fail this call's attempt, which then waits for its retry.
    if (descriptor_ >= 0 && std::chrono::steady_clock::now() - last_answer_ > kIdleCheckAfter &&
        ClosedByPeer()) {
      Close(false);
    }
    if (descriptor_ < 0) Connect(request, options, deadline, opened);
    Send(record, request, options, deadline);
    NoteWait();  // a FUSE reader may hand its place on for the round trip (wait_notice.h)
    Record answer = Receive(call_id, request, options, deadline);
    last_answer_ = std::chrono::steady_clock::now();
    if (answer.header.has_error_response() &&
        answer.header.error_response().error_type() != ERROR_TYPE_NONE) {
      RpcError error = RpcErrorFromResponse(answer.header.error_response());
      if (options.errno_as_value && error.kind() == ErrorKind::kErrno) return ErrnoAnswerOf(error);
      throw error;
    }
    return CallResponse{std::move(answer.message_bytes), std::move(answer.data)};
  }

 private:
  // Milliseconds to `deadline` for poll(), rounded up (0: due).
  static int MillisecondsLeft(std::chrono::steady_clock::time_point deadline) {
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return 0;
    const auto left_ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    return static_cast<int>(std::min<long long>(left_ms, std::numeric_limits<int>::max()));
  }

  static constexpr std::chrono::milliseconds kIdleCheckAfter{1000};

  // Between calls nothing may arrive: anything readable is the server's close (or a broken stream).
  bool ClosedByPeer() {
    struct pollfd ready {};
    ready.fd = descriptor_;
    ready.events = POLLIN | POLLRDHUP;
    return ::poll(&ready, 1, 0) != 0;
  }

  // Waits until the descriptor reports `events` or `deadline` passes; false at the deadline.
  bool Await(short events, std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      struct pollfd ready {};
      ready.fd = descriptor_;
      ready.events = events;
      const int waited = ::poll(&ready, 1, MillisecondsLeft(deadline));
      if (waited > 0) return true;
      if (waited < 0 && errno == EINTR) continue;
      if (waited == 0 && std::chrono::steady_clock::now() < deadline) continue;  // rounded early
      return waited != 0;  // a poll error is left to the next send or receive to report
    }
  }

  // Closes the socket; `reset`: with a reset, so that what the kernel still holds of a request that
  // ended without its answer never reaches the server after the caller moved on (its retry).
  void Close(bool reset) {
    if (descriptor_ < 0) return;
    if (reset) {
      struct linger abort_close {1, 0};
      ::setsockopt(descriptor_, SOL_SOCKET, SO_LINGER, &abort_close, sizeof abort_close);
    }
    ::close(descriptor_);
    descriptor_ = -1;
    decoder_ = RecordDecoder(options_.frame_limits);
  }

  [[noreturn]] void Fail(ErrorKind kind, const std::string& message) {
    Close(true);
    throw RpcError::Of(kind, message);
  }

  [[noreturn]] void FailTimeout(const CallRequest& request, const CallOptions& options) {
    Close(true);
    throw TimeoutError(address_, request.interface_id, request.procedure_id, options.timeout_ms);
  }

  void Connect(const CallRequest& request, const CallOptions& options,
               std::chrono::steady_clock::time_point deadline, std::atomic<std::uint64_t>& opened) {
    const int family = reinterpret_cast<const struct sockaddr*>(&endpoint_)->sa_family;
    descriptor_ = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (descriptor_ < 0) {
      throw RpcError::Of(ErrorKind::kTransport, "cannot open a socket to " + address_.ToString() + ": " +
                                                    std::strerror(errno));
    }
    opened.fetch_add(1);
    const int on = 1;
    ::setsockopt(descriptor_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    const auto connect_deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.connect_timeout_ms);
    if (::connect(descriptor_, reinterpret_cast<const struct sockaddr*>(&endpoint_), endpoint_length_) == 0) {
      return;
    }
    if (errno != EINPROGRESS && errno != EINTR) {
      Fail(ErrorKind::kTransport, "cannot connect to " + address_.ToString() + ": " + std::strerror(errno));
    }
    if (!Await(POLLOUT, std::min(deadline, connect_deadline))) {
      if (deadline <= connect_deadline) FailTimeout(request, options);
      Fail(ErrorKind::kTransport, "cannot connect to " + address_.ToString() + " within " +
                                      std::to_string(options_.connect_timeout_ms) + " ms");
    }
    int error = 0;
    socklen_t error_length = sizeof error;
    ::getsockopt(descriptor_, SOL_SOCKET, SO_ERROR, &error, &error_length);
    if (error != 0) {
      Fail(ErrorKind::kTransport, "cannot connect to " + address_.ToString() + ": " + std::strerror(error));
    }
  }

  void Send(const OutgoingRecord& record, const CallRequest& request, const CallOptions& options,
            std::chrono::steady_clock::time_point deadline) {
    std::size_t sent_bytes = 0;
    while (sent_bytes < record.SizeBytes()) {
      struct iovec pieces[2] = {};
      struct msghdr message {};
      message.msg_iov = pieces;
      message.msg_iovlen = AddPieces(record, sent_bytes, pieces);
      const ssize_t written = ::sendmsg(descriptor_, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (written > 0) {
        sent_bytes += static_cast<std::size_t>(written);
      } else if (written < 0 && errno == EINTR) {
        continue;
      } else if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (!Await(POLLOUT, deadline)) FailTimeout(request, options);
      } else {
        Fail(ErrorKind::kTransport, "cannot send to " + address_.ToString() + ": " +
                                        std::strerror(written < 0 ? errno : EPIPE));
      }
    }
  }

  // Reads until the decoder has a record (into the data segment being received, then read_buffer_,
  // as Connection::ReadMore does); that record answers this call, the only one on the connection.
  Record Receive(std::uint64_t call_id, const CallRequest& request, const CallOptions& options,
                 std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      if (!Await(POLLIN, deadline)) FailTimeout(request, options);
      const RecordDecoder::Target target = decoder_.DataTarget();
      struct iovec buffers[2] = {{target.bytes, target.length_bytes},
                                 {read_buffer_.data(), read_buffer_.size()}};
      const ssize_t length_bytes = ::readv(descriptor_, buffers, 2);
      if (length_bytes < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (length_bytes <= 0) {
        Fail(ErrorKind::kTransport,
             "connection to " + address_.ToString() + " closed: " +
                 (length_bytes == 0 ? std::string("end of file") : std::string(std::strerror(errno))));
      }
      try {
        Decode(decoder_, target, read_buffer_.data(), static_cast<std::size_t>(length_bytes));
        if (std::optional<Record> record = decoder_.Next()) {
          // Nothing may follow the one answer; a record of another call is a broken stream.
          if (record->header.call_id() != call_id || decoder_.BufferedBytes() > 0 || decoder_.Next()) {
            Fail(ErrorKind::kTransport, "unexpected response from " + address_.ToString() +
                                            " on a connection of one call");
          }
          return std::move(*record);
        }
      } catch (const MalformedRecordError& malformed) {
        Fail(ErrorKind::kTransport,
             "malformed response from " + address_.ToString() + ": " + malformed.what());
      }
    }
  }

  const ServiceAddress address_;
  const RpcClientOptions options_;
  struct sockaddr_storage endpoint_ {};
  socklen_t endpoint_length_ = 0;  // 0: not a numeric address (Usable() false)
  int descriptor_ = -1;            // -1: closed
  std::chrono::steady_clock::time_point last_answer_{};
  RecordDecoder decoder_;
  std::array<char, 16 * 1024> read_buffer_{};
};

namespace {

std::unique_ptr<asio::ssl::context> MakeTlsContext(const TlsOptions& tls) {
  if (!tls.enabled()) return nullptr;
  if (tls.certificate_file.empty() != tls.private_key_file.empty()) {
    throw RpcError::Errno(EINVAL, "a TLS client certificate needs both its file and its private key");
  }
  auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
  context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1);
  auto load = [](const std::string& what, const std::string& file, auto&& loader) {
    asio::error_code error;
    loader(error);
    if (error) {
      throw RpcError::Errno(EINVAL, "TLS " + what + " " + file + " unusable: " + error.message());
    }
  };
  load("CA file", tls.authority_file,
       [&](asio::error_code& error) { context->load_verify_file(tls.authority_file, error); });
  if (!tls.certificate_file.empty()) {
    load("certificate", tls.certificate_file, [&](asio::error_code& error) {
      context->use_certificate_chain_file(tls.certificate_file, error);
    });
    load("private key", tls.private_key_file, [&](asio::error_code& error) {
      context->use_private_key_file(tls.private_key_file, asio::ssl::context::pem, error);
    });
  }
  return context;
}

}  // namespace

RpcClient::RpcClient(RpcClientOptions options)
    : options_(options), tls_context_(MakeTlsContext(options.tls)) {
  if (options_.io_threads == 0) {
    throw RpcError::Errno(EINVAL, "an RPC client needs at least 1 io thread, got 0");
  }
  for (std::uint32_t index = 0; index < options_.io_threads; ++index) {
    io_contexts_.push_back(std::make_unique<asio::io_context>(1));
  }
  for (auto& io_context : io_contexts_) {
    io_threads_.emplace_back([context = io_context.get()] {
      auto work = asio::make_work_guard(*context);
      context->run();
    });
  }
}

RpcClient::~RpcClient() {
  {
    std::lock_guard<std::mutex> lock(connections_mutex_);
    for (auto& [address, connection] : connections_) {
      connection->Close("client is shutting down");
    }
    connections_.clear();
  }
  // The closes above are queued before the stop, and stop() lets queued handlers run no further;
  // run them first by posting the stop behind them.
  for (auto& io_context : io_contexts_) {
    asio::post(*io_context, [context = io_context.get()] { context->stop(); });
  }
  for (std::thread& io_thread : io_threads_) io_thread.join();
}

void RpcClient::RunOnIoThread(std::function<void()> task) {
  asio::post(*io_contexts_.front(), std::move(task));
}

std::size_t RpcClient::CallsWaiting() {
  std::lock_guard<std::mutex> lock(connections_mutex_);
  std::size_t waiting = 0;
  for (auto& [address, connection] : connections_) waiting += connection->PendingCount();
  return waiting;
}

std::shared_ptr<Connection> RpcClient::ConnectionTo(const ServiceAddress& address) {
  std::lock_guard<std::mutex> lock(connections_mutex_);
  auto found = connections_.find(address);
  if (found != connections_.end() && !found->second->IsClosed()) {
    return found->second;
  }
  const std::uint64_t ordinal = connections_opened_.fetch_add(1);
  auto connection = std::make_shared<Connection>(*io_contexts_[ordinal % io_contexts_.size()], address,
                                                 options_,
                                                 address.scheme == Scheme::kTls ? tls_context_.get() : nullptr);
  connections_[address] = connection;
  return connection;
}

OwnConnection* RpcClient::OwnConnectionTo(const ServiceAddress& address) {
  if (address.scheme != Scheme::kPlain) return nullptr;
  std::lock_guard<std::mutex> lock(own_connections_mutex_);
  auto key = std::make_pair(std::this_thread::get_id(), address);
  auto found = own_connections_.find(key);
  if (found == own_connections_.end()) {
    if (own_connections_.size() >= options_.own_connections_max) return nullptr;
    found = own_connections_.emplace(std::move(key), std::make_unique<OwnConnection>(address, options_)).first;
  }
  return found->second->Usable() ? found->second.get() : nullptr;
}

std::shared_ptr<const OutgoingRecord> RpcClient::EncodeCall(std::uint64_t call_id,
                                                         const CallRequest& request,
                                                         const CallOptions& options) const {
  // One header per thread, reused: a header of its own per call allocated and freed its request
  // header (a malloc and free per call). Every field is set again below (the request header cleared
  // first), and the lent credentials are let go before this returns.
  thread_local RpcHeader header;
  header.set_call_id(call_id);
  header.set_message_type(REQUEST);
  RequestHeader* request_header = header.mutable_request_header();
  request_header->Clear();
  request_header->set_interface_id(request.interface_id);
  request_header->set_procedure_id(request.procedure_id);
  // The caller's credentials are lent to the header while it is encoded, not copied into it (a copy
  // per call was malloc and free of its strings); serialising them from several threads at once is
  // safe (protobuf's cached sizes are atomic), and the header lets go of them before it is destroyed.
  struct LentCredentials {
    RequestHeader& header;
    ~LentCredentials() { header.unsafe_arena_release_user_credentials(); }
  } lent{*request_header};
  if (request.credentials != nullptr) {
    request_header->unsafe_arena_set_allocated_user_credentials(
        const_cast<UserCredentials*>(request.credentials));
  }
  request_header->set_timeout_ms(options.timeout_ms);
  if (request.request_number != 0) {
    request_header->set_client_id(request.client_id.data(), request.client_id.size());
    request_header->set_request_number(request.request_number);
  }
  const FrameLimits& limits = options_.frame_limits;
  if (request.data.size() > limits.data_bytes_max) {
    throw RpcError::Errno(EINVAL, "request data of " + std::to_string(request.data.size()) +
                                      " bytes exceeds " + std::to_string(limits.data_bytes_max));
  }
  return std::make_shared<const OutgoingRecord>(
      EncodeOutgoingRecord(header, request.message, request.data, request.data_owner));
}

namespace {

// Registers `call` on the connection `connection_to()` returns and sends `record`; a connection
// that closed between lookup and registration is replaced once. Returns the connection the call
// waits on.
template <typename ConnectionLookup>
std::shared_ptr<Connection> StartCall(ConnectionLookup connection_to, std::uint64_t call_id,
                                      const std::shared_ptr<PendingCall>& call,
                                      std::shared_ptr<const OutgoingRecord> record) {
  std::shared_ptr<Connection> connection = connection_to();
  try {
    connection->Start(call_id, call, record);
  } catch (const RpcError& error) {
    if (error.kind() != ErrorKind::kTransport) throw;
    connection = connection_to();
    connection->Start(call_id, call, std::move(record));
  }
  return connection;
}

}  // namespace

void RpcClient::RequireTransportFor(const ServiceAddress& address) const {
  if (address.scheme == Scheme::kTls && tls_context_ == nullptr) {
    // Not a transport failure (no retry could help): the client lacks what the server requires.
    throw RpcError::Of(ErrorKind::kAuthFailed,
                       "the server at " + address.ToUrl() +
                           " speaks TLS but this client has no TLS configuration; give it the "
                           "cluster's CA (--tls-ca)");
  }
}

CallResponse RpcClient::Call(const ServiceAddress& address, const CallRequest& request,
                             const CallOptions& options) {
  RequireTransportFor(address);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options.timeout_ms);
  const std::uint64_t call_id = next_call_id_.fetch_add(1);
  auto record = EncodeCall(call_id, request, options);
  if (options.callers_own_connection) {
    if (OwnConnection* own = OwnConnectionTo(address)) {
      return own->Call(call_id, *record, request, options, deadline, connections_opened_);
    }
  }

  auto call = std::make_shared<PendingCall>();
  std::shared_ptr<Connection> connection =
      StartCall([this, &address] { return ConnectionTo(address); }, call_id, call, std::move(record));
  NoteWait();  // a FUSE reader may hand its place on for the round trip (wait_notice.h)
  if (!call->WaitUntil(deadline)) {
    connection->Abandon(call_id);
    // The answer may have arrived between the wait and the unregistration; prefer it.
    if (!call->WaitUntil(std::chrono::steady_clock::now())) {
      throw TimeoutError(address, request.interface_id, request.procedure_id, options.timeout_ms);
    }
  }
  return call->TakeResult(options.errno_as_value);
}

void RpcClient::CallServiceAsync(const ServiceLookup& lookup, const CallRequest& request,
                                 const CallOptions& options, CallDone done) {
  std::shared_ptr<PendingCall> call;
  try {
    const ServiceAddress address = lookup.resolve();
    RequireTransportFor(address);
    const std::uint64_t call_id = next_call_id_.fetch_add(1);
    auto record = EncodeCall(call_id, request, options);
    call = std::make_shared<PendingCall>(std::move(done));
    call->deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.timeout_ms);
    call->interface_id = request.interface_id;
    call->procedure_id = request.procedure_id;
    call->timeout_ms = options.timeout_ms;
    // The deadline is the connection's timer's (FailOverdueCalls): no io-thread work per call.
    StartCall([this, &address] { return ConnectionTo(address); }, call_id, call, std::move(record));
  } catch (const RpcError& error) {
    if (error.kind() == ErrorKind::kTransport && lookup.forget) lookup.forget();
    if (call) {
      call->Fail(error);
    } else {
      done(CallResponse(), std::current_exception());
    }
    return;
  } catch (const std::exception& error) {
    if (call) {
      call->Fail(RpcError::Of(ErrorKind::kInternal, error.what()));
    } else {
      done(CallResponse(), std::current_exception());
    }
    return;
  }
}

}  // namespace xtreemfs::rpc
