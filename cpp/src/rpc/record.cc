#include "rpc/record.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <google/protobuf/message_lite.h>

namespace xtreemfs::rpc {
namespace {

void PutUint32BigEndian(std::uint32_t value, char* out) {
  out[0] = static_cast<char>((value >> 24) & 0xff);
  out[1] = static_cast<char>((value >> 16) & 0xff);
  out[2] = static_cast<char>((value >> 8) & 0xff);
  out[3] = static_cast<char>(value & 0xff);
}

std::uint32_t GetUint32BigEndian(const char* bytes) {
  const auto* unsigned_bytes = reinterpret_cast<const unsigned char*>(bytes);
  return (std::uint32_t{unsigned_bytes[0]} << 24) | (std::uint32_t{unsigned_bytes[1]} << 16) |
         (std::uint32_t{unsigned_bytes[2]} << 8) | std::uint32_t{unsigned_bytes[3]};
}

}  // namespace

void EncodeRecordMarker(const RecordMarker& marker, char* out) {
  PutUint32BigEndian(marker.header_length_bytes, out);
  PutUint32BigEndian(marker.message_length_bytes, out + 4);
  PutUint32BigEndian(marker.data_length_bytes, out + 8);
}

RecordMarker DecodeRecordMarker(const char* bytes) {
  RecordMarker marker;
  marker.header_length_bytes = GetUint32BigEndian(bytes);
  marker.message_length_bytes = GetUint32BigEndian(bytes + 4);
  marker.data_length_bytes = GetUint32BigEndian(bytes + 8);
  return marker;
}

std::optional<std::string> MarkerViolation(const RecordMarker& marker, const FrameLimits& limits) {
  if (marker.header_length_bytes == 0 || marker.header_length_bytes > limits.header_bytes_max) {
    return "header length " + std::to_string(marker.header_length_bytes) + " outside 1.." +
           std::to_string(limits.header_bytes_max);
  }
  if (marker.message_length_bytes > limits.message_bytes_max) {
    return "message length " + std::to_string(marker.message_length_bytes) + " outside 0.." +
           std::to_string(limits.message_bytes_max);
  }
  if (marker.data_length_bytes > limits.data_bytes_max) {
    return "data length " + std::to_string(marker.data_length_bytes) + " outside 0.." +
           std::to_string(limits.data_bytes_max);
  }
  return std::nullopt;
}

namespace {

// Marker, header and message, with room reserved for `copied_data_bytes` more: one allocation, the
// header and the message serialised straight into it (not each into a string of its own first).
std::string EncodeHead(const RpcHeader& header, const google::protobuf::MessageLite* message,
                       std::size_t data_bytes, std::size_t copied_data_bytes) {
  const std::size_t header_bytes = header.ByteSizeLong();
  const std::size_t message_bytes = message == nullptr ? 0 : message->ByteSizeLong();
  RecordMarker marker;
  marker.header_length_bytes = static_cast<std::uint32_t>(header_bytes);
  marker.message_length_bytes = static_cast<std::uint32_t>(message_bytes);
  marker.data_length_bytes = static_cast<std::uint32_t>(data_bytes);
  const std::size_t head_bytes = kRecordMarkerSizeBytes + header_bytes + message_bytes;
  std::string head;
  head.reserve(head_bytes + copied_data_bytes);
  head.resize(head_bytes);
  auto* out = reinterpret_cast<std::uint8_t*>(head.data());
  EncodeRecordMarker(marker, head.data());
  out = header.SerializeWithCachedSizesToArray(out + kRecordMarkerSizeBytes);
  if (message != nullptr) message->SerializeWithCachedSizesToArray(out);
  return head;
}

}  // namespace

std::string EncodeRecord(const RpcHeader& header, const google::protobuf::MessageLite* message,
                         std::string_view data) {
  std::string record = EncodeHead(header, message, data.size(), data.size());
  record.append(data.data(), data.size());
  return record;
}

OutgoingRecord EncodeOutgoingRecord(const RpcHeader& header,
                                    const google::protobuf::MessageLite* message,
                                    std::string_view data, std::shared_ptr<const void> data_owner) {
  OutgoingRecord record;
  if (data_owner != nullptr && data.size() > kCopiedDataBytesMax) {
    record.head = EncodeHead(header, message, data.size(), 0);
    record.data = data;
    record.data_owner = std::move(data_owner);
  } else {
    record.head = EncodeRecord(header, message, data);
  }
  return record;
}

void RecordDecoder::ThrowIfFailed() const {
  if (failed_) {
    throw MalformedRecordError("record stream already failed; input discarded");
  }
}

void RecordDecoder::Malformed(std::string reason, bool throw_now) {
  head_.clear();
  head_marker_.reset();
  receiving_.reset();
  data_filled_bytes_ = 0;
  if (!throw_now) {
    error_ = std::move(reason);  // Next throws it once the records before it are taken
    return;
  }
  failed_ = true;
  complete_.clear();
  error_.reset();
  throw MalformedRecordError(reason);
}

void RecordDecoder::Feed(const char* bytes, std::size_t length_bytes) {
  ThrowIfFailed();
  // After a malformation the stream cannot be resynchronised: later input is discarded.
  while (length_bytes > 0 && !error_) {
    if (receiving_) {
      const std::size_t take = std::min(length_bytes, receiving_->data.size() - data_filled_bytes_);
      std::memcpy(receiving_->data.data() + data_filled_bytes_, bytes, take);
      data_filled_bytes_ += take;
      bytes += take;
      length_bytes -= take;
      FinishRecordIfComplete();
      continue;
    }
    const std::size_t used = ConsumeHead(bytes, length_bytes);
    bytes += used;
    length_bytes -= used;
  }
}

std::size_t RecordDecoder::ConsumeHead(const char* bytes, std::size_t length_bytes) {
  // A bad marker is thrown at once only when no decoded record waits before it (Next returns those
  // first).
  auto bad_marker = [&](const RecordMarker& marker) {
    if (auto violation = MarkerViolation(marker, limits_)) {
      Malformed("bad record marker: " + *violation, complete_.empty());
      return true;
    }
    return false;
  };
  // The usual case: the whole head is in the input, parsed where it lies.
  if (head_.empty() && length_bytes >= kRecordMarkerSizeBytes) {
    const RecordMarker marker = DecodeRecordMarker(bytes);
    if (bad_marker(marker)) return length_bytes;
    const std::uint64_t head_bytes =
        kRecordMarkerSizeBytes + std::uint64_t{marker.header_length_bytes} + marker.message_length_bytes;
    if (length_bytes >= head_bytes) {
      StartRecord(bytes, marker);
      return static_cast<std::size_t>(head_bytes);
    }
  }
  std::size_t used = 0;
  if (!head_marker_) {
    used = std::min(length_bytes, kRecordMarkerSizeBytes - head_.size());
    head_.append(bytes, used);
    if (head_.size() < kRecordMarkerSizeBytes) return used;
    const RecordMarker marker = DecodeRecordMarker(head_.data());
    if (bad_marker(marker)) return length_bytes;
    head_marker_ = marker;
  }
  const std::size_t head_bytes = kRecordMarkerSizeBytes + head_marker_->header_length_bytes +
                                 head_marker_->message_length_bytes;
  const std::size_t take = std::min(length_bytes - used, head_bytes - head_.size());
  head_.append(bytes + used, take);
  used += take;
  if (head_.size() == head_bytes) {
    const RecordMarker marker = *head_marker_;
    const std::string head = std::move(head_);
    head_.clear();
    head_marker_.reset();
    StartRecord(head.data(), marker);
  }
  return used;
}

void RecordDecoder::StartRecord(const char* head, const RecordMarker& marker) {
  const char* body = head + kRecordMarkerSizeBytes;
  Record record;
  if (!record.header.ParseFromArray(body, static_cast<int>(marker.header_length_bytes))) {
    Malformed("unparseable RPC header of " + std::to_string(marker.header_length_bytes) + " bytes",
              false);
    return;
  }
  body += marker.header_length_bytes;
  record.message_bytes.assign(body, marker.message_length_bytes);
  // Sized by a validated marker (at most limits_.data_bytes_max); filled by Feed or DataReceived
  // before anyone sees it (FinishRecordIfComplete). Not zero-filled first: resize's memset of every
  // reply was 10-13 % of the mount's CPU on cold reads (issue 10), for bytes the socket overwrites.
#if defined(__cpp_lib_string_resize_and_overwrite)
  // The length returned is the marker's, not the one passed in: GCC 12's libstdc++ passes the grown
  // capacity instead of the size asked for when it allocates (its _M_create grows the size in
  // place), which made records longer than their marker and desynchronised the stream
  // (RpcClientTest.LargeConcurrentCallsArriveWholeAndInOrderOfTheirBytes).
  const std::size_t data_length_bytes = marker.data_length_bytes;
  record.data.resize_and_overwrite(data_length_bytes,
                                   [data_length_bytes](char*, std::size_t) { return data_length_bytes; });
#else
  record.data.resize(marker.data_length_bytes);
#endif
  receiving_ = std::move(record);
  data_filled_bytes_ = 0;
  FinishRecordIfComplete();
}

void RecordDecoder::FinishRecordIfComplete() {
  if (!receiving_ || data_filled_bytes_ < receiving_->data.size()) return;
  complete_.push_back(std::move(*receiving_));
  receiving_.reset();
  data_filled_bytes_ = 0;
}

RecordDecoder::Target RecordDecoder::DataTarget() {
  if (failed_ || error_ || !receiving_) return Target{};
  return Target{receiving_->data.data() + data_filled_bytes_,
                receiving_->data.size() - data_filled_bytes_};
}

void RecordDecoder::DataReceived(std::size_t length_bytes) {
  ThrowIfFailed();
  const Target target = DataTarget();
  if (length_bytes > target.length_bytes) {
    throw std::logic_error(std::to_string(length_bytes) + " bytes received into a data target of " +
                           std::to_string(target.length_bytes));
  }
  data_filled_bytes_ += length_bytes;
  FinishRecordIfComplete();
}

std::optional<Record> RecordDecoder::Next() {
  if (!complete_.empty()) {
    Record record = std::move(complete_.front());
    complete_.pop_front();
    return record;
  }
  if (error_) {
    std::string reason = std::move(*error_);
    error_.reset();
    failed_ = true;
    throw MalformedRecordError(reason);
  }
  return std::nullopt;
}

}  // namespace xtreemfs::rpc
