// The documented byte layout (docs/format/fragment.md §7) is what the encoder writes.
#include <gtest/gtest.h>

#include <string>

#include "base/hash.h"
#include "table/column_builder.h"
#include "table/fragment_format.h"
#include "table/fragment_writer.h"

namespace omnigraph::table {
namespace {

std::string Hex(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::string U64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }

TEST(FragmentFormatTest, DocumentedExampleIsWhatTheEncoderWrites) {
  ColumnBuilder builder(DataType::Scalar(TypeId::kI32), true);
  builder.Append<int32_t>(5);
  builder.AppendNull();
  builder.Append<int32_t>(9);
  std::vector<Column> columns;
  columns.push_back(std::move(builder.Finish()).value());
  ColumnBatch batch({{7, "age", DataType::Scalar(TypeId::kI32), true}}, std::move(columns), 3);
  FragmentWriteOptions options;
  options.codec = Codec::kNone;
  const std::string bytes = std::move(EncodeFragment(batch, options)).value();

  const std::string validity("\x05", 1);
  const std::string values("\x05\0\0\0\0\0\0\0\x09\0\0\0", 12);
  std::string footer = std::string("\x03\0\0\0\0\0\0\0\x01\0\0\0", 12) +
                       std::string(
                           "\x07\0\0\0\x03\0"
                           "age",
                           9) +
                       std::string("\x02\0\0\0\0\0\x01", 7) + U64(1) +
                       std::string("\x0f\x05\0\0\0\x09\0\0\0", 9) + std::string("\x02", 1);
  footer += std::string("\0\0", 2) + U64(8) + U64(1) + U64(1) + U64(XxHash64(validity));
  footer += std::string("\x02\0", 2) + U64(9) + U64(12) + U64(12) + U64(XxHash64(values));
  const std::string expected = std::string("OGFR\x01\0\0\0", 8) + validity + values + footer +
                               U64(footer.size()) + U64(XxHash64(footer, 1)) +
                               std::string("\x01\0\0\0OGFR", 8);
  EXPECT_EQ(Hex(bytes), Hex(expected));
}

TEST(FragmentFormatTest, ExpectedBuffersFollowTheDocumentedOrder) {
  using K = BufferKind;
  EXPECT_EQ(ExpectedBuffers(DataType::Scalar(TypeId::kBool), false), (std::vector<K>{K::kValues}));
  EXPECT_EQ(ExpectedBuffers(DataType::Scalar(TypeId::kString), true),
            (std::vector<K>{K::kValidity, K::kOffsets, K::kValues}));
  EXPECT_EQ(ExpectedBuffers(DataType::List(TypeId::kI64), false),
            (std::vector<K>{K::kOffsets, K::kChildValues}));
  EXPECT_EQ(ExpectedBuffers(DataType::List(TypeId::kBinary), true),
            (std::vector<K>{K::kValidity, K::kOffsets, K::kChildOffsets, K::kChildValues}));
  EXPECT_EQ(ExpectedBuffers(DataType::Vector(4), false), (std::vector<K>{K::kChildValues}));
}

TEST(FragmentFormatTest, FooterDecodeRejectsTrailingBytesAndMisplacedBuffers) {
  FragmentFooter footer;
  footer.num_rows = 2;
  ColumnMeta column;
  column.field = Field{1, "x", DataType::Scalar(TypeId::kI64), false};
  column.buffers.push_back(BufferMeta{BufferKind::kValues, Codec::kNone, kHeaderBytes, 16, 16, 0});
  footer.columns.push_back(column);
  const std::string encoded = EncodeFooter(footer);
  Result<FragmentFooter> decoded = DecodeFooter(encoded, kHeaderBytes + 16);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, footer);
  EXPECT_EQ(DecodeFooter(encoded + "x", kHeaderBytes + 16).status().code(), Code::kCorruption);
  // The buffer must end exactly where the footer begins.
  EXPECT_EQ(DecodeFooter(encoded, kHeaderBytes + 17).status().code(), Code::kCorruption);
}

}  // namespace
}  // namespace omnigraph::table
