#include "base/hash.h"

// SHA-256 goes through OpenSSL's low-level SHA256_* calls, which 3.0 marks deprecated in favour
// of EVP. The EVP path fetches the digest from a provider, and the first fetch in a process
// initializes OpenSSL's provider machinery: about 0.8 ms, which a fresh process paid on its
// first read (the schema archive's content hash) before it could answer anything. The
// low-level calls run the same hash code (with the same CPU dispatch) and initialize nothing.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <xxhash.h>

#include "base/status.h"

namespace omnigraph {

Sha256Digest Sha256(std::string_view data) {
  Sha256Digest digest{};
  SHA256_CTX context;
  OMNIGRAPH_CHECK(SHA256_Init(&context) == 1 &&
                  SHA256_Update(&context, data.data(), data.size()) == 1 &&
                  SHA256_Final(digest.data(), &context) == 1);
  return digest;
}

std::string Sha256Hex(std::string_view data) { return HexEncode(Sha256(data)); }

struct Sha256Hasher::Context {
  SHA256_CTX sha;
};

Sha256Hasher::Sha256Hasher() : context_(std::make_unique<Context>()) {
  OMNIGRAPH_CHECK(SHA256_Init(&context_->sha) == 1);
}

Sha256Hasher::~Sha256Hasher() = default;

void Sha256Hasher::Update(std::string_view data) {
  OMNIGRAPH_CHECK(SHA256_Update(&context_->sha, data.data(), data.size()) == 1);
}

std::string Sha256Hasher::FinishHex() {
  Sha256Digest digest{};
  OMNIGRAPH_CHECK(SHA256_Final(digest.data(), &context_->sha) == 1);
  return HexEncode(digest);
}

Sha256Digest HmacSha256(std::string_view key, std::string_view data) {
  Sha256Digest digest{};
  unsigned int length = 0;
  unsigned char* out = HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
                            reinterpret_cast<const unsigned char*>(data.data()), data.size(),
                            digest.data(), &length);
  OMNIGRAPH_CHECK(out != nullptr && length == digest.size());
  return digest;
}

uint64_t XxHash64(std::string_view data, uint64_t seed) {
  return XXH64(data.data(), data.size(), seed);
}

uint64_t XxHash64(std::span<const uint8_t> data, uint64_t seed) {
  return XXH64(data.data(), data.size(), seed);
}

// xxhash's streaming state is opaque unless linked statically: it is allocated by the library.
struct XxHash64Hasher::State {
  State() : state(XXH64_createState()) { OMNIGRAPH_CHECK(state != nullptr); }
  ~State() { XXH64_freeState(state); }
  XXH64_state_t* state;
};

XxHash64Hasher::XxHash64Hasher() : state_(std::make_unique<State>()) {
  XXH64_reset(state_->state, 0);
}
XxHash64Hasher::~XxHash64Hasher() = default;

void XxHash64Hasher::Update(std::string_view data) {
  XXH64_update(state_->state, data.data(), data.size());
}

uint64_t XxHash64Hasher::Finish() const { return XXH64_digest(state_->state); }

std::string HexEncode(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.resize(bytes.size() * 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return out;
}

}  // namespace omnigraph
