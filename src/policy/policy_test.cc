// Policy bundles: the corpus of decisions, the industry-intel cookbook's bundles, and bad files.
#include "policy/policy.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "policy/corpus_for_tests.h"

namespace omnigraph::policy {
namespace {

Policy MustParse(const std::string& yaml, const Binding& binding = Binding::Unbound()) {
  Result<Policy> p = Policy::Parse(yaml, "test.policy.yaml", binding);
  EXPECT_TRUE(p.ok()) << p.status().ToString() << "\n" << yaml;
  return p.ok() ? std::move(*p) : Policy();
}

Request Ask(std::optional<std::string> actor, Action action, std::optional<std::string> branch,
            std::optional<std::string> target = std::nullopt) {
  return Request{std::move(actor), action, std::move(branch), std::move(target), std::nullopt};
}

TEST(PolicyCorpusTest, EveryActionScopeBranchMembershipAndEffectDecidesAsTheTableSays) {
  const std::vector<policy_corpus::Case> corpus = policy_corpus::Corpus();
  ASSERT_GT(corpus.size(), 400u);
  size_t allowed = 0;
  for (const policy_corpus::Case& c : corpus) {
    Result<Policy> p = Policy::Parse(c.bundle, "corpus.policy.yaml", Binding::Unbound());
    ASSERT_TRUE(p.ok()) << c.name << ": " << p.status().ToString();
    const Decision d =
        p->Decide(Ask(c.actor, *ActionFromName(c.action), c.branch, c.target_branch));
    EXPECT_EQ(d.allowed, c.expect_allow) << c.name << ": " << d.reason;
    if (d.allowed) {
      ++allowed;
      EXPECT_FALSE(d.rule_id.empty()) << c.name;
    }
    if (!d.allowed && c.bundle.find("deny:") != std::string::npos && c.actor == "act-member") {
      EXPECT_EQ(d.rule_id, "team-denied") << c.name << ": an explicit deny names itself";
    }
  }
  // Both outcomes occur in quantity: the table is not vacuous.
  EXPECT_GT(allowed, corpus.size() / 4);
  EXPECT_LT(allowed, corpus.size() * 3 / 4);
}

TEST(PolicyDecisionTest, NoActorIsDeniedWhateverTheRules) {
  const Policy p = MustParse(
      "version: 1\ngroups: {all: [a]}\nrules:\n  - id: r\n    allow:\n      actors: {group: all}\n"
      "      actions: [read]\n");
  EXPECT_TRUE(p.Decide(Ask("a", Action::kRead, "main")).allowed);
  const Decision d = p.Decide(Ask(std::nullopt, Action::kRead, "main"));
  EXPECT_FALSE(d.allowed);
  EXPECT_NE(d.reason.find("no actor"), std::string::npos) << d.reason;
  EXPECT_FALSE(p.Decide(Ask("", Action::kRead, "main")).allowed);
}

TEST(PolicyDecisionTest, AnUnnamedBranchMatchesOnlyAnyForAllowsAndEveryScopeForDenies) {
  const Policy p = MustParse(
      "version: 1\ngroups: {g: [a, b]}\nprotected_branches: [main]\nrules:\n"
      "  - id: a-unprotected\n    allow:\n      actors: {id: a}\n      actions: [read]\n"
      "      branch_scope: unprotected\n"
      "  - id: b-any\n    allow:\n      actors: {id: b}\n      actions: [read]\n"
      "      branch_scope: any\n"
      "  - id: b-not-agents\n    deny:\n      actors: {id: b}\n      actions: [export]\n"
      "      branch_scope: agent/*\n"
      "  - id: b-export\n    allow:\n      actors: {id: b}\n      actions: [export]\n");
  EXPECT_TRUE(p.Decide(Ask("a", Action::kRead, "feature")).allowed);
  EXPECT_FALSE(p.Decide(Ask("a", Action::kRead, std::nullopt)).allowed);
  EXPECT_TRUE(p.Decide(Ask("b", Action::kRead, std::nullopt)).allowed);
  EXPECT_TRUE(p.Decide(Ask("b", Action::kExport, "main")).allowed);
  EXPECT_FALSE(p.Decide(Ask("b", Action::kExport, "agent/1")).allowed);
  const Decision unnamed = p.Decide(Ask("b", Action::kExport, std::nullopt));
  EXPECT_FALSE(unnamed.allowed);
  EXPECT_EQ(unnamed.rule_id, "b-not-agents");
}

TEST(PolicyDecisionTest, ServerAndGraphBundlesAnswerOnlyTheirOwnActionsAndGraphs) {
  const Policy graph = MustParse(
      "version: 1\ngroups: {g: [a]}\nrules:\n  - id: r\n    allow:\n      actors: {group: g}\n"
      "      actions: [read]\n",
      Binding::Graphs({"alpha"}));
  Request q = Ask("a", Action::kRead, "main");
  q.graph = "alpha";
  EXPECT_TRUE(graph.Decide(q).allowed);
  q.graph = "beta";
  EXPECT_FALSE(graph.Decide(q).allowed);
  EXPECT_FALSE(graph.Decide(Ask("a", Action::kGraphList, std::nullopt)).allowed);
}

TEST(PolicyDecisionTest, InvokeQueryMayBeScopedToNamedStoredQueries) {
  const Policy p = MustParse(
      "version: 1\ngroups: {r: [a], w: [b]}\nrules:\n"
      "  - id: reads-only\n    allow:\n      actors: {group: r}\n      actions: [invoke_query]\n"
      "      queries: [get_signal, list_signals]\n"
      "  - id: every-query\n    allow:\n      actors: {group: w}\n      actions: [invoke_query]\n"
      "  - id: not-purge\n    deny:\n      actors: {group: w}\n      actions: [invoke_query]\n"
      "      queries: [purge]\n");
  Request q = Ask("a", Action::kInvokeQuery, std::nullopt);
  q.query = "get_signal";
  EXPECT_TRUE(p.Decide(q).allowed);
  q.query = "add_signal";
  const Decision other = p.Decide(q);
  EXPECT_FALSE(other.allowed);
  EXPECT_NE(other.reason.find("of query 'add_signal'"), std::string::npos) << other.reason;
  q.query.reset();
  EXPECT_FALSE(p.Decide(q).allowed) << "an unnamed query matches only rules without queries";
  q.actor = "b";
  EXPECT_FALSE(p.Decide(q).allowed) << "an unnamed query matches every deny";
  q.query = "add_signal";
  EXPECT_TRUE(p.Decide(q).allowed);
  q.query = "purge";
  EXPECT_EQ(p.Decide(q).rule_id, "not-purge");
  EXPECT_FALSE(p.Decide(q).allowed);
}

TEST(PolicyTypesTest, ARuleWithTypesCoversOnlyThoseTypesAndEachTypeIsDecidedAlone) {
  const Policy p = MustParse(
      "version: 1\ngroups: {agents: [a], readers: [r]}\nrules:\n"
      "  - id: agents-signals\n    allow:\n      actors: {group: agents}\n"
      "      actions: [read, change]\n      types: [Signal, Mentions]\n"
      "  - id: agents-people-read\n    allow:\n      actors: {group: agents}\n"
      "      actions: [read]\n      types: [Person]\n"
      "  - id: readers-all\n    allow:\n      actors: {group: readers}\n      actions: [read]\n"
      "  - id: readers-not-secrets\n    deny:\n      actors: {group: readers}\n"
      "      actions: [read]\n      types: [Secret]\n");
  EXPECT_TRUE(p.HasTypedRules());
  auto ask = [&](const char* actor, Action action, std::optional<std::vector<std::string>> types) {
    Request q = Ask(actor, action, "main");
    q.types = std::move(types);
    return p.Decide(q);
  };
  using Types = std::vector<std::string>;
  EXPECT_TRUE(ask("a", Action::kChange, Types{"Signal"}).allowed);
  EXPECT_TRUE(ask("a", Action::kChange, Types{"Signal", "Mentions"}).allowed);
  const Decision person = ask("a", Action::kChange, Types{"Signal", "Person"});
  EXPECT_FALSE(person.allowed);
  EXPECT_NE(person.reason.find("of type 'Person'"), std::string::npos) << person.reason;
  EXPECT_TRUE(ask("a", Action::kRead, Types{"Signal", "Person"}).allowed)
      << "two allow rules together cover the two types";
  EXPECT_FALSE(ask("a", Action::kChange, std::nullopt).allowed)
      << "unknown types (every type) are not covered by a rule with types";
  EXPECT_TRUE(ask("a", Action::kChange, Types{}).allowed)
      << "no types yet: the pre-check passes when a rule could allow";
  EXPECT_FALSE(ask("a", Action::kExport, Types{}).allowed) << "no rule grants export at all";
  // A deny with types: only the types it names, and every type when the types are unknown.
  EXPECT_TRUE(ask("r", Action::kRead, Types{"Person", "Signal"}).allowed);
  const Decision secret = ask("r", Action::kRead, Types{"Person", "Secret"});
  EXPECT_FALSE(secret.allowed);
  EXPECT_EQ(secret.rule_id, "readers-not-secrets");
  EXPECT_FALSE(ask("r", Action::kRead, std::nullopt).allowed)
      << "a read of every type includes the denied one";
  EXPECT_TRUE(ask("r", Action::kRead, Types{}).allowed);
  EXPECT_FALSE(MustParse("version: 1\ngroups: {g: [a]}\nrules:\n  - id: r1\n    allow:\n"
                         "      actors: {group: g}\n      actions: [read]\n")
                   .HasTypedRules());
}

TEST(PolicyPatternTest, StarAndActorPlaceholder) {
  EXPECT_TRUE(MatchBranchPattern("agent/*", "agent/x", "a"));
  EXPECT_TRUE(MatchBranchPattern("agent/*", "agent/x/y", "a"));
  EXPECT_TRUE(MatchBranchPattern("agent/*", "agent/", "a"));
  EXPECT_FALSE(MatchBranchPattern("agent/*", "agents/x", "a"));
  EXPECT_FALSE(MatchBranchPattern("agent/*", "xagent/x", "a"));
  EXPECT_TRUE(MatchBranchPattern("{actor}/*", "act-1/wip", "act-1"));
  EXPECT_FALSE(MatchBranchPattern("{actor}/*", "act-2/wip", "act-1"));
  EXPECT_TRUE(MatchBranchPattern("*-review", "x-review", ""));
  EXPECT_FALSE(MatchBranchPattern("*-review", "x-reviews", ""));
  EXPECT_TRUE(MatchBranchPattern("main", "main", ""));
  EXPECT_FALSE(MatchBranchPattern("main", "mainline", ""));
  EXPECT_TRUE(MatchBranchPattern("a*b*c", "aXbYbZc", ""));
}

// --- The industry-intel cookbook's bundles and its README's answers, at the decision level.

std::string ReadCookbook(const std::string& relative) {
  const char* root = std::getenv("OMNIGRAPH_SOURCE_DIR");
  const std::string path = std::string(root ? root : OMNIGRAPH_SOURCE_DIR_FALLBACK) +
                           "/../shared/fixtures/cookbooks/industry-intel/" + relative;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "fixture not found at " << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(PolicyIndustryIntelTest, TheReadmeAnswers) {
  Result<Policy> server = Policy::Parse(ReadCookbook("policies/server.policy.yaml"),
                                        "server.policy.yaml", Binding::Cluster());
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  Result<Policy> intel = Policy::Parse(ReadCookbook("policies/intel.policy.yaml"),
                                       "intel.policy.yaml", Binding::Graphs({"spike"}));
  ASSERT_TRUE(intel.ok()) << intel.status().ToString();
  EXPECT_TRUE(server->server_kind());
  EXPECT_FALSE(intel->server_kind());
  // GET /graphs: admin 200, reader 403 (anonymous is 401 before any policy: no actor).
  EXPECT_TRUE(server->Decide(Ask("act-admin", Action::kGraphList, std::nullopt)).allowed);
  EXPECT_EQ(server->Decide(Ask("act-admin", Action::kGraphList, std::nullopt)).rule_id,
            "admin-graph-list");
  EXPECT_FALSE(server->Decide(Ask("act-reader", Action::kGraphList, std::nullopt)).allowed);
  EXPECT_FALSE(server->Decide(Ask(std::nullopt, Action::kGraphList, std::nullopt)).allowed);
  // Stored reads: reader allowed (invoke_query, then read).
  for (const char* actor : {"act-reader", "act-analyst"}) {
    EXPECT_TRUE(intel->Decide(Ask(actor, Action::kInvokeQuery, std::nullopt)).allowed) << actor;
    EXPECT_TRUE(intel->Decide(Ask(actor, Action::kRead, "main")).allowed) << actor;
  }
  // Stored mutations are double-gated: invoke_query and change. Reader denied, analyst allowed.
  EXPECT_FALSE(intel->Decide(Ask("act-reader", Action::kChange, "main")).allowed);
  const Decision analyst = intel->Decide(Ask("act-analyst", Action::kChange, "main"));
  EXPECT_TRUE(analyst.allowed);
  EXPECT_EQ(analyst.rule_id, "analyst-writes");
  // Nobody may apply schema or merge: nothing grants it.
  EXPECT_FALSE(
      intel->Decide(Ask("act-analyst", Action::kSchemaApply, std::nullopt, "main")).allowed);
  EXPECT_FALSE(intel->Decide(Ask("act-admin", Action::kRead, "main")).allowed);
  EXPECT_EQ(intel->Actors(), (std::vector<std::string>{"act-analyst", "act-reader"}));
}

TEST(PolicyIndustryIntelTest, BundlesBoundTheWrongWayAreRefused) {
  Result<Policy> server = Policy::Parse(ReadCookbook("policies/server.policy.yaml"),
                                        "server.policy.yaml", Binding::Graphs({"spike"}));
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("server.policy.yaml"), std::string::npos);
  Result<Policy> intel = Policy::Parse(ReadCookbook("policies/intel.policy.yaml"),
                                       "intel.policy.yaml", Binding::Cluster());
  ASSERT_FALSE(intel.ok());
  EXPECT_NE(intel.status().message().find("applies to cluster"), std::string::npos)
      << intel.status().message();
}

// --- Bad files: every one refused with an error naming the file (and rule and key), none crashes.

struct BadFile {
  const char* name;
  const char* yaml;
  const char* error;  // A substring the message must hold.
};

constexpr const char* kRuleHead =
    "version: 1\ngroups: {g: [a]}\nrules:\n  - id: r1\n    allow:\n      actors: {group: g}\n";

TEST(PolicyBadFileTest, EachIsRefusedWithItsError) {
  const std::string head = kRuleHead;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "a policy bundle must be a mapping, found null"},
      {"[1, 2", "test.policy.yaml:1:"},
      {"version: 1\nrules: {a: 1", "malformed YAML"},
      {"- a\n- b\n", "must be a mapping, found a list"},
      {"rules: []\n", "key 'version': is required"},
      {"version: 2\n", "key 'version': must be 1, found '2'"},
      {"version: [1]\n", "key 'version': must be 1, found a list"},
      {"version: 1\nkind: cluster\n", "key 'kind': must be server or graph"},
      {"version: 1\nextra: 1\n", "unknown key 'extra'"},
      {"version: 1\nversion: 1\n", "key 'version' appears twice"},
      {"version: 1\ngroups: [a]\n", "key 'groups': must be a mapping"},
      {"version: 1\ngroups: {g: a}\n", "group 'g': must be a list of names, found a scalar"},
      {"version: 1\ngroups: {g: [[a]]}\n", "group 'g': must list names, found a list"},
      {"version: 1\nprotected_branches: main\n", "key 'protected_branches': must be a list"},
      {"version: 1\nrules: {}\n", "key 'rules': must be a list, found a mapping"},
      {"version: 1\nrules:\n  - allow: {}\n", "rule 1: key 'id': is required"},
      {head + "      actions: [read]\n  - id: r1\n    allow:\n      actors: {group: g}\n      "
              "actions: [read]\n",
       "rule 'r1': key 'id': two rules have this id"},
      {"version: 1\nrules:\n  - id: r1\n",
       "rule 'r1': needs exactly one of the keys 'allow' and 'deny'"},
      {"version: 1\nrules:\n  - id: r1\n    allow: {}\n    deny: {}\n", "needs exactly one"},
      {"version: 1\nrules:\n  - id: r1\n    permit: {}\n", "rule 'r1': unknown key 'permit'"},
      {"version: 1\nrules:\n  - id: r1\n    allow: [read]\n",
       "rule 'r1': key 'allow': must be a mapping"},
      {head + "      actions: [write]\n", "rule 'r1': key 'allow.actions': unknown action 'write'"},
      {head + "      actions: [branch_merge]\n      types: [Person]\n",
       "rule 'r1': key 'allow.types': only read, export and change take types, and the rule also "
       "grants 'branch_merge'"},
      {head + "      actions: [change]\n      types: []\n",
       "rule 'r1': key 'allow.types': names no type"},
      {head + "      actions: [change]\n      types: Person\n", "rule 'r1': key 'allow.types'"},
      {head + "      actions: read\n",
       "key 'allow.actions': must be a list of names, found a scalar"},
      {head + "      actions: []\n", "key 'allow.actions': names no action"},
      {head, "rule 'r1': key 'allow.actions': is required"},
      {head + "      actions: [read]\n      effect: permit\n",
       "rule 'r1': key 'allow': unknown key 'effect'"},
      {"version: 1\nrules:\n  - id: r1\n    allow:\n      actors: {group: nobody}\n      actions: "
       "[read]\n",
       "rule 'r1': key 'allow.actors': key 'group': unknown group 'nobody'"},
      {"version: 1\nrules:\n  - id: r1\n    allow:\n      actors: act-a\n      actions: [read]\n",
       "key 'allow.actors': must be a mapping such as { group: NAME }"},
      {"version: 1\nrules:\n  - id: r1\n    allow:\n      actors: {user: a}\n      actions: "
       "[read]\n",
       "key 'allow.actors': unknown key 'user'"},
      {"version: 1\nrules:\n  - id: r1\n    allow:\n      actors: {}\n      actions: [read]\n",
       "key 'allow.actors': names no actor"},
      {head + "      actions: [read]\n      branch_scope: [main]\n",
       "key 'allow.branch_scope': must be any, protected, unprotected or a branch pattern, found a "
       "list"},
      {head + "      actions: [read]\n      branch_scope: \"{user}/*\"\n",
       "the only placeholder is {actor}"},
      {head + "      actions: [read]\n      branch_scope: \"a b\"\n", "space or control character"},
      {head + "      actions: [read]\n      branch_scope: any\n      target_branch_scope: any\n",
       "at most one of branch_scope and target_branch_scope"},
      {head + "      actions: [graph_list]\n      branch_scope: any\n",
       "key 'allow.branch_scope': action 'graph_list' takes no branch scope (it is server-scoped)"},
      {head + "      actions: [invoke_query]\n      target_branch_scope: any\n",
       "action 'invoke_query' takes no branch scope (it is graph-scoped)"},
      {head + "      actions: [admin]\n      branch_scope: protected\n",
       "action 'admin' takes no branch scope"},
      {head + "      actions: [branch_merge]\n      branch_scope: protected\n",
       "key 'allow.branch_scope': action 'branch_merge' is scoped by its target branch"},
      {head + "      actions: [read, change]\n      target_branch_scope: protected\n",
       "action 'read' is scoped by its source branch"},
      {head + "      actions: [read, graph_list]\n", "cannot mix server-scoped actions"},
      {head + "      actions: [invoke_query, read]\n      queries: [q]\n",
       "key 'allow.queries': only invoke_query takes queries, and the rule also grants 'read'"},
      {head + "      actions: [invoke_query]\n      queries: []\n",
       "key 'allow.queries': names no query"},
      {head + "      actions: [invoke_query]\n      queries: q\n",
       "key 'allow.queries': must be a list"},
      {"version: 1\nkind: server\ngroups: {g: [a]}\nrules:\n  - id: r1\n    allow:\n      actors: "
       "{group: g}\n      actions: [read]\n",
       "key 'kind': says server but rule 'r1' grants per-graph actions"},
  };
  for (const auto& [yaml, error] : cases) {
    Result<Policy> p = Policy::Parse(yaml, "test.policy.yaml", Binding::Unbound());
    ASSERT_FALSE(p.ok()) << "accepted:\n" << yaml;
    EXPECT_EQ(p.status().code(), Code::kInvalidArgument) << yaml;
    EXPECT_NE(p.status().message().find(error), std::string::npos)
        << "expected '" << error << "' in: " << p.status().message() << "\n"
        << yaml;
    EXPECT_EQ(p.status().message().rfind("test.policy.yaml", 0), 0u) << p.status().message();
  }
}

TEST(PolicyBadFileTest, EveryTruncationAndByteFlipOfAGoodBundleParsesOrFailsCleanly) {
  // A small deterministic fuzz: no prefix or single-byte corruption of a valid bundle crashes
  // or yields a policy that allows what the original denies (no partial policy).
  const std::string good = ReadCookbook("policies/intel.policy.yaml");
  ASSERT_FALSE(good.empty());
  const char flips[] = {':', '[', '{', '-', '\n', '"', '&', '\0'};
  size_t refused = 0;
  auto check = [&](const std::string& text) {
    Result<Policy> p = Policy::Parse(text, "fuzz.policy.yaml", Binding::Graphs({"spike"}));
    if (!p.ok()) {
      ++refused;
      EXPECT_EQ(p.status().message().rfind("fuzz.policy.yaml", 0), 0u) << p.status().message();
      return;
    }
    // Whatever parsed is a whole policy: its decisions are well formed.
    const Decision d = p->Decide(Ask("act-reader", Action::kChange, "main"));
    EXPECT_FALSE(d.reason.empty());
  };
  for (size_t n = 0; n < good.size(); n += 3) check(good.substr(0, n));
  for (size_t i = 0; i < good.size(); i += 3) {
    for (char f : flips) {
      std::string text = good;
      text[i] = f;
      check(text);
    }
  }
  EXPECT_GT(refused, 50u);
}

// --- Test files.

TEST(PolicyTestFileTest, ParsesCasesAndRefusesBadOnes) {
  Result<std::vector<TestCase>> cases = ParseTests(
      "version: 1\ncases:\n  - id: c1\n    actor: act-a\n    action: branch_merge\n"
      "    branch: feature\n    target_branch: main\n    expect: deny\n"
      "  - id: c2\n    actor: act-b\n    action: read\n    branch: main\n    expect: allow\n"
      "    rule: r\n"
      "  - id: c3\n    actor: act-b\n    action: change\n    types: [Signal, Mentions]\n"
      "    expect: allow\n",
      "t.yaml");
  ASSERT_TRUE(cases.ok()) << cases.status().ToString();
  ASSERT_EQ(cases->size(), 3u);
  EXPECT_FALSE((*cases)[1].request.types.has_value());
  EXPECT_EQ((*cases)[2].request.types, (std::vector<std::string>{"Signal", "Mentions"}));
  EXPECT_EQ((*cases)[0].request.action, Action::kBranchMerge);
  EXPECT_EQ((*cases)[0].request.target_branch, "main");
  EXPECT_FALSE((*cases)[0].expect_allow);
  EXPECT_EQ((*cases)[1].expect_rule, "r");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"cases: []\n", "t.yaml: key 'version': must be 1"},
      {"version: 1\n", "key 'cases': must be a list"},
      {"version: 1\ncases:\n  - actor: a\n", "case 1: key 'id' is required"},
      {"version: 1\ncases:\n  - id: x\n    action: fly\n    expect: allow\n",
       "case 'x': key 'action': unknown action 'fly'"},
      {"version: 1\ncases:\n  - id: x\n    action: read\n    expect: permit\n",
       "case 'x': key 'expect': must be allow or deny"},
      {"version: 1\ncases:\n  - id: x\n    action: read\n    expect: allow\n    name: y\n",
       "case 1: unknown key 'name'"},
      {"version: 1\ncases: [{id: x, action: read, expect: allow}, {id: x, action: read, expect: "
       "deny}]\n",
       "case 'x': two cases have this id"},
      {"version: 1\ncases: [", "t.yaml:"},
      {"version: 1\ncases: [{id: x, action: read, expect: allow, types: Person}]\n",
       "case 'x': key 'types': must be a list of type names"},
  };
  for (const auto& [yaml, error] : bad) {
    Result<std::vector<TestCase>> r = ParseTests(yaml, "t.yaml");
    ASSERT_FALSE(r.ok()) << yaml;
    EXPECT_NE(r.status().message().find(error), std::string::npos)
        << "expected '" << error << "' in: " << r.status().message();
  }
}

}  // namespace
}  // namespace omnigraph::policy
