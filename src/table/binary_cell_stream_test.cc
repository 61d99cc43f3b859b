// A Blob read's memory stays bounded however large the value (docs/design/blob.md "Where the
// bytes are"; issue [34] item 6: "a 1 GiB blob never sits in memory whole"). No write path
// admits a value over ~24 MiB (one 32 MiB load line, as OmniGraph's keyed-write ceiling), so the
// fragment is composed here by hand, streamed to a local store's directory in 1 MiB pieces
// (docs/format/fragment.md: header, the Binary column's offsets and values buffers, footer,
// tail), and then read through LocateBinaryCell / ReadBinaryCell as Blob delivery reads it. The
// process's peak RSS (VmHWM) may grow by at most kGrowthBytesMax during the read, whatever the
// size: OMNIGRAPH_BLOB_STREAM_MIB sets it (64 by default; the `slow` test
// table_blob_stream_1gib runs 1024).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <unistd.h>

#include "base/hash.h"
#include "storage/local_store.h"
#include "table/binary_cell.h"
#include "table/fragment_format.h"
#include "table/fragment_reader.h"

// Under AddressSanitizer freed memory waits in a quarantine (256 MiB by default) instead of being
// reused, which would make every streamed piece look resident. Options given in ASAN_OPTIONS
// still win; this only changes the default.
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=4"; }

namespace omnigraph::table {
namespace {

// Two 4 MiB pieces (fetched and handed over) and slack for the allocator and ASan's shadow.
constexpr uint64_t kGrowthBytesMax = uint64_t{32} << 20;
constexpr uint64_t kWritePieceBytes = uint64_t{1} << 20;

uint64_t PeakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

// Deterministic bytes that zstd cannot shrink (the fragment stores them plainly anyway).
void FillPiece(std::string& piece, uint64_t& state) {
  for (size_t i = 0; i + 8 <= piece.size(); i += 8) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    for (int b = 0; b < 8; ++b) piece[i + b] = static_cast<char>(state >> (8 * b));
  }
}

std::string Le32(uint32_t v) {
  std::string out(4, '\0');
  for (int b = 0; b < 4; ++b) out[b] = static_cast<char>(v >> (8 * b));
  return out;
}

TEST(BinaryCellStreamTest, ReadingAHugeValueKeepsPeakMemoryBounded) {
  const char* env = std::getenv("OMNIGRAPH_BLOB_STREAM_MIB");
  const uint64_t size = (env != nullptr ? std::stoull(env) : 64) << 20;
  ASSERT_LT(size, uint64_t{1} << 31);  // Offsets are i32.
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() /
      ("omnigraph-blob-stream-test-" + std::to_string(size >> 20) + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);

  // Compose the fragment: [header][offsets: 0, size][values][footer][tail].
  const std::string offsets = Le32(0) + Le32(static_cast<uint32_t>(size));
  XxHash64Hasher values_hash;
  {
    std::ofstream out(root / "huge.ogf", std::ios::binary);
    out << EncodeHeader() << offsets;
    std::string piece(kWritePieceBytes, '\0');
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (uint64_t done = 0; done < size; done += piece.size()) {
      FillPiece(piece, state);
      values_hash.Update(piece);
      out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    }
    ColumnMeta column;
    column.field = Field{1, "body", DataType::Scalar(TypeId::kBinary), false};
    const uint64_t header_bytes = EncodeHeader().size();
    column.buffers.push_back(BufferMeta{BufferKind::kOffsets, Codec::kNone, header_bytes,
                                        offsets.size(), offsets.size(), XxHash64(offsets)});
    column.buffers.push_back(BufferMeta{BufferKind::kValues, Codec::kNone,
                                        header_bytes + offsets.size(), size, size,
                                        values_hash.Finish()});
    FragmentFooter footer;
    footer.num_rows = 1;
    footer.columns.push_back(column);
    const std::string encoded = EncodeFooter(footer);
    out << encoded << EncodeTail(encoded.size(), XxHash64(encoded, /*seed=*/1));
    ASSERT_TRUE(out.good());
  }

  Result<std::unique_ptr<storage::LocalStore>> store = storage::LocalStore::Open(root.string());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  Result<storage::ObjectMeta> meta = (*store)->Head("huge.ogf");
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  Result<std::unique_ptr<FragmentReader>> reader =
      OpenFragment(**store, "huge.ogf", meta->size_bytes);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  Result<BinaryCell> cell = LocateBinaryCell(**reader, 1, 0);
  ASSERT_TRUE(cell.ok()) << cell.status().ToString();
  ASSERT_EQ(cell->size(), size);

  const uint64_t before = PeakRssBytes();
  ASSERT_GT(before, 0u);
  XxHash64Hasher read_hash;
  uint64_t delivered = 0, piece_max = 0;
  Status read = ReadBinaryCell(**store, *cell, 0, size, [&](std::string_view piece) {
    read_hash.Update(piece);
    delivered += piece.size();
    piece_max = std::max<uint64_t>(piece_max, piece.size());
    return Status::Ok();
  });
  const uint64_t growth = PeakRssBytes() - before;
  ASSERT_TRUE(read.ok()) << read.ToString();
  EXPECT_EQ(delivered, size);
  EXPECT_EQ(read_hash.Finish(), values_hash.Finish());
  EXPECT_LE(piece_max, kCellReadChunkBytes);
  std::cout << "peak RSS grew by " << (growth >> 10) << " KiB reading " << (size >> 20) << " MiB\n";
  EXPECT_LT(growth, kGrowthBytesMax) << "reading " << size << " bytes";
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace omnigraph::table
