// Vector index deltas (ann_delta.h; docs/format/vector-index.md "Deltas").
#include "table/ann_delta.h"

#include <algorithm>
#include <cstring>

#include "table/ann_index.h"
#include "table/derived.h"
#include "table/index_delta.h"
#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

constexpr char kMagic[4] = {'O', 'G', 'A', 'D'};
constexpr uint32_t kFormat = 1;
constexpr uint64_t kDeltaHeaderBytes = 48;

bool StrictlyAscending(const std::vector<uint64_t>& v, uint64_t bound) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] >= bound || (i > 0 && v[i] <= v[i - 1])) return false;
  }
  return true;
}

// Reads `n` little-endian values of T from `bytes` at `at` (advanced past them).
template <typename T>
std::vector<T> ReadArray(std::string_view bytes, uint64_t& at, uint64_t n) {
  std::vector<T> out(n);
  for (uint64_t i = 0; i < n; ++i, at += sizeof(T)) out[i] = LoadLe<T>(bytes, at);
  return out;
}

// The base row numbers the write removed (its deleted ids and the rewritten ones the base holds)
// and the new version's numbers of the rows it added, from the two versions' id indexes.
struct Numbers {
  std::vector<uint64_t> removed;
  std::vector<uint64_t> added;
};

Result<Numbers> NumbersOf(const TableVersion& version, const TableVersion& base,
                          const IdsDelta& ids) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> before, base.PointIds());
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> after, version.PointIds());
  Numbers n;
  for (const StringList* list : {&ids.removed, &ids.added}) {
    for (size_t i = 0; i < list->size(); ++i) {
      OMNIGRAPH_ASSIGN_OR_RETURN(const int64_t at, before->Locate(list->At(i)));
      if (at >= 0) n.removed.push_back(static_cast<uint64_t>(at));
    }
  }
  std::sort(n.removed.begin(), n.removed.end());
  n.removed.erase(std::unique(n.removed.begin(), n.removed.end()), n.removed.end());
  for (size_t i = 0; i < ids.added.size(); ++i) {
    OMNIGRAPH_ASSIGN_OR_RETURN(const int64_t at, after->Locate(ids.added.At(i)));
    if (at < 0) return Internal("an added id is not in " + version.manifest_name());
    n.added.push_back(static_cast<uint64_t>(at));
  }
  return n;
}

// The delta of `field_id` of `version` over `base`, whose index has the centroids of `index`.
Result<AnnDelta> DeltaOver(const TableVersion& version, const TableVersion& base,
                           const AnnIndex& index, uint32_t field_id) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> deleted, version.DeletedIds());
  OMNIGRAPH_ASSIGN_OR_RETURN(IndexDeltas changes, version.DeltasOver(base.manifest(), deleted));
  OMNIGRAPH_ASSIGN_OR_RETURN(Numbers numbers, NumbersOf(version, base, changes.ids));
  AnnDelta delta;
  delta.dim = index.dim();
  delta.lists = index.lists();
  delta.base_rows = base.entity_count();
  delta.rows = version.entity_count();
  delta.removed = std::move(numbers.removed);
  delta.added = std::move(numbers.added);
  const uint32_t fields[] = {field_id};
  OMNIGRAPH_ASSIGN_OR_RETURN(Schema projection, version.Project(fields));
  if (projection.size() != 1 || projection[0].type.id != TypeId::kVector ||
      projection[0].type.vector_dim != index.dim()) {
    return InvalidArgument("field " + std::to_string(field_id) + " of " + version.manifest_name() +
                           " is not the indexed Vector property");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(ColumnBatch rows, version.Gather(projection, changes.ids.refs));
  const Column& column = rows.column(0);
  for (uint64_t i = 0; i < rows.num_rows(); ++i) {
    if (column.IsNull(i)) continue;
    const std::span<const float> v = column.VectorAt(i);
    delta.vectors.insert(delta.vectors.end(), v.begin(), v.end());
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<uint32_t> lists, index.AssignLists(delta.vectors));
  size_t next = 0;
  for (uint64_t i = 0; i < rows.num_rows(); ++i) {
    delta.added_lists.push_back(column.IsNull(i) ? kAnnNoList : lists[next++]);
  }
  if (delta.base_rows < delta.removed.size() ||
      delta.base_rows - delta.removed.size() + delta.added.size() != delta.rows) {
    return Internal(version.manifest_name() + ": the removed and added rows do not match the " +
                    "versions' row counts");
  }
  return delta;
}

}  // namespace

std::string EncodeAnnDelta(const AnnDelta& delta) {
  std::string out;
  out.reserve(kDeltaHeaderBytes + 8 * (delta.removed.size() + delta.added.size()) +
              4 * (delta.added_lists.size() + delta.vectors.size()));
  out.append(kMagic, 4);
  AppendLe<uint32_t>(out, kFormat);
  AppendLe<uint32_t>(out, delta.dim);
  AppendLe<uint32_t>(out, delta.lists);
  AppendLe<uint64_t>(out, delta.base_rows);
  AppendLe<uint64_t>(out, delta.rows);
  AppendLe<uint64_t>(out, delta.removed.size());
  AppendLe<uint64_t>(out, delta.added.size());
  for (uint64_t n : delta.removed) AppendLe<uint64_t>(out, n);
  for (uint64_t n : delta.added) AppendLe<uint64_t>(out, n);
  for (uint32_t l : delta.added_lists) AppendLe<uint32_t>(out, l);
  for (float f : delta.vectors) {
    uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    AppendLe<uint32_t>(out, bits);
  }
  return out;
}

Result<AnnDelta> DecodeAnnDelta(std::string_view payload, const std::string& name) {
  auto bad = [&](const std::string& what) {
    return Corruption("vector index delta " + name + ": " + what, name);
  };
  if (payload.size() < kDeltaHeaderBytes || std::memcmp(payload.data(), kMagic, 4) != 0 ||
      LoadLe<uint32_t>(payload, 4) != kFormat) {
    return bad("no OGAD format-1 header");
  }
  AnnDelta d;
  d.dim = LoadLe<uint32_t>(payload, 8);
  d.lists = LoadLe<uint32_t>(payload, 12);
  d.base_rows = LoadLe<uint64_t>(payload, 16);
  d.rows = LoadLe<uint64_t>(payload, 24);
  const uint64_t removed = LoadLe<uint64_t>(payload, 32);
  const uint64_t added = LoadLe<uint64_t>(payload, 40);
  const uint64_t left = payload.size() - kDeltaHeaderBytes;
  if (d.dim == 0 || d.lists == 0 || removed > left / 8 || added > left / 12 ||
      removed * 8 + added * 12 > left) {
    return bad("its counts do not fit its " + std::to_string(payload.size()) + " bytes");
  }
  uint64_t at = kDeltaHeaderBytes;
  d.removed = ReadArray<uint64_t>(payload, at, removed);
  d.added = ReadArray<uint64_t>(payload, at, added);
  d.added_lists = ReadArray<uint32_t>(payload, at, added);
  uint64_t with_vector = 0;
  for (uint32_t l : d.added_lists) {
    if (l != kAnnNoList && l >= d.lists) return bad("an added row's list is out of range");
    with_vector += l != kAnnNoList;
  }
  if (with_vector > (payload.size() - at) / 4 / d.dim ||
      with_vector * 4 * d.dim != payload.size() - at) {
    return bad("its vectors do not fill the rest of the payload exactly");
  }
  d.vectors.resize(with_vector * d.dim);
  for (float& f : d.vectors) {
    const uint32_t bits = LoadLe<uint32_t>(payload, at);
    std::memcpy(&f, &bits, 4);
    at += 4;
  }
  if (!StrictlyAscending(d.removed, d.base_rows) || !StrictlyAscending(d.added, d.rows) ||
      d.base_rows - d.removed.size() + d.added.size() != d.rows) {
    return bad("its row numbers are out of order, out of range, or do not add up");
  }
  return d;
}

bool StoreAnnDelta(const TableVersion& version, uint32_t field_id) {
  const TableManifest& m = version.manifest();
  if (!m.base_staged_version || m.operation == Operation::kOverwrite) return false;
  const std::string kind = AnnKind(field_id);
  Result<std::shared_ptr<const TableVersion>> base = version.Base();
  if (!base.ok()) return false;
  Result<DerivedHeader> header = (*base)->ReadDerivedHeader(kind);
  if (!header.ok()) return false;
  const uint32_t depth = header->delta ? header->delta->depth + 1 : 1;
  if (depth > kDerivedDeltaDepthMax) return false;
  // The counts in the manifest bound the changed rows before anything is read.
  const uint64_t added = m.inserted_ids_count + m.updated_ids_count;
  const uint64_t removed = m.deleted_ids_count + m.updated_ids_count;
  if (!DeltaFits((*base)->entity_count(), added, removed)) return false;
  // The centroids alone (two ranged reads), or the whole chain when it does not list its full
  // object.
  Result<std::shared_ptr<const AnnIndex>> index = ReadAnnCentroids(**base, field_id);
  if (!index.ok() && index.status().code() == Code::kUnsupported) {
    index = ReadAnnIndex(**base, field_id);
  }
  if (!index.ok() || *index == nullptr) return false;
  Result<AnnDelta> delta = DeltaOver(version, **base, **index, field_id);
  if (!delta.ok()) return false;
  return version
      .WriteDerivedDelta(kind, EncodeAnnDelta(*delta), (*base)->manifest(), depth,
                         ChainBelow(*header))
      .ok();
}

}  // namespace omnigraph::table
