// Embedder: the client of an embedding endpoint speaking the OpenAI-compatible embeddings API
// (docs/design/query-execution.md "Embeddings"). `@embed` vectors are computed through it at
// write time, and `nearest($v, "text")` embeds its query string through it.
//
// One request is `POST {base}/embeddings` with `{"model": m, "input": [texts]}`; the answer is
// `{"data": [{"embedding": [numbers], "index": i}, ...]}`. Texts go out in requests of at most
// `batch_inputs_max` inputs. Embedding is a pure function of the text, so every request may be
// repeated: transport failures, 429 and 5xx answers are retried a bounded number of times with
// doubling backoff slept on the Runtime's clock. The configuration comes from the environment
// (EmbedConfig::FromEnvironment). Thread-safe (the HTTP client is; the counter is atomic).
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
inline constexpr std::string_view kEmbedBaseUrlEnv = "OMNIGRAPH_EMBED_BASE_URL";
inline constexpr std::string_view kEmbedModelEnv = "OMNIGRAPH_EMBED_MODEL";
inline constexpr std::string_view kEmbedApiKeyEnv = "OPENROUTER_API_KEY";
inline constexpr std::string_view kEmbedApiKeyAltEnv = "OPENAI_API_KEY";
inline constexpr std::string_view kEmbedTimeoutEnv = "OMNIGRAPH_EMBED_TIMEOUT_MS";
inline constexpr std::string_view kEmbedAttemptsEnv = "OMNIGRAPH_EMBED_RETRY_ATTEMPTS";
inline constexpr std::string_view kEmbedBackoffEnv = "OMNIGRAPH_EMBED_RETRY_BACKOFF_MS";

// Inputs per request: small enough for every provider's limit (OpenAI allows 2,048).
inline constexpr size_t kEmbedBatchInputsMax = 64;
// Attempts of one request (the first included), and the bounds a variable may set.
inline constexpr int kEmbedAttemptsDefault = 4;
inline constexpr int kEmbedAttemptsMax = 10;
inline constexpr int64_t kEmbedBackoffDefaultMs = 200;
inline constexpr int64_t kEmbedBackoffMaxMs = 60'000;
inline constexpr int64_t kEmbedTimeoutDefaultMs = 30'000;
// The part of an error answer's body quoted in a message.
inline constexpr size_t kEmbedErrorQuoteBytesMax = 300;

struct EmbedConfig {
  // Without a trailing '/', e.g. "https://api.openai.com/v1".
  std::string base_url;
  // The model when an @embed names none; may be empty.
  std::string model;
  // Sent as a bearer token when not empty.
  std::string api_key;
  size_t batch_inputs_max = kEmbedBatchInputsMax;
  int attempts_max = kEmbedAttemptsDefault;
  int64_t backoff_base_ms = kEmbedBackoffDefaultMs;
  int64_t request_timeout_ms = kEmbedTimeoutDefaultMs;

  // The configuration in the process environment. Configuration naming the variable when
  // OMNIGRAPH_EMBED_BASE_URL is not set, or a variable's value is malformed.
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

  // The model of an @embed: its own `model`, else the configured default. Configuration naming
  // OMNIGRAPH_EMBED_MODEL when neither is set; `what` names the property.
  Result<std::string> ModelFor(const schema::EmbedSpec& spec, std::string_view what) const;

  // One vector of `dim` floats per text, in order. `what` names the property in errors:
  // InvalidArgument for an answer of another dimension or a non-finite F32 number; Transient
  // once the retries of a transport failure, 429 or 5xx are spent; Configuration for 401 and
  // 403 (the key); Permanent for any other refusal or a malformed answer.
  Result<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts,
                                                std::string_view model, uint32_t dim,
                                                std::string_view what);

  // Requests sent so far (each attempt counts).
  uint64_t requests_sent() const { return requests_.load(std::memory_order_relaxed); }

 private:
  Result<std::vector<std::vector<float>>> EmbedBatch(std::span<const std::string> texts,
                                                     std::string_view model, uint32_t dim,
                                                     std::string_view what);

  const EmbedConfig config_;
  Clock& clock_;
  std::unique_ptr<storage::http::HttpClient> http_;
  std::atomic<uint64_t> requests_{0};
};

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

// Embeds `text` for a `nearest` against property `def` of type `owner`: its @embed's model, one
// request, the property's dimension. InvalidArgument when `def` has no @embed (checked before
// the embedder is configured); then LazyEmbedder::Get's and Embed's errors.
Result<std::vector<float>> EmbedQueryText(LazyEmbedder& embedder, const schema::PropertyDef& def,
                                          std::string_view owner, const std::string& text);

}  // namespace omnigraph::query
