// RAID0 striping arithmetic, identical to the Java client: object n of a file holds the file bytes
// [n * object_size, (n + 1) * object_size) and lives on stripe position n mod width, i.e. on
// xlocs.replicas[0].osd_uuids[n mod width].
#pragma once

#include <cstdint>
#include <vector>

#include "common.pb.h"

namespace xtreemfs::client {

struct StripingLayout {
  std::uint32_t object_size_bytes = 131072;
  std::uint32_t stripe_width = 1;

  // Throws RpcError(EINVAL) naming the bad value when the size or width is 0.
  static StripingLayout FromPolicy(const xtreemfs::common::StripingPolicy& policy);
};

// The part of a byte range that falls into one object.
struct ObjectPiece {
  std::uint64_t object_number = 0;
  std::uint32_t stripe_position = 0;
  std::uint32_t offset_in_object_bytes = 0;
  std::uint32_t length_bytes = 0;
  std::uint64_t file_offset_bytes = 0;  // where the piece starts in the file

  bool operator==(const ObjectPiece& other) const;
};

// Upper bound on the pieces of one split: callers split at most one FUSE request (a few MiB), so a
// larger count is a programmer or caller error, not a workload.
constexpr std::uint64_t kObjectPiecesMax = 1 << 16;

std::uint64_t ObjectNumberOf(const StripingLayout& layout, std::uint64_t file_offset_bytes);
std::uint32_t StripePositionOf(const StripingLayout& layout, std::uint64_t object_number);

// Splits [file_offset_bytes, file_offset_bytes + length_bytes) into pieces in ascending file order;
// empty for length 0. Throws RpcError(EINVAL) for an invalid layout, EFBIG when the range end
// overflows 64 bits, and EINVAL when it would need more than kObjectPiecesMax pieces.
std::vector<ObjectPiece> SplitIntoObjectPieces(const StripingLayout& layout,
                                               std::uint64_t file_offset_bytes,
                                               std::uint64_t length_bytes);

}  // namespace xtreemfs::client
