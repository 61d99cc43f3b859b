// zstd compression of fragment buffers. Each thread keeps one compression and one
// decompression context (each made on first use), so encoding and reading many buffers
// allocates no zstd state per buffer. Thread-safe.
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
// As ZstdCompressAppend, but as consecutive frames of at most `frame_bytes` of `source` each
// (one frame when `frame_bytes` is 0 or `source` fits in one), so that a reader of a few bytes
// decodes one frame (ZstdDecompressRange); returns the bytes appended.
Result<size_t> ZstdCompressFramesAppend(std::span<const uint8_t> source, int level,
                                        uint64_t frame_bytes, std::string& out);
// Bytes [begin, begin + destination.size()) of what the zstd frames `source` (together
// `total_bytes`) decompress to. Frames before the range are skipped by their headers (each
// declares its size; zstd's block headers give its stored length), and only the frames that
// hold the range are decoded, each only up to the range's end: a read of a row near a one-frame
// buffer's start decodes its first blocks, a row of a buffer written in bounded frames one frame.
// The whole exact decompression when the range is the whole buffer. Corruption (no object name)
// when a frame is malformed, the frames hold more than `total_bytes`, or they end before the
// range does; bytes past the range are not looked at.
Status ZstdDecompressRange(std::string_view source, uint64_t total_bytes, uint64_t begin,
                           std::span<uint8_t> destination);

// The delta form of 4-byte little-endian offsets (`raw.size()` a multiple of 4): the first
// value, then each value minus the one before it, modulo 2^32.
std::vector<uint8_t> DeltaEncode32(std::span<const uint8_t> raw);
// Undoes DeltaEncode32 in place (a running sum modulo 2^32); `bytes.size()` a multiple of 4.
void DeltaDecode32(std::span<uint8_t> bytes);

}  // namespace omnigraph::table
