// What every harness shares (docs/design/fuzzing.md). A harness turns libFuzzer's bytes into one
// decoder call; a decoder may refuse them, but only with a typed Status that names the object it
// was given. Anything else — a crash, a sanitizer report, an exception escaping, a hang, a huge
// allocation — is a finding, and so is a refusal that names no object or another one: the
// harness aborts on it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"

namespace omnigraph::fuzz {

inline std::string_view Bytes(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void Finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::abort();
}

// A refusal must be a typed error (not kInternal: a bug) naming `object` when one is given.
// For the engine's Status and Result, and the public API's (api::Status, api::Result).
template <typename S>
void ExpectNamedStatus(const S& status, std::string_view object) {
  if (status.ok()) return;
  if (status.code() == decltype(status.code())::kInternal) {
    Finding("internal error: " + status.ToString());
  }
  if (!object.empty() && status.object() != object) {
    Finding("the error names '" + status.object() + "', not '" + std::string(object) +
            "': " + status.ToString());
  }
}
template <typename R>
void ExpectNamed(const R& result, std::string_view object) {
  if constexpr (requires { result.status(); }) {
    if (!result.ok()) ExpectNamedStatus(result.status(), object);
  } else {
    ExpectNamedStatus(result, object);
  }
}

// Inputs of two parts (a manifest and a payload, say): a 4-byte little-endian length of the
// first, the first, then the second. A short input is all second part.
inline std::pair<std::string_view, std::string_view> Split(std::string_view in) {
  if (in.size() < 4) return {{}, in};
  uint32_t n = 0;
  std::memcpy(&n, in.data(), 4);
  in.remove_prefix(4);
  if (n > in.size()) n = static_cast<uint32_t>(in.size());
  return {in.substr(0, n), in.substr(n)};
}

}  // namespace omnigraph::fuzz
