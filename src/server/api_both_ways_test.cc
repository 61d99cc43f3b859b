// The public API's shared cases through both backends (issue 43 item 3; docs/design/api.md
// "Backends"): one scenario — branches, loads from a string, a file and a reader, keyed
// mutations, history and its pages, commit changes, snapshots, queries, exports, the change
// feed and its baseline, merge previews, diffs and their pages, merges with and without
// conflicts, schema show and apply, and typed
// errors — runs on a handle from Database::Open and on one from Database::Connect to an
// omnigraph-server serving a graph made the same way. Every call's answer (its JSON, or its
// code, kind, message, object and query diagnostic) is written to a transcript; the two transcripts
// must be equal once commit ids, ULIDs, cursors, times and the graph's path are numbered or
// blanked. A call that works locally and not through the server fails here, unless it is one of the
// calls the remote backend refuses by name (kRefusedRemotely), which are checked to be refused
// exactly so.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "server/server_test_util.h"

namespace omnigraph::api {
namespace {

using server_test::kAliceToken;
using server_test::ServerProcess;
using server_test::TempDir;

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I64? }
node Company { name: String @key }
edge WorksAt: Person -> Company
)";
constexpr std::string_view kQueries = R"(
query names() { match { $p: Person } return { $p.name, $p.age } order { $p.name } }
query add($name: String, $age: I64) { insert Person { name: $name, age: $age } }
query age($name: String, $age: I64) { update Person set { age: $age } where name = $name }
query hire($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }
)";
constexpr std::string_view kSeed =
    "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":36}}\n"
    "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":41}}\n"
    "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}\n";

// The calls the remote backend refuses (Unsupported naming the call), as the CLI's
// tests/cli/remote-refused.txt lists them for the verbs.
const std::vector<std::string> kRefusedRemotely = {"schema plan", "cleanup", "optimize", "repair",
                                                   "lint"};

// One scenario's record of every call's answer, a line each.
class Transcript {
 public:
  void Add(const std::string& label, const Result<Json>& r) {
    lines_.push_back(label + " -> " + (r.ok() ? r->dump() : Describe(r.status())));
  }
  void Add(const std::string& label, const Status& s) {
    lines_.push_back(label + " -> " + (s.ok() ? std::string("ok") : Describe(s)));
  }
  void AddText(const std::string& label, const std::string& text) {
    lines_.push_back(label + " -> " + text);
  }
  // The lines with commit ids, ULIDs, cursors and page tokens numbered in order of first
  // appearance, times blanked and `graph_path` replaced.
  std::vector<std::string> Normalized(const std::string& graph_path) const {
    std::map<std::string, int> seen;
    auto number = [&seen](const std::string& text, const std::regex& re, const char* kind) {
      std::string out;
      auto begin = std::sregex_iterator(text.begin(), text.end(), re);
      size_t last = 0;
      for (auto it = begin; it != std::sregex_iterator(); ++it) {
        out += text.substr(last, it->position() - last);
        auto [at, fresh] = seen.emplace(kind + it->str(), static_cast<int>(seen.size()));
        out += std::string("<") + kind + " " + std::to_string(at->second) + ">";
        last = it->position() + it->length();
      }
      return out + text.substr(last);
    };
    const std::regex token(R"(\b[pc][0-9]+\.[A-Za-z0-9_=-]+\.[0-9a-f]{16}\b)");
    const std::regex ulid(R"(\b[0-9A-HJKMNP-TV-Z]{26}\b)");
    const std::regex commit(R"(\b[0-9A-HJKMNP-TV-Z]{10}\b)");
    const std::regex times(R"re("(created_at|authored_at)":[0-9]+)re");
    const std::regex version(R"re("published_dataset_version":[0-9]+)re");
    const std::regex staged(R"(/versions/d[0-9]+\.json)");  // Staged versions are random.
    std::vector<std::string> out;
    for (std::string line : lines_) {
      for (size_t at; (at = line.find(graph_path)) != std::string::npos;) {
        line.replace(at, graph_path.size(), "<graph>");
      }
      line = number(line, token, "token");
      line = number(line, ulid, "ulid");
      line = number(line, commit, "commit");
      line = std::regex_replace(line, times, "\"$1\":0");
      line = std::regex_replace(line, version, "\"published_dataset_version\":0");
      line = std::regex_replace(line, staged, "/versions/d<staged>.json");
      out.push_back(std::move(line));
    }
    return out;
  }
  size_t size() const { return lines_.size(); }
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  static std::string Describe(const Status& s) {
    std::string out = std::string("error[") + std::string(CodeName(s.code())) + "/" +
                      std::string(KindName(s.kind())) + "] " + s.message() + " (" + s.object() +
                      ")";
    // A query's diagnostic as fields (decision 200): the same on both backends.
    if (const DiagnosticDetail* d = s.diagnostic()) {
      out += " diagnostic{" + d->code + " " + std::to_string(d->line) + ":" +
             std::to_string(d->column) + " fix=" + d->fix + "}";
    }
    return out;
  }
  std::vector<std::string> lines_;
};

std::string HeadOf(Database& db, const std::string& branch) {
  Result<std::string> head = db.ResolveCommit(ReadTarget{branch, std::nullopt});
  return head.ok() ? *head : std::string();
}

std::string Exported(Database& db, const ReadTarget& at, const std::vector<std::string>& types) {
  std::string out;
  Status s = db.Export(at, types, [&out](std::string_view chunk) {
    out.append(chunk);
    return Status::Ok();
  });
  return s.ok() ? out : "error " + s.ToString();
}

void BranchesLoadsAndWrites(Database& db, const std::string& dir, Transcript& t) {
  WriteTarget main_branch;
  t.Add("branches", db.ListBranches());
  t.Add("load seed", db.Load(kSeed, "append", main_branch));
  WriteTarget keyed;
  keyed.idempotency_key = "add-cy";
  t.Add("add cy", db.Mutate(kQueries, "add", Json{{"name", "Cy"}, {"age", 30}}, keyed));
  t.Add("add cy again", db.Mutate(kQueries, "add", Json{{"name", "Cy"}, {"age", 30}}, keyed));
  t.Add("same key, other", db.Mutate(kQueries, "add", Json{{"name", "Di"}, {"age", 1}}, keyed));
  t.Add("create dev", db.CreateBranch("dev", "main"));
  WriteTarget dev;
  dev.branch = "dev";
  const std::string file = dir + "/more.jsonl";
  std::ofstream(file) << "{\"type\":\"Person\",\"data\":{\"name\":\"Eve\",\"age\":25}}\n";
  t.Add("load file on dev", db.LoadFile(file, "merge", dev));
  std::string stream = "{\"type\":\"Person\",\"data\":{\"name\":\"Fay\"}}\n";
  size_t offset = 0;
  LoadReader reader = [&](char* buffer, size_t capacity) -> Result<size_t> {
    const size_t n = std::min(capacity, stream.size() - offset);
    std::copy_n(stream.data() + offset, n, buffer);
    offset += n;
    return n;
  };
  t.Add("load stream on dev", db.LoadStream(reader, "merge", dev));
  t.Add("hire on dev", db.Mutate(kQueries, "hire", Json{{"p", "Eve"}, {"c", "Acme"}}, dev));
  WriteTarget from;
  from.branch = "feature";
  from.from = "dev";
  t.Add("load creating feature", db.Load(kSeed, "merge", from));
  t.Add("branches after", db.ListBranches());
}

void HistoryAndReads(Database& db, Transcript& t) {
  t.Add("commits main", db.ListCommits("main", 10));
  Result<Json> page = db.CommitHistory("dev", 2, "");
  t.Add("history dev page 1", page);
  if (page.ok() && page->contains("next_page_token")) {
    t.Add("history dev page 2",
          db.CommitHistory("dev", 2, (*page)["next_page_token"].string_value()));
  }
  const std::string dev_head = HeadOf(db, "dev");
  t.Add("show dev head", db.ShowCommit(dev_head));
  t.Add("changes of dev head", db.CommitChanges(dev_head));
  CommitChangesRequest edges;
  edges.filter.kinds = {"edge"};
  t.Add("edge changes of dev head", db.CommitChanges(dev_head, edges));
  t.Add("snapshot main", db.Snapshot(ReadTarget{}));
  ReadTarget at_dev;
  at_dev.snapshot = dev_head;
  t.Add("snapshot at dev head", db.Snapshot(at_dev));
  t.Add("names main", db.Query(kQueries, "names", Json::object()));
  t.Add("names dev", db.Query(kQueries, "names", Json::object(), ReadTarget{"dev", std::nullopt}));
  t.Add("names at dev head", db.Query(kQueries, "names", Json::object(), at_dev));
  t.AddText("export main", Exported(db, ReadTarget{}, {}));
  t.AddText("export Person at dev head", Exported(db, at_dev, {"Person"}));
  ChangePoll poll;
  poll.branch = "dev";
  poll.start = "beginning";
  poll.limit = 2;
  Result<Json> feed = db.PollChanges(poll);
  t.Add("feed dev", feed);
  if (feed.ok() && feed->contains("next_page_token")) {
    ChangePoll next;
    next.cursor = (*feed)["next_page_token"].string_value();
    t.Add("feed dev next", db.PollChanges(next));
  }
  std::string baseline;
  Status b = db.ChangesBaseline("main", [&baseline](std::string_view chunk) {
    baseline.append(chunk);
    return Status::Ok();
  });
  t.Add("baseline main", b);
  t.AddText("baseline main lines", baseline);
}

void MergesSchemaAndErrors(Database& db, Transcript& t) {
  const std::string main_before = HeadOf(db, "main");
  t.Add("merge dev", db.Merge("dev"));
  t.Add("merge dev again", db.Merge("dev"));
  for (const char* b : {"b1", "b2"}) t.Add(std::string("create ") + b, db.CreateBranch(b));
  WriteTarget b1, b2;
  b1.branch = "b1";
  b2.branch = "b2";
  t.Add("age on b1", db.Mutate(kQueries, "age", Json{{"name", "Ada"}, {"age", 37}}, b1));
  t.Add("age on b2", db.Mutate(kQueries, "age", Json{{"name", "Ada"}, {"age", 38}}, b2));
  t.Add("preview b1", db.PreviewMerge("b1"));
  DiffRequest b1_vs_b2;
  b1_vs_b2.from.branch = "b1";
  b1_vs_b2.to.branch = "b2";
  t.Add("diff b1 b2", db.Diff(b1_vs_b2));
  t.Add("merge b1", db.Merge("b1"));
  t.Add("preview b2 (conflicts)", db.PreviewMerge("b2"));
  DiffRequest since;  // From a commit to main's head, a page at a time.
  since.from.snapshot = main_before;
  since.limit = 1;
  Result<Json> first = db.Diff(since);
  t.Add("diff since, page 1", first);
  if (first.ok() && first->contains("next_page_token")) {
    since.page_token = (*first)["next_page_token"].string_value();
    t.Add("diff since, page 2", db.Diff(since));
  }
  DiffRequest nope;
  nope.to.branch = "nope";
  t.Add("diff to nope", db.Diff(nope));
  Json conflicts;
  MergeOptions deleting;
  deleting.delete_branch = true;
  t.Add("merge b2 (conflicts)", db.Merge("b2", deleting, &conflicts));
  t.AddText("the conflicts", conflicts.dump());
  for (const char* b : {"b1", "b2", "dev", "feature", "nope"}) {
    t.Add(std::string("delete ") + b, db.DeleteBranch(b));
  }
  t.Add("schema main", db.ShowSchema("main"));
  t.Add("apply schema",
        db.ApplySchema(std::string(kSchema) + "node Team { name: String @key }\n", false));
  t.Add("schema after", db.ShowSchema("main"));
  WriteTarget stale;
  stale.if_commit = main_before;
  t.Add("stale if_commit", db.Mutate(kQueries, "add", Json{{"name", "Gus"}, {"age", 2}}, stale));
  t.Add("unknown commit", db.ShowCommit("main.999.AAAAAAAAAA"));
  t.Add("broken query", db.Query("query broken( {", "", Json::object()));
  t.Add("unknown type",
        db.Query("query q() { match { $p: Persn } return { $p.name } }", "q", Json::object()));
  t.Add("bad line", db.Load("{\"type\":\"Nope\",\"data\":{}}\n", "merge", WriteTarget{}));
  t.Add("append existing key", db.Load(kSeed, "append", WriteTarget{}));
  t.Add("create main", db.CreateBranch("main"));
  t.Add("snapshot of nope", db.Snapshot(ReadTarget{"nope", std::nullopt}));
  t.Add("commits main at the end", db.ListCommits("main", 100));
}

Transcript Scenario(Database& db, const std::string& dir) {
  Transcript t;
  BranchesLoadsAndWrites(db, dir, t);
  HistoryAndReads(db, t);
  MergesSchemaAndErrors(db, t);
  return t;
}

// A new graph at `dir`/g made as every scenario starts: the schema, published as alice.
std::string NewGraph(const TempDir& dir) {
  const std::string uri = dir.path() + "/g";
  DatabaseOptions options;
  options.actor = "alice";
  Result<std::unique_ptr<Database>> db = Database::Init(uri, kSchema, options);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return uri;
}

TEST(ApiBothWaysTest, EveryCallAnswersThroughTheServerAsItDoesLocally) {
  TempDir local_dir;
  const std::string local_uri = NewGraph(local_dir);
  DatabaseOptions as_alice;
  as_alice.actor = "alice";
  Result<std::unique_ptr<Database>> local = Database::Open(local_uri, as_alice);
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  const Transcript direct = Scenario(**local, local_dir.path());

  TempDir served_dir;
  const std::string served_uri = NewGraph(served_dir);
  ServerProcess server({served_uri, "--bind", "127.0.0.1:0", "--allow-writes", "alice"});
  ASSERT_GT(server.port(), 0) << server.first_line();
  ConnectOptions alice;
  alice.bearer_token = kAliceToken;
  Result<std::unique_ptr<Database>> remote =
      Database::Connect("http://127.0.0.1:" + std::to_string(server.port()), alice);
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  const Transcript served = Scenario(**remote, served_dir.path());

  const std::vector<std::string> a = direct.Normalized(local_uri);
  const std::vector<std::string> b = served.Normalized(served_uri);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << "call " << i;
  // The scenario did what it says locally (so equal transcripts are not two equal failures).
  size_t errors = 0;
  for (const std::string& line : direct.lines()) errors += line.find("-> error[") != line.npos;
  EXPECT_EQ(errors, 12u) << "the scenario's deliberate failures, and no others";
  // The query errors carry their diagnostic as fields (so the equal transcripts compare them):
  // the parse error's Q000 and the type error's T1 with its position and fix.
  auto line_of = [&direct](const std::string& label) {
    for (const std::string& line : direct.lines()) {
      if (line.starts_with(label + " -> ")) return line;
    }
    return std::string();
  };
  EXPECT_NE(line_of("broken query").find(" diagnostic{Q000 1:"), std::string::npos)
      << line_of("broken query");
  EXPECT_NE(line_of("unknown type").find(" diagnostic{T1 1:25 fix=the node types are"),
            std::string::npos)
      << line_of("unknown type");
}

// The calls the server has no route for: refused through it with Unsupported naming the call,
// and answered locally.
TEST(ApiBothWaysTest, TheCallsWithoutARouteAreRefusedByNameOnlyRemotely) {
  TempDir dir;
  const std::string uri = NewGraph(dir);
  ServerProcess server({uri, "--bind", "127.0.0.1:0", "--allow-writes", "alice"});
  ASSERT_GT(server.port(), 0) << server.first_line();
  ConnectOptions alice;
  alice.bearer_token = kAliceToken;
  std::unique_ptr<Database> remote =
      *Database::Connect("http://127.0.0.1:" + std::to_string(server.port()), alice);
  std::unique_ptr<Database> local = *Database::Open(uri);
  const std::map<std::string, std::function<Status(Database&)>> calls = {
      {"schema plan", [](Database& d) { return d.PlanSchema(kSchema).status(); }},
      {"cleanup",
       [](Database& d) {
         return d.Cleanup(CleanupRequest{1, {}, {}, true}).status();
       }},
      {"optimize", [](Database& d) { return d.Optimize("main").status(); }},
      {"repair", [](Database& d) { return d.Repair(false).status(); }},
      {"lint", [](Database& d) { return d.Lint(kQueries, "main").status(); }}};
  ASSERT_EQ(calls.size(), kRefusedRemotely.size());
  for (const std::string& name : kRefusedRemotely) {
    const Status refused = calls.at(name)(*remote);
    EXPECT_EQ(refused.code(), Code::kUnsupported) << name << ": " << refused.ToString();
    EXPECT_EQ(refused.message().rfind(name + " is not served over HTTP", 0), 0u)
        << refused.message();
    const Status answered = calls.at(name)(*local);
    EXPECT_TRUE(answered.ok()) << name << ": " << answered.ToString();
  }
}

}  // namespace
}  // namespace omnigraph::api
