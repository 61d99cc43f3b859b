#include "engine/read/blob.h"

#include "engine/read/external_blob.h"

namespace omnigraph::engine {

namespace {

std::string Describe(const BlobSelector& s) { return s.entity + " " + s.type + " '" + s.id + "'"; }

// Reads the first bytes of a cell that may be tagged (engine/read/external_blob.h): an escaped
// managed value is narrowed to its bytes, an external reference's URI is read.
Status Untag(LocatedBlob& blob) {
  if (!blob.cell.may_start_with_nul || blob.cell.size() < kBlobTagBytes) return Status::Ok();
  std::string head;
  auto collect = [&](std::string_view chunk) {
    head.append(chunk);
    return Status::Ok();
  };
  OMNIGRAPH_RETURN_IF_ERROR(blob.version->ReadBinaryCell(blob.cell, 0, kBlobTagBytes, collect));
  if (!std::string_view(head).starts_with(kBlobTag)) return Status::Ok();
  if (head.back() == kBlobTagManaged) {
    blob.cell.begin += kBlobTagBytes;
    return Status::Ok();
  }
  const uint64_t uri_bytes = blob.cell.size() - kBlobTagBytes;
  if (head.back() != kBlobTagExternal || uri_bytes == 0 || uri_bytes > kExternalBlobUriBytesMax) {
    return Corruption("Blob value: malformed external descriptor", blob.cell.object);
  }
  OMNIGRAPH_RETURN_IF_ERROR(
      blob.version->ReadBinaryCell(blob.cell, kBlobTagBytes, blob.cell.size(), collect));
  blob.external_uri = head.substr(kBlobTagBytes);
  return Status::Ok();
}

}  // namespace

Result<LocatedBlob> LocateBlob(const Snapshot& at, const BlobSelector& selector) {
  const bool node = selector.entity == "node";
  if (!node && selector.entity != "edge") {
    return InvalidArgument("entity must be 'node' or 'edge', not '" + selector.entity + "'");
  }
  const schema::TypeDef* type =
      node ? at.catalog().FindNode(selector.type) : at.catalog().FindEdge(selector.type);
  if (type == nullptr) {
    const std::string gone = at.catalog().NotAtSnapshot(selector.type);
    if (!gone.empty()) return InvalidArgument(gone);
    return InvalidArgument("unknown " + selector.entity + " type '" + selector.type + "'");
  }
  const schema::PropertyDef* property = type->FindProperty(selector.property);
  if (property == nullptr) {
    return InvalidArgument(selector.entity + " type " + type->name + " has no property '" +
                           selector.property + "'");
  }
  if (property->type.scalar != schema::ScalarKind::kBlob || property->type.list) {
    return InvalidArgument("property '" + property->name + "' of " + selector.entity + " type " +
                           type->name + " is " + property->type.DisplayName() + ", not Blob");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version,
                             at.Table(type->table_key()));
  Result<table::BinaryCell> cell =
      version->LocateBinaryCell(selector.id, static_cast<uint32_t>(property->id));
  if (!cell.ok()) {
    if (cell.status().code() != Code::kNotFound) return at.ExplainReadFailure(cell.status());
    if (cell.status().message() == "the cell is null") {
      return NotFound("Blob property '" + property->name + "' of " + Describe(selector) +
                      " is null");
    }
    return NotFound(Describe(selector) + " does not exist");
  }
  LocatedBlob out{std::move(version), std::move(*cell), at.commit_id(), std::nullopt};
  OMNIGRAPH_RETURN_IF_ERROR(Untag(out));
  return out;
}

Json BlobStatJson(const LocatedBlob& blob) {
  Json out = Json::object();
  if (blob.external_uri) {
    out["kind"] = "external";
    out["uri"] = *blob.external_uri;
    out["resolved_snapshot"] = blob.commit_id;
    return out;
  }
  out["kind"] = "managed";
  out["size"] = blob.cell.size();
  out["etag"] = blob.cell.Etag();
  out["resolved_snapshot"] = blob.commit_id;
  return out;
}

Status ReadBlob(const LocatedBlob& blob, uint64_t start, uint64_t end,
                const std::function<Status(std::string_view)>& sink) {
  return blob.version->ReadBinaryCell(blob.cell, start, end, sink);
}

}  // namespace omnigraph::engine
