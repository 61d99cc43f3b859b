// Embedder: the one embedding client (docs/design/query-execution.md "Embeddings"), as OmniGraph's
// reference defines it. A String `nearest($v, "text")` embeds its query through it, and the
// offline `omnigraph embed` file pipeline (engine/ops/embed_file.h) embeds documents through the
// same configuration, so stored and query vectors come from one model. Writes never embed: a load
// or a mutation leaves a missing `@embed` vector null and never needs an endpoint.
//
// Providers (EmbedConfig::FromEnvironment, the reference's variables and precedence):
// - openai-compatible (the default; OpenRouter's base URL) and openai (OpenAI's own host):
//   `POST {base}/embeddings`, `Authorization: Bearer {key}`, `{model, input: [texts], dimensions}`
//   → `{data: [{index, embedding}]}`; up to `batch_inputs_max` texts per request.
// - gemini: `POST {base}/models/{model}:embedContent`, `x-goog-api-key: {key}`,
//   `{model: "models/{model}", content: {parts: [{text}]}, taskType, outputDimensionality}`
//   → `{embedding: {values}}`; one text per request.
// - mock: no network; a deterministic unit vector from an FNV-1a hash of the text.
// Every vector is checked (dimension, finite, not all zero) and L2-normalized. Embedding is a pure
// function of the text, so a request may be repeated: transport failures, 429 and 5xx are retried
// with doubling backoff slept on the Runtime's clock, and one request with its retries is bounded
// by a deadline (OMNIGRAPH_EMBED_DEADLINE_MS). Thread-safe (the HTTP client is; the counter is
// atomic).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "schema/ir.h"

namespace omnigraph::storage::http {
class HttpClient;
}

namespace omnigraph::query {

// The environment variables (the names OmniGraph's reference uses).
inline constexpr std::string_view kEmbedMockEnv = "OMNIGRAPH_EMBEDDINGS_MOCK";
inline constexpr std::string_view kEmbedProviderEnv = "OMNIGRAPH_EMBED_PROVIDER";
inline constexpr std::string_view kEmbedBaseUrlEnv = "OMNIGRAPH_EMBED_BASE_URL";
inline constexpr std::string_view kEmbedModelEnv = "OMNIGRAPH_EMBED_MODEL";
inline constexpr std::string_view kEmbedDeadlineEnv = "OMNIGRAPH_EMBED_DEADLINE_MS";
inline constexpr std::string_view kEmbedTimeoutEnv = "OMNIGRAPH_EMBED_TIMEOUT_MS";
inline constexpr std::string_view kEmbedAttemptsEnv = "OMNIGRAPH_EMBED_RETRY_ATTEMPTS";
inline constexpr std::string_view kEmbedBackoffEnv = "OMNIGRAPH_EMBED_RETRY_BACKOFF_MS";

// The reference's defaults per provider.
inline constexpr std::string_view kOpenRouterBaseUrl = "https://openrouter.ai/api/v1";
inline constexpr std::string_view kOpenRouterModel = "openai/text-embedding-3-large";
inline constexpr std::string_view kOpenAiBaseUrl = "https://api.openai.com/v1";
inline constexpr std::string_view kOpenAiModel = "text-embedding-3-large";
inline constexpr std::string_view kGeminiBaseUrl =
    "https://generativelanguage.googleapis.com/v1beta";
inline constexpr std::string_view kGeminiModel = "gemini-embedding-2";

// Texts per OpenAI-compatible request (OpenAI allows 2,048; small enough for every gateway).
inline constexpr size_t kEmbedBatchInputsMax = 64;
// Attempts of one request (the first included), and the bounds a variable may set.
inline constexpr int kEmbedAttemptsDefault = 4;
inline constexpr int kEmbedAttemptsMax = 10;
inline constexpr int64_t kEmbedBackoffDefaultMs = 200;
inline constexpr int64_t kEmbedBackoffMaxMs = 60'000;
inline constexpr int64_t kEmbedTimeoutDefaultMs = 30'000;
inline constexpr int64_t kEmbedDeadlineDefaultMs = 60'000;
inline constexpr int64_t kEmbedMillisVariableMax = 3'600'000;
// The part of an error answer's body quoted in a message.
inline constexpr size_t kEmbedErrorQuoteBytesMax = 300;

enum class EmbedProvider { kOpenAiCompatible, kGemini, kMock };

// Only Gemini tells a query from a document (RETRIEVAL_QUERY / RETRIEVAL_DOCUMENT task types).
enum class EmbedRole { kQuery, kDocument };

struct EmbedConfig {
  EmbedProvider provider = EmbedProvider::kOpenAiCompatible;
  // As configured ("openai-compatible", "openai", "gemini", "mock"); named in errors.
  std::string provider_name = "openai-compatible";
  // Without a trailing '/'; empty for mock.
  std::string base_url;
  // Empty for mock without OMNIGRAPH_EMBED_MODEL.
  std::string model;
  std::string api_key;
  // Set when OMNIGRAPH_EMBEDDINGS_MOCK overrode an explicit OMNIGRAPH_EMBED_PROVIDER: mock
  // vectors look like real ones, so a front end prints this.
  std::string warning;
  size_t batch_inputs_max = kEmbedBatchInputsMax;
  int attempts_max = kEmbedAttemptsDefault;
  int64_t backoff_base_ms = kEmbedBackoffDefaultMs;
  int64_t request_timeout_ms = kEmbedTimeoutDefaultMs;
  // One request with its retries and backoffs; 0 is unbounded.
  int64_t deadline_ms = kEmbedDeadlineDefaultMs;

  // The configuration in the process environment, with the reference's precedence: the mock
  // flag, then OMNIGRAPH_EMBED_PROVIDER (default openai-compatible), then the base URL and model
  // variables over the provider's defaults, then the provider's key variables. Configuration
  // naming the variable for an unknown provider, a missing key or a malformed value.
  static Result<EmbedConfig> FromEnvironment();
  static Result<EmbedConfig> FromLookup(
      const std::function<std::optional<std::string>(std::string_view)>& lookup);
};

class Embedder {
 public:
  Embedder(EmbedConfig config, Clock& clock);
  ~Embedder();
  Embedder(const Embedder&) = delete;
  Embedder& operator=(const Embedder&) = delete;

  const EmbedConfig& config() const { return config_; }

  // One unit vector of `dim` floats per text, in order. `what` names the property in errors:
  // InvalidArgument for an answer of another dimension, a non-finite number or an all-zero
  // vector; Transient once the retries of a transport failure, 429 or 5xx are spent, or when
  // the deadline passes (the message names the provider and model); Configuration for 401 and
  // 403 (the key); Permanent for any other refusal or a malformed answer.
  Result<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts, uint32_t dim,
                                                EmbedRole role, std::string_view what);

  // Requests sent so far (each attempt counts).
  uint64_t requests_sent() const { return requests_.load(std::memory_order_relaxed); }

 private:
  Result<std::vector<std::vector<float>>> EmbedRequest(std::span<const std::string> texts,
                                                       uint32_t dim, EmbedRole role,
                                                       std::string_view what);

  const EmbedConfig config_;
  Clock& clock_;
  std::unique_ptr<storage::http::HttpClient> http_;
  std::atomic<uint64_t> requests_{0};
};

// The mock provider's vector of `text`: FNV-1a 64 of its bytes seeds xorshift64, each step gives
// one component in [-1, 1], and the vector is L2-normalized (the reference's algorithm).
std::vector<float> MockEmbedding(std::string_view text, uint32_t dim);

// Builds an Embedder from the environment on first use and keeps it; the failure to configure
// one is returned again on each use (nothing is cached until it succeeds). Thread-compatible.
class LazyEmbedder {
 public:
  explicit LazyEmbedder(Clock& clock) : clock_(clock) {}
  Result<Embedder*> Get();

 private:
  Clock& clock_;
  std::unique_ptr<Embedder> embedder_;
};

// Embeds `text` for a `nearest` against property `def` of type `owner`, as a query, at the
// property's dimension. InvalidArgument when `def` has no @embed (checked before the embedder is
// configured); Configuration when the @embed records a model other than the configured one (the
// stored and query vectors would not share a space); then LazyEmbedder::Get's and Embed's errors.
Result<std::vector<float>> EmbedQueryText(LazyEmbedder& embedder, const schema::PropertyDef& def,
                                          std::string_view owner, const std::string& text);

}  // namespace omnigraph::query
