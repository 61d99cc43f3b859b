// Damage detection: every single-byte change and every truncation of a sample fragment must be
// reported as Corruption naming the object — never a wrong answer, never an out-of-bounds read
// (this suite runs under ASan).
#include <gtest/gtest.h>

#include <memory>

#include "base/random.h"
#include "storage/memory_store.h"
#include "table/column_builder.h"
#include "table/fragment_reader.h"
#include "table/fragment_writer.h"
#include "table/random_batch.h"

namespace omnigraph::table {
namespace {

constexpr std::string_view kName = "tables/t/data/sample.ogf";

// Opens `bytes` stored under kName (with the size the manifest would record, or with a HEAD)
// and reads every column; the status of the first failure, or OK.
Status OpenAndReadAll(const std::string& bytes, std::optional<uint64_t> size_bytes) {
  storage::MemoryStore store;
  OMNIGRAPH_RETURN_IF_ERROR(store.Put(kName, bytes));
  Result<std::unique_ptr<FragmentReader>> reader =
      size_bytes ? OpenFragment(store, kName, *size_bytes) : OpenFragment(store, kName);
  OMNIGRAPH_RETURN_IF_ERROR(reader.status());
  return (*reader)->ReadAll().status();
}

void ExpectCorruption(const Status& status, const std::string& what) {
  EXPECT_EQ(status.code(), Code::kCorruption) << what << ": " << status.ToString();
  EXPECT_EQ(status.object(), kName) << what;
}

// A small fragment with every type, nulls and every codec (tiny buffers are stored plainly,
// offsets as deltas).
std::string SampleFragment() {
  Random random(2024);
  ColumnBatch batch = RandomBatch(EveryTypeSchema(), 24, random);
  FragmentWriteOptions options;
  options.compress_min_bytes = 32;
  return std::move(EncodeFragment(batch, options)).value();
}

TEST(FragmentCorruptionTest, SampleIsReadableAndUsesEveryCodec) {
  const std::string sample = SampleFragment();
  EXPECT_TRUE(OpenAndReadAll(sample, sample.size()).ok());
  storage::MemoryStore store;
  ASSERT_TRUE(store.Put(kName, sample).ok());
  auto reader = std::move(OpenFragment(store, kName)).value();
  bool plain = false, zstd = false, delta = false;
  for (const ColumnMeta& column : reader->footer().columns) {
    for (const BufferMeta& buffer : column.buffers) {
      plain |= buffer.codec == Codec::kNone;
      zstd |= buffer.codec == Codec::kZstd;
      delta |= buffer.codec == Codec::kDeltaZstd;
    }
  }
  EXPECT_TRUE(plain && zstd && delta);
}

TEST(FragmentCorruptionTest, EverySingleByteChangeIsDetected) {
  const std::string sample = SampleFragment();
  for (uint8_t mask : {0x01, 0x80, 0xff}) {
    for (size_t pos = 0; pos < sample.size(); ++pos) {
      std::string damaged = sample;
      damaged[pos] = static_cast<char>(damaged[pos] ^ mask);
      ExpectCorruption(OpenAndReadAll(damaged, damaged.size()),
                       "byte " + std::to_string(pos) + " ^ " + std::to_string(mask));
      if (HasFailure()) return;
    }
  }
}

TEST(FragmentCorruptionTest, EveryTruncationIsDetected) {
  const std::string sample = SampleFragment();
  for (size_t length = 1; length < sample.size(); ++length) {
    const std::string truncated = sample.substr(0, length);
    // The manifest's size no longer matches the object.
    ExpectCorruption(OpenAndReadAll(truncated, sample.size()),
                     "length " + std::to_string(length) + " opened with the recorded size");
    // Opened by HEAD, the truncated object is taken at its word and still fails.
    ExpectCorruption(OpenAndReadAll(truncated, std::nullopt),
                     "length " + std::to_string(length) + " opened by HEAD");
    if (HasFailure()) return;
  }
  ExpectCorruption(OpenAndReadAll("", std::nullopt), "empty object");
}

TEST(FragmentCorruptionTest, DamageOutsideTheOpeningReadIsFoundByTheColumnRead) {
  // A fragment much larger than the opening read: the header and first columns are read only by
  // Read, which must still check them.
  ColumnBuilder builder(DataType::Scalar(TypeId::kBinary), false);
  Random random(8);
  for (int i = 0; i < 4000; ++i) {
    std::string value(40, '\0');
    random.Fill({reinterpret_cast<uint8_t*>(value.data()), value.size()});
    builder.AppendString(value);
  }
  Schema schema = {{1, "blob", builder.type(), false}};
  std::vector<Column> columns;
  columns.push_back(std::move(builder.Finish()).value());
  const std::string sample =
      std::move(EncodeFragment(ColumnBatch(schema, std::move(columns), 4000))).value();
  ASSERT_GT(sample.size(), 2 * kFooterReadBytes);
  EXPECT_TRUE(OpenAndReadAll(sample, sample.size()).ok());
  for (size_t pos : {size_t{0}, size_t{3}, size_t{5}, size_t{8}, size_t{9}, size_t{20000},
                     sample.size() - kFooterReadBytes - 1}) {
    std::string damaged = sample;
    damaged[pos] = static_cast<char>(damaged[pos] ^ 0x10);
    ExpectCorruption(OpenAndReadAll(damaged, damaged.size()), "byte " + std::to_string(pos));
  }
}

}  // namespace
}  // namespace omnigraph::table
