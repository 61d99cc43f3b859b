// JSON helpers over nlohmann::json: strict parsing and canonical serialization.
//
// Canonical form (used wherever bytes are hashed): object keys sorted by byte order, no
// insignificant whitespace, UTF-8 emitted as is, integers as integers. ParseJson refuses
// duplicate member names and reports the byte offset of a syntax error. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/status.h"

namespace omnigraph {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Parses one JSON document. `what` names the input in errors (an object name, "request body").
// Syntax errors and duplicate member names are InvalidArgument (kCorruption when `as_corruption`).
Result<Json> ParseJson(std::string_view text, std::string_view what, bool as_corruption = false);
Result<OrderedJson> ParseOrderedJson(std::string_view text, std::string_view what,
                                     bool as_corruption = false);

// The canonical serialization of a value (sorted keys, compact).
std::string CanonicalJson(const Json& value);
std::string CanonicalJson(const OrderedJson& value);

}  // namespace omnigraph
