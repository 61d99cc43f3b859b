#include "commit/documents.h"

#include <gtest/gtest.h>

#include "commit/test_streams.h"

namespace omnigraph::commit {
namespace {

Record SampleRecord() {
  Record r;
  r.seq = 4127;
  r.commit_id = "main.4127.7K3QZ9ABCD";
  r.parent_commit_id = "main.4126.0000000000";
  r.generation = 4127;
  r.stream = "main";
  r.branch = "main";
  r.actor = "act-ragnor";
  r.created_at = 1757900000000000;
  r.schema = SchemaRef{"01K5", "sha256:aa", 9, "bb", Json::object()};
  r.pins.push_back(testing::TestPin(12, "node:Person", 1201));
  r.pins.back().staged_version = 9223372036854775901ULL;
  r.registrations.push_back(testing::TestRegistration(12, "node:Person"));
  r.renames.push_back(Rename{12, 1, "node:Human", "node:Person", Json::object()});
  r.tombstones.push_back(Tombstone{13, 2, "edge:Old", Json::object()});
  r.lineage = Lineage{"merge", "01K3ABCDEFGHJKMNPQRSTVWXYZ", 88, "x.88.0000000000", Json::object()};
  return r;
}

TEST(DocumentsTest, RecordRoundTripsExactly) {
  Record r = SampleRecord();
  std::string bytes = *EncodeRecord(r);
  Result<Record> back = DecodeRecord(bytes, "obj");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  EXPECT_EQ(*EncodeRecord(*back), bytes);
  // 64-bit staged versions survive as unsigned integers.
  EXPECT_NE(bytes.find("\"staged_version\":9223372036854775901"), std::string::npos);
  EXPECT_NE(bytes.find("\"kind\":\"commit\""), std::string::npos);
}

TEST(DocumentsTest, RandomRecordsEncodeCanonicallyAndRoundTrip) {
  Random random(17);
  auto text = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) {
      static const std::vector<std::string> pieces = {"a", "Z",  "\"", "\\", "\n", "\x01",
                                                      "é", "日", "🎉",  " ",  "/",  ":"};
      s += pieces[random.Uniform(pieces.size())];
    }
    return s;
  };
  for (int i = 0; i < 300; ++i) {
    Record r = SampleRecord();
    r.seq = random.Next64();
    r.created_at = static_cast<int64_t>(random.Next64());
    r.actor = random.Bernoulli(0.3) ? std::optional<std::string>() : text(random.Uniform(8));
    r.branch = text(random.Uniform(12));
    if (random.Bernoulli(0.5)) r.lineage.reset();
    if (random.Bernoulli(0.2)) r.kind = RecordKind::kRetire;
    r.pins.clear();
    for (uint64_t p = 0, n = random.Uniform(5); p < n; ++p) {
      TablePin pin = testing::TestPin(random.Next64(), text(6), random.Next64());
      pin.transaction_uuid = text(10);
      r.pins.push_back(pin);
    }
    if (random.Bernoulli(0.3)) r.idempotency_key = text(5);
    r.members.clear();
    for (uint64_t m = 0, n = random.Bernoulli(0.3) ? random.Uniform(4) : 0; m < n; ++m) {
      BatchMember member;
      if (random.Bernoulli(0.5)) member.actor = text(4);
      if (random.Bernoulli(0.5)) member.idempotency_key = Json{{"key", text(6)}};
      member.counts = Json{{"inserted", random.Uniform(9)}};
      r.members.push_back(std::move(member));
    }
    if (random.Bernoulli(0.2)) r.extra["unknown"] = text(3);
    std::string bytes = *EncodeRecord(r);
    EXPECT_EQ(bytes, CanonicalJson(Json::parse(bytes)));
    Result<Record> back = DecodeRecord(bytes, "obj");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, r);
  }
}

// One encoder writes every record; unknown members at any level are merged in where they sort,
// so the bytes stay canonical (what CanonicalJson makes of the same tree) and survive decoding.
TEST(DocumentsTest, UnknownMembersAtEveryLevelAreWrittenCanonically) {
  Record r = SampleRecord();
  r.extra = {{"aaa_first", 1}, {"middle_m", {{"z", 1}, {"a", 2}}}, {"zzz_last", "x"}};
  r.schema.extra = {{"a_schema", true}, {"z_schema", nullptr}};
  r.lineage->extra = {{"kind_note", "k"}, {"zz", 3}};
  r.pins[0].extra = {{"aa", 1}, {"stable_z", 2}, {"zz", {1, 2}}};
  r.registrations[0].extra = {{"a", 1}, {"l", 2}};
  r.tombstones[0].extra = {{"j", "t"}};
  r.renames[0].extra = {{"g", "r"}, {"u", 1}};
  std::string bytes = *EncodeRecord(r);
  EXPECT_EQ(bytes, CanonicalJson(Json::parse(bytes)));
  Result<Record> back = DecodeRecord(bytes, "obj");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  EXPECT_EQ(*EncodeRecord(*back), bytes);

  Checkpoint c;
  c.stream = "main";
  c.seq = 50;
  c.head_commit_id = "main.50.0000000000";
  c.extra = {{"a_note", 1}, {"t_note", 2}};
  c.schema.extra = {{"x", 1}};
  c.tables.push_back({testing::TestRegistration(1, "node:Person"),
                      testing::TestPin(1, "node:Person", 3), 49, Json{{"q", 1}}});
  c.tables[0].pin.extra = {{"b", 2}};
  std::string cbytes = *EncodeCheckpoint(c);
  EXPECT_EQ(cbytes, CanonicalJson(Json::parse(cbytes)));
  EXPECT_EQ(*DecodeCheckpoint(cbytes, "c"), c);
}

TEST(DocumentsTest, AStringThatIsNotUtf8IsRefusedNotWritten) {
  Record r = SampleRecord();
  r.actor = std::string("bad\xff");
  Result<std::string> bytes = EncodeRecord(r);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bytes.status().message(),
            "record 4127 of stream 'main' holds a string that is not valid UTF-8");
  r = SampleRecord();
  r.pins[0].extra = {{"note", "x"}};
  r.pins[0].table_key = std::string("node:\xc3");
  EXPECT_EQ(EncodeRecord(r).status().code(), Code::kInvalidArgument);
}

TEST(DocumentsTest, RetireRecordRoundTrips) {
  Record r;
  r.kind = RecordKind::kRetire;
  r.seq = 5;
  r.commit_id = "main.5.0000000000";
  r.parent_commit_id = "main.4.0000000000";
  r.stream = "main";
  Result<Record> back = DecodeRecord(*EncodeRecord(r), "obj");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->kind, RecordKind::kRetire);
  EXPECT_FALSE(back->lineage.has_value());
}

TEST(DocumentsTest, UnknownMembersSurviveARewrite) {
  Json j = Json::parse(*EncodeRecord(SampleRecord()));
  j["future_field"] = {{"x", 1}};
  j["pins"][0]["future_pin_field"] = "kept";
  j["schema"]["future_schema_field"] = true;
  Result<Record> r = DecodeRecord(j.dump(), "obj");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Json again = Json::parse(*EncodeRecord(*r));
  EXPECT_EQ(again["future_field"]["x"], 1);
  EXPECT_EQ(again["pins"][0]["future_pin_field"], "kept");
  EXPECT_EQ(again["schema"]["future_schema_field"], true);

  StreamMetadata m;
  m.key = "main";
  m.branch = "main";
  m.native_name = "main";
  Json mj = Json::parse(EncodeStreamMetadata(m));
  mj["owner_note"] = "keep me";
  Result<StreamMetadata> decoded = DecodeStreamMetadata(mj.dump(), "meta");
  ASSERT_TRUE(decoded.ok());
  decoded->retired = Retired{7, 123};
  Json rewritten = Json::parse(EncodeStreamMetadata(*decoded));
  EXPECT_EQ(rewritten["owner_note"], "keep me");
  EXPECT_EQ(rewritten["retired"]["at_seq"], 7);
}

TEST(DocumentsTest, NewerFormatIsRefusedBeforeInterpretation) {
  // Everything but the format is nonsense: the format check must come first.
  Result<Record> r = DecodeRecord(R"({"format":2,"seq":"not a number"})", "_graph/main/x.commit");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kFormatTooNew);
  EXPECT_EQ(r.status().object(), "_graph/main/x.commit");
  EXPECT_EQ(DecodeCheckpoint(R"({"format":3})", "c").status().code(), Code::kFormatTooNew);
  EXPECT_EQ(DecodeHint(R"({"format":2,"seq":1})", "h").status().code(), Code::kFormatTooNew);
  EXPECT_EQ(DecodeStreamMetadata(R"({"format":9})", "m").status().code(), Code::kFormatTooNew);
  EXPECT_EQ(DecodeStorageStamp(R"({"format":2})", "s").status().code(), Code::kFormatTooNew);
}

TEST(DocumentsTest, FormatZeroIsCorruptionNamingTheObject) {
  // No writer ever wrote format 0: such a document is damage, not an older format.
  for (const auto& [status, object] :
       {std::pair{DecodeRecord(R"({"format":0,"seq":1})", "r").status(), "r"},
        std::pair{DecodeCheckpoint(R"({"format":0})", "c").status(), "c"},
        std::pair{DecodeHint(R"({"format":0,"seq":1})", "h").status(), "h"},
        std::pair{DecodeStreamMetadata(R"({"format":0})", "m").status(), "m"},
        std::pair{DecodeStorageStamp(R"({"format":0})", "s").status(), "s"}}) {
    EXPECT_EQ(status.code(), Code::kCorruption) << status.ToString();
    EXPECT_EQ(status.object(), object);
    EXPECT_NE(status.message().find("format 0"), std::string::npos) << status.ToString();
  }
}

TEST(DocumentsTest, MalformedDocumentsAreCorruptionNamingTheObject) {
  struct Case {
    std::string bytes;
    std::string expect;
  };
  Json good = Json::parse(*EncodeRecord(SampleRecord()));
  Json no_seq = good;
  no_seq.erase("seq");
  Json bad_kind = good;
  bad_kind["kind"] = "merge";
  Json neg = good;
  neg["seq"] = -1;
  Json bad_pin = good;
  bad_pin["pins"][0]["incarnation"] = "one";
  for (const Case& c :
       {Case{"{", "invalid JSON"}, Case{"[1]", "not a JSON object"},
        Case{R"({"seq":1})", "no unsigned 'format'"},
        Case{no_seq.dump(), "member 'seq' is missing"}, Case{bad_kind.dump(), "kind 'merge'"},
        Case{neg.dump(), "'seq' is not an unsigned integer"}, Case{bad_pin.dump(), "malformed pin"},
        Case{R"({"format":1,"seq":1,"seq":2})", "duplicate member 'seq'"}}) {
    Result<Record> r = DecodeRecord(c.bytes, "_graph/main/r.commit");
    ASSERT_FALSE(r.ok()) << c.bytes;
    EXPECT_EQ(r.status().code(), Code::kCorruption) << c.bytes;
    EXPECT_NE(r.status().ToString().find(c.expect), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().ToString().find("_graph/main/r.commit"), std::string::npos);
  }
}

TEST(DocumentsTest, OtherDocumentsRoundTrip) {
  Checkpoint c;
  c.stream = "main";
  c.seq = 50;
  c.head_commit_id = "main.50.0000000000";
  c.head_generation = 50;
  c.tables.push_back({testing::TestRegistration(1, "node:Person"),
                      testing::TestPin(1, "node:Person", 3), 49, Json::object()});
  EXPECT_EQ(*DecodeCheckpoint(*EncodeCheckpoint(c), "c"), c);
  EXPECT_EQ(DecodeHint(EncodeHint(Hint{42, std::nullopt, Json::object()}), "h")->seq, 42u);
  StreamMetadata m;
  m.key = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
  m.branch = "feature";
  m.native_name = "feature.01ARZ3NDEKTSV4RRFFQ69G5FAV";
  m.parent_stream = "main";
  m.fork_seq = 120;
  m.fork_commit_id = "main.120.0000000000";
  m.created_at = 5;
  EXPECT_EQ(*DecodeStreamMetadata(EncodeStreamMetadata(m), "m"), m);
  EXPECT_EQ(DecodeStreamMetadata(EncodeStreamMetadata(m), "m")->base_seq(), 120u);
  NameGeneration g{"feature", m.key, 2, Json::object()};
  Result<NameGeneration> gb = DecodeNameGeneration(EncodeNameGeneration(g), "g");
  ASSERT_TRUE(gb.ok());
  EXPECT_EQ(gb->key, m.key);
  EXPECT_EQ(gb->gen, 2u);
  StorageStamp s;
  s.graph_id = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
  s.created_at = 9;
  Result<StorageStamp> sb = DecodeStorageStamp(EncodeStorageStamp(s), "s");
  ASSERT_TRUE(sb.ok());
  EXPECT_EQ(sb->storage_stamp, 15u);
  EXPECT_EQ(sb->checkpoint_interval, 50u);
}

TEST(DocumentsTest, BoundedReadRefusesOversizedObjectsFromTheReportedSize) {
  auto memory = std::make_shared<storage::MemoryStore>();
  auto counting = std::make_shared<storage::CountingStore>(memory);
  ASSERT_TRUE(memory->Put("big", std::string(5000, 'x')).ok());
  Result<std::optional<BoundedRead>> r = ReadBounded(*counting, "big", 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption);
  EXPECT_EQ(r.status().object(), "big");
  // One ranged read that moved at most limit + 1 bytes.
  EXPECT_EQ(counting->Snapshot().gets, 1u);
  EXPECT_EQ(counting->Snapshot().bytes_read, 1001u);
  Result<std::optional<BoundedRead>> absent = ReadBounded(*counting, "none", 1000);
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
}

// The hint's schema (decision 205) round-trips, is absent from a hint written without it, and a
// malformed one is dropped without losing the seq: the hint is a guess, never an error.
TEST(DocumentsTest, AHintCarriesTheSchemaOfItsSeqAsAGuess) {
  SchemaRef schema{"graph-1", "ir-abc", 3, "sha256-def", Json::object()};
  const std::string with = EncodeHint(Hint{7, schema, Json::object()});
  Result<Hint> decoded = DecodeHint(with, "h");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->seq, 7u);
  ASSERT_TRUE(decoded->schema.has_value());
  EXPECT_EQ(*decoded->schema, schema);
  EXPECT_EQ(decoded->extra, Json::object());
  EXPECT_EQ(EncodeHint(*decoded), with);

  const std::string without = EncodeHint(Hint{7, std::nullopt, Json::object()});
  EXPECT_EQ(without, R"({"format":1,"seq":7})");
  EXPECT_FALSE(DecodeHint(without, "h")->schema.has_value());

  for (const char* bad :
       {R"({"format":1,"seq":7,"schema":{"ir_hash":5}})", R"({"format":1,"seq":7,"schema":"x"})"}) {
    Result<Hint> dropped = DecodeHint(bad, "h");
    ASSERT_TRUE(dropped.ok()) << bad << ": " << dropped.status().ToString();
    EXPECT_EQ(dropped->seq, 7u) << bad;
    EXPECT_FALSE(dropped->schema.has_value()) << bad;
  }
}

}  // namespace
}  // namespace omnigraph::commit
