// The policy gate of the local backend (docs/design/policy.md "Enforcement"): the policy corpus
// through the public API — every engine door refuses exactly what the decision table denies —
// and the gate's fail-closed and nothing-changed guarantees.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <system_error>

#include "omnigraph/omnigraph.h"
#include "omnigraph/policy.h"
#include "policy/corpus_for_tests.h"

namespace omnigraph::api {
namespace {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> next{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ =
        (std::filesystem::temp_directory_path() /
         ("omnigraph-api-policy-test-" + std::string(info->name()) + "-" + std::to_string(next++)))
            .string();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

constexpr std::string_view kSchema = R"(
node Person { name: String @key }
)";

constexpr std::string_view kPersonLine = "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n";

bool Denied(const Status& s) {
  return s.code() == Code::kConfiguration && s.message().rfind("permission denied: ", 0) == 0;
}

std::shared_ptr<const Policy> MustParse(const std::string& yaml, const PolicyBinding& b = {}) {
  Result<std::shared_ptr<const Policy>> p = Policy::Parse(yaml, "test.policy.yaml", b);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? *p : nullptr;
}

std::unique_ptr<Database> MustOpen(const std::string& uri, std::shared_ptr<const Policy> policy,
                                   std::optional<std::string> actor,
                                   const std::string& graph = "") {
  DatabaseOptions options;
  options.policy = std::move(policy);
  options.actor = std::move(actor);
  options.policy_graph = graph;
  Result<std::unique_ptr<Database>> db = Database::Open(uri, options);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(*db) : nullptr;
}

std::string InitGraph(const TempDir& dir) {
  const std::string uri = dir.path() + "/graph";
  DatabaseOptions options;
  options.actor = "setup";
  Result<std::unique_ptr<Database>> db = Database::Init(uri, kSchema, options);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  for (const char* b : {"agent/x", "act-member/wip", "feature"}) {
    EXPECT_TRUE((*db)->CreateBranch(b, "main").ok()) << b;
  }
  return uri;
}

// The call of the public API that is the engine's door for `c.action`, or nullopt when the
// engine has none (invoke_query, graph_list: the server's doors) or cannot ask it (schema apply
// is on main only).
std::optional<Status> CallDoor(Database& db, const policy_corpus::Case& c) {
  const std::string branch = c.branch.value_or("main");
  const std::string target = c.target_branch.value_or("main");
  auto status = [](const auto& r) { return r.status(); };
  if (c.action == "read") return status(db.Snapshot(ReadTarget{branch, std::nullopt}));
  if (c.action == "export") {
    return db.Export(ReadTarget{branch, std::nullopt}, {},
                     [](std::string_view) { return Status::Ok(); });
  }
  if (c.action == "change") {
    WriteTarget w;
    w.branch = branch;
    return status(db.Load("", "append", w));
  }
  if (c.action == "schema_apply") {
    if (target != "main") return std::nullopt;
    return status(db.ApplySchema(kSchema));
  }
  if (c.action == "branch_create") return status(db.CreateBranch(target, branch));
  if (c.action == "branch_delete") return status(db.DeleteBranch(target));
  if (c.action == "branch_merge") {
    MergeOptions m;
    m.target = target;
    return status(db.Merge(branch, m));
  }
  if (c.action == "admin") return status(db.Repair(false));
  return std::nullopt;
}

TEST(ApiPolicyTest, TheCorpusThroughEveryEngineDoorAgreesWithTheDecisions) {
  TempDir dir;
  const std::string uri = InitGraph(dir);
  std::map<std::string, std::unique_ptr<Database>> by_bundle;
  size_t asked = 0, denied = 0;
  for (const policy_corpus::Case& c : policy_corpus::Corpus()) {
    std::unique_ptr<Database>& base = by_bundle[c.bundle];
    if (!base) base = MustOpen(uri, MustParse(c.bundle), std::nullopt);
    ASSERT_NE(base, nullptr);
    std::unique_ptr<Database> db = base->WithActor(c.actor);
    // The policy layer's own answer, through the public API, first.
    const PolicyDecision d = MustParse(c.bundle)->Decide(
        PolicyRequest{c.actor, c.action, c.branch, c.target_branch, {}, {}});
    EXPECT_EQ(d.allowed, c.expect_allow) << c.name << ": " << d.reason;
    std::optional<Status> s = CallDoor(*db, c);
    if (!s) continue;
    ++asked;
    if (c.expect_allow) {
      EXPECT_FALSE(Denied(*s)) << c.name << ": " << s->ToString();
    } else {
      ++denied;
      EXPECT_TRUE(Denied(*s)) << c.name << ": " << s->ToString();
    }
  }
  EXPECT_GT(asked, 300u);
  EXPECT_GT(denied, asked / 4);
  EXPECT_LT(denied, asked * 3 / 4);
}

constexpr const char* kIntel = R"(version: 1
groups:
  readers: ["act-reader", "act-analyst"]
  analysts: ["act-analyst"]
protected_branches: [main]
rules:
  - id: read-data
    allow:
      actors: { group: readers }
      actions: [read, export]
      branch_scope: any
  - id: analyst-writes
    allow:
      actors: { group: analysts }
      actions: [change]
      branch_scope: any
  - id: no-agent-writes-on-main
    deny:
      actors: { id: act-analyst }
      actions: [change]
      branch_scope: protected
)";

TEST(ApiPolicyTest, AHandleWithoutAnActorIsRefusedEverythingOnceAPolicyIsInstalled) {
  TempDir dir;
  const std::string uri = InitGraph(dir);
  std::unique_ptr<Database> db = MustOpen(uri, MustParse(kIntel), std::nullopt);
  EXPECT_TRUE(Denied(db->ListBranches().status()));
  EXPECT_TRUE(Denied(db->Snapshot(ReadTarget{}).status()));
  EXPECT_TRUE(Denied(db->Load(kPersonLine, "append", WriteTarget{"feature"}).status()));
  const Status s = db->CreateBranch("b2", "main").status();
  EXPECT_TRUE(Denied(s)) << s.ToString();
  EXPECT_NE(s.message().find("no actor"), std::string::npos) << s.message();
  EXPECT_EQ(s.object(), "policy");
  // The same store without a policy: the dev default, no gate at all.
  std::unique_ptr<Database> open = MustOpen(uri, nullptr, std::nullopt);
  EXPECT_TRUE(open->ListBranches().ok());
}

TEST(ApiPolicyTest, ADeniedWriteChangesNothingAndAnAllowedOneCommits) {
  TempDir dir;
  const std::string uri = InitGraph(dir);
  std::unique_ptr<Database> base = MustOpen(uri, MustParse(kIntel), std::nullopt);
  std::unique_ptr<Database> reader = base->WithActor("act-reader");
  std::unique_ptr<Database> analyst = base->WithActor("act-analyst");
  const Result<Json> before = reader->ListCommits("feature");
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  const Status refused = reader->Load(kPersonLine, "append", WriteTarget{"feature"}).status();
  EXPECT_TRUE(Denied(refused)) << refused.ToString();
  EXPECT_EQ(refused.object(), "policy");
  // The explicit deny wins over analyst-writes on protected main, and names itself.
  const Status on_main = analyst->Load(kPersonLine, "append", WriteTarget{"main"}).status();
  EXPECT_TRUE(Denied(on_main)) << on_main.ToString();
  EXPECT_EQ(on_main.object(), "policy rule no-agent-writes-on-main");
  EXPECT_EQ((*reader->ListCommits("feature")).size(), before->size());
  EXPECT_EQ((*reader->ListCommits("main")).size(),
            (*MustOpen(uri, nullptr, {})->ListCommits("main")).size());
  Result<Json> loaded = analyst->Load(kPersonLine, "append", WriteTarget{"feature"});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)["actor_id"].string_value(), "act-analyst");
  EXPECT_EQ((*reader->ListCommits("feature")).size(), before->size() + 1);
  // A load that may create its branch also needs branch_create, which nobody has.
  WriteTarget create{"new-branch"};
  create.from = "main";
  EXPECT_TRUE(Denied(analyst->Load(kPersonLine, "append", create).status()));
  EXPECT_EQ(MustOpen(uri, nullptr, {})->ListBranches()->size(), 4u);
}

TEST(ApiPolicyTest, AMergeWhoseBranchDeleteIsRefusedStillMergesAndSaysWhy) {
  TempDir dir;
  const std::string uri = InitGraph(dir);
  std::unique_ptr<Database> db = MustOpen(uri, MustParse(R"(version: 1
groups: {team: [act-a]}
rules:
  - id: merge
    allow:
      actors: { group: team }
      actions: [branch_merge]
)"),
                                          "act-a");
  MergeOptions m;
  m.delete_branch = true;
  Result<Json> merged = db->Merge("feature", m);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_FALSE((*merged)["branch_deleted"].get<bool>());
  EXPECT_NE((*merged)["branch_delete_error"].string_value().find("permission denied"),
            std::string::npos);
  EXPECT_EQ(MustOpen(uri, nullptr, {})->ListBranches()->size(), 4u);
}

TEST(ApiPolicyTest, AGraphBoundBundleRefusesAnotherGraph) {
  TempDir dir;
  const std::string uri = InitGraph(dir);
  std::shared_ptr<const Policy> p = MustParse(kIntel, PolicyBinding{false, {"spike"}});
  EXPECT_TRUE(MustOpen(uri, p, "act-reader", "spike")->Snapshot(ReadTarget{}).ok());
  const Status other = MustOpen(uri, p, "act-reader", "other")->Snapshot(ReadTarget{}).status();
  EXPECT_TRUE(Denied(other)) << other.ToString();
  EXPECT_NE(other.message().find("does not apply to graph 'other'"), std::string::npos);
}

// --- Per-type authority (docs/design/policy.md "Per-type authority").

constexpr std::string_view kTypedSchema = R"(
node Person { name: String @key }
node Signal { slug: String @key }
edge Mentions: Signal -> Person { }
)";

constexpr std::string_view kTypedQueries = R"(
query add_person($name: String) { insert Person { name: $name } }
query add_signal($slug: String) { insert Signal { slug: $slug } }
query drop_signal($slug: String) { delete Signal where slug = $slug }
query signals() { match { $s: Signal } return { $s.slug } }
query people() { match { $p: Person } return { $p.name } }
query mentioned() { match { $s: Signal  $s mentions $p } return { $p.name } }
)";

constexpr std::string_view kTypedPolicy = R"(version: 1
groups: {agents: [agent-1], readers: [reader-1]}
rules:
  - id: agents-write-signals
    allow:
      actors: { group: agents }
      actions: [change]
      types: [Signal]
  - id: agents-read
    allow:
      actors: { group: agents }
      actions: [read]
  - id: readers-signals
    allow:
      actors: { group: readers }
      actions: [read, export]
      types: [Signal]
)";

// Every file under `dir` with its size: what a refused call must leave as it was. The local
// store's staging folder is left out: a file there is a put in flight, not an object, and the hint
// the last acknowledged write left to the background may still be passing through it when the
// listing is taken (a CI run met that window).
std::map<std::string, uintmax_t> Listing(const std::string& dir) {
  std::map<std::string, uintmax_t> out;
  for (auto it = std::filesystem::recursive_directory_iterator(dir);
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && it->path().filename() == ".omnigraph-tmp") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) out[it->path().string()] = it->file_size();
  }
  return out;
}

std::string InitTypedGraph(const TempDir& dir) {
  const std::string uri = dir.path() + "/graph";
  DatabaseOptions options;
  options.actor = "setup";
  Result<std::unique_ptr<Database>> db = Database::Init(uri, kTypedSchema, options);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  const Result<Json> seeded = (*db)->Load(
      "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n"
      "{\"type\":\"Signal\",\"data\":{\"slug\":\"s0\"}}\n"
      "{\"edge\":\"Mentions\",\"from\":\"s0\",\"to\":\"Ada\"}\n",
      "append", WriteTarget{"main"});
  EXPECT_TRUE(seeded.ok()) << seeded.status().ToString();
  return uri;
}

TEST(ApiPolicyTest, ALoadOfATypeTheRuleDoesNotNameIsRefusedAndLeavesNothing) {
  TempDir dir;
  const std::string uri = InitTypedGraph(dir);
  std::unique_ptr<Database> agent = MustOpen(uri, MustParse(std::string(kTypedPolicy)), "agent-1");
  const Result<Json> signal =
      agent->Load("{\"type\":\"Signal\",\"data\":{\"slug\":\"s1\"}}\n", "append", WriteTarget{});
  ASSERT_TRUE(signal.ok()) << signal.status().ToString();
  const auto before = Listing(uri);
  const Status person = agent
                            ->Load(
                                "{\"type\":\"Signal\",\"data\":{\"slug\":\"s2\"}}\n"
                                "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}\n",
                                "append", WriteTarget{})
                            .status();
  EXPECT_TRUE(Denied(person)) << person.ToString();
  EXPECT_NE(person.message().find("of type 'Person'"), std::string::npos) << person.message();
  EXPECT_NE(person.message().find("(input line 2)"), std::string::npos) << person.message();
  EXPECT_EQ(person.object(), "policy");
  // An edge line is its edge type's: Mentions is not Signal.
  const Status edge =
      agent->Load("{\"edge\":\"Mentions\",\"from\":\"s1\",\"to\":\"Ada\"}\n", "append", {})
          .status();
  EXPECT_TRUE(Denied(edge)) << edge.ToString();
  EXPECT_EQ(Listing(uri), before) << "a refused load leaves no object behind";
}

TEST(ApiPolicyTest, AMutationIsDecidedOnTheTypesItsEffectsWriteCascadesIncluded) {
  TempDir dir;
  const std::string uri = InitTypedGraph(dir);
  std::unique_ptr<Database> agent = MustOpen(uri, MustParse(std::string(kTypedPolicy)), "agent-1");
  const Result<Json> added =
      agent->Mutate(kTypedQueries, "add_signal", Json{{"slug", "s9"}}, WriteTarget{});
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  const auto before = Listing(uri);
  const Status person =
      agent->Mutate(kTypedQueries, "add_person", Json{{"name", "Bob"}}, WriteTarget{}).status();
  EXPECT_TRUE(Denied(person)) << person.ToString();
  EXPECT_NE(person.message().find("of type 'Person'"), std::string::npos) << person.message();
  // Deleting s0 deletes its Mentions edge too, a type the agent may not change.
  const Status cascade =
      agent->Mutate(kTypedQueries, "drop_signal", Json{{"slug", "s0"}}, WriteTarget{}).status();
  EXPECT_TRUE(Denied(cascade)) << cascade.ToString();
  EXPECT_NE(cascade.message().find("of type 'Mentions'"), std::string::npos) << cascade.message();
  EXPECT_EQ(Listing(uri), before) << "a refused mutation stages nothing";
  // s9 has no edge: its delete writes Signal alone.
  EXPECT_TRUE(agent->Mutate(kTypedQueries, "drop_signal", Json{{"slug", "s9"}}, {}).ok());
}

TEST(ApiPolicyTest, AReadIsDecidedOnTheTypesTheQueryReads) {
  TempDir dir;
  const std::string uri = InitTypedGraph(dir);
  std::unique_ptr<Database> reader =
      MustOpen(uri, MustParse(std::string(kTypedPolicy)), "reader-1");
  const Result<Json> signals = reader->Query(kTypedQueries, "signals", Json::object());
  ASSERT_TRUE(signals.ok()) << signals.status().ToString();
  for (const char* name : {"people", "mentioned"}) {
    const Status s = reader->Query(kTypedQueries, name, Json::object()).status();
    EXPECT_TRUE(Denied(s)) << name << ": " << s.ToString();
  }
  auto sink = [](std::string_view) { return Status::Ok(); };
  EXPECT_TRUE(reader->Export(ReadTarget{}, {"Signal"}, sink).ok());
  EXPECT_TRUE(Denied(reader->Export(ReadTarget{}, {}, sink))) << "every type includes Person";
  EXPECT_TRUE(Denied(reader->Export(ReadTarget{}, {"Signal", "Person"}, sink)));
  EXPECT_TRUE(reader->Snapshot(ReadTarget{}).ok()) << "a snapshot shows no entity";
}

TEST(ApiPolicyTest, ABranchStatementRunAsAMutationNeedsItsBranchAction) {
  TempDir dir;
  const std::string uri = InitTypedGraph(dir);
  // agent-1 may change Signal on every branch but has no branch action.
  std::unique_ptr<Database> agent = MustOpen(uri, MustParse(std::string(kTypedPolicy)), "agent-1");
  ASSERT_TRUE(MustOpen(uri, nullptr, "setup")->CreateBranch("feature", "main").ok());
  const auto before = Listing(uri);
  for (const char* statement :
       {"branch create x from main", "branch delete feature", "branch merge feature into main"}) {
    const Status s = agent->Mutate(statement, "", Json::object(), WriteTarget{}).status();
    EXPECT_TRUE(Denied(s)) << statement << ": " << s.ToString();
  }
  EXPECT_EQ(Listing(uri), before);
  EXPECT_EQ(MustOpen(uri, nullptr, {})->ListBranches()->size(), 2u);
}

}  // namespace
}  // namespace omnigraph::api

namespace omnigraph::api {
namespace {

// A diff and a merge preview are reads of both views (docs/design/diff.md "Policy", decision
// 130): a reviewer who may read main and the agents' branches previews and diffs them but may not
// merge; a branch they may not read is refused in either role; a merger without `read` merges
// but cannot preview.
TEST(ApiPolicyTest, ADiffAndAMergePreviewAreReadsOfBothSides) {
  TempDir dir;
  const std::string uri = InitGraph(dir);
  std::unique_ptr<Database> base = MustOpen(uri, MustParse(R"(version: 1
groups: {reviewers: [act-rev], mergers: [act-merge]}
protected_branches: [main]
rules:
  - id: read-agents
    allow:
      actors: { group: reviewers }
      actions: [read]
      branch_scope: "agent/*"
  - id: read-main
    allow:
      actors: { group: reviewers }
      actions: [read]
      branch_scope: protected
  - id: merge
    allow:
      actors: { group: mergers }
      actions: [branch_merge]
)"),
                                            std::nullopt);
  ASSERT_TRUE(
      MustOpen(uri, nullptr, "setup")->Load(kPersonLine, "append", WriteTarget{"agent/x"}).ok());
  std::unique_ptr<Database> rev = base->WithActor("act-rev");
  std::unique_ptr<Database> merger = base->WithActor("act-merge");
  Result<Json> preview = rev->PreviewMerge("agent/x");
  ASSERT_TRUE(preview.ok()) << preview.status().ToString();
  EXPECT_EQ((*preview)["outcome"].string_value(), "fast_forward");
  DiffRequest agent;
  agent.to.branch = "agent/x";
  Result<Json> diff = rev->Diff(agent);
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  EXPECT_EQ((*diff)["changes"].size(), 1u);
  EXPECT_TRUE(Denied(rev->Merge("agent/x").status()));
  // "feature" is neither protected nor an agent's: no read, so neither call.
  EXPECT_TRUE(Denied(rev->PreviewMerge("feature").status()));
  DiffRequest feature;
  feature.to.branch = "feature";
  EXPECT_TRUE(Denied(rev->Diff(feature).status()));
  feature.from.branch = "feature";
  feature.to.branch = "main";
  EXPECT_TRUE(Denied(rev->Diff(feature).status()));
  EXPECT_TRUE(Denied(merger->PreviewMerge("agent/x").status()));
  Result<Json> merged = merger->Merge("agent/x");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ((*merged)["outcome"].string_value(), "fast_forward");
}

}  // namespace
}  // namespace omnigraph::api
