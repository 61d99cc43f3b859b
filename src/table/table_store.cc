#include "table/table_store.h"

#include <algorithm>
#include <utility>

#include "base/executor.h"
#include "table/csr_points.h"
#include "table/derived.h"
#include "table/edge_csr.h"
#include "table/id_index.h"
#include "table/table_context.h"

namespace omnigraph::table {

TableStore::TableStore(storage::Runtime runtime, TableStoreOptions options)
    : ctx_(std::make_shared<internal::TableContext>(std::move(runtime), options.cache_bytes,
                                                    options.fragment_rows_max, options.fragment,
                                                    options.derived_rows_min)) {
  OMNIGRAPH_CHECK_MSG(options.fragment_rows_max >= 1 && options.fragment_rows_max <= kRowsMax,
                      "fragment_rows_max must be in [1, kRowsMax]");
}

TableStore::~TableStore() = default;

const storage::Runtime& TableStore::runtime() const { return ctx_->runtime(); }
const ObjectCache& TableStore::cache() const { return ctx_->cache(); }
uint64_t TableStore::fragment_rows_max() const { return ctx_->fragment_rows_max(); }

uint64_t TableStore::derived_rows_min() const { return ctx_->derived_rows_min(); }

Result<std::shared_ptr<const TableVersion>> TableStore::Open(const TablePin& pin) const {
  const std::string name = ManifestName(pin.table(), pin.staged_version);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableManifest> manifest, ctx_->Manifest(name));
  // The table_key is not compared: a rename rebinds the alias in the record without a new
  // version, so a pin may carry a newer key than the manifest it names.
  if (manifest->table() != pin.table() || manifest->staged_version != pin.staged_version) {
    return Corruption("manifest names table " + manifest->table().Root() + " version " +
                          std::to_string(manifest->staged_version) + ", not the pinned one",
                      name);
  }
  if (manifest->transaction_uuid != pin.transaction_uuid) {
    return Corruption("manifest transaction_uuid " + manifest->transaction_uuid +
                          " does not match the pin's " + pin.transaction_uuid,
                      name);
  }
  if (manifest->entity_count != pin.entity_count) {
    return Corruption("manifest entity_count " + std::to_string(manifest->entity_count) +
                          " does not match the pin's " + std::to_string(pin.entity_count),
                      name);
  }
  return std::make_shared<const TableVersion>(ctx_, std::move(manifest), name);
}

void TableStore::AddHintedChain(const TablePin& pin, std::string_view kind,
                                std::string_view held_prefix, std::vector<std::string>& manifests,
                                std::vector<std::string>& objects) const {
  for (uint64_t v : ChainHint(pin.extra, kind)) {
    if (v == pin.staged_version) return;  // Not a chain under the version.
    std::string manifest = ManifestName(pin.table(), v);
    std::string object = DerivedName(pin.table(), v, kind);
    // A reader holding this link's data in memory walks the chain only down to it (the id index
    // is held by its manifest's name, an adjacency by its object's).
    const std::string& held = held_prefix == "i:" ? manifest : object;
    if (ctx_->cache().Get<void>(std::string(held_prefix) + held) != nullptr) return;
    if (ctx_->cache().Get<TableManifest>("m:" + manifest) == nullptr) {
      manifests.push_back(std::move(manifest));
    }
    if (ctx_->cache().Get<void>("xo:" + object) == nullptr &&
        ctx_->cache().Get<void>("xp:" + object) == nullptr) {
      objects.push_back(std::move(object));
    }
  }
}

namespace {

// What the read ahead reads of an adjacency's start for a point reader (decision 235): opening's
// CsrOpenReadBytes, which assumes an average degree of 5 or more, or more when the keys may be
// many for the edges. A revision-4 prefix holds about 0.21 bytes a key (a fence sample of every
// 128 keys with its id, an other start every 64 other ids) and 0.013 an edge (the block
// checksums at the benchmark's slot widths; 0.016 covers the widest; csr_points.h); the keys
// are at most the edges and at most the rows of the largest node table the query reads
// (`nodes_max`, 0 when unknown), and kPrefixBytesPerKeyMax leaves room for ids longer than the
// benchmark's. A prefix read short is read again, a round later; one read long costs only its
// bytes.
constexpr double kPrefixBytesPerKeyMax = 0.5;
constexpr double kPrefixBytesPerEdgeMax = 0.016;

uint64_t AdjacencyHeadBytes(uint64_t edges, uint64_t nodes_max) {
  const uint64_t keys = std::min(edges, nodes_max);
  const auto prefix = static_cast<uint64_t>(kPrefixBytesPerEdgeMax * static_cast<double>(edges) +
                                            kPrefixBytesPerKeyMax * static_cast<double>(keys));
  return std::max(CsrOpenReadBytes(edges), kCsrOpenReadBytesMin + prefix);
}

}  // namespace

void TableStore::Prefetch(std::span<const TablePin> pins, const PrefetchOptions& options) const {
  // The largest node table among the pins: a bound on an adjacency's keys (AdjacencyHeadBytes).
  uint64_t nodes_max = 0;
  for (const TablePin& pin : pins) {
    if (std::find(options.adjacency_of.begin(), options.adjacency_of.end(), pin.table_key) ==
        options.adjacency_of.end()) {
      nodes_max = std::max(nodes_max, pin.entity_count);
    }
  }
  std::vector<std::string> manifests;
  std::vector<std::string> indexes;
  // Point readers' heads: an adjacency at or above the point bound, read point by point.
  std::vector<std::pair<std::string, uint64_t>> heads;
  for (const TablePin& pin : pins) {
    std::string name = ManifestName(pin.table(), pin.staged_version);
    const bool ids = std::find(options.ids_of.begin(), options.ids_of.end(), pin.table_key) !=
                     options.ids_of.end();
    if (ids && pin.entity_count >= ctx_->derived_rows_min() &&
        ctx_->cache().Get<IdIndex>("i:" + name) == nullptr) {
      indexes.push_back(DerivedName(pin.table(), pin.staged_version, kIdsKind));
      AddHintedChain(pin, kIdsKind, "i:", manifests, indexes);
    }
    const bool adjacency = std::find(options.adjacency_of.begin(), options.adjacency_of.end(),
                                     pin.table_key) != options.adjacency_of.end();
    if (adjacency && pin.entity_count >= ctx_->derived_rows_min()) {
      std::string csr = DerivedName(pin.table(), pin.staged_version, CsrKind(EdgeDirection::kOut));
      if (pin.entity_count < options.adjacency_edges_max) {
        if (ctx_->cache().Get<EdgeCsr>("csr:" + csr) == nullptr) {
          indexes.push_back(std::move(csr));
          const size_t before = indexes.size();
          AddHintedChain(pin, CsrKind(EdgeDirection::kOut), "csr:", manifests, indexes);
          // A chain of adjacency deltas is applied through the edges' ids at both of its ends
          // (TableVersion::CsrFromChain): the id index's chain comes too.
          if (indexes.size() > before && !ids &&
              ctx_->cache().Get<IdIndex>("i:" + name) == nullptr) {
            indexes.push_back(DerivedName(pin.table(), pin.staged_version, kIdsKind));
            AddHintedChain(pin, kIdsKind, "i:", manifests, indexes);
          }
        }
      } else if (ctx_->cache().Get<CsrPoints>("cp:" + csr) == nullptr) {
        heads.emplace_back(std::move(csr), AdjacencyHeadBytes(pin.entity_count, nodes_max));
      }
    }
    if (ctx_->cache().Get<TableManifest>("m:" + name) == nullptr)
      manifests.push_back(std::move(name));
  }
  // Two hinted chains of one table (its id index and adjacency) list the same manifests.
  for (std::vector<std::string>* names : {&manifests, &indexes}) {
    std::sort(names->begin(), names->end());
    names->erase(std::unique(names->begin(), names->end()), names->end());
  }
  if (manifests.size() + indexes.size() + heads.size() < options.reads_min) return;
  TaskGroup group(ctx_->runtime().ReadExecutor());
  for (const std::string& name : manifests) {
    group.Add([this, &name]() -> Status {
      ctx_->Manifest(name).status().IgnoreError();
      return Status::Ok();
    });
  }
  for (const std::string& name : indexes) {
    group.Add([this, &name]() -> Status {
      ctx_->PrefetchDerived(name);
      return Status::Ok();
    });
  }
  for (const std::pair<std::string, uint64_t>& head : heads) {
    group.Add([this, &head]() -> Status {
      ctx_->PrefetchDerived(head.first, head.second);
      return Status::Ok();
    });
  }
  group.Wait().IgnoreError();
}

Result<std::vector<storage::ObjectMeta>> TableStore::ListObjects(const TableId& table) const {
  return storage::ListAll(ctx_->store(), table.Root() + "/");
}

}  // namespace omnigraph::table
