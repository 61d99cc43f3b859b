#include "query/embedder.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "base/json.h"
#include "storage/http/http_client.h"

namespace omnigraph::query {

namespace {

Status ConfigError(std::string message) { return Status(Code::kConfiguration, std::move(message)); }

// A whole number of milliseconds in [min, max] from variable `name`, or `fallback` when unset.
Result<int64_t> ParseBounded(const std::function<std::optional<std::string>(std::string_view)>& get,
                             std::string_view name, int64_t fallback, int64_t min, int64_t max) {
  std::optional<std::string> v = get(name);
  if (!v || v->empty()) return fallback;
  char* end = nullptr;
  const long long n = std::strtoll(v->c_str(), &end, 10);
  if (end == nullptr || *end != '\0' || n < min || n > max) {
    return ConfigError(std::string(name) + " is '" + *v + "'; expected a whole number from " +
                       std::to_string(min) + " to " + std::to_string(max));
  }
  return static_cast<int64_t>(n);
}

std::string Quote(std::string_view body) {
  if (body.size() <= kEmbedErrorQuoteBytesMax) return std::string(body);
  return std::string(body.substr(0, kEmbedErrorQuoteBytesMax)) + "…";
}

bool Retryable(const storage::http::HttpResponse& r) {
  if (r.transport != storage::http::Transport::kAnswered) return true;
  return r.status == 429 || r.status >= 500;
}

std::string Describe(const storage::http::HttpResponse& r) {
  if (r.transport != storage::http::Transport::kAnswered) {
    return "no answer (" + (r.error.empty() ? std::string("transport failure") : r.error) + ")";
  }
  return "HTTP " + std::to_string(r.status) + ": " + Quote(r.body);
}

// The vectors of a successful answer, placed by their `index`.
Result<std::vector<std::vector<float>>> ParseAnswer(std::string_view body, size_t count,
                                                    uint32_t dim, std::string_view what,
                                                    std::string_view url) {
  auto bad = [&](const std::string& why) {
    return Status(Code::kPermanent, "the embedding endpoint " + std::string(url) +
                                        " answered for " + std::string(what) + " with " + why);
  };
  Result<Json> parsed = ParseJson(body, "embedding answer");
  if (!parsed.ok()) return bad("invalid JSON: " + parsed.status().message());
  const Json& j = *parsed;
  if (!j.is_object() || !j.contains("data") || !j["data"].is_array()) {
    return bad("no `data` array");
  }
  if (j["data"].size() != count) {
    return bad(std::to_string(j["data"].size()) + " embeddings for " + std::to_string(count) +
               " inputs");
  }
  std::vector<std::vector<float>> out(count);
  std::vector<bool> seen(count, false);
  for (size_t k = 0; k < count; ++k) {
    const Json& item = j["data"][k];
    const Json* index = item.is_object() && item.contains("index") ? &item["index"] : nullptr;
    const size_t i = index == nullptr              ? k
                     : index->is_number_unsigned() ? index->get<size_t>()
                                                   : count;
    if (i >= count || seen[i]) return bad("a missing, repeated or out-of-range `index`");
    seen[i] = true;
    if (!item.is_object() || !item.contains("embedding") || !item["embedding"].is_array()) {
      return bad("an item without an `embedding` array");
    }
    const Json& e = item["embedding"];
    if (e.size() != dim) {
      return InvalidArgument("the embedding endpoint returned " + std::to_string(e.size()) +
                             " numbers for " + std::string(what) + ", which is Vector(" +
                             std::to_string(dim) + ")");
    }
    out[i].reserve(dim);
    for (const Json& x : e) {
      const double d = x.is_number() ? x.get<double>() : std::numeric_limits<double>::quiet_NaN();
      const float f = static_cast<float>(d);
      if (!std::isfinite(f)) {
        return InvalidArgument("the embedding endpoint returned " + x.dump() + " for " +
                               std::string(what) + ", not a finite F32");
      }
      out[i].push_back(f);
    }
  }
  return out;
}

}  // namespace

Result<EmbedConfig> EmbedConfig::FromEnvironment() {
  return FromLookup([](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

Result<EmbedConfig> EmbedConfig::FromLookup(
    const std::function<std::optional<std::string>(std::string_view)>& lookup) {
  EmbedConfig c;
  std::optional<std::string> base = lookup(kEmbedBaseUrlEnv);
  if (!base || base->empty()) {
    return ConfigError("no embedding endpoint is configured: " + std::string(kEmbedBaseUrlEnv) +
                       " is not set (the base URL of an OpenAI-compatible embeddings API, e.g. "
                       "https://api.openai.com/v1)");
  }
  c.base_url = *base;
  while (!c.base_url.empty() && c.base_url.back() == '/') c.base_url.pop_back();
  if (!c.base_url.starts_with("http://") && !c.base_url.starts_with("https://")) {
    return ConfigError(std::string(kEmbedBaseUrlEnv) + " '" + *base +
                       "' must start with http:// or https://");
  }
  c.model = lookup(kEmbedModelEnv).value_or("");
  for (std::string_view key : {kEmbedApiKeyEnv, kEmbedApiKeyAltEnv}) {
    std::optional<std::string> v = lookup(key);
    if (v && !v->empty()) {
      c.api_key = *v;
      break;
    }
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(
      c.request_timeout_ms,
      ParseBounded(lookup, kEmbedTimeoutEnv, kEmbedTimeoutDefaultMs, 1, 3'600'000));
  OMNIGRAPH_ASSIGN_OR_RETURN(
      int64_t attempts,
      ParseBounded(lookup, kEmbedAttemptsEnv, kEmbedAttemptsDefault, 1, kEmbedAttemptsMax));
  c.attempts_max = static_cast<int>(attempts);
  OMNIGRAPH_ASSIGN_OR_RETURN(
      c.backoff_base_ms,
      ParseBounded(lookup, kEmbedBackoffEnv, kEmbedBackoffDefaultMs, 0, kEmbedBackoffMaxMs));
  return c;
}

Embedder::Embedder(EmbedConfig config, Clock& clock) : config_(std::move(config)), clock_(clock) {
  storage::http::HttpClientOptions options;
  options.request_timeout_ms = config_.request_timeout_ms;
  http_ = std::make_unique<storage::http::HttpClient>(std::move(options));
}

Embedder::~Embedder() = default;

Result<std::string> Embedder::ModelFor(const schema::EmbedSpec& spec, std::string_view what) const {
  if (spec.model && !spec.model->empty()) return *spec.model;
  if (!config_.model.empty()) return config_.model;
  return ConfigError("no embedding model for " + std::string(what) +
                     ": its @embed names none and " + std::string(kEmbedModelEnv) + " is not set");
}

Result<std::vector<std::vector<float>>> Embedder::Embed(std::span<const std::string> texts,
                                                        std::string_view model, uint32_t dim,
                                                        std::string_view what) {
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  const size_t step = std::max<size_t>(1, config_.batch_inputs_max);
  for (size_t begin = 0; begin < texts.size(); begin += step) {
    const size_t n = std::min(step, texts.size() - begin);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::vector<float>> part,
                               EmbedBatch(texts.subspan(begin, n), model, dim, what));
    for (std::vector<float>& v : part) out.push_back(std::move(v));
  }
  return out;
}

Result<std::vector<std::vector<float>>> Embedder::EmbedBatch(std::span<const std::string> texts,
                                                             std::string_view model, uint32_t dim,
                                                             std::string_view what) {
  Json body = {{"model", model}, {"input", Json::array()}};
  for (const std::string& t : texts) body["input"].push_back(t);
  const std::string payload = body.dump();
  storage::http::HttpRequest request;
  request.method = "POST";
  request.url = config_.base_url + "/embeddings";
  request.headers.push_back("Content-Type: application/json");
  if (!config_.api_key.empty())
    request.headers.push_back("Authorization: Bearer " + config_.api_key);
  request.body = payload;
  int64_t backoff_ms = config_.backoff_base_ms;
  for (int attempt = 1;; ++attempt) {
    requests_.fetch_add(1, std::memory_order_relaxed);
    storage::http::HttpResponse r = http_->Send(request);
    if (r.transport == storage::http::Transport::kAnswered && r.status / 100 == 2) {
      return ParseAnswer(r.body, texts.size(), dim, what, request.url);
    }
    const std::string where = "the embedding endpoint " + request.url + " (" + std::string(what) +
                              ", model " + std::string(model) + ")";
    if (!Retryable(r)) {
      if (r.status == 401 || r.status == 403) {
        return ConfigError(where + " refused the key (" + std::string(kEmbedApiKeyEnv) + " or " +
                           std::string(kEmbedApiKeyAltEnv) + "): " + Describe(r));
      }
      return Status(Code::kPermanent, where + " refused the request: " + Describe(r));
    }
    if (attempt >= config_.attempts_max) {
      return Status(Code::kTransient, where + " failed " + std::to_string(attempt) +
                                          " times; the last: " + Describe(r));
    }
    clock_.SleepMicros(backoff_ms * 1000);
    backoff_ms = std::min(backoff_ms * 2, kEmbedBackoffMaxMs);
  }
}

Result<Embedder*> LazyEmbedder::Get() {
  if (embedder_ == nullptr) {
    OMNIGRAPH_ASSIGN_OR_RETURN(EmbedConfig config, EmbedConfig::FromEnvironment());
    embedder_ = std::make_unique<Embedder>(std::move(config), clock_);
  }
  return embedder_.get();
}

Result<std::vector<float>> EmbedQueryText(LazyEmbedder& lazy, const schema::PropertyDef& def,
                                          std::string_view owner, const std::string& text) {
  const std::string what = std::string(owner) + "." + def.name;
  if (!def.embed) {
    return InvalidArgument("nearest with a String query embeds it through the @embed of " + what +
                           ", which has none; declare @embed(\"source\") on it or pass a Vector(" +
                           std::to_string(def.type.vector_dim) + ")");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Embedder * embedder, lazy.Get());
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string model, embedder->ModelFor(*def.embed, what));
  OMNIGRAPH_ASSIGN_OR_RETURN(
      std::vector<std::vector<float>> v,
      embedder->Embed(std::span<const std::string>(&text, 1), model, def.type.vector_dim, what));
  return std::move(v.at(0));
}

}  // namespace omnigraph::query
