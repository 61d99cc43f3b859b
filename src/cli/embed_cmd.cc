// embed (--seed manifest.yaml | --input F --output F --spec spec.json) [--reembed-all | --clean]
// [--type T]... [--select Type:field=value]... [--json]: OmniGraph's offline embedding pipeline
// (docs/design/query-execution.md "Embeddings"). It rewrites a seed JSONL file with its `@embed`
// vectors filled through the configured provider; it touches no graph, so it is a local verb and
// `--server` is refused as unsupported (omnigraph-server has no embed route).
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"

namespace omnigraph::cli {
namespace {

namespace fs = std::filesystem;
using api::EmbedFileRequest;
using api::ParseJson;

struct EmbedOptions {
  std::string seed, input, output, spec;
  bool clean = false;
  bool reembed_all = false;
  std::vector<std::string> types, selectors;
};

// A YAML node as JSON: the spec's scalars are numbers or strings.
Json YamlToJson(const YAML::Node& node) {
  if (node.IsMap()) {
    Json out = Json::object();
    for (const auto& kv : node) out[kv.first.as<std::string>()] = YamlToJson(kv.second);
    return out;
  }
  if (node.IsSequence()) {
    Json out = Json::array();
    for (const auto& item : node) out.push_back(YamlToJson(item));
    return out;
  }
  if (!node.IsScalar()) return Json();
  const std::string s = node.as<std::string>();
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() < 10) {
    return Json(static_cast<uint64_t>(std::stoull(s)));
  }
  return Json(s);
}

// The seed manifest (the reference's layout): sources.raw_seed (or seed.data), artifacts.
// embedded_seed (default ./build/seed.embedded.jsonl) and embeddings (the spec), paths relative to
// the manifest's folder. --output overrides the artifact.
Status FromSeedManifest(const EmbedOptions& o, EmbedFileRequest& r) {
  YAML::Node m;
  try {
    m = YAML::LoadFile(o.seed);
  } catch (const YAML::Exception& e) {
    return InvalidArgument("cannot read the seed manifest " + o.seed + ": " + e.what());
  }
  const fs::path dir = fs::path(o.seed).parent_path();
  std::string raw;
  if (m["sources"] && m["sources"]["raw_seed"]) raw = m["sources"]["raw_seed"].as<std::string>();
  if (raw.empty() && m["seed"] && m["seed"]["data"]) raw = m["seed"]["data"].as<std::string>();
  if (raw.empty())
    return InvalidArgument("seed manifest " + o.seed + " is missing sources.raw_seed");
  std::string embedded = "./build/seed.embedded.jsonl";
  if (m["artifacts"] && m["artifacts"]["embedded_seed"]) {
    embedded = m["artifacts"]["embedded_seed"].as<std::string>();
  }
  if (!m["embeddings"])
    return InvalidArgument("seed manifest " + o.seed + " is missing embeddings");
  r.input = (dir / raw).string();
  r.output = o.output.empty() ? (dir / embedded).string() : o.output;
  r.spec = YamlToJson(m["embeddings"]);
  return Status::Ok();
}

Result<Json> RunEmbed(const EmbedOptions& o) {
  EmbedFileRequest r;
  if (!o.seed.empty()) {
    if (!o.input.empty() || !o.spec.empty()) {
      return InvalidArgument("--seed and --input/--spec are mutually exclusive");
    }
    OMNIGRAPH_RETURN_IF_ERROR(FromSeedManifest(o, r));
  } else {
    if (o.input.empty() || o.output.empty() || o.spec.empty()) {
      return InvalidArgument("embed needs --seed <manifest.yaml>, or --input, --output and --spec");
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string spec, ReadFile(o.spec));
    Result<Json> parsed = ParseJson(spec, o.spec);
    if (!parsed.ok()) {
      return InvalidArgument("the spec " + o.spec + " is not JSON: " + parsed.status().message());
    }
    r.input = o.input;
    r.output = o.output;
    r.spec = std::move(*parsed);
  }
  r.mode = o.clean ? "clean" : o.reembed_all ? "reembed_all" : "fill_missing";
  r.types = o.types;
  r.selectors = o.selectors;
  return Database::EmbedFile(r);
}

std::string EmbedText(const Json& s) {
  return "embedded " + std::to_string(s["embedded_records"].get<uint64_t>()) + " and cleaned " +
         std::to_string(s["cleaned_records"].get<uint64_t>()) + " of " +
         std::to_string(s["records"].get<uint64_t>()) + " records (" + s["mode"].string_value() +
         ", dimension " + std::to_string(s["dimension"].get<uint64_t>()) + ") into " +
         s["output"].string_value();
}

}  // namespace

void AddEmbedCommand(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<EmbedOptions>();
  CLI::App* embed = app.add_subcommand(
      "embed", "Fill, refresh or remove the @embed vectors of a seed JSONL file (offline)");
  embed->add_option("--seed", o->seed, "A seed manifest (YAML): sources, artifacts, embeddings");
  embed->add_option("--input", o->input, "The seed JSONL read");
  embed->add_option("--output", o->output, "The JSONL written");
  embed->add_option("--spec", o->spec, "The embedding spec (JSON): {dimension, types}");
  auto* clean = embed->add_flag("--clean", o->clean, "Remove the embedding fields instead");
  auto* all = embed->add_flag("--reembed-all,--reembed_all", o->reembed_all,
                              "Embed every selected record again");
  clean->excludes(all);
  embed->add_option("--type", o->types, "Only records of this type (repeatable)");
  embed->add_option("--select", o->selectors,
                    "Re-embed or clean the records matching Type:field=value or field=value "
                    "(repeatable)");
  embed->add_flag("--json", ctx.globals().json, "Print the JSON summary");
  embed->callback([&ctx, o] {
    if (ctx.Remote()) {
      ctx.Fail(Status(Code::kUnsupported,
                      "embed is not served over HTTP: omnigraph-server has no route for it; it "
                      "rewrites a local seed file, so run it without --server"));
      return;
    }
    Result<Json> out = RunEmbed(*o);
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    if (out->contains("warning"))
      std::cerr << "warning: " << (*out)["warning"].string_value() << "\n";
    ctx.Print(*out, EmbedText(*out));
  });
}

}  // namespace omnigraph::cli
