// The policy corpus (src/policy/corpus_for_tests.h) through the real `omnigraph` binary on a
// store (docs/design/policy.md "Tests"): every case runs the CLI verb of its action as
// `omnigraph --policy BUNDLE --as ACTOR <verb> ... STORE`, and its outcome must be the corpus's
// expected decision — the decision api_policy_test checks through every engine door and
// server_policy_test through HTTP, so the three doors agree — and a refusal's text is word for
// word the embedded API's decision (api::Policy::Decide) for the case's request. A refusal is told
// from every other failure by its exact line: `error[configuration]: permission denied: <reason>
// (policy ...)` naming the actor, the action and the branch; an allowed call succeeds and its
// effect is checked through the public API; a refused write leaves the store byte for byte as it
// was. Actions the CLI on a store has no door for are listed with the reason, and each of their
// cases asserts the CLI's refusal to offer them. Child processes run two at a time; a write
// case runs on its own copy of a prepared store, so no case sees another's effect.
//
// The door is the same for every bundle, so by default the test runs the first case of each
// (action, branch, rule kind, expected decision): every verb on every branch, allowed and refused,
// by an allow rule and by a deny rule — 124 of the 684 cases, a sixth of the cost.
// OMNIGRAPH_POLICY_CORPUS_FULL=1 runs all 684 (the corpus's own decisions are checked in full
// through the embedded API by api_policy_test and through HTTP by server_policy_test).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "omnigraph/omnigraph.h"
#include "omnigraph/policy.h"
// The policy corpus (src/policy, pure standard library; its folder is on this test's include path).
#include "corpus_for_tests.h"

extern char** environ;

namespace omnigraph::cli {
namespace {

namespace fs = std::filesystem;
using api::Json;
using policy_corpus::Case;

constexpr std::string_view kSchema = "node Person { name: String @key }\n";
// What an allowed schema_apply applies: one more node type.
constexpr std::string_view kWiderSchema =
    "node Person { name: String @key }\nnode Org { name: String @key }\n";
constexpr const char* kRead = "query q() { match { $p: Person } return { $p.name } }";
// How many children run at once: the machine's two cores.
constexpr size_t kSlots = 2;

// The cases this run takes: all of them with OMNIGRAPH_POLICY_CORPUS_FULL=1, otherwise the first
// of each (action, branch, target branch, rule kind, expected decision).
std::vector<Case> CasesToRun() {
  std::vector<Case> corpus = policy_corpus::Corpus();
  const char* full = std::getenv("OMNIGRAPH_POLICY_CORPUS_FULL");
  if (full != nullptr && std::string(full) == "1") return corpus;
  std::vector<Case> out;
  std::set<std::string> seen;
  for (Case& c : corpus) {
    const bool deny_rule = c.bundle.find("team-denied") != std::string::npos;
    const std::string key = c.action + "|" + c.branch.value_or("-") + "|" +
                            c.target_branch.value_or("-") + "|" + (deny_rule ? "deny" : "allow") +
                            "|" + (c.expect_allow ? "allowed" : "refused");
    if (seen.insert(key).second) out.push_back(std::move(c));
  }
  return out;
}

std::string BinDir() {
  const char* dir = std::getenv("OMNIGRAPH_BIN_DIR");
  return dir ? dir : "build/debug/bin";
}

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> next{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ =
        (fs::temp_directory_path() / ("omnigraph-cli-policy-" + std::string(info->name()) + "-" +
                                      std::to_string(::getpid()) + "-" + std::to_string(next++)))
            .string();
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Every file under `dir` (relative path) with its bytes: what a refused call must leave as it was.
std::map<std::string, std::string> Contents(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = ReadAll(e.path().string());
  }
  return out;
}

std::unique_ptr<api::Database> MustOpen(const std::string& uri) {
  auto db = api::Database::Open(uri);
  EXPECT_TRUE(db.ok()) << uri << ": " << db.status().ToString();
  return db.ok() ? std::move(*db) : nullptr;
}

// A store on main with the branches `branches` forked from it; `feature` then gets one commit of
// its own (Person "Fea"), so that a merge of feature has something to bring.
std::string MakeStore(const std::string& root, const std::vector<std::string>& branches) {
  api::DatabaseOptions options;
  options.actor = "setup";
  auto db = api::Database::Init(root, kSchema, options);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (!db.ok()) return root;
  for (const std::string& b : branches) EXPECT_TRUE((*db)->CreateBranch(b, "main").ok()) << b;
  if (branches.empty()) return root;
  EXPECT_TRUE(
      (*db)->Load(R"({"type":"Person","data":{"name":"Fea"}})", "append", {"feature"}).ok());
  return root;
}

std::vector<std::string> BranchNames(const std::string& uri) {
  std::vector<std::string> out;
  auto db = MustOpen(uri);
  if (!db) return out;
  auto listed = db->ListBranches();
  EXPECT_TRUE(listed.ok()) << listed.status().ToString();
  if (listed.ok()) {
    for (const Json& b : *listed) out.push_back(b["name"].string_value());
  }
  return out;
}

bool Has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The newest commit's actor on `branch` of `uri`.
std::string HeadActor(const std::string& uri, const std::string& branch) {
  auto db = MustOpen(uri);
  if (!db) return "";
  auto commits = db->ListCommits(branch, 1);
  EXPECT_TRUE(commits.ok() && commits->size() == 1) << branch;
  if (!commits.ok() || commits->size() != 1) return "";
  return (*commits)[0]["actor_id"].string_value();
}

// How the CLI on a store answers one corpus case.
struct Plan {
  std::vector<std::string> verb;  // The command after `--policy F --as A`, the store last.
  bool writes = false;            // Runs on its own copy of `store`.
  std::string store;              // The prepared store it addresses (copied when it writes).
  // Not applicable: the CLI on a store has no door for the action; every case of it must end in
  // this refusal (a substring of stderr), never a policy denial, whatever its decision.
  std::string not_offered;
  // Allowed but impossible on any store (create or delete `main`, an existing name, a merge
  // into itself): the non-policy error an allowed case must end in instead of success.
  std::string allowed_error;
  // For an allowed call that succeeded: checks its effect on the store it ran on.
  std::function<void(const std::string& uri)> effect;
};

struct Stores {
  std::string all;     // main, agent/x, act-member/wip, feature (one commit ahead).
  std::string create;  // main and feature only: every other corpus branch can be created.
  // main alone: a schema applies only while no other branch exists (decision 140).
  std::string main_only;
  std::string wider_schema;
};

// The verb of each action (docs/design/policy.md "Enforcement" maps calls to actions).
Plan PlanFor(const Case& c, const Stores& s) {
  const std::string branch = c.branch.value_or("main");
  const std::string target = c.target_branch.value_or("main");
  const std::string actor = c.actor;
  Plan p;
  p.store = s.all;
  if (c.action == "read") {
    p.verb = {"query", "-e", kRead, "--branch", branch, "--json"};
  } else if (c.action == "export") {
    p.verb = {"export", "--branch", branch};
  } else if (c.action == "change") {
    p.verb = {"mutate", "-e", "query a() { insert Person { name: \"Neu\" } }", "--branch", branch};
    p.writes = true;
    p.effect = [=](const std::string& uri) { EXPECT_EQ(HeadActor(uri, branch), actor) << c.name; };
  } else if (c.action == "schema_apply" && target == "main") {
    p.verb = {"schema", "apply", "--schema", s.wider_schema};
    p.store = s.main_only;
    p.writes = true;
    p.effect = [=](const std::string& uri) {
      auto db = MustOpen(uri);
      if (!db) return;
      const api::Result<Json> shown = db->ShowSchema(api::ReadTarget{});
      ASSERT_TRUE(shown.ok()) << c.name << ": " << shown.status().ToString();
      EXPECT_NE(shown->dump().find("Org"), std::string::npos) << c.name;
      EXPECT_EQ(HeadActor(uri, "main"), actor) << c.name;
    };
  } else if (c.action == "schema_apply") {
    // Not applicable: a schema applies to main only; `schema apply` has no --branch.
    p.verb = {"schema", "apply", "--branch", target, "--schema", s.wider_schema};
    p.not_offered = "error[usage]: unknown option '--branch'";
  } else if (c.action == "branch_create") {
    p.verb = {"branch", "create", "--from", branch, target};
    p.store = s.create;
    p.writes = true;
    if (target == "main") p.allowed_error = "'main' always exists";
    if (target == "feature") p.allowed_error = "error[branch_exists]: branch 'feature'";
    p.effect = [=](const std::string& uri) {
      EXPECT_TRUE(Has(BranchNames(uri), target)) << c.name;
    };
  } else if (c.action == "branch_delete") {
    p.verb = {"branch", "delete", target};
    p.writes = true;
    if (target == "main") p.allowed_error = "'main' always exists";
    p.effect = [=](const std::string& uri) {
      const std::vector<std::string> names = BranchNames(uri);
      EXPECT_FALSE(Has(names, target)) << c.name;
      EXPECT_EQ(names.size(), 3u) << c.name;
    };
  } else if (c.action == "branch_merge") {
    p.verb = {"branch", "merge", branch, "--into", target};
    p.writes = true;
    if (target == branch) p.allowed_error = "cannot merge branch '" + branch + "' into itself";
    p.effect = [=](const std::string& uri) { EXPECT_EQ(HeadActor(uri, target), actor) << c.name; };
  } else if (c.action == "admin") {
    // The gate guards cleanup, optimize and repair with admin; repair without --confirm reports.
    p.verb = {"repair"};
  } else if (c.action == "invoke_query") {
    // Not applicable: stored queries are the server's (the catalog lives in its config); on a
    // store `query NAME` has no stored-query lane and asks for the query's source.
    p.verb = {"query", "names"};
    p.not_offered = "error[invalid_argument]: give the query with exactly one of --query FILE";
  } else if (c.action == "graph_list") {
    // Not applicable: graph_list is the server's GET /graphs, decided by a cluster-bound
    // bundle; `graphs list` reads a cluster's applied state (--cluster) and takes no store.
    p.verb = {"graphs", "list"};
    p.not_offered = "error[usage]: unexpected argument";
  } else {
    ADD_FAILURE() << "an action of the corpus without a plan: " << c.action;
  }
  return p;
}

// The exact stderr of a policy refusal of `c` (docs/design/policy.md "Enforcement": the
// Configuration status "permission denied: <reason>" with the object `policy rule <id>`, or
// `policy` for a default deny; the CLI prints `omnigraph: error[<code>]: <message> (<object>)`).
std::string DenialLine(const Case& c) {
  std::string asked = "'" + c.actor + "' '" + c.action + "'";
  for (const policy_corpus::ActionSpec& a : policy_corpus::Actions()) {
    if (a.name != c.action || a.scope_key == nullptr) continue;
    asked += std::string(a.scope_key) == "branch_scope" ? " on branch '" + *c.branch + "'"
                                                        : " into branch '" + *c.target_branch + "'";
  }
  // The corpus's deny bundles deny by rule team-denied; its allow bundles deny by default.
  const bool by_rule = c.bundle.find("id: team-denied") != std::string::npos;
  const std::string reason =
      by_rule ? "rule 'team-denied' denies " + asked + " (an explicit deny wins over any allow)"
              : "no rule allows " + asked + " (default deny)";
  return "omnigraph: error[configuration]: permission denied: " + reason + " (" +
         (by_rule ? "policy rule team-denied" : "policy") + ")\n";
}

// One case's child process: where it runs, and where its output goes.
struct Job {
  const Case* c = nullptr;
  Plan plan;
  std::string uri;               // The store it addressed (a copy when it writes).
  api::PolicyDecision decision;  // The embedded API's answer to the case's request.
  std::string out, err;
  pid_t pid = -1;
};

pid_t Spawn(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&files, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> all = args;
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argv[0], &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  EXPECT_EQ(rc, 0) << "spawning " << argv[0];
  return rc == 0 ? pid : -1;
}

struct Tally {
  size_t allowed = 0, denied = 0, not_offered = 0, allowed_errors = 0;
};

// Judges a finished job: its exit status and stderr against the case's decision.
void Judge(const Job& j, int rc, const std::map<std::string, std::string>& before, Tally& t) {
  const Case& c = *j.c;
  const std::string err = ReadAll(j.err);
  const bool policy_denial = err.find("permission denied") != std::string::npos;
  EXPECT_EQ(j.decision.allowed, c.expect_allow) << c.name << ": " << j.decision.reason;
  if (!j.plan.not_offered.empty()) {
    ++t.not_offered;
    EXPECT_EQ(rc, 1) << c.name << ": " << err;
    EXPECT_NE(err.find(j.plan.not_offered), std::string::npos) << c.name << ": " << err;
    EXPECT_FALSE(policy_denial) << c.name << ": " << err;
  } else if (!c.expect_allow) {
    ++t.denied;
    EXPECT_EQ(rc, 1) << c.name;
    EXPECT_EQ(err, DenialLine(c)) << c.name;
    // Word for word the embedded decision's reason and rule.
    EXPECT_EQ(err,
              "omnigraph: error[configuration]: permission denied: " + j.decision.reason + " (" +
                  (j.decision.rule.empty() ? "policy" : "policy rule " + j.decision.rule) + ")\n")
        << c.name;
    EXPECT_EQ(ReadAll(j.out), "") << c.name;
  } else if (!j.plan.allowed_error.empty()) {
    ++t.allowed_errors;
    EXPECT_EQ(rc, 1) << c.name << ": " << err;
    EXPECT_NE(err.find(j.plan.allowed_error), std::string::npos) << c.name << ": " << err;
    EXPECT_FALSE(policy_denial) << c.name << ": " << err;
  } else {
    ++t.allowed;
    EXPECT_EQ(rc, 0) << c.name << ": " << err;
    EXPECT_EQ(err, "") << c.name;
    if (rc == 0 && j.plan.effect) j.plan.effect(j.uri);
  }
  // Whatever did not succeed changed nothing.
  if (j.plan.writes && rc != 0) {
    EXPECT_EQ(Contents(j.uri), before) << c.name;
  }
}

TEST(CliPolicyCorpusTest, EachActionBranchRuleAndDecisionThroughTheCommandOnAStoreAgrees) {
  TempDir dir;
  const std::string bin = BinDir() + "/omnigraph";
  ASSERT_TRUE(fs::exists(bin)) << bin << " (set OMNIGRAPH_BIN_DIR)";
  ::setenv("OMNIGRAPH_HOME", (dir.path() + "/home").c_str(), 1);  // No operator config.
  Stores s;
  s.all = MakeStore(dir.path() + "/all", {"agent/x", "act-member/wip", "feature"});
  s.create = MakeStore(dir.path() + "/create", {"feature"});
  s.main_only = MakeStore(dir.path() + "/main", {});
  s.wider_schema = dir.path() + "/wider.pg";
  WriteFile(s.wider_schema, kWiderSchema);
  const std::map<std::string, std::map<std::string, std::string>> before = {
      {s.all, Contents(s.all)},
      {s.create, Contents(s.create)},
      {s.main_only, Contents(s.main_only)}};
  std::map<std::string, std::string> bundle_file;                       // bundle -> its file
  std::map<std::string, std::shared_ptr<const api::Policy>> policy_of;  // bundle -> parsed
  const std::vector<Case> corpus = CasesToRun();
  std::map<pid_t, Job> running;
  Tally tally;
  auto reap_one = [&] {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    ASSERT_GT(pid, 0);
    auto it = running.find(pid);
    ASSERT_NE(it, running.end());
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    Judge(it->second, rc, before.at(it->second.plan.store), tally);
    running.erase(it);
  };
  for (size_t i = 0; i < corpus.size(); ++i) {
    const Case& c = corpus[i];
    auto [file, added] = bundle_file.try_emplace(c.bundle, "");
    if (added) {
      file->second = dir.path() + "/b" + std::to_string(bundle_file.size()) + ".policy.yaml";
      WriteFile(file->second, c.bundle);
      auto parsed = api::Policy::Parse(c.bundle, file->second);
      ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
      policy_of[c.bundle] = *parsed;
    }
    Job j;
    j.c = &c;
    j.plan = PlanFor(c, s);
    j.decision = policy_of.at(c.bundle)->Decide(
        api::PolicyRequest{c.actor, c.action, c.branch, c.target_branch, {}, {}, {}});
    const std::string base = dir.path() + "/case" + std::to_string(i);
    j.uri = j.plan.store;
    if (j.plan.writes) {
      j.uri = base + ".omni";
      fs::copy(j.plan.store, j.uri, fs::copy_options::recursive);
    }
    j.out = base + ".out";
    j.err = base + ".err";
    std::vector<std::string> args = {bin, "--quiet", "--policy", file->second, "--as", c.actor};
    args.insert(args.end(), j.plan.verb.begin(), j.plan.verb.end());
    args.push_back(j.uri);
    while (running.size() >= kSlots) reap_one();
    j.pid = Spawn(args, j.out, j.err);
    ASSERT_GT(j.pid, 0);
    running.emplace(j.pid, std::move(j));
  }
  while (!running.empty()) reap_one();
  // Every case ran, each as one child process; the decisions are far from one-sided.
  EXPECT_EQ(tally.allowed + tally.denied + tally.not_offered + tally.allowed_errors, corpus.size());
  EXPECT_GT(tally.denied, corpus.size() / 4);
  EXPECT_GT(tally.allowed, corpus.size() / 4);
  std::printf(
      "corpus through the CLI on a store: %zu cases: %zu allowed and succeeded, %zu allowed "
      "but impossible (non-policy error), %zu denied, %zu not offered\n",
      corpus.size(), tally.allowed, tally.allowed_errors, tally.denied, tally.not_offered);
  // The stored-query catalog on a store: the CLI says where stored queries live, no policy asked.
  const std::string err = dir.path() + "/catalog.err";
  const pid_t pid = Spawn({bin, "--quiet", "--policy", bundle_file.begin()->second, "--as",
                           "act-member", "queries", "list", s.all},
                          dir.path() + "/catalog.out", err);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  EXPECT_EQ(ReadAll(err).rfind(
                "omnigraph: error[unsupported]: stored queries are served by omnigraph-server", 0),
            0u)
      << ReadAll(err);
  // The shared stores (reads, export, repair) are as they were.
  EXPECT_EQ(Contents(s.all), before.at(s.all));
  EXPECT_EQ(Contents(s.create), before.at(s.create));
}

}  // namespace
}  // namespace omnigraph::cli
