// The two readings of a table manifest behind DecodeManifest (table/table_manifest.h), for its
// tests and the fuzz harness, and what they share (decision 243).
//
// ScanManifest reads the document as EncodeManifest writes it (base/json_scan.h) straight into a
// TableManifest, with no JSON document in between; it gives up — nullopt — on anything else:
// members it does not know (which the DOM reading keeps in `extra`), a duplicate member, JSON
// outside the scan's subset, or any check that fails. DecodeManifestFromJson is the reading of
// every manifest through ParseJson, which reports what is wrong. DecodeManifest runs the scan and
// falls back to the DOM reading, so every answer, error or value, is the DOM reading's.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "table/table_manifest.h"

namespace omnigraph::table::internal {

std::optional<TableManifest> ScanManifest(std::string_view bytes);
Result<TableManifest> DecodeManifestFromJson(std::string_view bytes, std::string_view object);

// The operation written as `name`; nullopt when unknown.
std::optional<Operation> OperationFromName(std::string_view name);
// Parses what DataType::ToString writes: "I64", "List<String>", "Vector(3)".
Result<DataType> ParseDataType(std::string_view text);
// The checks of a whole manifest once its members are read (staged_version's bit, the schema,
// paths listed once, column offsets, the live rows): the first problem's message, or empty.
std::string FirstWholeProblem(const TableManifest& m);

}  // namespace omnigraph::table::internal
