// The byte layout of fragment files (.ogf): constants, the footer's in-memory form, and its
// encoding. docs/format/fragment.md is the normative description; this file implements it.
//
//   [header: magic "OGFR", u32 version] [buffers ...] [footer] [tail: u64 footer_bytes,
//   u64 footer_xxhash64, u32 version, magic "OGFR"]
//
// Buffers are stored back to back in column order, with no gaps, so every byte of a file is
// covered by the header check, a buffer checksum, the footer checksum or the tail check.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "table/stats.h"
#include "table/types.h"

namespace omnigraph::table {

inline constexpr char kFragmentMagic[4] = {'O', 'G', 'F', 'R'};
inline constexpr uint32_t kFragmentFormatVersion = 1;
inline constexpr uint64_t kHeaderBytes = 8;
inline constexpr uint64_t kTailBytes = 24;
// The smallest possible footer: a row count and a column count of zero.
inline constexpr uint64_t kFooterBytesMin = 12;
inline constexpr uint64_t kFragmentBytesMin = kHeaderBytes + kFooterBytesMin + kTailBytes;
// A footer larger than this is corrupt (4096 columns of ~1 KiB names fit easily).
inline constexpr uint64_t kFooterBytesMax = 64ull << 20;
// Opening a fragment reads this many bytes from its end (or the whole file when smaller), which
// holds the whole footer of any fragment with a few hundred columns.
inline constexpr uint64_t kFooterReadBytes = 64ull << 10;
// On a remote store (ObjectStore::Remote) the open reads a fragment up to this size whole: the
// footer and every column in one request instead of two dependent ones, where a request round
// costs tens of milliseconds and 1 MiB about one (decision 228).
inline constexpr uint64_t kRemoteFragmentReadBytes = 1ull << 20;

// The role of a buffer within its column; the numeric values are written in footers.
enum class BufferKind : uint8_t {
  kValidity = 0,
  kOffsets = 1,
  kValues = 2,
  kChildOffsets = 3,
  kChildValues = 4,
};
// How a buffer's bytes are stored; the numeric values are written in footers. kDeltaZstd is for
// offsets buffers only (docs/format/fragment.md §2.3): zstd frames of the first 4-byte offset and
// then each offset's difference from the one before it.
enum class Codec : uint8_t { kNone = 0, kZstd = 1, kDeltaZstd = 2 };

struct BufferMeta {
  BufferKind kind = BufferKind::kValues;
  Codec codec = Codec::kNone;
  uint64_t offset = 0;              // Absolute position in the file.
  uint64_t stored_bytes = 0;        // Bytes in the file.
  uint64_t uncompressed_bytes = 0;  // Bytes after decoding.
  uint64_t xxhash64 = 0;            // XXH64, seed 0, of the stored bytes.

  bool operator==(const BufferMeta&) const = default;
};

struct ColumnMeta {
  Field field;
  ColumnStats stats;
  std::vector<BufferMeta> buffers;

  // The file range [begin, end) holding every buffer of the column.
  uint64_t begin() const { return buffers.empty() ? 0 : buffers.front().offset; }
  uint64_t end() const {
    return buffers.empty() ? 0 : buffers.back().offset + buffers.back().stored_bytes;
  }
  bool operator==(const ColumnMeta&) const = default;
};

struct FragmentFooter {
  uint64_t num_rows = 0;
  std::vector<ColumnMeta> columns;

  Schema schema() const;
  // The index of `field_id` in columns, or -1.
  int FindColumn(uint32_t field_id) const;
  bool operator==(const FragmentFooter&) const = default;
};

// The buffers a column of `type` has, in file order; the validity bitmap is stored only when
// the column has nulls.
std::vector<BufferKind> ExpectedBuffers(const DataType& type, bool has_nulls);

// The footer's bytes (without the tail).
std::string EncodeFooter(const FragmentFooter& footer);
// Parses and checks a footer whose buffers must tile [kHeaderBytes, data_end) exactly. Corruption
// (without an object name; the caller adds it) for anything malformed or inconsistent: unknown
// codes, reserved bits set, limits exceeded, buffers missing, misplaced or of impossible sizes,
// statistics of the wrong type, trailing bytes.
Result<FragmentFooter> DecodeFooter(std::string_view bytes, uint64_t data_end);

// The 8-byte header and the 24-byte tail.
std::string EncodeHeader();
std::string EncodeTail(uint64_t footer_bytes, uint64_t footer_xxhash64);
// Corruption unless `bytes` (8) is a header with the magic and `version` (the tail's).
Status CheckHeader(std::string_view bytes, uint32_t version);
// The tail. Its layout, and the rule that the footer checksum is XXH64 of the footer bytes seeded
// with the version, are the same in every format version, so a reader can tell a newer file
// (checksum matches, version unknown: FormatTooNew) from a damaged one (Corruption).
struct Tail {
  uint64_t footer_bytes = 0;
  uint64_t footer_xxhash64 = 0;
  uint32_t version = 0;
};
// Corruption unless `bytes` (24) ends with the magic; the version is not checked here.
Result<Tail> DecodeTail(std::string_view bytes);

}  // namespace omnigraph::table
