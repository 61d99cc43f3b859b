// The public example: OmniGraph embedded in a program through include/omnigraph/ alone (it is
// built with include/ as its only include directory and omnigraph_api as its only library). It
// creates the quickstart graph (examples/quickstart) in memory, loads its seed, runs a read
// query and walks the result, runs a mutation and prints the history.
//
// Usage: omnigraph-embedded [QUICKSTART_DIR] (default: the source tree's examples/quickstart).
#include <omnigraph/omnigraph.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace og = omnigraph::api;

namespace {

og::Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return og::InvalidArgument("cannot read '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

og::Status Run(const std::string& dir) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string schema, ReadFile(dir + "/schema.pg"));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string seed, ReadFile(dir + "/seed.jsonl"));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string queries, ReadFile(dir + "/queries.gq"));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string mutations, ReadFile(dir + "/mutations.gq"));

  og::DatabaseOptions options;
  options.actor = "embedded-example";
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<og::Database> db,
                             og::Database::Init("memory://quickstart", schema, options));
  OMNIGRAPH_ASSIGN_OR_RETURN(og::Json loaded, db->Load(seed, "merge", og::WriteTarget{}));
  std::printf("loaded %llu entities as commit %s\n",
              static_cast<unsigned long long>(loaded["total_entities"].get<uint64_t>()),
              loaded["commit"]["graph_commit_id"].get<std::string>().c_str());

  // A result is a Json envelope: walk its columns and rows, or pass it on as text (dump).
  OMNIGRAPH_ASSIGN_OR_RETURN(og::Json team, db->Query(queries, "team", og::Json{{"code", "og"}}));
  for (const og::Json& row : team["rows"]) {
    std::printf("  %s (%s)\n", row["p.name"].get<std::string>().c_str(),
                row["p.role"].get<std::string>().c_str());
  }

  OMNIGRAPH_ASSIGN_OR_RETURN(og::Json joined, db->Mutate(mutations, "join",
                                                         og::Json{{"handle", "ken"},
                                                                  {"name", "Ken Thompson"},
                                                                  {"role", "engineer"},
                                                                  {"project", "sim"}},
                                                         og::WriteTarget{}));
  std::printf("join: %s\n", joined.dump().c_str());

  // Errors are values: a code that says what happened and a message for people.
  og::Result<og::Json> missing = db->Query(queries, "team", og::Json::object());
  if (!missing.ok()) {
    std::printf("team without its parameter: error[%s] %s\n",
                std::string(og::CodeName(missing.status().code())).c_str(),
                missing.status().message().c_str());
  }

  OMNIGRAPH_ASSIGN_OR_RETURN(og::Json commits, db->ListCommits("main", 10));
  for (const og::Json& c : commits) {
    std::printf("  #%llu %s\n",
                static_cast<unsigned long long>(c["graph_manifest_version"].get<uint64_t>()),
                c["graph_commit_id"].get<std::string>().c_str());
  }
  return og::Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : OMNIGRAPH_QUICKSTART_DIR;
  og::Status s = Run(dir);
  if (!s.ok()) {
    std::fprintf(stderr, "omnigraph-embedded: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
