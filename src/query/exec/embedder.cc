#include "query/exec/embedder.h"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "base/json.h"
#include "storage/http/http_client.h"

namespace omnigraph::query {

namespace {

using Lookup = std::function<std::optional<std::string>(std::string_view)>;

Status ConfigError(std::string message) { return Status(Code::kConfiguration, std::move(message)); }

// The variable's value with surrounding blanks removed; unset and blank are the same.
std::optional<std::string> Trimmed(const Lookup& get, std::string_view name) {
  std::optional<std::string> v = get(name);
  if (!v) return std::nullopt;
  size_t b = 0, e = v->size();
  while (b < e && std::isspace(static_cast<unsigned char>((*v)[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>((*v)[e - 1]))) --e;
  if (b == e) return std::nullopt;
  return v->substr(b, e - b);
}

bool Truthy(const Lookup& get, std::string_view name) {
  std::optional<std::string> v = Trimmed(get, name);
  if (!v) return false;
  std::string s = *v;
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s == "1" || s == "true" || s == "yes" || s == "on";
}

// A whole number in [min, max] from variable `name`, or `fallback` when unset.
Result<int64_t> ParseBounded(const Lookup& get, std::string_view name, int64_t fallback,
                             int64_t min, int64_t max) {
  std::optional<std::string> v = Trimmed(get, name);
  if (!v) return fallback;
  char* end = nullptr;
  const long long n = std::strtoll(v->c_str(), &end, 10);
  if (end == nullptr || *end != '\0' || n < min || n > max) {
    return ConfigError(std::string(name) + " is '" + *v + "'; expected a whole number from " +
                       std::to_string(min) + " to " + std::to_string(max));
  }
  return static_cast<int64_t>(n);
}

struct Profile {
  EmbedProvider provider;
  std::string_view base_url;
  std::string_view model;
  std::vector<std::string_view> key_variables;
};

Result<Profile> ProfileOf(const std::string& name) {
  if (name == "openai-compatible") {
    return Profile{EmbedProvider::kOpenAiCompatible,
                   kOpenRouterBaseUrl,
                   kOpenRouterModel,
                   {"OPENROUTER_API_KEY", "OPENAI_API_KEY"}};
  }
  if (name == "openai") {
    return Profile{
        EmbedProvider::kOpenAiCompatible, kOpenAiBaseUrl, kOpenAiModel, {"OPENAI_API_KEY"}};
  }
  if (name == "gemini") {
    return Profile{EmbedProvider::kGemini, kGeminiBaseUrl, kGeminiModel, {"GEMINI_API_KEY"}};
  }
  return ConfigError("unknown embedding provider '" + name + "' in " +
                     std::string(kEmbedProviderEnv) +
                     " (expected openai-compatible|openai|gemini|mock)");
}

Status ReadLimits(const Lookup& get, EmbedConfig& c) {
  OMNIGRAPH_ASSIGN_OR_RETURN(
      c.request_timeout_ms,
      ParseBounded(get, kEmbedTimeoutEnv, kEmbedTimeoutDefaultMs, 1, kEmbedMillisVariableMax));
  OMNIGRAPH_ASSIGN_OR_RETURN(
      c.deadline_ms,
      ParseBounded(get, kEmbedDeadlineEnv, kEmbedDeadlineDefaultMs, 0, kEmbedMillisVariableMax));
  OMNIGRAPH_ASSIGN_OR_RETURN(
      int64_t attempts,
      ParseBounded(get, kEmbedAttemptsEnv, kEmbedAttemptsDefault, 1, kEmbedAttemptsMax));
  c.attempts_max = static_cast<int>(attempts);
  OMNIGRAPH_ASSIGN_OR_RETURN(
      c.backoff_base_ms,
      ParseBounded(get, kEmbedBackoffEnv, kEmbedBackoffDefaultMs, 0, kEmbedBackoffMaxMs));
  return Status::Ok();
}

std::string Quote(std::string_view body) {
  if (body.size() <= kEmbedErrorQuoteBytesMax) return std::string(body);
  return std::string(body.substr(0, kEmbedErrorQuoteBytesMax)) + "…";
}

bool Retryable(const storage::http::HttpResponse& r) {
  if (r.transport != storage::http::Transport::kAnswered) return true;
  return r.status == 429 || r.status >= 500;
}

// A refusal's message: the provider's `error.message` (both wire formats use that envelope) or
// the body quoted.
std::string Describe(const storage::http::HttpResponse& r) {
  if (r.transport != storage::http::Transport::kAnswered) {
    return "no answer (" + (r.error.empty() ? std::string("transport failure") : r.error) + ")";
  }
  Result<Json> j = ParseJson(r.body, "embedding error");
  if (j.ok() && j->is_object() && j->contains("error") && (*j)["error"].is_object() &&
      (*j)["error"].contains("message") && (*j)["error"]["message"].is_string()) {
    return "HTTP " + std::to_string(r.status) + ": " +
           Quote((*j)["error"]["message"].get<std::string>());
  }
  return "HTTP " + std::to_string(r.status) + ": " + Quote(r.body);
}

// `values` checked (dimension, finite, not all zero) and L2-normalized.
Result<std::vector<float>> Normalized(const Json& values, uint32_t dim, std::string_view what,
                                      std::string_view provider) {
  const std::string from = "the " + std::string(provider) + " embedding provider returned ";
  if (!values.is_array() || values.size() != dim) {
    return InvalidArgument(from + std::to_string(values.is_array() ? values.size() : 0) +
                           " numbers for " + std::string(what) + ", which is Vector(" +
                           std::to_string(dim) + ")");
  }
  std::vector<float> out;
  out.reserve(dim);
  double sum = 0;
  for (const Json& x : values) {
    const double d = x.is_number() ? x.get<double>() : std::numeric_limits<double>::quiet_NaN();
    const float f = static_cast<float>(d);
    if (!std::isfinite(f)) {
      return InvalidArgument(from + x.dump() + " for " + std::string(what) + ", not a finite F32");
    }
    out.push_back(f);
    sum += static_cast<double>(f) * f;
  }
  const float norm = static_cast<float>(std::sqrt(sum));
  if (norm <= FLT_EPSILON) {
    return InvalidArgument(from + "an all-zero vector for " + std::string(what) +
                           " (no direction under cosine distance)");
  }
  for (float& f : out) f /= norm;
  return out;
}

// The vectors of an OpenAI-compatible answer, placed by their `index`.
Result<std::vector<std::vector<float>>> ParseOpenAi(const Json& j, size_t count, uint32_t dim,
                                                    std::string_view what,
                                                    std::string_view provider) {
  auto bad = [&](const std::string& why) {
    return Status(Code::kPermanent, "the " + std::string(provider) + " embedding provider " +
                                        "answered for " + std::string(what) + " with " + why);
  };
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
    if (!item.is_object() || !item.contains("embedding")) {
      return bad("an item without an `embedding` array");
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(out[i], Normalized(item["embedding"], dim, what, provider));
  }
  return out;
}

Result<std::vector<std::vector<float>>> ParseGemini(const Json& j, uint32_t dim,
                                                    std::string_view what) {
  if (!j.is_object() || !j.contains("embedding") || !j["embedding"].is_object() ||
      !j["embedding"].contains("values")) {
    return Status(Code::kPermanent, "the gemini embedding provider answered for " +
                                        std::string(what) + " without `embedding.values`");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<float> v,
                             Normalized(j["embedding"]["values"], dim, what, "gemini"));
  std::vector<std::vector<float>> out;
  out.push_back(std::move(v));
  return out;
}

// The provider's request for `texts` (one text for Gemini); `payload` keeps the body alive.
storage::http::HttpRequest RequestFor(const EmbedConfig& c, std::span<const std::string> texts,
                                      uint32_t dim, EmbedRole role, std::string& payload) {
  Json body;
  storage::http::HttpRequest request;
  request.method = "POST";
  request.headers.push_back("Content-Type: application/json");
  if (c.provider == EmbedProvider::kGemini) {
    request.url = c.base_url + "/models/" + c.model + ":embedContent";
    request.headers.push_back("x-goog-api-key: " + c.api_key);
    body = {{"model", "models/" + c.model},
            {"content", {{"parts", Json::array({{{"text", texts[0]}}})}}},
            {"taskType", role == EmbedRole::kQuery ? "RETRIEVAL_QUERY" : "RETRIEVAL_DOCUMENT"},
            {"outputDimensionality", dim}};
  } else {
    request.url = c.base_url + "/embeddings";
    request.headers.push_back("Authorization: Bearer " + c.api_key);
    body = {{"model", c.model}, {"input", Json::array()}, {"dimensions", dim}};
    for (const std::string& t : texts) body["input"].push_back(t);
  }
  payload = body.dump();
  request.body = payload;
  return request;
}

uint64_t XorShift64(uint64_t x) {
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return x;
}

}  // namespace

std::vector<float> MockEmbedding(std::string_view text, uint32_t dim) {
  uint64_t seed = 14695981039346656037ull;
  for (unsigned char c : text) {
    seed ^= c;
    seed *= 1099511628211ull;
  }
  std::vector<float> out;
  out.reserve(dim);
  for (uint32_t i = 0; i < dim; ++i) {
    seed = XorShift64(seed);
    const float ratio = static_cast<float>(
        static_cast<double>(seed) / static_cast<double>(std::numeric_limits<uint64_t>::max()));
    out.push_back(ratio * 2.0f - 1.0f);
  }
  double sum = 0;
  for (float f : out) sum += static_cast<double>(f) * f;
  const float norm = static_cast<float>(std::sqrt(sum));
  if (norm > FLT_EPSILON) {
    for (float& f : out) f /= norm;
  }
  return out;
}

Result<EmbedConfig> EmbedConfig::FromEnvironment() {
  return FromLookup([](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

Result<EmbedConfig> EmbedConfig::FromLookup(const Lookup& get) {
  EmbedConfig c;
  OMNIGRAPH_RETURN_IF_ERROR(ReadLimits(get, c));
  const std::optional<std::string> named = Trimmed(get, kEmbedProviderEnv);
  if (Truthy(get, kEmbedMockEnv) || named == "mock") {
    if (named && *named != "mock") {
      c.warning = std::string(kEmbedMockEnv) + " is set and overrides " +
                  std::string(kEmbedProviderEnv) + "=" + *named +
                  ": every embedding of this process is a deterministic mock vector";
    }
    c.provider = EmbedProvider::kMock;
    c.provider_name = "mock";
    c.model = Trimmed(get, kEmbedModelEnv).value_or("");
    return c;
  }
  c.provider_name = named.value_or("openai-compatible");
  OMNIGRAPH_ASSIGN_OR_RETURN(Profile profile, ProfileOf(c.provider_name));
  c.provider = profile.provider;
  c.base_url = Trimmed(get, kEmbedBaseUrlEnv).value_or(std::string(profile.base_url));
  while (!c.base_url.empty() && c.base_url.back() == '/') c.base_url.pop_back();
  if (!c.base_url.starts_with("http://") && !c.base_url.starts_with("https://")) {
    return ConfigError(std::string(kEmbedBaseUrlEnv) + " '" + c.base_url +
                       "' must start with http:// or https://");
  }
  c.model = Trimmed(get, kEmbedModelEnv).value_or(std::string(profile.model));
  std::string names;
  for (std::string_view key : profile.key_variables) {
    if (std::optional<std::string> v = Trimmed(get, key)) {
      c.api_key = *v;
      return c;
    }
    names += (names.empty() ? "" : " or ") + std::string(key);
  }
  return ConfigError(names + " is required for the " + c.provider_name + " embedding provider");
}

Embedder::Embedder(EmbedConfig config, Clock& clock) : config_(std::move(config)), clock_(clock) {
  if (config_.provider == EmbedProvider::kMock) return;
  storage::http::HttpClientOptions options;
  options.request_timeout_ms = config_.request_timeout_ms;
  http_ = std::make_unique<storage::http::HttpClient>(std::move(options));
}

Embedder::~Embedder() = default;

Result<std::vector<std::vector<float>>> Embedder::Embed(std::span<const std::string> texts,
                                                        uint32_t dim, EmbedRole role,
                                                        std::string_view what) {
  if (dim == 0) return InvalidArgument("an embedding of " + std::string(what) + " needs dim > 0");
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  if (config_.provider == EmbedProvider::kMock) {
    for (const std::string& t : texts) out.push_back(MockEmbedding(t, dim));
    return out;
  }
  const size_t step = config_.provider == EmbedProvider::kGemini
                          ? 1
                          : std::max<size_t>(1, config_.batch_inputs_max);
  for (size_t begin = 0; begin < texts.size(); begin += step) {
    const size_t n = std::min(step, texts.size() - begin);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::vector<float>> part,
                               EmbedRequest(texts.subspan(begin, n), dim, role, what));
    for (std::vector<float>& v : part) out.push_back(std::move(v));
  }
  return out;
}

Result<std::vector<std::vector<float>>> Embedder::EmbedRequest(std::span<const std::string> texts,
                                                               uint32_t dim, EmbedRole role,
                                                               std::string_view what) {
  const bool gemini = config_.provider == EmbedProvider::kGemini;
  std::string payload;
  storage::http::HttpRequest request = RequestFor(config_, texts, dim, role, payload);
  const std::string where = "the " + config_.provider_name + " embedding provider at " +
                            request.url + " (" + std::string(what) + ", model " + config_.model +
                            ")";
  const int64_t start_us = clock_.NowMicros();
  auto past_deadline = [&](int64_t extra_ms) {
    return config_.deadline_ms > 0 &&
           (clock_.NowMicros() - start_us) / 1000 + extra_ms >= config_.deadline_ms;
  };
  auto deadline_error = [&] {
    return Status(Code::kTransient,
                  "embedding deadline exceeded after " + std::to_string(config_.deadline_ms) +
                      " ms (provider " + config_.provider_name + ", model " + config_.model + ", " +
                      std::string(what) + ", " + std::string(kEmbedDeadlineEnv) + ")");
  };
  int64_t backoff_ms = config_.backoff_base_ms;
  for (int attempt = 1;; ++attempt) {
    if (config_.deadline_ms > 0) {
      const int64_t left_ms = config_.deadline_ms - (clock_.NowMicros() - start_us) / 1000;
      if (left_ms <= 0) return deadline_error();
      request.timeout_ms = std::min(config_.request_timeout_ms, left_ms);
    }
    requests_.fetch_add(1, std::memory_order_relaxed);
    storage::http::HttpResponse r = http_->Send(request);
    if (r.transport == storage::http::Transport::kAnswered && r.status / 100 == 2) {
      Result<Json> j = ParseJson(r.body, "embedding answer");
      if (!j.ok()) {
        return Status(Code::kPermanent,
                      where + " answered with invalid JSON: " + j.status().message());
      }
      if (gemini) return ParseGemini(*j, dim, what);
      return ParseOpenAi(*j, texts.size(), dim, what, config_.provider_name);
    }
    if (!Retryable(r)) {
      if (r.status == 401 || r.status == 403) {
        return ConfigError(where + " refused the key: " + Describe(r));
      }
      return Status(Code::kPermanent, where + " refused the request: " + Describe(r));
    }
    if (past_deadline(0)) return deadline_error();
    if (attempt >= config_.attempts_max) {
      return Status(Code::kTransient, where + " failed " + std::to_string(attempt) +
                                          " times; the last: " + Describe(r));
    }
    if (past_deadline(backoff_ms)) return deadline_error();
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
  if (def.embed->model && !def.embed->model->empty() &&
      *def.embed->model != embedder->config().model) {
    return ConfigError("nearest on " + what + ": its stored vectors were embedded with model '" +
                       *def.embed->model + "', but the query embedder (" +
                       embedder->config().provider_name + ") resolves to '" +
                       embedder->config().model + "'; set " + std::string(kEmbedModelEnv) + "='" +
                       *def.embed->model + "' (and the matching provider) or re-embed");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::vector<float>> v,
                             embedder->Embed(std::span<const std::string>(&text, 1),
                                             def.type.vector_dim, EmbedRole::kQuery, what));
  return std::move(v.at(0));
}

}  // namespace omnigraph::query
