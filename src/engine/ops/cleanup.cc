// Cleanup orchestration (OmniGraph's `cleanup`; D9, D10 (docs/design/overview.md);
// docs/design/engine.md "Cleanup"; docs/design/retention.md).
//
// The commit layer plans (PlanRetention: the root set of table versions, horizons, deletable
// checkpoints) and removes checkpoints after writing the horizons; this file decides, table by
// table, which version manifests and data objects no root reaches, and hands exactly those names
// to the table layer (CleanupObjects), which deletes data before manifests and never touches
// anything younger than the grace period. Order, as D10 requires: horizons and checkpoints →
// list table objects → drop candidates younger than the grace period → recompute the roots →
// delete what is still unreached. Last, the change-set delta objects and the idempotency key
// objects go with their records' retention (CleanupDeltas, CleanupKeys).
#include <algorithm>
#include <charconv>
#include <functional>
#include <set>

#include "commit/documents.h"
#include "commit/names.h"
#include "commit/retention.h"
#include "engine/graph/graph.h"
#include "engine/ops/cleanup.h"
#include "table/derived.h"
#include "table/table_cleanup.h"
#include "table/table_manifest.h"

namespace omnigraph::engine {

namespace {

constexpr std::string_view kTablesPrefix = "tables/";

// "tables/{id:016x}-{incarnation:016x}/..." → the table; nullopt for any other shape.
std::optional<TableId> TableOfObject(std::string_view name) {
  if (name.substr(0, kTablesPrefix.size()) != kTablesPrefix) return std::nullopt;
  std::string_view rest = name.substr(kTablesPrefix.size());
  if (rest.size() < 34 || rest[16] != '-' || rest[33] != '/') return std::nullopt;
  TableId id;
  auto parse = [](std::string_view hex, uint64_t& out) {
    auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), out, 16);
    return ec == std::errc() && end == hex.data() + hex.size();
  };
  if (!parse(rest.substr(0, 16), id.stable_table_id) || !parse(rest.substr(17, 16), id.incarnation))
    return std::nullopt;
  if (id.Root() != name.substr(0, kTablesPrefix.size() + 33)) return std::nullopt;
  return id;
}

enum class ObjectClass { kManifest, kFragment, kDeletionVector, kDeletedIds, kDerived, kOther };

ObjectClass ClassOf(std::string_view name) {
  // The folder after "tables/{id}-{inc}/".
  std::string_view sub = name.substr(std::min(name.size(), kTablesPrefix.size() + 34));
  if (sub.starts_with("versions/")) return ObjectClass::kManifest;
  if (sub.starts_with("data/")) return ObjectClass::kFragment;
  if (sub.starts_with("deletions/")) return ObjectClass::kDeletionVector;
  if (sub.starts_with("deleted/")) return ObjectClass::kDeletedIds;
  if (sub.starts_with("derived/")) return ObjectClass::kDerived;
  return ObjectClass::kOther;
}

void Count(TableCleanupRow& row, std::string_view name) {
  switch (ClassOf(name)) {
    case ObjectClass::kManifest: ++row.versions_removed; break;
    case ObjectClass::kFragment: ++row.fragments_removed; break;
    case ObjectClass::kDeletionVector: ++row.deletion_vectors_removed; break;
    case ObjectClass::kDeletedIds: ++row.deleted_id_files_removed; break;
    case ObjectClass::kDerived: ++row.derived_removed; break;
    case ObjectClass::kOther: break;
  }
}

// Every object a version needs (TableVersion::ObjectNames, from the decoded manifest).
std::vector<std::string> NamesOf(const table::TableManifest& m, const std::string& manifest_name) {
  std::vector<std::string> names = {manifest_name};
  for (const table::FragmentEntry& f : m.fragments) {
    names.push_back(table::ObjectName(m.table(), f.path));
    if (f.deletion) names.push_back(table::ObjectName(m.table(), f.deletion->path));
  }
  if (m.deleted_ids_path) names.push_back(table::ObjectName(m.table(), *m.deleted_ids_path));
  return names;
}

struct Version {
  storage::ObjectMeta meta;
  table::TableManifest manifest;
  commit::PinRef ref;
  bool kept = false;
};

// One table's objects and what becomes of them.
struct TableWork {
  TableId id;
  std::vector<storage::ObjectMeta> objects;
  std::vector<Version> versions;
  TableCleanupRow row;
  bool skip = false;  // An unreadable manifest: nothing of this table is deleted.
};

// Decides which versions of one table survive, given the roots. `may_publish` answers D9's
// question for a version no root names.
Status Classify(TableWork& t, const commit::RetentionPlan& plan, int64_t now, int64_t grace,
                const std::function<Result<bool>(const Version&)>& may_publish) {
  for (Version& v : t.versions) {
    if (v.kept) continue;
    if (plan.keep.count(v.ref)) {
      v.kept = true;
    } else if (now - v.meta.last_modified_micros < grace) {
      v.kept = true;  // Young: perhaps being staged or published right now.
      ++t.row.versions_spared;
    } else {
      OMNIGRAPH_ASSIGN_OR_RETURN(bool live, may_publish(v));
      if (live) {
        v.kept = true;
        ++t.row.versions_spared;
      }
    }
  }
  return Status::Ok();
}

// The objects of `t` to delete: every object no kept version names, older than the grace.
std::vector<std::string> Unreached(const TableWork& t, int64_t now, int64_t grace) {
  std::set<std::string> needed;
  std::set<uint64_t> kept_versions;  // Derived objects live exactly as long as their version.
  for (const Version& v : t.versions) {
    if (!v.kept) continue;
    for (std::string& n : NamesOf(v.manifest, v.meta.name)) needed.insert(std::move(n));
    kept_versions.insert(v.manifest.staged_version);
  }
  std::vector<std::string> out;
  for (const storage::ObjectMeta& m : t.objects) {
    if (needed.count(m.name) || now - m.last_modified_micros < grace) continue;
    const ObjectClass kind = ClassOf(m.name);
    if (kind == ObjectClass::kOther) continue;  // Not ours to judge.
    if (kind == ObjectClass::kDerived) {
      std::optional<table::DerivedNameParts> parts = table::ParseDerivedName(m.name);
      if (!parts || kept_versions.count(parts->staged_version)) continue;
    }
    out.push_back(m.name);
  }
  return out;
}

// The delta objects of stream `key` that a record from `from` through `through` names.
Result<std::set<std::string>> NamedDeltas(storage::ObjectStore& store, const std::string& key,
                                          uint64_t from, uint64_t through) {
  std::set<std::string> named;
  for (uint64_t seq = from; seq <= through; ++seq) {
    const std::string name = commit::RecordName(key, seq);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::BoundedRead> read,
                               commit::ReadBounded(store, name, commit::kRecordBytesMax));
    if (!read) continue;  // Below a branch's own records, or a gap repair reports.
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record r, commit::DecodeRecord(read->data, name));
    if (r.change_set && r.change_set->delta) named.insert(r.change_set->delta->name);
  }
  return named;
}

// Change-set delta objects (`_graph/{key}/changes/`) go with their records' retention: a delta
// that no retained record of its stream names (the commit is below the stream's horizon, or the
// stream retains nothing) is removed once it is older than the grace period. The grace period
// also spares the delta of a write still about to publish its record (it is created first).
// Reads the retained records of each stream that has deltas, and lists each stream's folder.
Status CleanupDeltas(const storage::Runtime& runtime, const commit::RetentionPlan& plan,
                     const CleanupOptions& options, GraphCleanupReport& report) {
  storage::ObjectStore& store = *runtime.store;
  const int64_t now = runtime.clock->NowMicros();
  for (const auto& [key, horizon] : plan.horizons) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<storage::ObjectMeta> deltas,
                               storage::ListAll(store, "_graph/" + key + "/changes/"));
    if (deltas.empty()) continue;
    std::set<std::string> named;
    auto through = plan.retained_through.find(key);
    if (horizon != UINT64_MAX && through != plan.retained_through.end()) {
      OMNIGRAPH_ASSIGN_OR_RETURN(named, NamedDeltas(store, key, horizon, through->second));
    }
    for (const storage::ObjectMeta& m : deltas) {
      if (named.count(m.name) || now - m.last_modified_micros < options.grace_micros) continue;
      if (!options.dry_run) OMNIGRAPH_RETURN_IF_ERROR(store.Delete(m.name));
      report.removed.push_back(m.name);
      report.deltas_removed.push_back(m.name);
      report.bytes_removed += m.size_bytes;
    }
  }
  return Status::Ok();
}

// The seq a key object names (docs/design/idempotency.md "Where a key lives"); nullopt when it
// is gone or does not say (such an object is left for a write to report).
Result<std::optional<uint64_t>> KeySeq(storage::ObjectStore& store, const std::string& name) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::BoundedRead> read,
                             commit::ReadBounded(store, name, commit::kDocumentBytesMax));
  if (!read) return std::optional<uint64_t>();
  Result<Json> j = ParseJson(read->data, name, /*as_corruption=*/true);
  if (!j.ok() || !j->is_object()) return std::optional<uint64_t>();
  auto seq = j->find("seq");
  if (seq == j->end() || !seq->is_number_unsigned()) return std::optional<uint64_t>();
  return std::optional<uint64_t>(seq->get<uint64_t>());
}

// Idempotency key objects (`_graph/{key}/keys/`) go with the records that name them
// (docs/design/idempotency.md "Retention"): a key object whose seq is below its stream's horizon
// (the record there is no longer retained, or the stream retains nothing) is removed once it is
// older than the grace period; a key at or above the horizon — its record retained, or a write
// still about to publish there — stays. One LIST per stream, one GET per key object past the
// grace period.
Status CleanupKeys(const storage::Runtime& runtime, const commit::RetentionPlan& plan,
                   const CleanupOptions& options, GraphCleanupReport& report) {
  storage::ObjectStore& store = *runtime.store;
  const int64_t now = runtime.clock->NowMicros();
  for (const auto& [key, horizon] : plan.horizons) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<storage::ObjectMeta> keys,
                               storage::ListAll(store, "_graph/" + key + "/keys/"));
    for (const storage::ObjectMeta& m : keys) {
      if (now - m.last_modified_micros < options.grace_micros) continue;
      OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<uint64_t> seq, KeySeq(store, m.name));
      if (!seq || (horizon != UINT64_MAX && *seq >= horizon)) continue;
      if (!options.dry_run) OMNIGRAPH_RETURN_IF_ERROR(store.Delete(m.name));
      report.removed.push_back(m.name);
      report.bytes_removed += m.size_bytes;
    }
  }
  return Status::Ok();
}

}  // namespace

Result<GraphCleanupReport> Cleanup(Graph& graph, const CleanupOptions& options) {
  const storage::Runtime& runtime = graph.runtime();
  if (options.grace_micros < 0) return InvalidArgument("the grace period cannot be negative");
  commit::RetentionOptions retention;
  retention.keep = options.keep;
  retention.older_than_micros = options.older_than_micros;
  retention.grace_micros = options.grace_micros;
  // Read-only handles: cleanup never backfills checkpoints.
  retention.stream = commit::StreamOptions{graph.stamp().checkpoint_interval, false};
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::RetentionPlan plan, commit::PlanRetention(runtime, retention));
  storage::ObjectStore& store = *runtime.store;
  GraphCleanupReport report;
  report.dry_run = options.dry_run;
  ProgressMeter meter(options.progress, *runtime.clock, "cleanup", "tables");
  meter.Phase("planning");

  // 1. Horizons (before anything is reclaimed, so forks below them are refused), checkpoints.
  if (options.dry_run) {
    const int64_t now = runtime.clock->NowMicros();
    for (const std::string& name : plan.deletable_checkpoints) {
      Result<storage::ObjectMeta> meta = store.Head(name);
      if (!meta.ok() || now - meta->last_modified_micros < options.grace_micros) continue;
      report.checkpoints_removed.push_back(name);
      report.checkpoint_bytes_removed += meta->size_bytes;
    }
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::CheckpointCleanup checkpoints,
                               commit::ApplyCheckpointRetention(runtime, retention, plan));
    report.checkpoints_removed = std::move(checkpoints.deleted);
    report.checkpoint_bytes_removed = checkpoints.bytes_removed;
  }
  report.removed = report.checkpoints_removed;
  report.bytes_removed = report.checkpoint_bytes_removed;

  // 2. List every table object and read every manifest (in parallel).
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<storage::ObjectMeta> listed,
                             storage::ListAll(store, kTablesPrefix));
  std::map<TableId, TableWork> tables;
  for (storage::ObjectMeta& m : listed) {
    std::optional<TableId> id = TableOfObject(m.name);
    if (!id) continue;
    TableWork& t = tables[*id];
    t.id = *id;
    t.objects.push_back(std::move(m));
  }
  std::vector<std::pair<TableWork*, const storage::ObjectMeta*>> manifests;
  for (auto& [id, t] : tables) {
    t.row.stable_table_id = id.stable_table_id;
    t.row.incarnation = id.incarnation;
    for (const storage::ObjectMeta& m : t.objects) {
      if (ClassOf(m.name) == ObjectClass::kManifest) manifests.emplace_back(&t, &m);
    }
  }
  std::vector<Result<table::TableManifest>> decoded(manifests.size(),
                                                    Status(Code::kInternal, "manifest not read"));
  {
    TaskGroup group(*runtime.executor);
    for (size_t i = 0; i < manifests.size(); ++i) {
      group.Add([&, i]() -> Status {
        const std::string& name = manifests[i].second->name;
        Result<std::optional<commit::BoundedRead>> read =
            commit::ReadBounded(store, name, table::kManifestBytesMax);
        if (!read.ok()) {
          decoded[i] = read.status();
        } else if (!*read) {
          decoded[i] = Status(Code::kNotFound, "manifest vanished during cleanup", name);
        } else {
          decoded[i] = table::DecodeManifest((*read)->data, name);
        }
        return Status::Ok();
      });
    }
    OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
  }
  for (size_t i = 0; i < manifests.size(); ++i) {
    TableWork& t = *manifests[i].first;
    if (!decoded[i].ok()) {
      // A manifest deleted meanwhile (another cleanup) is simply gone; anything else stops the
      // table, since what an unreadable manifest names cannot be known.
      if (decoded[i].status().kind() == Kind::kNotFound) continue;
      t.skip = true;
      t.row.error = decoded[i].status().ToString();
      continue;
    }
    Version v;
    v.meta = *manifests[i].second;
    v.manifest = std::move(*decoded[i]);
    v.ref = commit::PinRef{{v.manifest.stable_table_id, v.manifest.incarnation},
                           v.manifest.staged_version};
    t.versions.push_back(std::move(v));
  }
  for (auto& [id, t] : tables) {
    int64_t newest = INT64_MIN;
    for (const Version& v : t.versions) {
      if (v.manifest.created_at >= newest) {
        newest = v.manifest.created_at;
        t.row.table_key = v.manifest.table_key;
      }
    }
  }

  // 3. Which versions survive. A version no root names may still be published only if it was
  // staged against (stream, N) and record N+1 does not exist yet (D9). When the plan saw the
  // stream reach N+1, that record exists (records are never deleted) and the version is either
  // an old published one or dead; otherwise FateOfStagedVersion reads record N+1. Answers are
  // kept per (stream, N), which is all they depend on.
  std::map<std::pair<std::string, uint64_t>, bool> open_seqs;
  auto may_publish = [&](const Version& v) -> Result<bool> {
    const std::optional<table::StagedAgainst>& against = v.manifest.staged_against;
    if (!against) return false;  // Written by init before genesis; only genesis could pin it.
    auto reached = plan.retained_through.find(against->stream);
    if (reached != plan.retained_through.end() && against->seq < reached->second) return false;
    auto key = std::make_pair(against->stream, against->seq);
    auto memo = open_seqs.find(key);
    if (memo != open_seqs.end()) return memo->second;
    OMNIGRAPH_ASSIGN_OR_RETURN(
        commit::StagedFate fate,
        commit::FateOfStagedVersion(runtime, against->stream, against->seq, v.ref));
    // kPublished: this very version is pinned at N+1 yet not a root, so it is an old version.
    const bool open = fate == commit::StagedFate::kMayStillPublish;
    open_seqs[key] = open;
    return open;
  };
  const int64_t now = runtime.clock->NowMicros();
  for (auto& [id, t] : tables) {
    if (t.skip) continue;
    Status s = Classify(t, plan, now, options.grace_micros, may_publish);
    if (!s.ok()) {
      t.skip = true;
      t.row.error = s.ToString();
    }
  }
  // Recompute the roots after listing: a commit published meanwhile may pin a candidate.
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::RetentionPlan again,
                             commit::PlanRetention(runtime, retention));
  for (auto& [id, t] : tables) {
    if (t.skip) continue;
    for (Version& v : t.versions) v.kept = v.kept || again.keep.count(v.ref) > 0;
  }

  // 4. Hand the unreached names to the table layer, table by table (data before manifests).
  table::CleanupOptions table_options{options.grace_micros};
  meter.SetTotal(tables.size());
  meter.Phase("removing");
  for (auto& [id, t] : tables) {
    if (!t.skip) {
      std::vector<std::string> names = Unreached(t, now, options.grace_micros);
      if (options.dry_run) {
        const std::set<std::string> chosen(names.begin(), names.end());
        for (const storage::ObjectMeta& m : t.objects) {
          if (!chosen.count(m.name)) continue;
          Count(t.row, m.name);
          t.row.bytes_removed += m.size_bytes;
          report.removed.push_back(m.name);
        }
      } else if (!names.empty()) {
        Result<table::CleanupReport> done = table::CleanupObjects(runtime, names, table_options);
        if (done.ok()) {
          for (const std::string& n : done->removed) Count(t.row, n);
          t.row.bytes_removed = done->bytes_removed;
          report.removed.insert(report.removed.end(), done->removed.begin(), done->removed.end());
        } else {
          t.row.error = done.status().ToString();
        }
      }
    }
    report.bytes_removed += t.row.bytes_removed;
    report.tables.push_back(std::move(t.row));
    meter.Update(report.tables.size());
  }
  OMNIGRAPH_RETURN_IF_ERROR(CleanupDeltas(runtime, again, options, report));
  OMNIGRAPH_RETURN_IF_ERROR(CleanupKeys(runtime, again, options, report));
  meter.Finish();
  return report;
}

}  // namespace omnigraph::engine
