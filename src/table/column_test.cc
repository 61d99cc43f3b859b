#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "table/buffer.h"
#include "table/column.h"
#include "table/column_builder.h"
#include "table/stats.h"

namespace omnigraph::table {
namespace {

Column Build(ColumnBuilder& builder) { return std::move(builder.Finish()).value(); }

TEST(ColumnBuilderTest, StringColumnHasArrowValidityOffsetsAndValues) {
  ColumnBuilder builder(DataType::Scalar(TypeId::kString), /*nullable=*/true);
  builder.AppendString("ab");
  builder.AppendNull();
  builder.AppendString("");
  builder.AppendString("xyz");
  Column column = Build(builder);
  EXPECT_EQ(column.length(), 4u);
  EXPECT_EQ(column.null_count(), 1u);
  ASSERT_EQ(column.validity().size(), 1u);
  EXPECT_EQ(column.validity().data()[0], 0b1101);  // LSB first; slot 1 is null.
  std::vector<int32_t> offsets(column.offsets().begin(), column.offsets().end());
  EXPECT_EQ(offsets, (std::vector<int32_t>{0, 2, 2, 2, 5}));
  EXPECT_EQ(std::string(column.value_bytes(), column.values_buffer().size()), "abxyz");
  EXPECT_EQ(column.StringAt(3), "xyz");
  EXPECT_TRUE(column.IsNull(1));
}

TEST(ColumnBuilderTest, BoolValuesAreBitPackedAndBitmapIsAbsentWithoutNulls) {
  ColumnBuilder builder(DataType::Scalar(TypeId::kBool), /*nullable=*/true);
  for (int i = 0; i < 10; ++i) builder.AppendBool(i % 3 == 0);
  Column column = Build(builder);
  EXPECT_TRUE(column.validity().empty());
  ASSERT_EQ(column.values_buffer().size(), 2u);
  EXPECT_EQ(column.values_buffer().data()[0], 0b01001001);
  EXPECT_EQ(column.values_buffer().data()[1], 0b10);
  EXPECT_TRUE(column.BoolAt(9));
  EXPECT_FALSE(column.BoolAt(8));
}

TEST(ColumnBuilderTest, ListAndVectorColumnsHaveChildren) {
  ColumnBuilder lists(DataType::List(TypeId::kI64), true);
  std::vector<int64_t> a = {1, 2, 3};
  lists.AppendList<int64_t>(a);
  lists.AppendNull();
  lists.AppendList<int64_t>({});
  Column list = Build(lists);
  EXPECT_EQ(list.child().length(), 3u);
  EXPECT_EQ(list.ListRange(0), (std::pair<uint64_t, uint64_t>{0, 3}));
  EXPECT_EQ(list.ListRange(2), (std::pair<uint64_t, uint64_t>{3, 3}));
  EXPECT_TRUE(ValidateColumn(list, Field{1, "l", list.type(), true}).ok());

  ColumnBuilder vectors(DataType::Vector(2), true);
  std::vector<float> v = {1.5f, -2.0f};
  vectors.AppendNull();
  vectors.AppendVector(v);
  Column vector = Build(vectors);
  EXPECT_EQ(vector.child().length(), 4u);  // A null slot still holds two floats.
  EXPECT_EQ(vector.VectorAt(1)[1], -2.0f);
  EXPECT_TRUE(ValidateColumn(vector, Field{1, "v", vector.type(), true}).ok());
}

TEST(ColumnBuilderTest, FinishRejectsNullInNonNullableColumn) {
  ColumnBuilder builder(DataType::Scalar(TypeId::kI32), /*nullable=*/false);
  builder.Append<int32_t>(1);
  builder.AppendNull();
  Result<Column> column = builder.Finish();
  ASSERT_FALSE(column.ok());
  EXPECT_EQ(column.status().code(), Code::kInvalidArgument);
}

TEST(ColumnBuilderTest, FinishRejectsVectorOfWrongDimension) {
  ColumnBuilder builder(DataType::Vector(3), false);
  std::vector<float> two = {1, 2};
  builder.AppendVector(two);
  EXPECT_EQ(builder.Finish().status().code(), Code::kInvalidArgument);
}

TEST(ColumnBuilderTest, FinishLeavesBuilderReusable) {
  ColumnBuilder builder(DataType::Scalar(TypeId::kString), false);
  builder.AppendString("a");
  ASSERT_TRUE(builder.Finish().ok());
  builder.AppendString("bc");
  Column second = Build(builder);
  EXPECT_EQ(second.length(), 1u);
  EXPECT_EQ(second.StringAt(0), "bc");
}

// A builder given the room of the batch before (decision 249) fills a like batch without
// growing: each buffer's capacity is what was reserved (rounded up to 64 bytes), not the power of
// two that growth by doubling reaches, and the column is the same as one built without it.
TEST(ColumnBuilderTest, ReserveLikeGivesALikeBatchItsRoomAtOnce) {
  const auto fill = [](ColumnBuilder& strings, ColumnBuilder& lists) {
    for (int i = 0; i < 1000; ++i) {
      if (i % 10 == 3) {
        strings.AppendNull();
      } else {
        strings.AppendString("abcdefg");
      }
      // Element by element, as a load appends a list value.
      for (int64_t k = i; k < i + 3; ++k) lists.list_child().Append<int64_t>(k);
      lists.EndList();
    }
  };
  ColumnBuilder strings(DataType::Scalar(TypeId::kString), true);
  ColumnBuilder lists(DataType::List(TypeId::kI64), false);
  fill(strings, lists);
  const Column first_strings = Build(strings);
  const Column first_lists = Build(lists);
  EXPECT_EQ(first_strings.values_buffer().capacity(), 8192u);  // Grown by doubling.
  EXPECT_EQ(first_lists.child().values_buffer().capacity(), 32768u);
  strings.ReserveLike(first_strings);
  lists.ReserveLike(first_lists);
  fill(strings, lists);
  const Column second_strings = Build(strings);
  const Column second_lists = Build(lists);
  EXPECT_TRUE(second_strings.Equals(first_strings));
  EXPECT_TRUE(second_lists.Equals(first_lists));
  EXPECT_EQ(second_strings.values_buffer().capacity(), 6336u);   // 900 x 7 bytes, to 64.
  EXPECT_EQ(second_strings.offsets_buffer().capacity(), 4032u);  // 4 + 4 x 1001 bytes, to 64.
  EXPECT_EQ(second_strings.validity().capacity(), 128u);         // 125 bytes, to 64.
  EXPECT_EQ(second_lists.offsets_buffer().capacity(), 4032u);
  EXPECT_EQ(second_lists.child().values_buffer().capacity(), 24000u);  // 3,000 x 8 bytes.
}

TEST(ValidateColumnTest, RejectsDecreasingOffsets) {
  Buffer offsets;
  for (int32_t o : {0, 3, 2, 4}) offsets.Push(o);
  Buffer values;
  values.Append("abcd", 4);
  Column column(DataType::Scalar(TypeId::kString), 3, 0, Buffer(), std::move(offsets),
                std::move(values), nullptr);
  Status status = ValidateColumn(column, Field{7, "s", column.type(), false});
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
}

TEST(ValidateColumnTest, RejectsOffsetsNotEndingAtValueSize) {
  Buffer offsets;
  for (int32_t o : {0, 1, 2}) offsets.Push(o);
  Buffer values;
  values.Append("abc", 3);
  Column column(DataType::Scalar(TypeId::kBinary), 2, 0, Buffer(), std::move(offsets),
                std::move(values), nullptr);
  EXPECT_FALSE(ValidateColumn(column, Field{7, "b", column.type(), false}).ok());
}

TEST(ValidateColumnTest, RejectsNullCountThatDisagreesWithBitmap) {
  Buffer validity;
  validity.Push<uint8_t>(0b011);
  Buffer values;
  for (int64_t v : {1, 2, 3}) values.Push(v);
  Column column(DataType::Scalar(TypeId::kI64), 3, 2, std::move(validity), Buffer(),
                std::move(values), nullptr);
  EXPECT_FALSE(ValidateColumn(column, Field{1, "x", column.type(), true}).ok());
}

TEST(ValidateColumnTest, RejectsTypeOtherThanTheField) {
  ColumnBuilder builder(DataType::Scalar(TypeId::kI64), false);
  builder.Append<int64_t>(5);
  Column column = Build(builder);
  EXPECT_FALSE(ValidateColumn(column, Field{1, "x", DataType::Scalar(TypeId::kU64), false}).ok());
  EXPECT_TRUE(ValidateColumn(column, Field{1, "x", DataType::Scalar(TypeId::kI64), false}).ok());
}

TEST(ColumnTest, EqualsIgnoresBytesUnderNulls) {
  Buffer validity_a, validity_b, values_a, values_b;
  validity_a.Push<uint8_t>(0b01);
  validity_b.Push<uint8_t>(0b01);
  values_a.Push<int32_t>(9);
  values_a.Push<int32_t>(100);
  values_b.Push<int32_t>(9);
  values_b.Push<int32_t>(-5);
  Column a(DataType::Scalar(TypeId::kI32), 2, 1, std::move(validity_a), Buffer(),
           std::move(values_a), nullptr);
  Column b(DataType::Scalar(TypeId::kI32), 2, 1, std::move(validity_b), Buffer(),
           std::move(values_b), nullptr);
  EXPECT_TRUE(a.Equals(b));
  ColumnBuilder other(DataType::Scalar(TypeId::kI32), true);
  other.Append<int32_t>(8);
  other.AppendNull();
  EXPECT_FALSE(a.Equals(Build(other)));
}

TEST(StatsTest, MinMaxSkipNullsAndNaN) {
  ColumnBuilder builder(DataType::Scalar(TypeId::kF64), true);
  builder.Append<double>(std::nan(""));
  builder.AppendNull();
  builder.Append<double>(2.5);
  builder.Append<double>(-1.0);
  ColumnStats stats = ComputeStats(Build(builder));
  EXPECT_EQ(stats.null_count, 1u);
  EXPECT_EQ(stats.min, StatValue(-1.0));
  EXPECT_EQ(stats.max, StatValue(2.5));
  EXPECT_TRUE(stats.min_exact && stats.max_exact);
}

TEST(StatsTest, AllNullOrNaNColumnHasNoMinMax) {
  ColumnBuilder builder(DataType::Scalar(TypeId::kF32), true);
  builder.AppendNull();
  builder.Append<float>(std::numeric_limits<float>::quiet_NaN());
  ColumnStats stats = ComputeStats(Build(builder));
  EXPECT_FALSE(stats.min.has_value());
  EXPECT_FALSE(stats.max.has_value());
}

TEST(StatsTest, LongStringsGetBoundsInsteadOfValues) {
  ColumnBuilder builder(DataType::Scalar(TypeId::kString), false);
  const std::string low(100, 'b');
  const std::string high = std::string(63, 'y') + "\xff" + "zz";
  builder.AppendString(low);
  builder.AppendString(high);
  ColumnStats stats = ComputeStats(Build(builder));
  ASSERT_TRUE(stats.min && stats.max);
  const std::string& min = std::get<std::string>(*stats.min);
  const std::string& max = std::get<std::string>(*stats.max);
  EXPECT_EQ(min, std::string(64, 'b'));
  EXPECT_FALSE(stats.min_exact);
  EXPECT_FALSE(stats.max_exact);
  EXPECT_EQ(max, std::string(62, 'y') + "z");  // Trailing 0xff dropped, last byte incremented.
  EXPECT_LE(min, low);
  EXPECT_GT(max, high);
}

TEST(StatsTest, StringOfOnlyFfBytesHasNoUpperBound) {
  ColumnBuilder builder(DataType::Scalar(TypeId::kBinary), false);
  builder.AppendString(std::string(80, '\xff'));
  ColumnStats stats = ComputeStats(Build(builder));
  EXPECT_TRUE(stats.min.has_value());
  EXPECT_FALSE(stats.max.has_value());
}

TEST(StatsTest, ListsAndVectorsHaveOnlyNullCounts) {
  ColumnBuilder builder(DataType::List(TypeId::kI32), true);
  std::vector<int32_t> a = {3, 4};
  builder.AppendList<int32_t>(a);
  builder.AppendNull();
  ColumnStats stats = ComputeStats(Build(builder));
  EXPECT_EQ(stats.null_count, 1u);
  EXPECT_FALSE(stats.min.has_value());
}

// A buffer of 2 MiB or more starts on a huge-page boundary (so the kernel can back it with huge
// pages, as it is advised to), keeps its bytes when it grows, and smaller ones stay 64-byte
// aligned.
TEST(BufferTest, ALargeBufferStartsOnAHugePage) {
  constexpr size_t kHuge = size_t{2} << 20;
  Buffer small(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.data()) % Buffer::kAlignmentBytes, 0u);
  for (size_t i = 0; i < small.size(); ++i) small.data()[i] = static_cast<uint8_t>(i * 7);
  small.Reserve(kHuge + 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.data()) % kHuge, 0u);
  EXPECT_GE(small.capacity(), kHuge + 1);
  EXPECT_EQ(small.size(), 1000u);
  for (size_t i = 0; i < small.size(); ++i) {
    ASSERT_EQ(small.data()[i], static_cast<uint8_t>(i * 7)) << i;
  }
  Buffer large(3 * kHuge);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large.data()) % kHuge, 0u);
  std::memset(large.data(), 0xab, large.size());
  EXPECT_EQ(large.data()[large.size() - 1], 0xab);
}

}  // namespace
}  // namespace omnigraph::table
