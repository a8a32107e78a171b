#include "client/striping.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rpc/rpc_error.h"

namespace xtreemfs::client {
namespace {

struct VectorCase {
  int line_number = 0;
  StripingLayout layout;
  std::uint64_t file_offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  std::vector<ObjectPiece> expected_pieces;
};

std::vector<std::string> SplitOn(const std::string& text, char separator) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream stream(text);
  while (std::getline(stream, field, separator)) {
    fields.push_back(field);
  }
  if (!text.empty() && text.back() == separator) {
    fields.emplace_back();
  }
  return fields;
}

// Reads tests/vectors/striping.csv; the format is documented in the file's comment header.
std::vector<VectorCase> LoadStripingVectors() {
  const std::string path = std::string(XTREEMFS_VECTORS_DIR) + "/striping.csv";
  std::ifstream input(path);
  if (!input) {
    ADD_FAILURE() << "cannot open " << path;
    return {};
  }
  std::vector<VectorCase> cases;
  std::string line;
  int line_number = 0;
  bool header_seen = false;
  while (std::getline(input, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') {
      continue;
    }
    if (!header_seen) {
      EXPECT_EQ(line, "object_size_bytes,stripe_width,file_offset_bytes,length_bytes,pieces");
      header_seen = true;
      continue;
    }
    const std::vector<std::string> fields = SplitOn(line, ',');
    if (fields.size() != 5) {
      ADD_FAILURE() << path << ":" << line_number << ": expected 5 fields: " << line;
      continue;
    }
    VectorCase vector_case;
    vector_case.line_number = line_number;
    vector_case.layout.object_size_bytes = static_cast<std::uint32_t>(std::stoul(fields[0]));
    vector_case.layout.stripe_width = static_cast<std::uint32_t>(std::stoul(fields[1]));
    vector_case.file_offset_bytes = std::stoull(fields[2]);
    vector_case.length_bytes = std::stoull(fields[3]);
    std::uint64_t file_offset = vector_case.file_offset_bytes;
    for (const std::string& encoded : SplitOn(fields[4], ';')) {
      const std::vector<std::string> values = SplitOn(encoded, ':');
      if (values.size() != 4) {
        ADD_FAILURE() << path << ":" << line_number << ": bad piece '" << encoded << "'";
        continue;
      }
      ObjectPiece piece;
      piece.object_number = std::stoull(values[0]);
      piece.stripe_position = static_cast<std::uint32_t>(std::stoul(values[1]));
      piece.offset_in_object_bytes = static_cast<std::uint32_t>(std::stoul(values[2]));
      piece.length_bytes = static_cast<std::uint32_t>(std::stoul(values[3]));
      // Pieces are contiguous in file order, so each file offset follows from the previous one.
      piece.file_offset_bytes = file_offset;
      file_offset += piece.length_bytes;
      vector_case.expected_pieces.push_back(piece);
    }
    cases.push_back(std::move(vector_case));
  }
  EXPECT_TRUE(header_seen) << path << " has no column header";
  return cases;
}

TEST(StripingVectorsTest, SplitMatchesEverySharedVector) {
  // The C++ split of each byte range equals the pieces in tests/vectors/striping.csv.
  const std::vector<VectorCase> cases = LoadStripingVectors();
  ASSERT_GT(cases.size(), 1000u) << "the vector file looks truncated";
  for (const VectorCase& vector_case : cases) {
    const std::vector<ObjectPiece> actual = SplitIntoObjectPieces(
        vector_case.layout, vector_case.file_offset_bytes, vector_case.length_bytes);
    ASSERT_EQ(actual.size(), vector_case.expected_pieces.size())
        << "striping.csv line " << vector_case.line_number;
    for (std::size_t i = 0; i < actual.size(); ++i) {
      EXPECT_EQ(actual[i], vector_case.expected_pieces[i])
          << "striping.csv line " << vector_case.line_number << " piece " << i;
    }
  }
}

TEST(StripingTest, ObjectLivesOnPositionObjectNumberModWidth) {
  // Object n maps to stripe position n mod width, and offsets map to objects by integer division.
  StripingLayout layout{131072, 3};
  EXPECT_EQ(ObjectNumberOf(layout, 0), 0u);
  EXPECT_EQ(ObjectNumberOf(layout, 131071), 0u);
  EXPECT_EQ(ObjectNumberOf(layout, 131072), 1u);
  EXPECT_EQ(StripePositionOf(layout, 0), 0u);
  EXPECT_EQ(StripePositionOf(layout, 4), 1u);
  EXPECT_EQ(StripePositionOf(layout, 5), 2u);
}

TEST(StripingTest, InvalidLayoutAndOverflowingRangeAreRejectedWithErrno) {
  // Zero object size or width is EINVAL; a range ending beyond 2^64 is EFBIG; huge splits are EINVAL.
  auto errno_of = [](auto&& function) {
    try {
      function();
    } catch (const rpc::RpcError& error) {
      return error.posix_errno();
    }
    return 0;
  };
  EXPECT_EQ(errno_of([] { SplitIntoObjectPieces(StripingLayout{0, 1}, 0, 1); }), EINVAL);
  EXPECT_EQ(errno_of([] { SplitIntoObjectPieces(StripingLayout{4096, 0}, 0, 1); }), EINVAL);
  EXPECT_EQ(errno_of([] { SplitIntoObjectPieces(StripingLayout{4096, 1}, ~0ull, 2); }), EFBIG);
  EXPECT_EQ(errno_of([] { SplitIntoObjectPieces(StripingLayout{1, 1}, 0, kObjectPiecesMax + 1); }),
            EINVAL);
  xtreemfs::common::StripingPolicy policy;
  policy.set_object_size_bytes(4096);
  EXPECT_EQ(errno_of([&] { StripingLayout::FromPolicy(policy); }), EINVAL);
}

}  // namespace
}  // namespace xtreemfs::client
