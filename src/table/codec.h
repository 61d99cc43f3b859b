// zstd compression of fragment buffers. Each thread keeps one compression and one
// decompression context, so encoding and reading many buffers allocates no zstd state per
// buffer. Thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace omnigraph::table {

// InvalidArgument unless `level` is a zstd level this library accepts.
Status ValidateZstdLevel(int level);
// Appends one zstd frame holding `source`, compressed at `level`, to `out`; returns its size.
// Internal when zstd fails (it does not for valid levels).
Result<size_t> ZstdCompressAppend(std::span<const uint8_t> source, int level, std::string& out);
// Decompresses the zstd frame `source` into exactly `destination.size()` bytes. Corruption
// (no object name) when the frame is malformed or decodes to a different size.
Status ZstdDecompressExact(std::string_view source, std::span<uint8_t> destination);

// The delta form of 4-byte little-endian offsets (`raw.size()` a multiple of 4): the first
// value, then each value minus the one before it, modulo 2^32.
std::vector<uint8_t> DeltaEncode32(std::span<const uint8_t> raw);
// Undoes DeltaEncode32 in place (a running sum modulo 2^32); `bytes.size()` a multiple of 4.
void DeltaDecode32(std::span<uint8_t> bytes);

}  // namespace omnigraph::table
