#include "client/striping.h"

#include <algorithm>
#include <cerrno>
#include <limits>
#include <string>

#include "rpc/rpc_error.h"

namespace xtreemfs::client {
namespace {

void CheckLayout(const StripingLayout& layout) {
  if (layout.object_size_bytes == 0) {
    throw rpc::RpcError::Errno(EINVAL, "striping policy with object size 0 bytes");
  }
  if (layout.stripe_width == 0) {
    throw rpc::RpcError::Errno(EINVAL, "striping policy with stripe width 0");
  }
}

}  // namespace

StripingLayout StripingLayout::FromPolicy(const xtreemfs::common::StripingPolicy& policy) {
  StripingLayout layout;
  layout.object_size_bytes = policy.object_size_bytes();
  layout.stripe_width = policy.width();
  CheckLayout(layout);
  return layout;
}

bool ObjectPiece::operator==(const ObjectPiece& other) const {
  return object_number == other.object_number && stripe_position == other.stripe_position &&
         offset_in_object_bytes == other.offset_in_object_bytes &&
         length_bytes == other.length_bytes && file_offset_bytes == other.file_offset_bytes;
}

std::uint64_t ObjectNumberOf(const StripingLayout& layout, std::uint64_t file_offset_bytes) {
  CheckLayout(layout);
  return file_offset_bytes / layout.object_size_bytes;
}

std::uint32_t StripePositionOf(const StripingLayout& layout, std::uint64_t object_number) {
  CheckLayout(layout);
  return static_cast<std::uint32_t>(object_number % layout.stripe_width);
}

std::vector<ObjectPiece> SplitIntoObjectPieces(const StripingLayout& layout,
                                               std::uint64_t file_offset_bytes,
                                               std::uint64_t length_bytes) {
  CheckLayout(layout);
  std::vector<ObjectPiece> pieces;
  if (length_bytes == 0) {
    return pieces;
  }
  if (length_bytes > std::numeric_limits<std::uint64_t>::max() - file_offset_bytes) {
    throw rpc::RpcError::Errno(EFBIG, "byte range at offset " + std::to_string(file_offset_bytes) +
                                          " of " + std::to_string(length_bytes) +
                                          " bytes ends beyond 2^64");
  }
  const std::uint64_t object_size = layout.object_size_bytes;
  const std::uint64_t end = file_offset_bytes + length_bytes;
  const std::uint64_t first_object = file_offset_bytes / object_size;
  const std::uint64_t last_object = (end - 1) / object_size;
  const std::uint64_t piece_count = last_object - first_object + 1;
  if (piece_count > kObjectPiecesMax) {
    throw rpc::RpcError::Errno(EINVAL, "byte range of " + std::to_string(length_bytes) +
                                           " bytes spans " + std::to_string(piece_count) +
                                           " objects, more than " +
                                           std::to_string(kObjectPiecesMax));
  }
  pieces.reserve(piece_count);
  std::uint64_t position = file_offset_bytes;
  // Invariant: position is the first byte not yet covered; each piece ends at end or at the next
  // object boundary, so the loop runs exactly piece_count times.
  for (std::uint64_t object_number = first_object; object_number <= last_object; ++object_number) {
    const std::uint64_t object_start = object_number * object_size;
    const std::uint64_t piece_end = std::min(end, object_start + object_size);
    ObjectPiece piece;
    piece.object_number = object_number;
    piece.stripe_position = static_cast<std::uint32_t>(object_number % layout.stripe_width);
    piece.offset_in_object_bytes = static_cast<std::uint32_t>(position - object_start);
    piece.length_bytes = static_cast<std::uint32_t>(piece_end - position);
    piece.file_offset_bytes = position;
    pieces.push_back(piece);
    position = piece_end;
  }
  return pieces;
}

}  // namespace xtreemfs::client
