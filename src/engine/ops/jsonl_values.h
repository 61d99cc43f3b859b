// Property values in the NDJSON load/export format (OmniGraph's value types and load format;
// docs/design/load.md).
//
// A JSON value read from a load file arrives as a schema::Value of the JSON kind (null, bool,
// int, uint, float, string, list); FromJson turns it into the value a property of a given type
// stores, applying the format's conversions:
//   I32 I64 U32 U64   a JSON number, or a decimal string ("-42", "18446744073709551615")
//   Date              date text (schema/temporal.h; a time or offset is rejected) or an
//                     integer epoch day
//   DateTime          date-time text (schema/temporal.h: RFC 3339 / ISO-8601, years outside
//                     0..9999 with a sign) or an integer epoch millisecond
//   Blob              "base64:<data>" (decoded); any other string is an external URI, stored
//                     as a reference when the graph's allow rules admit it, refused otherwise
//                     (engine/read/external_blob.h: the stored form of both)
//   lists             element by element
// Everything else passes through unchanged; whether it fits the property (kind, range, nulls)
// is checked by query::CoerceValue / RowsBuilder. WriteJson writes a stored value back in the
// format export uses: 64-bit integers beyond ±(2^53−1) as decimal strings, Date and DateTime
// as schema::FormatDate / FormatDateTime write them ("2024-01-31", "2024-01-31T09:30:00.000Z";
// a year outside 0..9999 as a sign and at least four digits, "-0001-12-31", "+10000-01-01"),
// so every stored value reads back; Blob "base64:<data>" (an external one its URI), floats in the
// shortest text that reads back to the same value at the column's width. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/json_writer.h"
#include "base/status.h"
#include "schema/ir.h"
#include "schema/value.h"

namespace omnigraph::engine {

class ExternalBlobRules;

// The stored value of a property of `type` for the JSON value `json`. InvalidArgument with a
// message such as "invalid Date literal '2020-13-01'" when a conversion fails; the caller adds
// the line and the property. An external Blob URI is admitted by `rules` (none: denied).
Result<schema::Value> FromJson(const schema::Value& json, const schema::PropType& type,
                               const ExternalBlobRules* rules = nullptr);

// Writes `value` (as query::ValueAt reads it from a column of `type`) in the export format.
void WriteJson(JsonWriter& out, const schema::Value& value, const schema::PropType& type);

// A Blob's text form, as a load line or a JSON parameter gives it: "base64:<data>" is the
// decoded bytes; any other string is an external URI (nullopt), which the graph's allow rules
// decide (engine/read/external_blob.h). InvalidArgument for bad base64.
Result<std::optional<std::string>> BlobBytesFromText(std::string_view text);

// Standard base64 (RFC 4648 §4, with padding).
std::string Base64Encode(std::string_view bytes);
// Decodes standard base64; padding is optional, whitespace is not allowed. InvalidArgument for
// any other character or a bad length.
Result<std::string> Base64Decode(std::string_view text);

}  // namespace omnigraph::engine
