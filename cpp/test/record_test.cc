#include "rpc/record.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace xtreemfs::rpc {
namespace {

RpcHeader RequestHeaderFor(std::uint64_t call_id) {
  RpcHeader header;
  header.set_call_id(call_id);
  header.set_message_type(REQUEST);
  header.mutable_request_header()->set_interface_id(20001);
  header.mutable_request_header()->set_procedure_id(4);
  header.mutable_request_header()->set_timeout_ms(1500);
  return header;
}

TEST(RecordMarkerTest, EncodesBigEndianLengthsInOrder) {
  // The marker bytes are header, message, data lengths as big-endian uint32, exactly as Java writes.
  RecordMarker marker{0x01020304u, 0x0a0b0c0du, 0xfffffffeu};
  char bytes[kRecordMarkerSizeBytes];
  EncodeRecordMarker(marker, bytes);
  const std::string expected("\x01\x02\x03\x04\x0a\x0b\x0c\x0d\xff\xff\xff\xfe", 12);
  EXPECT_EQ(std::string(bytes, sizeof bytes), expected);
  const RecordMarker decoded = DecodeRecordMarker(bytes);
  EXPECT_EQ(decoded.header_length_bytes, 0x01020304u);
  EXPECT_EQ(decoded.message_length_bytes, 0x0a0b0c0du);
  EXPECT_EQ(decoded.data_length_bytes, 0xfffffffeu);
}

TEST(RecordTest, EncodeThenDecodeRoundTripsHeaderMessageAndData) {
  // A record survives encode/decode with header fields, message bytes and data segment intact.
  RpcHeader header = RequestHeaderFor(42);
  ErrorResponse message;  // any message type works as payload
  message.set_error_message("payload");
  const std::string data("\0object\xff", 8);
  const std::string encoded = EncodeRecord(header, &message, data);
  const RecordMarker marker = DecodeRecordMarker(encoded.data());
  EXPECT_EQ(marker.header_length_bytes, header.ByteSizeLong());
  EXPECT_EQ(marker.message_length_bytes, message.ByteSizeLong());
  EXPECT_EQ(marker.data_length_bytes, 8u);
  EXPECT_EQ(encoded.size(), kRecordMarkerSizeBytes + marker.BodyLengthBytes());

  RecordDecoder decoder{FrameLimits{}};
  decoder.Feed(encoded.data(), encoded.size());
  auto record = decoder.Next();
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->header.call_id(), 42u);
  EXPECT_EQ(record->header.request_header().procedure_id(), 4u);
  ErrorResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(record->message_bytes));
  EXPECT_EQ(parsed.error_message(), "payload");
  EXPECT_EQ(record->data, data);
  EXPECT_FALSE(decoder.Next().has_value());
  EXPECT_EQ(decoder.BufferedBytes(), 0u);
}

TEST(RecordTest, AnOwnedLargeDataSegmentIsReferencedAndSmallOrUnownedOnesAreCopied) {
  // The pieces of an outgoing record are byte for byte EncodeRecord's; only an owned data segment
  // above kCopiedDataBytesMax stays in the caller's buffer (no copy), kept alive by the record.
  RpcHeader header = RequestHeaderFor(9);
  ErrorResponse message;
  message.set_error_message("write");
  auto large = std::make_shared<const std::string>(kCopiedDataBytesMax + 1, 'x');
  OutgoingRecord referenced = EncodeOutgoingRecord(header, &message, *large, large);
  EXPECT_EQ(referenced.data.data(), large->data());
  EXPECT_EQ(large.use_count(), 2);
  EXPECT_EQ(referenced.head + std::string(referenced.data), EncodeRecord(header, &message, *large));
  EXPECT_EQ(referenced.SizeBytes(), EncodeRecord(header, &message, *large).size());

  OutgoingRecord unowned = EncodeOutgoingRecord(header, &message, *large, nullptr);
  EXPECT_TRUE(unowned.data.empty());
  EXPECT_EQ(unowned.head, EncodeRecord(header, &message, *large));

  auto small = std::make_shared<const std::string>(kCopiedDataBytesMax, 'y');
  OutgoingRecord copied = EncodeOutgoingRecord(header, &message, *small, small);
  EXPECT_TRUE(copied.data.empty());
  EXPECT_EQ(copied.data_owner, nullptr);
  EXPECT_EQ(copied.head, EncodeRecord(header, &message, *small));
}

TEST(RecordTest, NullMessageEncodesAsEmptyMessageSegment) {
  // A record without a message has message length 0 and decodes with an empty message.
  const std::string encoded = EncodeRecord(RequestHeaderFor(7), nullptr, "");
  EXPECT_EQ(DecodeRecordMarker(encoded.data()).message_length_bytes, 0u);
  RecordDecoder decoder{FrameLimits{}};
  decoder.Feed(encoded.data(), encoded.size());
  auto record = decoder.Next();
  ASSERT_TRUE(record.has_value());
  EXPECT_TRUE(record->message_bytes.empty());
  EXPECT_TRUE(record->data.empty());
}

TEST(RecordDecoderTest, ReassemblesRecordsFedOneByteAtATime) {
  // Records split at every byte boundary and concatenated in one stream decode in order.
  std::string stream = EncodeRecord(RequestHeaderFor(1), nullptr, "first");
  stream += EncodeRecord(RequestHeaderFor(2), nullptr, "second");
  RecordDecoder decoder{FrameLimits{}};
  std::vector<Record> records;
  for (char byte : stream) {
    decoder.Feed(&byte, 1);
    while (auto record = decoder.Next()) {
      records.push_back(std::move(*record));
    }
  }
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].header.call_id(), 1u);
  EXPECT_EQ(records[0].data, "first");
  EXPECT_EQ(records[1].header.call_id(), 2u);
  EXPECT_EQ(records[1].data, "second");
}

TEST(RecordDecoderTest, RejectsOversizedDataLengthBeforeBodyArrives) {
  // A marker claiming more data than allowed fails as soon as its 12 bytes are fed.
  FrameLimits limits;
  limits.data_bytes_max = 1024;
  char marker[kRecordMarkerSizeBytes];
  EncodeRecordMarker(RecordMarker{10, 0, 1025}, marker);
  RecordDecoder decoder{limits};
  EXPECT_THROW(decoder.Feed(marker, sizeof marker), MalformedRecordError);
  EXPECT_EQ(decoder.BufferedBytes(), 0u);
}

TEST(RecordDecoderTest, RejectsZeroAndOversizedHeaderAndOversizedMessage) {
  // Each length field is checked against its own bound; an empty header is malformed too.
  FrameLimits limits{100, 200, 300};
  for (RecordMarker bad : {RecordMarker{0, 0, 0}, RecordMarker{101, 0, 0}, RecordMarker{1, 201, 0},
                           RecordMarker{0xffffffffu, 0xffffffffu, 0xffffffffu}}) {
    char marker[kRecordMarkerSizeBytes];
    EncodeRecordMarker(bad, marker);
    RecordDecoder decoder{limits};
    EXPECT_THROW(decoder.Feed(marker, sizeof marker), MalformedRecordError)
        << bad.header_length_bytes << "/" << bad.message_length_bytes;
  }
  EXPECT_FALSE(MarkerViolation(RecordMarker{100, 200, 300}, limits).has_value());
}

TEST(RecordDecoderTest, StaysFailedAfterAMalformedMarker) {
  // After a bad marker no further input is accepted: the stream cannot be resynchronised.
  char marker[kRecordMarkerSizeBytes];
  EncodeRecordMarker(RecordMarker{0, 0, 0}, marker);
  RecordDecoder decoder{FrameLimits{}};
  EXPECT_THROW(decoder.Feed(marker, sizeof marker), MalformedRecordError);
  const std::string good = EncodeRecord(RequestHeaderFor(3), nullptr, "");
  EXPECT_THROW(decoder.Feed(good.data(), good.size()), MalformedRecordError);
  EXPECT_FALSE(decoder.Next().has_value());
}

TEST(RecordDecoderTest, RejectsUnparseableHeader) {
  // Header bytes that are not a valid RpcHeader make the record malformed.
  const std::string garbage_header("\xff\xff\xff\xff", 4);  // truncated varint tag
  char marker[kRecordMarkerSizeBytes];
  EncodeRecordMarker(RecordMarker{4, 0, 0}, marker);
  std::string stream(marker, sizeof marker);
  stream += garbage_header;
  RecordDecoder decoder{FrameLimits{}};
  decoder.Feed(stream.data(), stream.size());
  EXPECT_THROW(decoder.Next(), MalformedRecordError);
}

TEST(RecordDecoderTest, BadMarkerAfterAGoodRecordFailsOnlyAfterTheGoodRecordIsReturned) {
  // A good record buffered before a bad marker is still delivered; the bad marker fails the next read.
  std::string stream = EncodeRecord(RequestHeaderFor(9), nullptr, "ok");
  char marker[kRecordMarkerSizeBytes];
  EncodeRecordMarker(RecordMarker{0, 0, 0}, marker);
  stream.append(marker, sizeof marker);
  RecordDecoder decoder{FrameLimits{}};
  decoder.Feed(stream.data(), stream.size());
  auto record = decoder.Next();
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->header.call_id(), 9u);
  EXPECT_THROW(decoder.Next(), MalformedRecordError);
}

}  // namespace
}  // namespace xtreemfs::rpc
