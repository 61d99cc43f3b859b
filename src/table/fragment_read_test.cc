// The fragment reader's object operations (exact GET/HEAD counts and bytes), projection, and its
// answers to a wrong size, unknown fields and a newer format version.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "base/hash.h"
#include "base/random.h"
#include "storage/counting_store.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/test_util.h"
#include "table/column_builder.h"
#include "table/fragment_reader.h"
#include "table/fragment_writer.h"
#include "table/random_batch.h"

namespace omnigraph::table {
namespace {

// Four columns of incompressible 8-byte values, each about 80 KB, so the fragment is larger
// than the reader's first read and most columns lie outside it.
ColumnBatch WideBatch(uint64_t rows) {
  Random random(99);
  Schema schema;
  std::vector<Column> columns;
  for (uint32_t c = 0; c < 4; ++c) {
    ColumnBuilder builder(DataType::Scalar(TypeId::kU64), true);
    for (uint64_t i = 0; i < rows; ++i) {
      if (i % 10 == 3) {
        builder.AppendNull();
      } else {
        builder.Append<uint64_t>(random.Next64());
      }
    }
    schema.push_back(Field{100 + c, "c" + std::to_string(c), builder.type(), true});
    columns.push_back(std::move(builder.Finish()).value());
  }
  return ColumnBatch(std::move(schema), std::move(columns), rows);
}

class FragmentReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    inner_ = std::make_shared<storage::MemoryStore>();
    store_ = std::make_unique<storage::CountingStore>(inner_);
  }
  std::shared_ptr<storage::MemoryStore> inner_;
  std::unique_ptr<storage::CountingStore> store_;
};

TEST_F(FragmentReadTest, OpenWithKnownSizeIsOneRangedReadOfTheTail) {
  ColumnBatch batch = WideBatch(10000);
  WrittenFragment written = std::move(WriteFragment(*store_, "w.ogf", batch)).value();
  ASSERT_GT(written.size_bytes, kFooterReadBytes);
  const storage::OpCounts before = store_->Snapshot();
  auto reader = OpenFragment(*store_, "w.ogf", written.size_bytes);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const storage::OpCounts diff = store_->Snapshot() - before;
  EXPECT_EQ(diff.gets, 1u);
  EXPECT_EQ(diff.heads, 0u);
  EXPECT_EQ(diff.bytes_read, kFooterReadBytes);
}

TEST_F(FragmentReadTest, OpenWithoutSizeHeadsFirst) {
  Random random(1);
  ColumnBatch batch = RandomBatch(EveryTypeSchema(), 50, random);
  WrittenFragment written = std::move(WriteFragment(*store_, "s.ogf", batch)).value();
  ASSERT_LT(written.size_bytes, kFooterReadBytes);
  const storage::OpCounts before = store_->Snapshot();
  ASSERT_TRUE(OpenFragment(*store_, "s.ogf").ok());
  const storage::OpCounts diff = store_->Snapshot() - before;
  EXPECT_EQ(diff.heads, 1u);
  EXPECT_EQ(diff.gets, 1u);
  EXPECT_EQ(diff.bytes_read, written.size_bytes);  // A small fragment is read whole.
}

TEST_F(FragmentReadTest, SmallFragmentIsReadEntirelyByTheOpen) {
  Random random(2);
  ColumnBatch batch = RandomBatch(EveryTypeSchema(), 50, random);
  WrittenFragment written = std::move(WriteFragment(*store_, "s.ogf", batch)).value();
  auto reader = std::move(OpenFragment(*store_, "s.ogf", written.size_bytes)).value();
  const storage::OpCounts before = store_->Snapshot();
  ASSERT_TRUE(reader->ReadAll().ok());
  EXPECT_EQ((store_->Snapshot() - before).total(), 0u);
}

TEST_F(FragmentReadTest, ProjectionReadsOnlyTheProjectedColumnsBytes) {
  ColumnBatch batch = WideBatch(10000);
  WrittenFragment written = std::move(WriteFragment(*store_, "w.ogf", batch)).value();
  auto reader = std::move(OpenFragment(*store_, "w.ogf", written.size_bytes)).value();
  const auto& columns = reader->footer().columns;
  const uint64_t tail_start = written.size_bytes - kFooterReadBytes;
  ASSERT_LT(columns[2].end(), tail_start);  // Columns 0..2 lie outside the opening read.

  // Columns 0 and 2 are not adjacent: two ranged GETs of exactly their bytes (the first also
  // fetches the 8-byte header, which it checks).
  std::vector<uint32_t> ids = {102, 100};
  storage::OpCounts before = store_->Snapshot();
  Result<ColumnBatch> read = reader->Read(ids);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  storage::OpCounts diff = store_->Snapshot() - before;
  EXPECT_EQ(diff.gets, 2u);
  EXPECT_EQ(diff.bytes_read, columns[0].end() + (columns[2].end() - columns[2].begin()));
  EXPECT_LT(diff.bytes_read, written.size_bytes / 2);
  EXPECT_EQ(read->field(0).id, 102u);
  EXPECT_TRUE(read->column(0).Equals(batch.column(2)));
  EXPECT_TRUE(read->column(1).Equals(batch.column(0)));

  // Columns 1 and 2 are adjacent: one GET covering both.
  ids = {101, 102};
  before = store_->Snapshot();
  ASSERT_TRUE(reader->Read(ids).ok());
  diff = store_->Snapshot() - before;
  EXPECT_EQ(diff.gets, 1u);
  EXPECT_EQ(diff.bytes_read, columns[2].end() - columns[1].begin());
}

// What EncodeFragment reports as the column offsets (what a manifest records of a large
// fragment, decision 235) is where the footer says each column begins, then the footer's start;
// bytes read ahead at those offsets serve the columns they hold without a fetch, and the header
// they hold is checked as a fetched one is.
TEST_F(FragmentReadTest, ColumnOffsetsLocateTheColumnsAndHeldBytesServeThem) {
  ColumnBatch batch = WideBatch(10000);
  std::vector<uint64_t> offsets;
  const std::string bytes = std::move(EncodeFragment(batch, {}, &offsets)).value();
  ASSERT_TRUE(inner_->Put("w.ogf", bytes).ok());
  auto reader = std::move(OpenFragment(*store_, "w.ogf", bytes.size())).value();
  const auto& columns = reader->footer().columns;
  ASSERT_EQ(offsets.size(), columns.size() + 1);
  for (size_t c = 0; c < columns.size(); ++c) EXPECT_EQ(offsets[c], columns[c].begin()) << c;
  EXPECT_EQ(offsets.back(), columns.back().end());
  Result<Tail> tail = DecodeTail(std::string_view(bytes).substr(bytes.size() - kTailBytes));
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(offsets.back() + tail->footer_bytes + kTailBytes, bytes.size());

  // Columns 0 and 2 held (column 0's run from the header, as CoalesceColumnReads plans it):
  // reading columns 0, 1 and 2 fetches column 1 alone.
  const std::vector<std::pair<uint64_t, uint64_t>> spans = {{offsets[0], offsets[1]},
                                                            {offsets[2], offsets[3]}};
  const std::vector<storage::ByteRange> ranges = CoalesceColumnReads(spans);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].offset, 0u);
  std::vector<HeldBytes> held;
  for (const storage::ByteRange& r : ranges) {
    held.push_back(
        HeldBytes{r.offset, storage::SharedBytes::FromString(bytes.substr(r.offset, r.length))});
  }
  const std::vector<uint32_t> ids = {100, 101, 102};
  const std::vector<RowRange> rows(3, RowRange{0, 10000});
  EXPECT_EQ(reader->PlanReads(ids, held).size(), 1u);
  storage::OpCounts before = store_->Snapshot();
  Result<std::vector<Column>> read = reader->ReadRows(ids, rows, held);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  storage::OpCounts diff = store_->Snapshot() - before;
  EXPECT_EQ(diff.gets, 1u);
  EXPECT_EQ(diff.bytes_read, columns[1].end() - columns[1].begin());
  for (size_t c = 0; c < 3; ++c) EXPECT_TRUE((*read)[c].Equals(batch.column(c))) << c;

  // Held bytes at the wrong place only cost the fetch they would have saved.
  std::vector<HeldBytes> shifted = {HeldBytes{
      offsets[1] + 1, storage::SharedBytes::FromString(bytes.substr(offsets[1] + 1, 64))}};
  before = store_->Snapshot();
  read = reader->ReadRows(ids, rows, shifted);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ((store_->Snapshot() - before).gets, 1u);  // Columns 0-2 in one run.
  for (size_t c = 0; c < 3; ++c) EXPECT_TRUE((*read)[c].Equals(batch.column(c))) << c;

  // A damaged header in held bytes is Corruption naming the object, as in fetched ones.
  std::string damaged(held[0].data.view());
  damaged[1] ^= 0x20;
  held[0].data = storage::SharedBytes::FromString(std::move(damaged));
  read = reader->ReadRows(ids, rows, held);
  EXPECT_EQ(read.status().code(), Code::kCorruption) << read.status().ToString();
  EXPECT_EQ(read.status().object(), "w.ogf");
}

TEST_F(FragmentReadTest, LargeFooterCostsExactlyOneMoreRead) {
  Schema schema;
  std::vector<Column> columns;
  for (uint32_t c = 0; c < 200; ++c) {
    ColumnBuilder builder(DataType::Scalar(TypeId::kString), false);
    builder.AppendString(std::string(kStatBytesMax, static_cast<char>('a' + c % 26)));
    schema.push_back(Field{c, std::string(1000, 'n') + std::to_string(c), builder.type(), false});
    columns.push_back(std::move(builder.Finish()).value());
  }
  ColumnBatch batch(std::move(schema), std::move(columns), 1);
  WrittenFragment written = std::move(WriteFragment(*store_, "big.ogf", batch)).value();
  const storage::OpCounts before = store_->Snapshot();
  auto reader = OpenFragment(*store_, "big.ogf", written.size_bytes);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const storage::OpCounts diff = store_->Snapshot() - before;
  EXPECT_EQ(diff.gets, 2u);
  EXPECT_EQ((*reader)->schema(), batch.schema());
}

TEST_F(FragmentReadTest, ReadRejectsUnknownAndRepeatedFields) {
  ColumnBatch batch = WideBatch(10);
  WrittenFragment written = std::move(WriteFragment(*store_, "w.ogf", batch)).value();
  auto reader = std::move(OpenFragment(*store_, "w.ogf", written.size_bytes)).value();
  std::vector<uint32_t> unknown = {100, 7};
  EXPECT_EQ(reader->Read(unknown).status().code(), Code::kInvalidArgument);
  std::vector<uint32_t> repeated = {101, 101};
  EXPECT_EQ(reader->Read(repeated).status().code(), Code::kInvalidArgument);
}

TEST_F(FragmentReadTest, WrongSizeIsCorruptionNamingTheObject) {
  ColumnBatch batch = WideBatch(10);
  WrittenFragment written = std::move(WriteFragment(*store_, "w.ogf", batch)).value();
  for (uint64_t size :
       {written.size_bytes - 1, written.size_bytes + 1, written.size_bytes * 3, uint64_t{3}}) {
    Result<std::unique_ptr<FragmentReader>> reader = OpenFragment(*store_, "w.ogf", size);
    ASSERT_FALSE(reader.ok()) << size;
    EXPECT_EQ(reader.status().code(), Code::kCorruption) << reader.status().ToString();
    EXPECT_EQ(reader.status().object(), "w.ogf");
  }
}

TEST_F(FragmentReadTest, MissingFragmentIsNotFound) {
  EXPECT_EQ(OpenFragment(*store_, "absent.ogf", 1000).status().code(), Code::kNotFound);
  EXPECT_EQ(OpenFragment(*store_, "absent.ogf").status().code(), Code::kNotFound);
  EXPECT_EQ(OpenFragment(*store_, "/bad//name", 1000).status().code(), Code::kInvalidArgument);
}

TEST_F(FragmentReadTest, IntactFragmentOfNewerVersionIsFormatTooNew) {
  ColumnBatch batch = WideBatch(10);
  std::string bytes = std::move(EncodeFragment(batch)).value();
  // Rewrite both versions and the footer checksum as a version-2 writer would.
  const uint32_t version = 2;
  Tail tail =
      std::move(DecodeTail(std::string_view(bytes).substr(bytes.size() - kTailBytes))).value();
  const std::string_view footer(bytes.data() + bytes.size() - kTailBytes - tail.footer_bytes,
                                tail.footer_bytes);
  const uint64_t hash = XxHash64(footer, version);
  std::memcpy(bytes.data() + 4, &version, 4);
  std::memcpy(bytes.data() + bytes.size() - kTailBytes + 8, &hash, 8);
  std::memcpy(bytes.data() + bytes.size() - 8, &version, 4);
  ASSERT_TRUE(store_->Put("v2.ogf", bytes).ok());
  Result<std::unique_ptr<FragmentReader>> reader = OpenFragment(*store_, "v2.ogf");
  EXPECT_EQ(reader.status().code(), Code::kFormatTooNew);
  EXPECT_EQ(reader.status().object(), "v2.ogf");
}

// A writer's bug (the table layer stores the bytes it is given) must not reach an output: the
// read of a String or List<String> column whose bytes are not UTF-8 is Corruption naming the
// fragment, the column and the slot. Other columns of the fragment still read.
TEST_F(FragmentReadTest, StringsThatAreNotUtf8ReadAsCorruptionNamingTheFragment) {
  ColumnBuilder names(DataType::Scalar(TypeId::kString), false);
  names.AppendString("caf\xc3\xa9");
  names.AppendString("caf\xe9");
  ColumnBuilder tags(DataType::List(TypeId::kString), false);
  const std::vector<std::string_view> good = {"a"};
  const std::vector<std::string_view> bad = {"b", "\xff"};
  tags.AppendStringList(good);
  tags.AppendStringList(bad);
  ColumnBuilder ages(DataType::Scalar(TypeId::kU64), false);
  ages.Append<uint64_t>(1);
  ages.Append<uint64_t>(2);
  Schema schema = {Field{1, "name", names.type(), false}, Field{2, "tags", tags.type(), false},
                   Field{3, "age", ages.type(), false}};
  std::vector<Column> columns;
  columns.push_back(std::move(names.Finish()).value());
  columns.push_back(std::move(tags.Finish()).value());
  columns.push_back(std::move(ages.Finish()).value());
  ASSERT_TRUE(
      WriteFragment(*store_, "t.ogf", ColumnBatch(std::move(schema), std::move(columns), 2)).ok());
  auto reader = OpenFragment(*store_, "t.ogf");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();

  const uint32_t name_id[] = {1};
  Result<ColumnBatch> got = (*reader)->Read(name_id);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kCorruption);
  EXPECT_EQ(got.status().object(), "t.ogf");
  EXPECT_EQ(got.status().message(),
            "fragment data: column 1 (name): row 1 is not valid UTF-8 (byte 0xe9 at offset 3)");
  const uint32_t tags_id[] = {2};
  got = (*reader)->Read(tags_id);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "fragment data: column 2 (tags): list element 2 is not valid UTF-8 (byte 0xff at "
            "offset 0)");
  const uint32_t age_id[] = {3};
  EXPECT_TRUE((*reader)->Read(age_id).ok());
}

// How many of this process's memory mappings are of the file at `path`.
int MappingsOf(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  int count = 0;
  for (std::string line; std::getline(maps, line);) {
    if (line.size() >= path.size() &&
        line.compare(line.size() - path.size(), path.size(), path) == 0) {
      ++count;
    }
  }
  return count;
}

// On a local store a reader maps the ranges of at least 64 KiB it reads (its open's tail, a large
// column run) instead of copying them into fresh heap pages (decision 251): the columns are the
// same, a read's own ranges are unmapped when it returns, and the tail goes with the reader.
TEST(FragmentReadLocalTest, ALocalReaderMapsWhatItReadsAndUnmapsItWithTheReader) {
  storage::TempDir dir;
  auto local = storage::LocalStore::Open(dir.path());
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  const ColumnBatch batch = WideBatch(10000);
  Result<WrittenFragment> written = WriteFragment(**local, "w.ogf", batch);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  ASSERT_GT(written->size_bytes, 2 * kFooterReadBytes);
  const std::string path = dir.path() + "/w.ogf";
  EXPECT_EQ(MappingsOf(path), 0);
  {
    auto reader = OpenFragment(**local, "w.ogf", written->size_bytes);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ(MappingsOf(path), 1);  // The tail the open read.
    Result<ColumnBatch> all = (*reader)->ReadAll();
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      EXPECT_TRUE(all->column(c).Equals(batch.column(c))) << c;
    }
    EXPECT_EQ(MappingsOf(path), 1);
    const std::vector<uint32_t> ids = {100};
    const std::vector<RowRange> rows = {RowRange{0, 10}};
    Result<std::vector<Column>> one = (*reader)->ReadRows(ids, rows);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    EXPECT_EQ(MappingsOf(path), 1);
  }
  EXPECT_EQ(MappingsOf(path), 0);
}

}  // namespace
}  // namespace omnigraph::table
