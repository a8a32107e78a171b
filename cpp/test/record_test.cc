#include "rpc/record.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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

TEST(RecordDecoderTest, EveryDataLengthComesBackExactlyAsLongAsItsMarkerSays) {
  // The data is sized without zero-filling it first (resize_and_overwrite): every length, across the
  // string's inline capacity and its allocation steps, decodes to exactly its bytes. GCC 12's
  // libstdc++ hands the operation the grown capacity instead of the length asked for; a decoder
  // that trusted it made lengths 16-29 too long and lost the next record.
  std::string stream;
  std::vector<std::string> sent;
  for (std::size_t length = 0; length <= 300; ++length) {
    std::string data(length, 'a');
    for (std::size_t i = 0; i < length; ++i) data[i] = static_cast<char>('a' + (length + i) % 26);
    stream += EncodeRecord(RequestHeaderFor(length + 1), nullptr, data);
    sent.push_back(std::move(data));
  }
  RecordDecoder decoder{FrameLimits{}};
  decoder.Feed(stream.data(), stream.size());
  std::vector<Record> records;
  while (auto record = decoder.Next()) records.push_back(std::move(*record));
  ASSERT_EQ(records.size(), sent.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(records[i].header.call_id(), i + 1);
    EXPECT_EQ(records[i].data, sent[i]) << "data length " << i;
  }
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

TEST(RecordDecoderTest, DataReceivedIntoTheTargetEndsUpInTheRecordWithoutACopy) {
  // Once a record's head is in, the rest of its data is received where DataTarget points, which is
  // the returned record's own buffer: the reader's bytes are not copied again.
  std::string data(200 * 1024, '\0');
  for (std::size_t b = 0; b < data.size(); ++b) data[b] = static_cast<char>(b * 13 + 5);
  const std::string encoded = EncodeRecord(RequestHeaderFor(11), nullptr, data);
  const std::size_t head_bytes = encoded.size() - data.size();
  RecordDecoder decoder{FrameLimits{}};
  EXPECT_EQ(decoder.DataTarget().length_bytes, 0u);  // nothing started yet
  decoder.Feed(encoded.data(), head_bytes + 1000);   // the head and the first 1,000 data bytes
  EXPECT_FALSE(decoder.Next().has_value());
  const RecordDecoder::Target target = decoder.DataTarget();
  ASSERT_EQ(target.length_bytes, data.size() - 1000);
  std::memcpy(target.bytes, encoded.data() + head_bytes + 1000, 5000);
  decoder.DataReceived(5000);
  EXPECT_EQ(decoder.BufferedBytes(), 6000u);
  const RecordDecoder::Target rest = decoder.DataTarget();
  ASSERT_EQ(rest.bytes, target.bytes + 5000);
  ASSERT_EQ(rest.length_bytes, data.size() - 6000);
  std::memcpy(rest.bytes, encoded.data() + head_bytes + 6000, rest.length_bytes);
  decoder.DataReceived(rest.length_bytes);
  EXPECT_EQ(decoder.DataTarget().length_bytes, 0u);
  auto record = decoder.Next();
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->header.call_id(), 11u);
  EXPECT_EQ(record->data, data);
  EXPECT_EQ(static_cast<const void*>(record->data.data()), static_cast<const void*>(target.bytes - 1000));
  EXPECT_EQ(decoder.BufferedBytes(), 0u);
  EXPECT_THROW(decoder.DataReceived(1), std::logic_error);  // no target: a reader's bug
}

TEST(RecordDecoderTest, AStreamCutAnywhereAndReceivedBothWaysDecodesToTheSameRecords) {
  // Records of empty, small and large data in one stream, delivered in chunks of many sizes, each
  // chunk first into the data target (as the socket read does) and the rest through Feed.
  std::vector<std::string> datas;
  std::string stream;
  for (std::size_t i = 0; i < 24; ++i) {
    const std::size_t length = (i % 3 == 0) ? 0 : (i % 3 == 1) ? 4096 + i : 128 * 1024 + i * 977;
    std::string data(length, '\0');
    for (std::size_t b = 0; b < length; ++b) data[b] = static_cast<char>(i * 31 + b);
    ErrorResponse message;
    message.set_error_message("m" + std::to_string(i));
    stream += EncodeRecord(RequestHeaderFor(100 + i), i % 2 == 0 ? &message : nullptr, data);
    datas.push_back(std::move(data));
  }
  for (std::size_t chunk : {1u, 7u, 12u, 13u, 100u, 4096u, 65536u, 200000u}) {
    RecordDecoder decoder{FrameLimits{}};
    std::vector<Record> records;
    std::size_t position = 0;
    std::size_t received_directly = 0;
    while (position < stream.size()) {
      std::size_t length = std::min(chunk, stream.size() - position);
      const RecordDecoder::Target target = decoder.DataTarget();
      const std::size_t direct = std::min(length, target.length_bytes);
      if (direct > 0) {
        std::memcpy(target.bytes, stream.data() + position, direct);
        decoder.DataReceived(direct);
        received_directly += direct;
      }
      decoder.Feed(stream.data() + position + direct, length - direct);
      position += length;
      while (auto record = decoder.Next()) records.push_back(std::move(*record));
    }
    ASSERT_EQ(records.size(), datas.size()) << "chunk " << chunk;
    for (std::size_t i = 0; i < datas.size(); ++i) {
      EXPECT_EQ(records[i].header.call_id(), 100 + i) << "chunk " << chunk;
      EXPECT_EQ(records[i].data, datas[i]) << "chunk " << chunk << " record " << i;
      EXPECT_EQ(records[i].message_bytes.empty(), i % 2 != 0) << "chunk " << chunk;
    }
    EXPECT_EQ(decoder.BufferedBytes(), 0u);
    if (chunk < 65536) {
      // Most data bytes of the large records went straight into their records.
      EXPECT_GT(received_directly, stream.size() / 2) << "chunk " << chunk;
    }
  }
}

TEST(RecordDecoderTest, ABadMarkerAfterADirectlyReceivedRecordFailsAfterThatRecordIsTaken) {
  // A record completed through DataReceived is delivered before the malformed marker behind it.
  const std::string data(64 * 1024, 'd');
  const std::string encoded = EncodeRecord(RequestHeaderFor(5), nullptr, data);
  const std::size_t head_bytes = encoded.size() - data.size();
  RecordDecoder decoder{FrameLimits{}};
  decoder.Feed(encoded.data(), head_bytes);
  const RecordDecoder::Target target = decoder.DataTarget();
  ASSERT_EQ(target.length_bytes, data.size());
  std::memcpy(target.bytes, data.data(), data.size());
  decoder.DataReceived(data.size());
  char marker[kRecordMarkerSizeBytes];
  EncodeRecordMarker(RecordMarker{0, 0, 0}, marker);
  decoder.Feed(marker, sizeof marker);  // a record waits: not thrown yet
  auto record = decoder.Next();
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->data, data);
  EXPECT_THROW(decoder.Next(), MalformedRecordError);
  EXPECT_THROW(decoder.Feed(encoded.data(), encoded.size()), MalformedRecordError);
  EXPECT_EQ(decoder.DataTarget().length_bytes, 0u);
}

}  // namespace
}  // namespace xtreemfs::rpc
