// Round trips through the fragment writer and reader: random batches of every type, extreme
// values, empty fragments, codec choices and the write path's idempotence.
#include <gtest/gtest.h>

#include <limits>
#include <memory>

#include "base/random.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/test_util.h"
#include "table/column_builder.h"
#include "table/fragment_reader.h"
#include "table/fragment_writer.h"
#include "table/random_batch.h"

namespace omnigraph::table {
namespace {

// Writes `batch`, reads every column back and checks values, schema and statistics.
void ExpectRoundTrip(storage::ObjectStore& store, const ColumnBatch& batch,
                     const FragmentWriteOptions& options, const std::string& name) {
  Result<WrittenFragment> written = WriteFragment(store, name, batch, options);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  Result<std::unique_ptr<FragmentReader>> reader = OpenFragment(store, name, written->size_bytes);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->num_rows(), batch.num_rows());
  EXPECT_EQ((*reader)->schema(), batch.schema());
  Result<ColumnBatch> read = (*reader)->ReadAll();
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->num_columns(), batch.num_columns());
  for (size_t i = 0; i < batch.num_columns(); ++i) {
    EXPECT_TRUE(read->column(i).Equals(batch.column(i))) << "column " << batch.field(i).name;
    EXPECT_EQ((*reader)->footer().columns[i].stats, ComputeStats(batch.column(i)))
        << "column " << batch.field(i).name;
  }
}

TEST(FragmentRoundTripTest, RandomBatchesOfEveryTypeRoundTrip) {
  storage::MemoryStore store;
  const Schema schema = EveryTypeSchema();
  int n = 0;
  for (uint64_t seed : {1, 2, 3}) {
    for (uint64_t rows : {1, 7, 8, 9, 300}) {
      Random random(seed * 1000 + rows);
      ColumnBatch batch = RandomBatch(schema, rows, random);
      SCOPED_TRACE("seed " + std::to_string(seed) + " rows " + std::to_string(rows));
      ExpectRoundTrip(store, batch, {}, "f/" + std::to_string(n++) + ".ogf");
    }
  }
}

TEST(FragmentRoundTripTest, EveryCodecAndLevelRoundTrips) {
  storage::MemoryStore store;
  Random random(42);
  ColumnBatch batch = RandomBatch(EveryTypeSchema(), 500, random);
  int n = 0;
  for (FragmentWriteOptions options :
       {FragmentWriteOptions{Codec::kNone, 3, 64}, FragmentWriteOptions{Codec::kZstd, 1, 0},
        FragmentWriteOptions{Codec::kZstd, 19, 64}, FragmentWriteOptions{Codec::kZstd, -5, 64},
        FragmentWriteOptions{Codec::kZstd, 3, 64, /*delta_offsets=*/false}}) {
    ExpectRoundTrip(store, batch, options, "c/" + std::to_string(n++) + ".ogf");
  }
}

TEST(FragmentRoundTripTest, EmptyFragmentsRoundTrip) {
  storage::MemoryStore store;
  Random random(7);
  ExpectRoundTrip(store, RandomBatch(EveryTypeSchema(), 0, random), {}, "e/rows0.ogf");
  ExpectRoundTrip(store, ColumnBatch(Schema{}, {}, 0), {}, "e/columns0.ogf");
}

TEST(FragmentRoundTripTest, ExtremeValuesRoundTripExactly) {
  ColumnBuilder i64(DataType::Scalar(TypeId::kI64), false);
  ColumnBuilder u64(DataType::Scalar(TypeId::kU64), false);
  ColumnBuilder f32(DataType::Scalar(TypeId::kF32), true);
  ColumnBuilder dt(DataType::Scalar(TypeId::kDateTime), false);
  using I = std::numeric_limits<int64_t>;
  using U = std::numeric_limits<uint64_t>;
  using F = std::numeric_limits<float>;
  const float floats[] = {-0.0f, F::infinity(), F::quiet_NaN(), F::denorm_min()};
  for (int i = 0; i < 4; ++i) {
    i64.Append<int64_t>(i % 2 ? I::min() : I::max());
    u64.Append<uint64_t>(i % 2 ? 0 : U::max());
    f32.Append<float>(floats[i]);
    dt.Append<int64_t>(i % 2 ? I::min() : -1);
  }
  std::vector<Column> columns;
  for (ColumnBuilder* b : {&i64, &u64, &f32, &dt})
    columns.push_back(std::move(b->Finish()).value());
  Schema schema = {{10, "i", DataType::Scalar(TypeId::kI64), false},
                   {20, "u", DataType::Scalar(TypeId::kU64), false},
                   {30, "f", DataType::Scalar(TypeId::kF32), true},
                   {40, "t", DataType::Scalar(TypeId::kDateTime), false}};
  ColumnBatch batch(schema, std::move(columns), 4);
  storage::MemoryStore store;
  ExpectRoundTrip(store, batch, {}, "x.ogf");
  auto reader = std::move(OpenFragment(store, "x.ogf")).value();
  EXPECT_EQ(reader->footer().columns[0].stats.min, StatValue(I::min()));
  EXPECT_EQ(reader->footer().columns[1].stats.max, StatValue(U::max()));
  EXPECT_EQ(reader->footer().columns[2].stats.max, StatValue(F::infinity()));
}

TEST(FragmentRoundTripTest, TinyAndIncompressibleBuffersAreStoredPlainly) {
  ColumnBuilder tiny(DataType::Scalar(TypeId::kI32), false);
  ColumnBuilder repetitive(DataType::Scalar(TypeId::kI64), false);
  ColumnBuilder noise(DataType::Scalar(TypeId::kBinary), false);
  Random random(5);
  for (int i = 0; i < 4; ++i) tiny.Append<int32_t>(i);
  for (int i = 0; i < 1000; ++i) {
    repetitive.Append<int64_t>(i % 3);
    std::string bytes(8, '\0');
    random.Fill({reinterpret_cast<uint8_t*>(bytes.data()), bytes.size()});
    noise.AppendString(bytes);
  }
  tiny.Reserve(996);
  for (int i = 4; i < 1000; ++i) tiny.Append<int32_t>(0);
  std::vector<Column> columns;
  for (ColumnBuilder* b : {&tiny, &repetitive, &noise}) {
    columns.push_back(std::move(b->Finish()).value());
  }
  Schema schema = {{1, "a", DataType::Scalar(TypeId::kI32), false},
                   {2, "b", DataType::Scalar(TypeId::kI64), false},
                   {3, "c", DataType::Scalar(TypeId::kBinary), false}};
  ColumnBatch batch(schema, std::move(columns), 1000);
  FragmentWriteOptions options;
  options.compress_min_bytes = 5000;
  storage::MemoryStore store;
  ExpectRoundTrip(store, batch, options, "p.ogf");
  auto reader = std::move(OpenFragment(store, "p.ogf")).value();
  const auto& columns_meta = reader->footer().columns;
  EXPECT_EQ(columns_meta[0].buffers[0].codec, Codec::kNone);  // 4000 bytes: below the minimum.
  EXPECT_EQ(columns_meta[1].buffers[0].codec, Codec::kZstd);  // 8000 repetitive bytes.
  EXPECT_EQ(columns_meta[2].buffers[1].codec, Codec::kNone);  // Random bytes: incompressible.
  EXPECT_EQ(columns_meta[2].buffers[1].stored_bytes, 8000u);
}

// Offsets buffers are stored as zstd of their differences (Codec::kDeltaZstd): 26-byte ids'
// offsets rise by 26 each, which that form holds in a few bytes. Fragments written without it
// (Codec::kZstd offsets, as before the codec existed) still read.
TEST(FragmentRoundTripTest, OffsetsAreStoredAsDeltasAndTheOlderFormStillReads) {
  ColumnBuilder ids(DataType::Scalar(TypeId::kString), false);
  ColumnBuilder names(DataType::Scalar(TypeId::kString), false);
  for (int i = 0; i < 5000; ++i) {
    ids.AppendString("01ARZ3NDEKTSV4RRFFQ69G5" + std::to_string(100 + i % 900));
    names.AppendString("p" + std::to_string(i * 7919 % 100000));
  }
  std::vector<Column> columns;
  for (ColumnBuilder* b : {&ids, &names}) columns.push_back(std::move(b->Finish()).value());
  const Schema schema = {{1, "id", DataType::Scalar(TypeId::kString), false},
                         {2, "name", DataType::Scalar(TypeId::kString), false}};
  const ColumnBatch batch(schema, std::move(columns), 5000);
  storage::MemoryStore store;
  FragmentWriteOptions older;
  older.delta_offsets = false;
  ExpectRoundTrip(store, batch, {}, "delta.ogf");
  ExpectRoundTrip(store, batch, older, "older.ogf");
  auto delta = std::move(OpenFragment(store, "delta.ogf")).value();
  auto plain = std::move(OpenFragment(store, "older.ogf")).value();
  for (size_t c = 0; c < 2; ++c) {
    const BufferMeta& d = delta->footer().columns[c].buffers[0];
    const BufferMeta& p = plain->footer().columns[c].buffers[0];
    ASSERT_EQ(d.kind, BufferKind::kOffsets);
    EXPECT_EQ(d.codec, Codec::kDeltaZstd);
    EXPECT_EQ(p.codec, Codec::kZstd);
    EXPECT_LT(d.stored_bytes * 4, p.stored_bytes) << "column " << c;
    // The point read of one buffer decodes the deltas too.
    Result<std::string> offsets =
        delta->ReadBuffer(static_cast<uint32_t>(c + 1), BufferKind::kOffsets);
    ASSERT_TRUE(offsets.ok()) << offsets.status().ToString();
    EXPECT_EQ(*offsets, *plain->ReadBuffer(static_cast<uint32_t>(c + 1), BufferKind::kOffsets));
  }
}

TEST(FragmentRoundTripTest, LocalStoreRoundTrips) {
  storage::TempDir dir;
  auto store = std::move(storage::LocalStore::Open(dir.path())).value();
  Random random(11);
  ExpectRoundTrip(*store, RandomBatch(EveryTypeSchema(), 200, random), {}, "t/data/a.ogf");
}

TEST(FragmentWriteTest, RewritingIdenticalBytesSucceedsAndDifferentBytesDoNot) {
  storage::MemoryStore store;
  Random random(3);
  ColumnBatch batch = RandomBatch(EveryTypeSchema(), 20, random);
  ASSERT_TRUE(WriteFragment(store, "a.ogf", batch).ok());
  EXPECT_TRUE(WriteFragment(store, "a.ogf", batch).ok());
  ColumnBatch other = RandomBatch(EveryTypeSchema(), 20, random);
  EXPECT_EQ(WriteFragment(store, "a.ogf", other).status().code(), Code::kAlreadyExists);
}

TEST(FragmentWriteTest, RejectsBadOptionsAndSchemasWithoutWriting) {
  storage::MemoryStore store;
  Random random(3);
  ColumnBatch batch = RandomBatch(EveryTypeSchema(), 5, random);
  FragmentWriteOptions bad_level;
  bad_level.zstd_level = 1000;
  EXPECT_EQ(WriteFragment(store, "a.ogf", batch, bad_level).status().code(),
            Code::kInvalidArgument);
  ColumnBuilder x(DataType::Scalar(TypeId::kI32), false), y(DataType::Scalar(TypeId::kI32), false);
  std::vector<Column> columns;
  columns.push_back(std::move(x.Finish()).value());
  columns.push_back(std::move(y.Finish()).value());
  Schema duplicate = {{1, "x", DataType::Scalar(TypeId::kI32), false},
                      {1, "y", DataType::Scalar(TypeId::kI32), false}};
  EXPECT_EQ(
      WriteFragment(store, "b.ogf", ColumnBatch(duplicate, std::move(columns), 0)).status().code(),
      Code::kInvalidArgument);
  EXPECT_EQ(store.size(), 0u);
}

}  // namespace
}  // namespace omnigraph::table
