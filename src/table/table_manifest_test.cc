// Manifest and deletion vector encodings: round trips, preserved unknown members, and the
// checks that refuse damaged or newer documents.
#include <gtest/gtest.h>

#include "table/deletion_vector.h"
#include "table/model_table.h"
#include "table/table_manifest.h"

namespace omnigraph::table {
namespace {

TableManifest Sample() {
  TableManifest m;
  m.table_key = "Person";
  m.stable_table_id = 0x12;
  m.incarnation = 3;
  m.staged_version = kStagedVersionBit | 12345;
  m.base_staged_version = kStagedVersionBit | 999;
  m.target_version = 4;
  m.transaction_uuid = "01890a5d-ac96-774b-bcce-b302099a8057";
  m.operation = Operation::kUpsert;
  m.schema = ModelSchema(/*edge=*/true);
  m.fragments.push_back({"u1", "data/u1.ogf", 10, 500, DeletionRef{"deletions/d1.del", 2, 20, 7}});
  m.fragments.push_back({"u2", "data/u2.ogf", 5, 300, std::nullopt});
  m.entity_count = 13;
  m.inserted_ids_count = 5;
  m.updated_ids_count = 2;
  m.deleted_ids = {"x", "y"};
  m.deleted_ids_count = 2;
  m.created_at = 1700000000000000;
  m.staged_against = StagedAgainst{"main", 41};
  return m;
}

TEST(TableManifestTest, RoundTripsAndPreservesUnknownMembers) {
  TableManifest m = Sample();
  m.extra["future_member"] = {{"a", 1}};
  const std::string bytes = EncodeManifest(m);
  auto decoded = DecodeManifest(bytes, "versions/d1.json");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, m);
  EXPECT_EQ(EncodeManifest(*decoded), bytes);
  EXPECT_EQ(decoded->pin().entity_count, 13u);
  // The staged_version, at or above 2^63, survives as an unsigned integer.
  EXPECT_NE(bytes.find(std::to_string(m.staged_version)), std::string::npos);
  EXPECT_EQ(m.table().Root(), "tables/0000000000000012-0000000000000003");
  EXPECT_EQ(ManifestName(m.table(), 5),
            "tables/0000000000000012-0000000000000003/versions/d5.json");
}

TEST(TableManifestTest, SideFileManifestsNameTheFileInsteadOfInlineIds) {
  TableManifest m = Sample();
  m.deleted_ids.clear();
  m.deleted_ids_path = "deleted/abc.json";
  auto decoded = DecodeManifest(EncodeManifest(m), "m");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->deleted_ids_path, "deleted/abc.json");
  EXPECT_TRUE(decoded->deleted_ids.empty());
  const std::string side = EncodeDeletedIds(m.staged_version, {"p", "q"});
  auto ids = DecodeDeletedIds(side, m.staged_version, 2, "deleted/abc.json");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(DecodeDeletedIds(side, m.staged_version, 3, "f").status().code(), Code::kCorruption);
  EXPECT_EQ(DecodeDeletedIds(side, m.staged_version + 1, 2, "f").status().code(),
            Code::kCorruption);
}

TEST(TableManifestTest, DamagedOrInconsistentManifestsAreCorruption) {
  const auto code_of = [](const Json& json) {
    return DecodeManifest(json.dump(), "versions/dX.json").status().code();
  };
  const Json good = ParseJson(EncodeManifest(Sample()), "s").value();
  EXPECT_EQ(code_of(good), Code::kOk);
  Json j = good;
  j["format"] = 2;
  EXPECT_EQ(code_of(j), Code::kFormatTooNew);
  j = good;
  j.erase("transaction_uuid");
  EXPECT_EQ(code_of(j), Code::kCorruption);
  j = good;
  j["entity_count"] = 14;
  EXPECT_EQ(code_of(j), Code::kCorruption);
  j = good;
  j["staged_version"] = 5;
  EXPECT_EQ(code_of(j), Code::kCorruption);
  j = good;
  j["operation"] = "shuffle";
  EXPECT_EQ(code_of(j), Code::kCorruption);
  j = good;
  j["schema"][0]["type"] = "I64";  // The id column must be a String.
  EXPECT_EQ(code_of(j), Code::kCorruption);
  j = good;
  j["fragments"][1]["path"] = "../x.ogf";
  EXPECT_EQ(code_of(j), Code::kCorruption);
  j = good;
  j["deleted_ids"] = {"x"};
  EXPECT_EQ(code_of(j), Code::kCorruption);
  EXPECT_EQ(DecodeManifest("{not json", "m").status().code(), Code::kCorruption);
}

// A large fragment's column offsets (decision 235) round-trip; a manifest without them (every
// one written before) reads with none; offsets that cannot describe the fragment are Corruption.
TEST(TableManifestTest, ColumnOffsetsRoundTripAndMustFitTheFragment) {
  TableManifest m = Sample();
  const size_t columns = m.schema.size();
  m.fragments[1].bytes = 3'000'000;
  for (size_t c = 0; c <= columns; ++c) m.fragments[1].column_offsets.push_back(8 + 1000 * c);
  const std::string bytes = EncodeManifest(m);
  auto decoded = DecodeManifest(bytes, "versions/d1.json");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, m);
  EXPECT_EQ(EncodeManifest(*decoded), bytes);
  EXPECT_TRUE(decoded->fragments[0].column_offsets.empty());
  EXPECT_EQ(EncodeManifest(Sample()).find("column_offsets"), std::string::npos);

  const Json good = ParseJson(bytes, "s").value();
  const auto code_of = [](const Json& json) {
    return DecodeManifest(json.dump(), "versions/dX.json").status().code();
  };
  Json j = good;
  j["fragments"][1].erase("column_offsets");
  EXPECT_EQ(code_of(j), Code::kOk);
  j = good;
  j["fragments"][1]["column_offsets"] = "8,1008";
  EXPECT_EQ(code_of(j), Code::kCorruption);
  j = good;
  j["fragments"][1]["column_offsets"].push_back(-1);
  EXPECT_EQ(code_of(j), Code::kCorruption);
  j = good;  // One per column and the footer's: not one fewer.
  j["fragments"][1]["column_offsets"].erase(columns);
  EXPECT_EQ(code_of(j), Code::kCorruption);
  j = good;  // The first column starts where the header ends.
  j["fragments"][1]["column_offsets"][0] = 0;
  EXPECT_EQ(code_of(j), Code::kCorruption);
  j = good;  // Ascending.
  j["fragments"][1]["column_offsets"][1] = 5000;
  EXPECT_EQ(code_of(j), Code::kCorruption);
  j = good;  // The footer leaves room for the smallest footer and the tail.
  j["fragments"][1]["column_offsets"][columns] = 3'000'000 - 35;
  EXPECT_EQ(code_of(j), Code::kCorruption);
  j["fragments"][1]["column_offsets"][columns] = 3'000'000 - 36;
  EXPECT_EQ(code_of(j), Code::kOk);
}

TEST(TableManifestTest, TableSchemasNeedAStringIdAndReserveTheirFieldIds) {
  EXPECT_TRUE(ValidateTableSchema(ModelSchema()).ok());
  EXPECT_TRUE(ValidateTableSchema(ModelSchema(true)).ok());
  Schema no_id = {{1, "a", DataType::Scalar(TypeId::kI64), false}};
  EXPECT_EQ(ValidateTableSchema(no_id).code(), Code::kInvalidArgument);
  Schema half_edge = ModelSchema();
  half_edge.push_back({kSrcFieldId, "src", DataType::Scalar(TypeId::kString), false});
  EXPECT_EQ(ValidateTableSchema(half_edge).code(), Code::kInvalidArgument);
  Schema reserved = ModelSchema();
  reserved.push_back({0xFFFFFFF9u, "x", DataType::Scalar(TypeId::kString), false});
  EXPECT_EQ(ValidateTableSchema(reserved).code(), Code::kInvalidArgument);
}

TEST(DeletionVectorTest, RoundTripsAndChecksWhatTheManifestRecords) {
  Roaring rows;
  for (uint32_t r : {0u, 5u, 6u, 7u, 1000u}) rows.add(r);
  const std::string bytes = EncodeDeletionVector(rows);
  const DeletionRef ref{"deletions/x.del", 5, bytes.size(), DeletionChecksum(bytes)};
  auto decoded = DecodeDeletionVector(bytes, ref, 1001, "x");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(*decoded == rows);
  // Portable format: readable by the roaring library directly.
  EXPECT_TRUE(Roaring::readSafe(bytes.data(), bytes.size()) == rows);
  EXPECT_EQ(DecodeDeletionVector(bytes, ref, 1000, "x").status().code(), Code::kCorruption);
  DeletionRef wrong_count = ref;
  wrong_count.count = 4;
  EXPECT_EQ(DecodeDeletionVector(bytes, wrong_count, 1001, "x").status().code(), Code::kCorruption);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] ^= 0x20;
    EXPECT_EQ(DecodeDeletionVector(damaged, ref, 1001, "x").status().code(), Code::kCorruption)
        << "byte " << i;
  }
  EXPECT_EQ(DecodeDeletionVector(bytes.substr(0, bytes.size() - 1), ref, 1001, "x").status().code(),
            Code::kCorruption);
}

}  // namespace
}  // namespace omnigraph::table
