#include "schema/archive.h"

#include "base/hash.h"
#include "base/json.h"
#include "schema/ir_json.h"

namespace omnigraph::schema {

std::string ArchiveBytes(std::string_view identity_domain, uint64_t identity_version,
                         std::string_view source, const SchemaIr& ir) {
  Json doc;
  doc["format"] = kArchiveFormat;
  doc["identity_domain"] = std::string(identity_domain);
  doc["identity_version"] = identity_version;
  doc["ir_hash"] = IrHash(ir);
  doc["source"] = std::string(source);
  doc["ir"] = IrToJson(ir);
  return CanonicalJson(doc);
}

std::string ContentHash(std::string_view archive_bytes) { return Sha256Hex(archive_bytes); }

Result<SchemaArchive> ParseArchive(std::string_view bytes) {
  // Parsed as input (no object named): the caller names the archive it read (WithObject).
  Result<Json> parsed = ParseJson(bytes, "schema archive");
  if (!parsed.ok()) return Corruption(parsed.status().message());
  Json doc = std::move(*parsed);
  auto bad = [](std::string what) { return Corruption("schema archive: " + what); };
  if (!doc.is_object()) return bad("not a JSON object");
  auto format = doc.find("format");
  if (format == doc.end() || !format->is_number_unsigned()) return bad("missing 'format'");
  if (format->get<uint64_t>() > static_cast<uint64_t>(kArchiveFormat)) {
    return Status(Code::kFormatTooNew,
                  "schema archive format " + std::to_string(format->get<uint64_t>()) +
                      " is newer than the supported format " + std::to_string(kArchiveFormat));
  }
  SchemaArchive out;
  for (const char* key : {"identity_domain", "ir_hash", "source"}) {
    auto it = doc.find(key);
    if (it == doc.end() || !it->is_string())
      return bad(std::string("missing string '") + key + "'");
  }
  auto version = doc.find("identity_version");
  if (version == doc.end() || !version->is_number_unsigned()) {
    return bad("missing 'identity_version'");
  }
  auto ir = doc.find("ir");
  if (ir == doc.end()) return bad("missing 'ir'");
  out.identity_domain = doc["identity_domain"].get<std::string>();
  out.identity_version = version->get<uint64_t>();
  out.ir_hash = doc["ir_hash"].get<std::string>();
  out.source = doc["source"].get<std::string>();
  OMNIGRAPH_ASSIGN_OR_RETURN(out.ir, IrFromJson(*ir));
  std::string actual = IrHash(out.ir);
  if (actual != out.ir_hash) {
    return bad("ir_hash " + out.ir_hash + " does not match the IR (" + actual + ")");
  }
  return out;
}

}  // namespace omnigraph::schema
