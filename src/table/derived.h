// Derived objects: data computed from one table version — an id index, adjacency, a text or
// vector index — stored beside the version so that a fresh process need not compute it again.
//
// A derived object is never authority. It is named by the version it was computed from
// (`tables/{id}-{inc}/derived/d{staged_version}.{kind}`), written once with a conditional
// create, and wrapped in an envelope that binds it to that version (staged version, transaction
// uuid, kind) and checksums the payload. A reader that finds one absent or damaged computes the
// data from the fragments instead; a writer may store what it computed. Retention keeps a
// derived object exactly as long as it keeps the version it names (docs/format/derived.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "table/table_manifest.h"

namespace omnigraph::table {

inline constexpr std::string_view kDerivedFolder = "derived";
// The envelope: a fixed prefix, then the kind and the transaction uuid, padded to 8 bytes.
inline constexpr uint64_t kDerivedPrefixBytes = 36;
inline constexpr uint64_t kDerivedKindBytesMax = 64;
inline constexpr uint64_t kDerivedHeaderBytesMax = 256;
// A delta's chain down to a full object is at most this many deltas long.
inline constexpr uint32_t kDerivedDeltaDepthMax = 8;

// What makes a derived object a delta: its payload holds only what one write changed over the
// same kind of an earlier version of the table (its base), and a reader applies it to the base's
// data. `depth` counts the deltas down to a full object (1: the base is full).
// `below` lists the staged versions under the base, the base's base first, down to the full
// object: exactly depth - 1 of them, or none when the writer did not know them (envelope format 2;
// format 3 carries them, so that a reader can fetch the whole chain at once).
struct DerivedDelta {
  uint64_t base_staged_version = 0;
  std::string base_transaction_uuid;
  uint32_t depth = 0;
  std::vector<uint64_t> below;
};

struct DerivedHeader;
// The `below` list of a new delta over a base whose object has `base_header`: the base's own base
// and below list when that list is complete, else empty (unknown).
std::vector<uint64_t> ChainBelow(const DerivedHeader& base_header);

// The read hint a commit record's pin may carry for the version it names (member
// `derived_below`, docs/format/commit-documents.md "Pins"): for each index kind the writer expects
// to store as a delta, the staged versions its chain stacks on — the base first, down to the full
// object. A hint, never authority: a reader fetches those links ahead (TableStore::Prefetch) and
// still walks and checks the chain; a wrong list only wastes reads.
inline constexpr std::string_view kChainHintMember = "derived_below";
// The hint for `kind` in a pin's unknown members `extra`: empty when absent or malformed (not an
// array of 1..kDerivedDeltaDepthMax unsigned integers).
std::vector<uint64_t> ChainHint(const Json& extra, std::string_view kind);
// Sets the hints of `chains` (kind -> versions, each list non-empty) in `extra`; nothing when
// `chains` is empty.
void SetChainHints(Json& extra, const std::map<std::string, std::vector<uint64_t>>& chains);

// A kind is 1–64 bytes of [a-z0-9._-], starting with a letter or digit ("ids", "csr.src",
// "fts.7", "annl2.9").
bool ValidDerivedKind(std::string_view kind);

// The object name of derived data `kind` of a version.
std::string DerivedName(const TableId& table, uint64_t staged_version, std::string_view kind);

// The staged version and kind a full derived-object name belongs to, or nullopt when `name` is
// not one.
struct DerivedNameParts {
  uint64_t staged_version = 0;
  std::string kind;
};
std::optional<DerivedNameParts> ParseDerivedName(std::string_view name);

// The envelope around `payload` for `kind` of `manifest`'s version; a delta's when `delta` is
// given (envelope format 2). The header is put in front of `payload` in place: an encoder that
// reserved kDerivedHeaderBytesMax bytes more than its payload needs is framed without a copy
// (an index of a large table is tens of megabytes).
std::string EncodeDerived(const TableManifest& manifest, std::string_view kind, std::string payload,
                          const DerivedDelta* delta = nullptr);

// Where the payload starts and how long it is, from the first bytes of an object (at least the
// header; kDerivedHeaderBytesMax always suffices). Corruption naming `name` when the header is
// not an envelope of `kind` for `manifest`'s version.
struct DerivedHeader {
  uint64_t payload_offset = 0;
  uint64_t payload_bytes = 0;
  uint64_t payload_xxh64 = 0;
  std::optional<DerivedDelta> delta;  // Set for a delta.
};
Result<DerivedHeader> DecodeDerivedHeader(const TableManifest& manifest, std::string_view kind,
                                          std::string_view head, const std::string& name);

// The payload of a whole object and, for a delta, its base, after checking the header and the
// payload's checksum.
struct DecodedDerived {
  std::string_view payload;
  std::optional<DerivedDelta> delta;
};
Result<DecodedDerived> DecodeDerivedObject(const TableManifest& manifest, std::string_view kind,
                                           std::string_view bytes, const std::string& name);
// The payload of a whole full object: as DecodeDerivedObject, and Corruption for a delta (a
// reader of a kind without deltas never expects one).
Result<std::string_view> DecodeDerived(const TableManifest& manifest, std::string_view kind,
                                       std::string_view bytes, const std::string& name);

}  // namespace omnigraph::table
