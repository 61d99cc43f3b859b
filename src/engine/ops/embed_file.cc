#include "engine/ops/embed_file.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "query/exec/embedder.h"

namespace omnigraph::engine {

namespace {

struct TypeSpec {
  std::string target;
  std::vector<std::string> fields;
};

struct Spec {
  uint32_t dimension = 0;
  std::map<std::string, TypeSpec> types;
};

struct Selector {
  std::optional<std::string> type_name;
  std::string field;
  std::string expected;
};

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

Result<Spec> ParseSpec(const Json& j) {
  Spec spec;
  if (!j.is_object() || !j.contains("dimension") || !j["dimension"].is_number_unsigned() ||
      j["dimension"].get<uint64_t>() == 0 || j["dimension"].get<uint64_t>() > UINT32_MAX) {
    return InvalidArgument("the embedding spec needs a positive whole `dimension`");
  }
  spec.dimension = j["dimension"].get<uint32_t>();
  if (!j.contains("types") || !j["types"].is_object()) {
    return InvalidArgument("the embedding spec needs a `types` object");
  }
  for (const auto& [name, t] : j["types"].items()) {
    TypeSpec ts;
    if (!t.is_object() || !t.contains("target") || !t["target"].is_string() ||
        !t.contains("fields") || !t["fields"].is_array()) {
      return InvalidArgument("the embedding spec of type '" + name +
                             "' needs `target` (a string) and `fields` (an array of strings)");
    }
    ts.target = t["target"].get<std::string>();
    for (const Json& f : t["fields"]) {
      if (!f.is_string()) {
        return InvalidArgument("the embedding spec of type '" + name + "' has a field " + f.dump() +
                               " that is not a string");
      }
      ts.fields.push_back(f.get<std::string>());
    }
    spec.types.emplace(name, std::move(ts));
  }
  return spec;
}

Result<Selector> ParseSelector(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return InvalidArgument("selector '" + std::string(text) +
                           "' must be field=value or Type:field=value");
  }
  Selector s;
  std::string_view lhs = text.substr(0, eq);
  s.expected = Trim(text.substr(eq + 1));
  const size_t colon = lhs.find(':');
  if (colon != std::string_view::npos) {
    std::string type_name = Trim(lhs.substr(0, colon));
    if (!type_name.empty()) s.type_name = std::move(type_name);
    lhs = lhs.substr(colon + 1);
  }
  s.field = Trim(lhs);
  if (s.field.empty()) return InvalidArgument("selector '" + std::string(text) + "' has no field");
  return s;
}

// A value as the text of an embedding and as a selector compares it (the reference's rendering:
// strings trimmed, lists joined with ", ", null empty).
std::string Render(const Json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return Trim(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_array()) {
    std::string out;
    for (const Json& x : v) {
      std::string r = Render(x);
      if (r.empty()) continue;
      out += (out.empty() ? "" : ", ") + r;
    }
    return out;
  }
  return v.dump();
}

std::string TextOf(const std::string& type_name, const Json& data, const TypeSpec& spec) {
  std::string text = "type: " + type_name;
  for (const std::string& f : spec.fields) {
    if (!data.contains(f)) continue;
    std::string r = Render(data[f]);
    if (!r.empty()) text += "\n" + f + ": " + r;
  }
  return text;
}

// The vector with each F32 written as its shortest decimal (a load reads back the same F32),
// not as the longer decimal of the F64 it widens to.
Json VectorJson(const std::vector<float>& v) {
  Json out = Json::array();
  char buffer[32];
  for (float f : v) {
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, f);
    out.push_back(ec == std::errc() ? std::strtod(std::string(buffer, end).c_str(), nullptr)
                                    : static_cast<double>(f));
  }
  return out;
}

bool Missing(const Json& data, const std::string& target) {
  if (!data.contains(target)) return true;
  const Json& v = data[target];
  return v.is_null() || (v.is_array() && v.empty());
}

const char* ModeName(EmbedFileMode mode, bool selectors) {
  switch (mode) {
    case EmbedFileMode::kFillMissing: return selectors ? "reembed_selected" : "fill_missing";
    case EmbedFileMode::kReembedAll: return "reembed_all";
    case EmbedFileMode::kClean: return "clean";
  }
  return "";
}

// One run: reads records, holds them in order until a batch of texts is embedded, writes them.
class EmbedRun {
 public:
  EmbedRun(const EmbedFileJob& job, Spec spec, std::vector<Selector> selectors, Clock& clock)
      : job_(job), spec_(std::move(spec)), selectors_(std::move(selectors)), lazy_(clock) {
    types_.insert(job.types.begin(), job.types.end());
  }

  Status Add(Json record, uint64_t line);
  Status Finish(std::ostream& out);
  Status Flush(std::ostream& out);
  Json Summary();
  size_t waiting() const { return texts_.size(); }
  size_t held() const { return held_.size(); }

 private:
  bool Selected(const std::string& type_name, const Json& data) const;

  const EmbedFileJob& job_;
  const Spec spec_;
  const std::vector<Selector> selectors_;
  std::set<std::string> types_;
  query::LazyEmbedder lazy_;
  std::vector<Json> held_;
  // The held records waiting for a vector: index into held_, and their texts.
  std::vector<size_t> waiting_;
  std::vector<std::string> texts_;
  uint64_t records_ = 0, selected_ = 0, embedded_ = 0, cleaned_ = 0;
  std::string model_, warning_;
};

bool EmbedRun::Selected(const std::string& type_name, const Json& data) const {
  if (!types_.empty() && types_.count(type_name) == 0) return false;
  if (selectors_.empty()) return true;
  for (const Selector& s : selectors_) {
    if (s.type_name && *s.type_name != type_name) continue;
    if (data.contains(s.field) && Render(data[s.field]) == s.expected) return true;
  }
  return false;
}

Status EmbedRun::Add(Json record, uint64_t line) {
  ++records_;
  const bool entity = record.contains("type") && record["type"].is_string();
  if (entity && (!record.contains("data") || !record["data"].is_object())) {
    return InvalidArgument("line " + std::to_string(line) + " is missing object field 'data'");
  }
  const std::string type_name = entity ? record["type"].get<std::string>() : "";
  const bool selected = entity && Selected(type_name, record["data"]);
  if (selected) ++selected_;
  auto spec = entity ? spec_.types.find(type_name) : spec_.types.end();
  if (selected && spec != spec_.types.end()) {
    Json& data = record["data"];
    const TypeSpec& ts = spec->second;
    if (job_.mode == EmbedFileMode::kClean) {
      if (data.erase(ts.target) > 0) ++cleaned_;
    } else if (job_.mode == EmbedFileMode::kReembedAll || !selectors_.empty() ||
               Missing(data, ts.target)) {
      waiting_.push_back(held_.size());
      texts_.push_back(TextOf(type_name, data, ts));
    }
  }
  held_.push_back(std::move(record));
  return Status::Ok();
}

Status EmbedRun::Flush(std::ostream& out) {
  if (!texts_.empty()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(query::Embedder * embedder, lazy_.Get());
    model_ = embedder->config().model;
    warning_ = embedder->config().warning;
    OMNIGRAPH_ASSIGN_OR_RETURN(
        std::vector<std::vector<float>> vectors,
        embedder->Embed(texts_, spec_.dimension, query::EmbedRole::kDocument, "the seed records"));
    for (size_t k = 0; k < waiting_.size(); ++k) {
      Json& record = held_[waiting_[k]];
      const TypeSpec& ts = spec_.types.at(record["type"].get<std::string>());
      record["data"][ts.target] = VectorJson(vectors[k]);
      ++embedded_;
    }
  }
  for (const Json& record : held_) out << record.dump() << '\n';
  held_.clear();
  waiting_.clear();
  texts_.clear();
  if (!out) return Status(Code::kPermanent, "cannot write " + job_.output + ".tmp");
  return Status::Ok();
}

Status EmbedRun::Finish(std::ostream& out) {
  OMNIGRAPH_RETURN_IF_ERROR(Flush(out));
  out.flush();
  if (!out) return Status(Code::kPermanent, "cannot write " + job_.output + ".tmp");
  return Status::Ok();
}

Json EmbedRun::Summary() {
  Json s = {{"input", job_.input},
            {"output", job_.output},
            {"records", records_},
            {"selected_records", selected_},
            {"embedded_records", embedded_},
            {"cleaned_records", cleaned_},
            {"mode", ModeName(job_.mode, !selectors_.empty())},
            {"dimension", spec_.dimension},
            {"model", model_}};
  if (!warning_.empty()) s["warning"] = warning_;
  return s;
}

// Reads every line of `in` into `run`, flushing full batches into `out`.
Status Stream(std::istream& in, std::ostream& out, EmbedRun& run, const EmbedFileJob& job) {
  std::string line;
  uint64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string raw = Trim(line);
    if (raw.empty()) continue;
    Result<Json> record = ParseJson(raw, "line " + std::to_string(number));
    if (!record.ok() || !record->is_object()) {
      return InvalidArgument(job.input + ": line " + std::to_string(number) +
                             " is not a JSON object" +
                             (record.ok() ? "" : ": " + record.status().message()));
    }
    OMNIGRAPH_RETURN_IF_ERROR(run.Add(std::move(*record), number));
    if (run.waiting() >= kEmbedFileBatchRecords || run.held() >= kEmbedFileHeldRecordsMax) {
      OMNIGRAPH_RETURN_IF_ERROR(run.Flush(out));
    }
  }
  if (in.bad()) return Status(Code::kPermanent, "cannot read " + job.input);
  return run.Finish(out);
}

}  // namespace

Result<Json> RunEmbedFile(const EmbedFileJob& job, Clock& clock) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Spec spec, ParseSpec(job.spec));
  std::vector<Selector> selectors;
  for (const std::string& s : job.selectors) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Selector parsed, ParseSelector(s));
    selectors.push_back(std::move(parsed));
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(job.input, ec)) {
    return InvalidArgument("seed input does not exist: " + job.input);
  }
  const std::filesystem::path output(job.output);
  if (output.has_parent_path()) std::filesystem::create_directories(output.parent_path(), ec);
  const std::string temp = job.output + ".tmp";
  std::ifstream in(job.input);
  std::ofstream out(temp, std::ios::binary | std::ios::trunc);
  if (!in) return Status(Code::kPermanent, "cannot read " + job.input);
  if (!out) return Status(Code::kPermanent, "cannot write " + temp);
  EmbedRun run(job, std::move(spec), std::move(selectors), clock);
  Status s = Stream(in, out, run, job);
  out.close();
  if (!s.ok()) {
    std::filesystem::remove(temp, ec);
    return s;
  }
  std::filesystem::rename(temp, output, ec);
  if (ec) return Status(Code::kPermanent, "cannot rename " + temp + ": " + ec.message());
  return run.Summary();
}

}  // namespace omnigraph::engine
