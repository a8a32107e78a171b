// Record framing shared with the Java servers (foundation.rpc.RecordEncoder/RecordDecoder):
//   12-byte big-endian marker: uint32 header_length, uint32 message_length, uint32 data_length
//   then RpcHeader (header_length bytes) | message (message_length bytes) | raw data (data_length bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "rpc.pb.h"

namespace google::protobuf {
class MessageLite;
}

namespace xtreemfs::rpc {

constexpr std::size_t kRecordMarkerSizeBytes = 12;

// Upper bounds on the parts of one record, equal to Java's FrameLimits.DEFAULT. A record outside them
// is malformed and its connection is closed.
struct FrameLimits {
  std::uint32_t header_bytes_max = 64 * 1024;
  std::uint32_t message_bytes_max = 4 * 1024 * 1024;
  std::uint32_t data_bytes_max = 16 * 1024 * 1024;
};

struct RecordMarker {
  std::uint32_t header_length_bytes = 0;
  std::uint32_t message_length_bytes = 0;
  std::uint32_t data_length_bytes = 0;

  std::uint64_t BodyLengthBytes() const {
    return std::uint64_t{header_length_bytes} + message_length_bytes + data_length_bytes;
  }
};

// A stream that violates the framing; the connection carrying it cannot be resynchronised.
class MalformedRecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes the marker big-endian into exactly kRecordMarkerSizeBytes bytes at `out`.
void EncodeRecordMarker(const RecordMarker& marker, char* out);
// Reads a marker from exactly kRecordMarkerSizeBytes bytes; does not validate it.
RecordMarker DecodeRecordMarker(const char* bytes);
// Why the marker is unacceptable under `limits`, or nothing when it is acceptable. The header must
// be non-empty (a real RpcHeader always carries a call id), as in Java.
std::optional<std::string> MarkerViolation(const RecordMarker& marker, const FrameLimits& limits);

// One complete record; the message is kept serialized so the caller parses it into its own type.
struct Record {
  xtreemfs::rpc::RpcHeader header;
  std::string message_bytes;
  std::string data;
};

// Serializes header, message (may be null = empty) and data into one contiguous record.
std::string EncodeRecord(const xtreemfs::rpc::RpcHeader& header,
                         const google::protobuf::MessageLite* message, std::string_view data);

// A record to send, in at most two pieces: `head` (marker, header, message, and the data when it was
// copied) and `data`, the caller's bytes referenced without a copy and kept alive by `data_owner`
// until the record is destroyed. Sent as head then data, byte for byte what EncodeRecord makes.
struct OutgoingRecord {
  std::string head;
  std::string_view data;                   // empty when the data segment is in `head`
  std::shared_ptr<const void> data_owner;  // keeps `data` valid

  std::size_t SizeBytes() const { return head.size() + data.size(); }
};

// Data segments up to this size are copied behind the head (one piece to send): for small writes
// a second iovec costs more than the copy, as for Java's RecordEncoder.COPIED_DATA_BYTES_MAX.
constexpr std::size_t kCopiedDataBytesMax = 16 * 1024;

// As EncodeRecord; a data segment larger than kCopiedDataBytesMax with a `data_owner` is referenced,
// not copied (a 1 MiB object write was copied into the record besides the copy the caller keeps for
// a repeat). Without an owner the data is always copied.
OutgoingRecord EncodeOutgoingRecord(const xtreemfs::rpc::RpcHeader& header,
                                    const google::protobuf::MessageLite* message,
                                    std::string_view data, std::shared_ptr<const void> data_owner);

// Incremental decoder of a byte stream into records. Invariant: the buffered bytes never exceed one
// marker plus the largest body `limits` allows plus one Feed() chunk, because a marker is validated
// as soon as its 12 bytes are present, before any of its body bytes are awaited.
class RecordDecoder {
 public:
  explicit RecordDecoder(FrameLimits limits) : limits_(limits) {}

  // Appends bytes from the stream. Throws MalformedRecordError on a bad marker or header; after
  // that the decoder stays failed and rejects all further input.
  void Feed(const char* bytes, std::size_t length_bytes);
  // The next complete record, or nothing when more bytes are needed.
  std::optional<Record> Next();
  std::size_t BufferedBytes() const { return buffer_.size() - consumed_bytes_; }

 private:
  void CheckMarker();

  FrameLimits limits_;
  std::string buffer_;
  std::size_t consumed_bytes_ = 0;  // prefix of buffer_ already returned as records
  bool failed_ = false;
};

}  // namespace xtreemfs::rpc
