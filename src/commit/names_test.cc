#include "commit/names.h"

#include <gtest/gtest.h>

#include "base/hash.h"

namespace omnigraph::commit {
namespace {

TEST(NamesTest, LayoutMatchesTheArchitecture) {
  EXPECT_EQ(RecordName("main", 0), "_graph/main/18446744073709551615.commit");
  EXPECT_EQ(RecordName("main", 4127), "_graph/main/18446744073709547488.commit");
  EXPECT_EQ(CheckpointName("main", 50), "_graph/main/checkpoints/00000000000000000050.json");
  EXPECT_EQ(HintName("main"), "_graph/main/latest.json");
  EXPECT_EQ(StreamMetadataName("main"), "_graph/streams/main.json");
  EXPECT_EQ(NameGenerationName("feature", 3),
            "_graph/names/" + Sha256Hex("feature") + "/00000000000000000003.json");
  EXPECT_EQ(SchemaArchiveName("ab12"), "__history/schemas/ab12.schema");
}

TEST(NamesTest, NewerRecordsSortFirst) {
  EXPECT_LT(RecordName("main", 11), RecordName("main", 10));
  EXPECT_LT(RecordName("main", 10000), RecordName("main", 9999));
  Result<uint64_t> seq = SeqFromRecordFile("18446744073709547488.commit");
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(*seq, 4127u);
  EXPECT_FALSE(SeqFromRecordFile("1844674407370954748.commit").ok());
  EXPECT_FALSE(SeqFromRecordFile("18446744073709547488.json").ok());
  EXPECT_EQ(*GenerationFromFile("00000000000000000007.json"), 7u);
}

TEST(CommitIdTest, MintParseRoundTrip) {
  Random random(3);
  CommitId id = CommitId::Mint("main", 4127, random);
  EXPECT_EQ(id.nonce.size(), 10u);
  std::string text = id.ToString();
  EXPECT_EQ(text.rfind("main.4127.", 0), 0u);
  Result<CommitId> back = CommitId::Parse(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->key, "main");
  EXPECT_EQ(back->seq, 4127u);
  EXPECT_EQ(back->nonce, id.nonce);
  Result<CommitId> branch = CommitId::Parse("01ARZ3NDEKTSV4RRFFQ69G5FAV.12.7K3QZ9ABCD");
  ASSERT_TRUE(branch.ok());
  EXPECT_EQ(branch->key, "01ARZ3NDEKTSV4RRFFQ69G5FAV");
}

TEST(CommitIdTest, RejectsMalformedIds) {
  for (const char* bad : {"", "main", "main.12", "main.x.7K3QZ9ABCD", "main.012.7K3QZ9ABCD",
                          "main.12.7K3QZ9ABC", "main.12.7K3QZ9ABCU", "other.12.7K3QZ9ABCD",
                          "main.99999999999999999999.7K3QZ9ABCD", "../x.1.7K3QZ9ABCD"}) {
    Result<CommitId> r = CommitId::Parse(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().kind(), Kind::kInvalidArgument);
    }
  }
}

TEST(BranchNameTest, RulesOfTheArchitecture) {
  EXPECT_TRUE(ValidateBranchName("feature/x").ok());
  EXPECT_TRUE(ValidateBranchName("résumé").ok());
  EXPECT_TRUE(ValidateBranchName(std::string(255, 'b')).ok());
  EXPECT_FALSE(ValidateBranchName("").ok());
  EXPECT_FALSE(ValidateBranchName(std::string(256, 'b')).ok());
  EXPECT_FALSE(ValidateBranchName(" lead").ok());
  EXPECT_FALSE(ValidateBranchName("trail ").ok());
  EXPECT_FALSE(ValidateBranchName("tab\there").ok());
  EXPECT_FALSE(ValidateBranchName("\xc3\x28").ok());
  EXPECT_FALSE(ValidateBranchName("\xed\xa0\x80").ok());  // A surrogate.
  EXPECT_EQ(ValidateBranchName("").message(), "branch name must not be empty");
}

TEST(BranchNameTest, RefusesTheNameOmniGraphReserves) {
  for (std::string_view name : {"__schema_apply_lock__", "/__schema_apply_lock__"}) {
    Status s = ValidateBranchName(name);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << name;
    EXPECT_NE(s.message().find("is reserved"), std::string::npos) << s.message();
  }
  EXPECT_TRUE(ValidateBranchName("__schema_apply_lock__2").ok());
  EXPECT_TRUE(ValidateBranchName("x/__schema_apply_lock__").ok());
}

}  // namespace
}  // namespace omnigraph::commit
