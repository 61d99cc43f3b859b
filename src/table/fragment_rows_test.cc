// Reading a few rows of a fragment (decision 219): zstd frames decoded only where the rows are
// (ZstdDecompressRange), FragmentReader::ReadRows giving exactly the rows a whole read gives,
// with the same store calls, and damaged or lying frames reported as Corruption.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/random.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"
#include "table/codec.h"
#include "table/column_builder.h"
#include "table/fragment_reader.h"
#include "table/fragment_writer.h"
#include "table/row_gather.h"

namespace omnigraph::table {
namespace {

// Compressible bytes: small random values, as an age column holds.
std::vector<uint8_t> SmallValues(size_t size, uint64_t seed) {
  Random random(seed);
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = i % 4 == 0 ? random.Next64() % 100 : 0;
  return bytes;
}

std::string Compressed(const std::vector<uint8_t>& raw, uint64_t frame_bytes) {
  std::string out;
  EXPECT_TRUE(ZstdCompressFramesAppend(raw, 3, frame_bytes, out).ok());
  return out;
}

Result<std::vector<uint8_t>> Range(const std::string& stored, uint64_t total, uint64_t begin,
                                   uint64_t size) {
  std::vector<uint8_t> out(size);
  OMNIGRAPH_RETURN_IF_ERROR(ZstdDecompressRange(stored, total, begin, out));
  return out;
}

TEST(ZstdRangeTest, EveryRangeOfOneOrManyFramesIsTheBytesOfTheWholeDecode) {
  const std::vector<uint8_t> raw = SmallValues(300 * 1024 + 7, 1);
  for (uint64_t frame_bytes : {uint64_t{0}, uint64_t{4096}, kFixedWidthFrameBytes}) {
    const std::string stored = Compressed(raw, frame_bytes);
    std::vector<uint8_t> whole(raw.size());
    ASSERT_TRUE(ZstdDecompressExact(stored, whole).ok());
    ASSERT_EQ(whole, raw);
    Random random(frame_bytes + 5);
    std::vector<std::pair<uint64_t, uint64_t>> ranges = {{0, 0},          {0, 1},
                                                         {0, 4096},       {4095, 2},
                                                         {4096, 4096},    {raw.size() - 1, 1},
                                                         {0, raw.size()}, {128 * 1024 - 3, 6}};
    for (int i = 0; i < 40; ++i) {
      const uint64_t begin = random.Next64() % raw.size();
      ranges.emplace_back(begin, random.Next64() % (raw.size() - begin + 1));
    }
    for (const auto& [begin, size] : ranges) {
      Result<std::vector<uint8_t>> got = Range(stored, raw.size(), begin, size);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_TRUE(std::equal(got->begin(), got->end(), raw.begin() + begin))
          << "frames of " << frame_bytes << ", [" << begin << ", +" << size << ")";
    }
  }
}

TEST(ZstdRangeTest, FramesThatEndEarlyOrHoldTooMuchAreCorruption) {
  const std::vector<uint8_t> raw = SmallValues(64 * 1024, 2);
  const std::string framed = Compressed(raw, 4096);
  // The frames hold 64 KiB: a buffer said to be larger ends before a range past them.
  Result<std::vector<uint8_t>> past = Range(framed, raw.size() + 100, raw.size() + 10, 10);
  EXPECT_EQ(past.status().code(), Code::kCorruption) << past.status().ToString();
  // Said to be smaller, the frames hold more than the buffer.
  const uint64_t smaller = raw.size() - 4096 - 1;
  Result<std::vector<uint8_t>> over = Range(framed, smaller, smaller - 10, 10);
  EXPECT_EQ(over.status().code(), Code::kCorruption) << over.status().ToString();
  // Cut inside the third frame: a range in the first two still reads, one after the cut is
  // Corruption (only the frames holding the range are looked at).
  std::string cut = framed.substr(0, framed.size() / 2);
  Result<std::vector<uint8_t>> early = Range(cut, raw.size(), 100, 5000);
  ASSERT_TRUE(early.ok()) << early.status().ToString();
  EXPECT_TRUE(std::equal(early->begin(), early->end(), raw.begin() + 100));
  Result<std::vector<uint8_t>> late = Range(cut, raw.size(), raw.size() - 10, 10);
  EXPECT_EQ(late.status().code(), Code::kCorruption) << late.status().ToString();
  // One frame cut short: its first blocks decode, a range past the cut is Corruption.
  const std::string single = Compressed(SmallValues(400 * 1024, 3), 0);
  Result<std::vector<uint8_t>> truncated =
      Range(single.substr(0, single.size() - 50), 400 * 1024, 400 * 1024 - 8, 8);
  EXPECT_EQ(truncated.status().code(), Code::kCorruption) << truncated.status().ToString();
  // Bytes that are no frame at all.
  Result<std::vector<uint8_t>> garbage = Range(std::string(64, 'x'), 1000, 10, 10);
  EXPECT_EQ(garbage.status().code(), Code::kCorruption) << garbage.status().ToString();
}

TEST(ZstdRangeTest, AFrameWhoseHeaderLiesAboutItsSizeIsCorruption) {
  // A frame that declares more bytes than its blocks hold ends before a range its header
  // promises; one that declares fewer is caught when the next frame's bytes run past the total.
  const std::vector<uint8_t> raw = SmallValues(8192, 4);
  std::string frame = Compressed(raw, 0);
  // The frame header's content size follows the magic (4 bytes), the descriptor and, for a
  // single-segment frame, no window byte: rewrite it as a larger size of the same width.
  const uint8_t descriptor = static_cast<uint8_t>(frame[4]);
  ASSERT_TRUE(descriptor & 0x20) << "single-segment frame expected";
  ASSERT_EQ(descriptor >> 6, 1) << "a 2-byte content size expected";
  const uint16_t lying = static_cast<uint16_t>(raw.size() + 1000 - 256);
  frame[5] = static_cast<char>(lying & 0xff);
  frame[6] = static_cast<char>(lying >> 8);
  Result<std::vector<uint8_t>> got = Range(frame, raw.size() + 1000, raw.size() + 500, 8);
  EXPECT_EQ(got.status().code(), Code::kCorruption) << got.status().ToString();
}

// A batch of `rows`: an I32 without nulls (its values written in bounded frames), a nullable I64,
// a String and a Bool.
ColumnBatch MixedBatch(uint64_t rows) {
  ColumnBuilder ages(DataType::Scalar(TypeId::kI32), false);
  ColumnBuilder counts(DataType::Scalar(TypeId::kI64), true);
  ColumnBuilder names(DataType::Scalar(TypeId::kString), false);
  ColumnBuilder flags(DataType::Scalar(TypeId::kBool), false);
  Random random(7);
  for (uint64_t i = 0; i < rows; ++i) {
    ages.Append<int32_t>(static_cast<int32_t>(random.Next64() % 100));
    if (i % 7 == 3) {
      counts.AppendNull();
    } else {
      counts.Append<int64_t>(static_cast<int64_t>(i * 31));
    }
    names.AppendString("p" + std::to_string(i));
    flags.AppendBool(i % 3 == 0);
  }
  Schema schema = {{1, "age", ages.type(), false},
                   {2, "count", counts.type(), true},
                   {3, "name", names.type(), false},
                   {4, "flag", flags.type(), false}};
  std::vector<Column> columns;
  for (ColumnBuilder* b : {&ages, &counts, &names, &flags}) {
    columns.push_back(std::move(b->Finish()).value());
  }
  return ColumnBatch(std::move(schema), std::move(columns), rows);
}

TEST(FragmentRowsTest, ReadRowsGivesTheRowsOfTheWholeReadWithTheSameStoreCalls) {
  constexpr uint64_t kRows = 50000;
  auto inner = std::make_shared<storage::MemoryStore>();
  storage::CountingStore store(inner);
  const ColumnBatch batch = MixedBatch(kRows);
  const WrittenFragment written = std::move(WriteFragment(store, "m.ogf", batch)).value();
  auto reader = std::move(OpenFragment(store, "m.ogf", written.size_bytes)).value();
  // The I32 values are stored as frames of kFixedWidthFrameBytes: more than one.
  const BufferMeta& ages = reader->footer().columns[0].buffers.back();
  ASSERT_EQ(ages.codec, Codec::kZstd);
  EXPECT_GT(ages.stored_bytes, 0u);
  const uint32_t ids[] = {1, 2, 3, 4};
  const storage::OpCounts before_whole = store.Snapshot();
  const ColumnBatch whole = std::move(reader->Read(ids)).value();
  const storage::OpCounts whole_calls = store.Snapshot() - before_whole;
  EXPECT_TRUE(reader->RangeDecodable(1));
  EXPECT_FALSE(reader->RangeDecodable(2));  // Nulls.
  EXPECT_FALSE(reader->RangeDecodable(3));  // Variable width.
  EXPECT_FALSE(reader->RangeDecodable(4));  // Bits.
  for (const auto& [begin, end] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, 1}, {0, 4097}, {1, 2}, {4095, 4097}, {30000, 30001}, {kRows - 1, kRows}}) {
    // The I32 from `begin`, the others from row 0 (what ReadRows allows them).
    const RowRange ranges[] = {{begin, end}, {0, end}, {0, end}, {0, end}};
    const storage::OpCounts before = store.Snapshot();
    Result<std::vector<Column>> part = reader->ReadRows(ids, ranges);
    ASSERT_TRUE(part.ok()) << part.status().ToString();
    const storage::OpCounts calls = store.Snapshot() - before;
    EXPECT_EQ(calls.gets, whole_calls.gets);
    EXPECT_EQ(calls.bytes_read, whole_calls.bytes_read);
    for (size_t c = 0; c < 4; ++c) {
      const Column& got = (*part)[c];
      ASSERT_EQ(got.length(), end - ranges[c].begin) << c;
      for (uint64_t row = ranges[c].begin; row < end; ++row) {
        std::string want, have;
        AppendValueImage(want, whole.column(c), row);
        AppendValueImage(have, got, row - ranges[c].begin);
        ASSERT_EQ(have, want) << "column " << c << " row " << row;
      }
    }
  }
  // A column with nulls, or a variable-width or Bool one, is read from row 0 or whole only.
  for (uint32_t id : {2u, 3u, 4u}) {
    const uint32_t one[] = {id};
    const RowRange from_five[] = {{5, 6}};
    EXPECT_EQ(reader->ReadRows(one, from_five).status().code(), Code::kInvalidArgument) << id;
  }
  const uint32_t one[] = {1};
  const RowRange past[] = {{kRows, kRows + 1}};
  EXPECT_EQ(reader->ReadRows(one, past).status().code(), Code::kInvalidArgument);
}

TEST(FragmentRowsTest, OneFrameBuffersOfEarlierWritersReadAsWell) {
  // A writer before decision 219 stored each buffer as one frame; reading a few rows of it
  // decodes its first blocks and gives the same rows.
  constexpr uint64_t kRows = 70000;
  storage::MemoryStore store;
  FragmentWriteOptions options;
  options.fixed_width_frame_bytes = 0;
  const ColumnBatch batch = MixedBatch(kRows);
  const WrittenFragment written = std::move(WriteFragment(store, "o.ogf", batch, options)).value();
  auto reader = std::move(OpenFragment(store, "o.ogf", written.size_bytes)).value();
  // The default writer's frames each carry a header: the framed buffer is the larger.
  const WrittenFragment framed = std::move(WriteFragment(store, "f.ogf", batch)).value();
  auto framed_reader = std::move(OpenFragment(store, "f.ogf", framed.size_bytes)).value();
  EXPECT_GT(framed_reader->footer().columns[0].buffers.back().stored_bytes,
            reader->footer().columns[0].buffers.back().stored_bytes);
  const uint32_t ids[] = {1};
  for (uint64_t row : {uint64_t{0}, uint64_t{40000}, kRows - 1}) {
    const RowRange range[] = {{row, row + 1}};
    Result<std::vector<Column>> part = reader->ReadRows(ids, range);
    ASSERT_TRUE(part.ok()) << part.status().ToString();
    EXPECT_EQ((*part)[0].values<int32_t>()[0], batch.column(0).values<int32_t>()[row]) << row;
  }
}

TEST(FragmentRowsTest, DamageInAFrameIsCorruptionNamingTheObjectForAnyRows) {
  // The checksum covers a buffer's every stored byte, so damage anywhere in it — in a frame the
  // rows read would skip too — is Corruption naming the object, as a whole read reports it.
  constexpr uint64_t kRows = 20000;
  const ColumnBatch batch = MixedBatch(kRows);
  const std::string bytes = std::move(EncodeFragment(batch)).value();
  storage::MemoryStore clean;
  ASSERT_TRUE(clean.Put("d.ogf", bytes).ok());
  auto reader = std::move(OpenFragment(clean, "d.ogf", bytes.size())).value();
  const BufferMeta& ages = reader->footer().columns[0].buffers.back();
  for (uint64_t at :
       {ages.offset, ages.offset + ages.stored_bytes / 2, ages.offset + ages.stored_bytes - 1}) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x40);
    storage::MemoryStore store;
    ASSERT_TRUE(store.Put("d.ogf", damaged).ok());
    auto opened = std::move(OpenFragment(store, "d.ogf", damaged.size())).value();
    const uint32_t ids[] = {1};
    const RowRange first_row[] = {{0, 1}};
    const Status status = opened->ReadRows(ids, first_row).status();
    EXPECT_EQ(status.code(), Code::kCorruption) << at << ": " << status.ToString();
    EXPECT_EQ(status.object(), "d.ogf");
  }
}

}  // namespace
}  // namespace omnigraph::table
