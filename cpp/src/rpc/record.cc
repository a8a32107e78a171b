#include "rpc/record.h"

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

// Marker, header and message, with room reserved for `copied_data_bytes` more.
std::string EncodeHead(const RpcHeader& header, const google::protobuf::MessageLite* message,
                       std::size_t data_bytes, std::size_t copied_data_bytes) {
  const std::string header_bytes = header.SerializeAsString();
  const std::string message_bytes = message == nullptr ? std::string() : message->SerializeAsString();
  RecordMarker marker;
  marker.header_length_bytes = static_cast<std::uint32_t>(header_bytes.size());
  marker.message_length_bytes = static_cast<std::uint32_t>(message_bytes.size());
  marker.data_length_bytes = static_cast<std::uint32_t>(data_bytes);
  std::string head(kRecordMarkerSizeBytes, '\0');
  EncodeRecordMarker(marker, head.data());
  head.reserve(kRecordMarkerSizeBytes + header_bytes.size() + message_bytes.size() + copied_data_bytes);
  head += header_bytes;
  head += message_bytes;
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

void RecordDecoder::Feed(const char* bytes, std::size_t length_bytes) {
  if (failed_) {
    throw MalformedRecordError("record stream already failed; input discarded");
  }
  // Drop consumed bytes before growing so the buffer stays bounded by one record.
  if (consumed_bytes_ > 0) {
    buffer_.erase(0, consumed_bytes_);
    consumed_bytes_ = 0;
  }
  buffer_.append(bytes, length_bytes);
  CheckMarker();
}

void RecordDecoder::CheckMarker() {
  if (BufferedBytes() < kRecordMarkerSizeBytes) {
    return;
  }
  const RecordMarker marker = DecodeRecordMarker(buffer_.data() + consumed_bytes_);
  if (auto violation = MarkerViolation(marker, limits_)) {
    failed_ = true;
    buffer_.clear();
    consumed_bytes_ = 0;
    throw MalformedRecordError("bad record marker: " + *violation);
  }
}

std::optional<Record> RecordDecoder::Next() {
  if (failed_ || BufferedBytes() < kRecordMarkerSizeBytes) {
    return std::nullopt;
  }
  // A marker that arrived together with an earlier record has not been validated yet.
  CheckMarker();
  const char* start = buffer_.data() + consumed_bytes_;
  const RecordMarker marker = DecodeRecordMarker(start);
  if (BufferedBytes() < kRecordMarkerSizeBytes + marker.BodyLengthBytes()) {
    return std::nullopt;
  }
  const char* body = start + kRecordMarkerSizeBytes;
  Record record;
  if (!record.header.ParseFromArray(body, static_cast<int>(marker.header_length_bytes))) {
    failed_ = true;
    buffer_.clear();
    consumed_bytes_ = 0;
    throw MalformedRecordError("unparseable RPC header of " +
                               std::to_string(marker.header_length_bytes) + " bytes");
  }
  body += marker.header_length_bytes;
  record.message_bytes.assign(body, marker.message_length_bytes);
  body += marker.message_length_bytes;
  record.data.assign(body, marker.data_length_bytes);
  consumed_bytes_ += kRecordMarkerSizeBytes + marker.BodyLengthBytes();
  return record;
}

}  // namespace xtreemfs::rpc
