// Reading fragment files (.ogf) column by column with ranged reads (docs/format/fragment.md
// §Reading).
//
// OpenFragment reads the last kFooterReadBytes of the object (or all of it when smaller) in one
// ranged GET, which holds the tail and, for fragments of up to a few hundred columns, the whole
// footer; a larger footer costs exactly one more ranged GET. FragmentReader::Read then fetches
// only the projected columns: one ranged GET per run of adjacent projected columns, none for
// columns inside the bytes the open already holds. Every buffer's checksum is verified before
// it is decoded, and every size and offset is checked before use, so damaged input yields
// Corruption naming the object, never an out-of-bounds access.
//
// A reader borrows the store, which must outlive it. Read is const and thread-safe when the
// store is (every ObjectStore is).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/object_store.h"
#include "storage/shared_bytes.h"
#include "table/column.h"
#include "table/fragment_format.h"

namespace omnigraph::table {

// Rows [begin, end) of a fragment.
struct RowRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

// Bytes [offset, offset + data.size()) of a fragment read before its footer was (a column the
// table manifest's column offsets locate, read beside the footer: decision 235). A reader uses
// them for any column wholly inside them instead of fetching it; the footer's checksums check
// them as they check fetched bytes, so bytes that are not the column's only cost a fetch more.
struct HeldBytes {
  uint64_t offset = 0;
  storage::SharedBytes data;
};

class FragmentReader {
 public:
  const std::string& name() const { return name_; }
  uint64_t size_bytes() const { return size_bytes_; }
  uint64_t num_rows() const { return footer_.num_rows; }
  // Schema, statistics and the buffer directory.
  const FragmentFooter& footer() const { return footer_; }
  Schema schema() const { return footer_.schema(); }

  // The columns `field_ids`, in that order. InvalidArgument for an id the fragment does not have
  // or one given twice; Corruption naming the object when any fetched byte is damaged or the
  // object is not the size it was opened with; storage failures as the store reports them.
  Result<ColumnBatch> Read(std::span<const uint32_t> field_ids) const;
  // Every column, in schema order.
  Result<ColumnBatch> ReadAll() const;
  // Rows rows[i] of column field_ids[i], for each i: the same ranged GETs and checksums as
  // Read, but each buffer decompressed only where those rows are (ZstdDecompressRange), so a
  // reader of a few rows does not decompress the rest (docs/format/fragment.md "Reading a few
  // rows"). Any column can be read whole; from row 0 any scalar column (PrefixDecodable); from a
  // later row only a fixed-width column without nulls (RangeDecodable). The errors of Read, and
  // InvalidArgument for rows past the fragment's or a column that cannot be read so.
  // Columns wholly inside `held` are taken from there instead of fetched.
  Result<std::vector<Column>> ReadRows(std::span<const uint32_t> field_ids,
                                       std::span<const RowRange> rows,
                                       std::span<const HeldBytes> held = {}) const;
  // Whether ReadRows can read field `field_id` from a row past 0: a fixed-width column with no
  // null in this fragment.
  bool RangeDecodable(uint32_t field_id) const;

  // The decoded buffer `kind` of column `field_id` (one ranged GET, checksum verified): what a
  // reader of one cell needs without the whole column. NotFound when the column has no such
  // buffer (a validity bitmap of a column without nulls); InvalidArgument for an unknown field;
  // Corruption naming the object for damaged bytes.
  Result<std::string> ReadBuffer(uint32_t field_id, BufferKind kind) const;

  // The ranged GETs Read(field_ids) makes, in file order (for tests and cost estimates), none for
  // a column wholly inside `held`. Precondition: the ids are valid for this fragment.
  std::vector<storage::ByteRange> PlanReads(std::span<const uint32_t> field_ids,
                                            std::span<const HeldBytes> held = {}) const;

 private:
  friend Result<std::unique_ptr<FragmentReader>> OpenFragment(storage::ObjectStore& store,
                                                              std::string_view name,
                                                              uint64_t size_bytes,
                                                              uint64_t first_read_bytes);
  FragmentReader(storage::ObjectStore& store, std::string name, uint64_t size_bytes,
                 uint64_t first_read_bytes)
      : store_(&store),
        name_(std::move(name)),
        size_bytes_(size_bytes),
        first_read_bytes_(first_read_bytes) {}

  // Read's and ReadRows' work: rows rows[i] of column field_ids[i], each readable so.
  Result<std::vector<Column>> Decode(std::span<const uint32_t> field_ids,
                                     std::span<const RowRange> rows,
                                     std::span<const HeldBytes> held) const;
  // Fetches [offset, offset + length) and checks that the object still has size_bytes_.
  Result<storage::SharedBytes> Fetch(uint64_t offset, uint64_t length) const;
  Status Open();
  Status Damaged(const std::string& what) const;

  storage::ObjectStore* store_;
  std::string name_;
  uint64_t size_bytes_;
  uint64_t first_read_bytes_;  // What the open reads from the end (at least kFooterReadBytes).
  uint32_t version_ = 0;
  FragmentFooter footer_;
  // The bytes [cached_offset_, size_bytes_) read while opening.
  storage::SharedBytes cached_;
  uint64_t cached_offset_ = 0;
};

// The ranged GETs that read byte spans [begin, end) of columns, given in file order: one per run
// of adjacent spans, empty spans skipped, and a run that starts where the header ends starts at
// 0 instead, so that the header is fetched, and checked, whenever a byte near it is used.
std::vector<storage::ByteRange> CoalesceColumnReads(
    std::span<const std::pair<uint64_t, uint64_t>> spans);

// Bytes `range` of fragment `name`, which must be `size_bytes` long: Corruption naming the object
// when the store has it shorter or of another size; storage failures as the store reports them.
// Read with GetShared: a local store maps a large range instead of copying it (decision 251), so
// a cold reader pages in the bytes it touches, not a fresh heap buffer per read; elsewhere the
// bytes read, as Get reads them.
Result<storage::SharedBytes> ReadFragmentRange(storage::ObjectStore& store, const std::string& name,
                                               uint64_t size_bytes, storage::ByteRange range);

// Whether ReadRows can read a column of `type` from row 0: Bool, a fixed-width or a variable-width
// scalar (lists and vectors are read whole).
bool PrefixDecodable(const DataType& type);

// Opens fragment `name` whose size the caller knows (table manifests record it): one ranged GET
// of its last `first_read_bytes` (at least kFooterReadBytes; the whole object when smaller, and
// then no column costs another read), or two when the footer is larger than the first read.
// InvalidArgument for a bad name; NotFound when absent; Corruption naming the object when the
// size is wrong or the tail or footer is damaged; FormatTooNew for an intact fragment of a newer
// format version.
Result<std::unique_ptr<FragmentReader>> OpenFragment(storage::ObjectStore& store,
                                                     std::string_view name, uint64_t size_bytes,
                                                     uint64_t first_read_bytes = kFooterReadBytes);
// As above, learning the size with one HEAD first.
Result<std::unique_ptr<FragmentReader>> OpenFragment(storage::ObjectStore& store,
                                                     std::string_view name);

}  // namespace omnigraph::table
