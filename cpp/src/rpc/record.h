// Record framing shared with the Java servers (foundation.rpc.RecordEncoder/RecordDecoder):
//   12-byte big-endian marker: uint32 header_length, uint32 message_length, uint32 data_length
//   then RpcHeader (header_length bytes) | message (message_length bytes) | raw data (data_length bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
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

// Incremental decoder of a byte stream into records. The bytes before a record's data (marker, header,
// message) are gathered in a small buffer; its data segment is written straight into the Record's own
// string, from Feed's input or, through DataTarget/DataReceived, by the socket read itself, so a data
// byte is copied at most once in user space (issue 10: the decoder's buffer and the record's copy of
// it were two copies of every byte a read returned, 31.7 % of the mount's CPU on cold reads).
// Errors: a bad marker with no decoded record waiting is thrown by Feed (or DataReceived); every
// other malformation is thrown by the Next that reaches it, after the good records before it.
// Invariant: the decoder holds at most one record being received (its data sized by a marker already
// validated against the limits), the head bytes of the next one, and the complete records not yet
// taken by Next.
class RecordDecoder {
 public:
  explicit RecordDecoder(FrameLimits limits) : limits_(limits) {}

  // Appends bytes from the stream. Throws MalformedRecordError on a bad marker (see above); after
  // an error the decoder stays failed and rejects all further input.
  void Feed(const char* bytes, std::size_t length_bytes);
  // The next complete record, or nothing when more bytes are needed. Throws MalformedRecordError
  // when the next thing in the stream is malformed.
  std::optional<Record> Next();
  // Where the next bytes of the stream belong when a record's data segment is being received: the
  // unfilled rest of that record's data (length 0 when none is). A reader may receive into it
  // directly and then call DataReceived with the count; bytes beyond it go to Feed.
  struct Target {
    char* bytes = nullptr;
    std::size_t length_bytes = 0;
  };
  Target DataTarget();
  // `length_bytes` (at most DataTarget().length_bytes) were written at DataTarget().bytes.
  void DataReceived(std::size_t length_bytes);
  // Bytes of records not yet returned by Next that the decoder holds: the head being gathered and
  // the data received so far of the record being received (complete records waiting not counted).
  std::size_t BufferedBytes() const { return head_.size() + data_filled_bytes_; }

 private:
  // Takes head bytes from [bytes, bytes + length) into head_ until the marker, header and message of
  // the next record are complete, then starts that record. Returns the bytes consumed.
  std::size_t ConsumeHead(const char* bytes, std::size_t length_bytes);
  // Starts the record whose marker, header and message are at `head` (contiguous).
  void StartRecord(const char* head, const RecordMarker& marker);
  void FinishRecordIfComplete();
  // Records the malformation: thrown now when nothing decoded waits before it, else by Next.
  void Malformed(std::string reason, bool throw_now);
  void ThrowIfFailed() const;

  FrameLimits limits_;
  std::string head_;                       // marker, header and message of the next record, so far
  std::optional<RecordMarker> head_marker_;  // head_'s marker once its 12 bytes are in and valid
  std::optional<Record> receiving_;        // header and message parsed, data being filled
  std::size_t data_filled_bytes_ = 0;      // of receiving_->data
  std::deque<Record> complete_;            // decoded, not yet taken by Next
  std::optional<std::string> error_;       // the malformation Next throws after complete_
  bool failed_ = false;                    // an error was thrown: all input is rejected
};

}  // namespace xtreemfs::rpc
