// Blob reads through the public API (Database::StatBlob, ReadBlob; docs/design/blob.md) on an
// embedded graph: the bytes loaded come back whole and by range, in pieces of at most 4 MiB with
// one ranged GET each, a validator that follows the bytes, and the errors of a bad selector.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "omnigraph/omnigraph.h"

namespace omnigraph::api {
namespace {

constexpr std::string_view kSchema = R"(
node Doc { name: String @key  body: Blob?  note: String? }
node Tag { name: String @key }
edge Cites: Doc -> Doc { proof: Blob? }
)";

constexpr uint64_t kPieceBytesMax = uint64_t{4} << 20;

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v =
        (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    for (int s : {18, 12, 6, 0}) out += kAlphabet[(v >> s) & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = uint8_t(bytes[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
    for (int s : {18, 12, 6}) out += kAlphabet[(v >> s) & 63];
    out += "=";
  }
  return out;
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(gen() & 0xff);
  return out;
}

std::string DocLine(const std::string& name, const std::optional<std::string>& body) {
  std::string line = R"({"type":"Doc","data":{"name":")" + name + "\"";
  if (body) line += R"(,"body":"base64:)" + Base64(*body) + "\"";
  return line + "}}\n";
}

BlobSelector Doc(const std::string& name) { return BlobSelector{"node", "Doc", name, "body"}; }

class BlobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<Database>> created =
        Database::Init("memory://blob-test-" + std::to_string(next_++), kSchema);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    db_ = std::move(*created);
  }
  void Load(const std::string& ndjson) {
    Result<Json> loaded = db_->Load(ndjson, "merge", WriteTarget{});
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  }
  // The bytes ReadBlob delivers, and the sizes of the pieces it handed over.
  Result<std::string> Read(const BlobSelector& cell, std::optional<BlobRange> range = {},
                           const ReadTarget& target = {}, std::vector<size_t>* pieces = nullptr) {
    std::string out;
    Result<Json> read = db_->ReadBlob(cell, target, range, [&](std::string_view piece) {
      out.append(piece);
      if (pieces != nullptr) pieces->push_back(piece.size());
      return Status::Ok();
    });
    if (!read.ok()) return read.status();
    EXPECT_EQ((*read)["end"].get<uint64_t>() - (*read)["start"].get<uint64_t>(), out.size());
    return out;
  }

  static inline int next_ = 0;
  std::unique_ptr<Database> db_;
};

TEST_F(BlobTest, PlainAndCompressedValuesComeBackWholeAndByRange) {
  const std::string small = RandomBytes(100000, 1);
  std::string text;
  while (text.size() < 2000000) text += "a compressible line of text\n";
  Load(DocLine("small", small) + DocLine("text", text) + DocLine("empty", std::string()) +
       DocLine("none", std::nullopt));
  for (const auto& [name, bytes] : {std::pair{"small", small}, std::pair{"text", text}}) {
    SCOPED_TRACE(name);
    Result<Json> stat = db_->StatBlob(Doc(name), ReadTarget{});
    ASSERT_TRUE(stat.ok()) << stat.status().ToString();
    EXPECT_EQ((*stat)["kind"].string_value(), "managed");
    EXPECT_EQ((*stat)["size"].get<uint64_t>(), bytes.size());
    EXPECT_TRUE((*stat)["etag"].string_value().starts_with("\""));
    Result<std::string> whole = Read(Doc(name));
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    EXPECT_TRUE(*whole == bytes);
    Result<std::string> middle = Read(Doc(name), BlobRange{1000, 51000});
    ASSERT_TRUE(middle.ok());
    EXPECT_TRUE(*middle == bytes.substr(1000, 50000));
    // An end past the value is clamped, as HTTP ranges are.
    Result<std::string> tail = Read(Doc(name), BlobRange{bytes.size() - 10, bytes.size() + 99});
    ASSERT_TRUE(tail.ok());
    EXPECT_TRUE(*tail == bytes.substr(bytes.size() - 10));
    Result<std::string> past = Read(Doc(name), BlobRange{bytes.size(), bytes.size() + 1});
    EXPECT_EQ(past.status().code(), Code::kInvalidArgument);
    EXPECT_NE(past.status().message().find("not satisfiable"), std::string::npos);
  }
  Result<std::string> empty = Read(Doc("empty"));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->empty());
  EXPECT_EQ((*db_->StatBlob(Doc("empty"), ReadTarget{}))["size"].get<uint64_t>(), 0u);
  EXPECT_EQ(Read(Doc("empty"), BlobRange{0, 1}).status().code(), Code::kInvalidArgument);
}

TEST_F(BlobTest, SelectorErrorsSayWhatIsWrong) {
  Load(DocLine("a", "bytes") + DocLine("none", std::nullopt));
  const Status null_cell = db_->StatBlob(Doc("none"), ReadTarget{}).status();
  EXPECT_EQ(null_cell.code(), Code::kNotFound);
  EXPECT_NE(null_cell.message().find("is null"), std::string::npos) << null_cell.message();
  const Status missing = db_->StatBlob(Doc("nobody"), ReadTarget{}).status();
  EXPECT_EQ(missing.code(), Code::kNotFound);
  EXPECT_NE(missing.message().find("does not exist"), std::string::npos) << missing.message();
  EXPECT_EQ(db_->StatBlob(BlobSelector{"node", "Doc", "a", "note"}, ReadTarget{}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(db_->StatBlob(BlobSelector{"node", "Doc", "a", "nope"}, ReadTarget{}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(db_->StatBlob(BlobSelector{"node", "Nope", "a", "body"}, ReadTarget{}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(db_->StatBlob(BlobSelector{"edge", "Doc", "a", "body"}, ReadTarget{}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(db_->StatBlob(BlobSelector{"thing", "Doc", "a", "body"}, ReadTarget{}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(db_->ReadBlob(Doc("a"), ReadTarget{}, BlobRange{3, 3},
                          [](std::string_view) { return Status::Ok(); })
                .status()
                .code(),
            Code::kInvalidArgument);
  EXPECT_EQ(db_->StatBlob(Doc("a"), ReadTarget{"nobranch", std::nullopt}).status().code(),
            Code::kBranchNotFound);
}

TEST_F(BlobTest, AnEdgeBlobIsReadByTheEdgeId) {
  Load(DocLine("a", "x") + DocLine("b", "y") +
       R"({"edge":"Cites","from":"a","to":"b","data":{"proof":"base64:cHJvb2Y="}})" + "\n");
  std::string edge_id;
  ASSERT_TRUE(db_->Export(ReadTarget{}, {"Cites"},
                          [&](std::string_view line) {
                            Result<Json> j = ParseJson(line.substr(0, line.find('\n')), "export");
                            if (j.ok()) edge_id = (*j)["data"]["id"].string_value();
                            return Status::Ok();
                          })
                  .ok());
  ASSERT_FALSE(edge_id.empty());
  Result<std::string> proof = Read(BlobSelector{"edge", "Cites", edge_id, "proof"});
  ASSERT_TRUE(proof.ok()) << proof.status().ToString();
  EXPECT_EQ(*proof, "proof");
}

TEST_F(BlobTest, ALargeValueIsReadInPiecesOfOneRangedGetEach) {
  const std::string big = RandomBytes(9 * 1024 * 1024 + 123, 7);  // Incompressible: stored plain.
  Load(DocLine("big", big));
  ASSERT_TRUE(db_->StatBlob(Doc("big"), ReadTarget{}).ok());  // Warms the id index and footer.
  const StoreCallCounts before = db_->StoreCalls();
  std::vector<size_t> pieces;
  Result<std::string> whole = Read(Doc("big"), std::nullopt, ReadTarget{}, &pieces);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_TRUE(*whole == big);
  ASSERT_EQ(pieces.size(), 3u);
  for (size_t n : pieces) EXPECT_LE(n, kPieceBytesMax);
  const StoreCallCounts after = db_->StoreCalls();
  // The branch head (one GET of its warm pointer), the cell's offsets buffer (one ranged GET; the
  // column has no nulls, so no validity bitmap), then one ranged GET per piece.
  EXPECT_EQ(after.gets - before.gets, 1u + 1u + 3u);
  EXPECT_EQ(after.puts + after.put_if_absent + after.put_if_match,
            before.puts + before.put_if_absent + before.put_if_match);
  // A range reads only its bytes: one GET for 100 bytes in the middle.
  const StoreCallCounts before_range = db_->StoreCalls();
  Result<std::string> part = Read(Doc("big"), BlobRange{5000000, 5000100});
  ASSERT_TRUE(part.ok());
  EXPECT_TRUE(*part == big.substr(5000000, 100));
  EXPECT_EQ(db_->StoreCalls().gets - before_range.gets, 1u + 1u + 1u);
  EXPECT_LE(db_->StoreCalls().bytes_read - before_range.bytes_read, 100u + 64u * 1024u);
}

TEST_F(BlobTest, TheEtagFollowsTheBytesAndASnapshotKeepsItsValue) {
  Load(DocLine("a", "first bytes"));
  Result<Json> first = db_->StatBlob(Doc("a"), ReadTarget{});
  ASSERT_TRUE(first.ok());
  // A write of another type leaves the cell, and its tag, as they were.
  Load(R"({"type":"Tag","data":{"name":"t"}})"
       "\n");
  Result<Json> same = db_->StatBlob(Doc("a"), ReadTarget{});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ((*same)["etag"], (*first)["etag"]);
  EXPECT_NE((*same)["resolved_snapshot"], (*first)["resolved_snapshot"]);
  Load(DocLine("a", "other bytes"));
  Result<Json> changed = db_->StatBlob(Doc("a"), ReadTarget{});
  ASSERT_TRUE(changed.ok());
  EXPECT_NE((*changed)["etag"], (*first)["etag"]);
  EXPECT_EQ(*Read(Doc("a")), "other bytes");
  // The first snapshot still reads its own value, with its own tag.
  ReadTarget then;
  then.snapshot = (*first)["resolved_snapshot"].string_value();
  EXPECT_EQ(*Read(Doc("a"), std::nullopt, then), "first bytes");
  EXPECT_EQ((*db_->StatBlob(Doc("a"), then))["etag"], (*first)["etag"]);
}

}  // namespace
// --- External Blob references (docs/design/blob.md "External Blob references").

constexpr const char* kExternalUri = "s3://assets/docs/report.pdf";

Result<std::unique_ptr<Database>> InitWithRules(const std::string& uri,
                                                std::vector<ExternalBlobBase> bases) {
  DatabaseOptions options;
  options.external_blobs = std::move(bases);
  return Database::Init(uri, kSchema, options);
}

std::string UriLine(const std::string& name, const std::string& uri) {
  return R"({"type":"Doc","data":{"name":")" + name + R"(","body":")" + uri + "\"}}\n";
}

uint64_t Writes(const StoreCallCounts& c) { return c.puts + c.put_if_absent + c.put_if_match; }

TEST_F(BlobTest, AnExternalUriIsRefusedWithoutRulesAndWritesNothing) {
  const StoreCallCounts before = db_->StoreCalls();
  Result<Json> loaded = db_->Load(UriLine("x", kExternalUri), "merge", WriteTarget{});
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find(
                "external blob URI 's3://assets/docs/report.pdf' is not allowed: new external "
                "Blob URI ingress is denied for this graph"),
            std::string::npos)
      << loaded.status().ToString();
  EXPECT_EQ(Writes(db_->StoreCalls()), Writes(before));
  Result<Json> mutated =
      db_->Mutate("query add($b: Blob?) { insert Doc { name: \"m\", body: $b } }", "",
                  Json{{"b", kExternalUri}}, WriteTarget{});
  ASSERT_FALSE(mutated.ok());
  EXPECT_NE(mutated.status().message().find("ingress is denied for this graph"), std::string::npos);
  EXPECT_EQ(Writes(db_->StoreCalls()), Writes(before));
}

TEST_F(BlobTest, RulesAdmitAUriUnderABaseAndRefuseOthers) {
  Result<std::unique_ptr<Database>> db =
      InitWithRules("memory://blob-ext-rules", {{"s3://assets/docs/", "server_safe"}});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  // Outside the base: another bucket, a sibling prefix, the base itself, a dot segment, a query.
  for (const std::string uri :
       {"s3://other/docs/a.pdf", "s3://assets/docsx/a.pdf", "s3://assets/docs/",
        "s3://assets/docs/../secret.pdf", "s3://assets/docs/a.pdf?x=1", "https://assets/docs/a"}) {
    const StoreCallCounts before = (*db)->StoreCalls();
    Result<Json> loaded = (*db)->Load(UriLine("x", uri), "merge", WriteTarget{});
    ASSERT_FALSE(loaded.ok()) << uri;
    EXPECT_NE(loaded.status().message().find("external blob URI '" + uri + "' is not allowed"),
              std::string::npos)
        << loaded.status().ToString();
    EXPECT_EQ(Writes((*db)->StoreCalls()), Writes(before)) << uri;
  }
  // Admitted by load and by a mutation parameter; read back as the reference it is.
  Result<Json> loaded = (*db)->Load(UriLine("a", kExternalUri), "merge", WriteTarget{});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  Result<Json> mutated =
      (*db)->Mutate("query add($b: Blob?) { insert Doc { name: \"m\", body: $b } }", "",
                    Json{{"b", "s3://assets/docs/sub/m.bin"}}, WriteTarget{});
  ASSERT_TRUE(mutated.ok()) << mutated.status().ToString();
  Result<Json> stat = (*db)->StatBlob(Doc("a"), ReadTarget{});
  ASSERT_TRUE(stat.ok()) << stat.status().ToString();
  EXPECT_EQ((*stat)["kind"], "external");
  EXPECT_EQ((*stat)["uri"], kExternalUri);
  EXPECT_FALSE(stat->contains("etag"));
  EXPECT_FALSE(stat->contains("size"));
  Result<Json> stat_m = (*db)->StatBlob(Doc("m"), ReadTarget{});
  ASSERT_TRUE(stat_m.ok());
  EXPECT_EQ((*stat_m)["uri"], "s3://assets/docs/sub/m.bin");
  // The graph never opens the target: a read says so and hands over nothing.
  size_t delivered = 0;
  Result<Json> read =
      (*db)->ReadBlob(Doc("a"), ReadTarget{}, std::nullopt, [&](std::string_view piece) {
        delivered += piece.size();
        return Status::Ok();
      });
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), Code::kUnsupported);
  EXPECT_NE(read.status().message().find("external Blob is not downloaded; URI: " +
                                         std::string(kExternalUri)),
            std::string::npos);
  EXPECT_EQ(delivered, 0u);
  // Export shows the URI, as OmniGraph's does, and a managed value beside it as base64.
  ASSERT_TRUE((*db)->Load(DocLine("b", "plain"), "merge", WriteTarget{}).ok());
  std::string exported;
  ASSERT_TRUE((*db)
                  ->Export("main", {"Doc"},
                           [&](std::string_view chunk) {
                             exported.append(chunk);
                             return Status::Ok();
                           })
                  .ok());
  EXPECT_NE(exported.find(R"("body":"s3://assets/docs/report.pdf")"), std::string::npos)
      << exported;
  EXPECT_NE(exported.find(R"("body":"base64:)" + Base64("plain") + "\""), std::string::npos);
}

// Managed bytes that happen to begin with the tag an external reference starts with are kept
// apart from one (escaped on write), and read and export back exactly.
TEST_F(BlobTest, ManagedBytesThatLookLikeADescriptorStayManaged) {
  const std::string tag("\0\xffOGBLOBv1\xa7<\x91^\xd2\x08", 16);
  const std::string forged = tag + "Es3://assets/docs/forged.pdf";
  Load(DocLine("f", forged));
  Result<Json> stat = db_->StatBlob(Doc("f"), ReadTarget{});
  ASSERT_TRUE(stat.ok()) << stat.status().ToString();
  EXPECT_EQ((*stat)["kind"], "managed");
  EXPECT_EQ((*stat)["size"], forged.size());
  Result<std::string> whole = Read(Doc("f"));
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_TRUE(*whole == forged);
  Result<std::string> part = Read(Doc("f"), BlobRange{2, 10});
  ASSERT_TRUE(part.ok());
  EXPECT_TRUE(*part == forged.substr(2, 8));
  std::string exported;
  ASSERT_TRUE(db_->Export("main", {"Doc"},
                          [&](std::string_view chunk) {
                            exported.append(chunk);
                            return Status::Ok();
                          })
                  .ok());
  EXPECT_NE(exported.find("base64:" + Base64(forged)), std::string::npos) << exported;
}

TEST(ExternalBlobRulesTest, InvalidRulesAreRefusedAtOpen) {
  for (const std::vector<ExternalBlobBase>& bases : std::vector<std::vector<ExternalBlobBase>>{
           {{"file:///tmp/blobs/", "server_safe"}},
           {{"s3://a/x/", "everywhere"}},
           {{"s3://a/x/", "server_safe"}, {"s3://a/x/y/", "server_safe"}},
           {{"s3://user@a/x/", "server_safe"}},
           {{"http://a/x/", "server_safe"}}}) {
    Result<std::unique_ptr<Database>> db = InitWithRules("memory://blob-ext-bad", bases);
    ASSERT_FALSE(db.ok()) << bases[0].uri;
    EXPECT_EQ(db.status().code(), Code::kInvalidArgument) << db.status().ToString();
  }
}

}  // namespace omnigraph::api
