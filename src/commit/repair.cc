#include "commit/repair.h"

#include <set>

namespace omnigraph::commit {

namespace {

struct StreamScan {
  const StreamMetadata& meta;
  bool named;
  std::set<uint64_t> records;
  std::set<uint64_t> checkpoints;
  bool has_hint = false;
};

class Repairer {
 public:
  Repairer(const storage::Runtime& rt, const RepairOptions& options, RepairReport& report)
      : rt_(rt), options_(options), report_(report) {}

  Status ScanStream(StreamScan& scan) {
    const std::string& key = scan.meta.key;
    const uint64_t base = scan.meta.base_seq();
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<storage::ObjectMeta> objects,
                               storage::ListAll(*rt_.store, RecordPrefix(key)));
    for (const storage::ObjectMeta& m : objects) {
      std::string rest = m.name.substr(RecordPrefix(key).size());
      if (rest == "latest.json") {
        scan.has_hint = true;
      } else if (rest.rfind("checkpoints/", 0) == 0) {
        Result<uint64_t> seq = GenerationFromFile(rest.substr(12));  // {seq:020}.json
        if (seq.ok()) scan.checkpoints.insert(*seq);
      } else if (Result<uint64_t> seq = SeqFromRecordFile(rest); seq.ok()) {
        scan.records.insert(*seq);
      }
    }
    uint64_t latest = base;
    while (scan.records.count(latest + 1)) ++latest;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Hint> hint, ReadHint(scan));
    OMNIGRAPH_ASSIGN_OR_RETURN(const bool gap, CheckGap(scan, latest, hint));
    if (!scan.meta.parent_stream && !scan.records.count(0)) {
      // Below the fold base, so reads never need it; but the genesis commit is lost.
      Defect& d = Add(DefectKind::kRecordMissing, key, RecordName(key, 0), 0,
                      "the genesis record is missing", false);
      d.advice = "restore " + RecordName(key, 0) +
                 " from a backup or from an earlier version in a versioned bucket; repair never "
                 "writes a record";
    }
    if (!scan.meta.parent_stream && scan.records.count(0)) CheckGenesis(key);
    std::optional<GraphState> state = FoldBase(scan);
    bool retire_record = false;
    // Where the fold stopped: at a defective record, or after `latest` (the gap, if any).
    uint64_t stopped = latest + 1;
    for (uint64_t seq = base + 1; state && seq <= latest; ++seq) {
      if (!ApplyRecord(key, seq, *state)) {
        state.reset();
        stopped = seq;
        break;
      }
      retire_record = state->retired;
      if (seq % options_.stream.checkpoint_interval == 0 && !state->retired) {
        OMNIGRAPH_RETURN_IF_ERROR(CheckCheckpoint(scan, *state));
      }
    }
    // With a gap the stream's end is the newest record that exists, not the end of the walk: a
    // hint is never lowered below a record that proves the gap.
    const uint64_t newest =
        gap && !scan.records.empty() ? std::max(latest, *scan.records.rbegin()) : latest;
    // Every record the fold could not reach is still checked: each one missing and each one
    // damaged is a defect of its own, not hidden behind the first.
    OMNIGRAPH_RETURN_IF_ERROR(CheckRecordsPast(scan, stopped));
    OMNIGRAPH_RETURN_IF_ERROR(
        CheckHint(scan, hint, newest, gap, state && !gap ? state->retired : false));
    if (state && !gap) {
      if (retire_record && !scan.meta.retired) {
        Add(DefectKind::kRetireRecordWithoutRetiredMetadata, key, StreamMetadataName(key), latest,
            "the stream ends in a retire record but its metadata is not marked retired", false);
      }
      if (!retire_record && scan.meta.retired && (scan.named || latest > base)) {
        Add(DefectKind::kRetiredWithoutRetireRecord, key, StreamMetadataName(key), latest,
            "metadata is marked retired but the stream has no retire record", false);
      }
      if (!state->retired && options_.pin_exists) {
        for (const auto& [id, t] : state->tables) {
          OMNIGRAPH_ASSIGN_OR_RETURN(bool exists, options_.pin_exists(t.pin));
          if (!exists) {
            Add(DefectKind::kPinManifestMissing, key, t.pin.table_key, t.pin_seq,
                "the head pins staged version " + std::to_string(t.pin.staged_version) +
                    " whose manifest is missing",
                false);
          }
        }
      }
    }
    return Status::Ok();
  }

  Status CheckStaged() {
    for (const StagedVersion& s : options_.staged) {
      Result<bool> dead =
          StagedVersionIsDead(rt_, s.staged_against_stream, s.staged_against_seq, s.version);
      if (!dead.ok()) {
        if (dead.status().code() == Code::kBranchNotFound) continue;
        return dead.status();
      }
      if (*dead) {
        Add(DefectKind::kStaleStaging, s.staged_against_stream, s.object, s.staged_against_seq,
            "staged against this seq and provably never published (D9)", false);
      }
    }
    return Status::Ok();
  }

 private:
  std::optional<GraphState> FoldBase(const StreamScan& scan) {
    const std::string& key = scan.meta.key;
    const uint64_t base = scan.meta.base_seq();
    const std::string name = CheckpointName(key, base);
    Result<std::optional<BoundedRead>> read = ReadBounded(*rt_.store, name, kCheckpointBytesMax);
    std::optional<Checkpoint> checkpoint;
    if (read.ok() && *read) {
      Result<Checkpoint> decoded = DecodeCheckpoint((*read)->data, name);
      if (decoded.ok() && decoded->seq == base && decoded->stream == key) checkpoint = *decoded;
    }
    if (!checkpoint) {
      Add(DefectKind::kBaseCheckpointMissing, key, name, base,
          "the base checkpoint is missing or unreadable; the stream cannot be verified", false);
      return std::nullopt;
    }
    return GraphState::FromCheckpoint(*checkpoint);
  }

  // The records above `stopped` (where the fold stopped), which the fold did not check: every
  // seq below the newest listed record that is still absent is record_missing (HEADed again: a
  // writer may have published it after the listing); every present one must parse, sit under its
  // own name and name its present predecessor as parent.
  Status CheckRecordsPast(const StreamScan& scan, uint64_t stopped) {
    const std::string& key = scan.meta.key;
    if (scan.records.empty() || *scan.records.rbegin() <= stopped) return Status::Ok();
    std::optional<std::string> previous;  // The commit id at seq - 1, when it is known.
    for (uint64_t seq = stopped + 1; seq <= *scan.records.rbegin(); ++seq) {
      const std::string name = RecordName(key, seq);
      if (!scan.records.count(seq)) {
        previous.reset();
        Result<storage::ObjectMeta> now = rt_.store->Head(name);
        if (now.ok()) continue;
        if (now.status().kind() != Kind::kNotFound) return now.status();
        if (Reported(DefectKind::kRecordMissing, name)) continue;
        Defect& d = Add(DefectKind::kRecordMissing, key, name, seq,
                        "record " + std::to_string(seq) + " is missing, but record " +
                            std::to_string(*scan.records.rbegin()) + " exists",
                        false);
        d.advice = "restore " + name +
                   " from a backup or from an earlier version in a versioned bucket; repair never "
                   "writes a record";
        continue;
      }
      Result<Record> record = ReadRecordAt(key, seq);
      if (!record.ok()) {
        Add(DefectKind::kRecordUnparsable, key, name, seq, record.status().message(), false);
        previous.reset();
        continue;
      }
      if (previous && record->parent_commit_id.value_or("") != *previous) {
        Add(DefectKind::kRecordWrongParent, key, name, seq,
            WrongParentDetail(*record, *previous, key, seq), false);
      }
      previous = record->commit_id;
    }
    return Status::Ok();
  }

  // The record at `seq`, decoded and checked to sit under its own name; a Corruption whose
  // message says what is wrong otherwise.
  Result<Record> ReadRecordAt(const std::string& key, uint64_t seq) {
    const std::string name = RecordName(key, seq);
    Result<std::optional<BoundedRead>> read = ReadBounded(*rt_.store, name, kRecordBytesMax);
    if (!read.ok() || !*read) return Status(Code::kCorruption, "unreadable", name);
    OMNIGRAPH_ASSIGN_OR_RETURN(Record record, DecodeRecord((*read)->data, name));
    if (record.seq != seq || record.stream != key) {
      return Status(Code::kCorruption, "record is stored under the wrong name", name);
    }
    return record;
  }

  // The genesis record sits below the fold base (the checkpoint at seq 0 stands for it), so the
  // fold never reads it; it is still checked, as history's first entry.
  void CheckGenesis(const std::string& key) {
    Result<Record> record = ReadRecordAt(key, 0);
    if (!record.ok()) {
      Add(DefectKind::kRecordUnparsable, key, RecordName(key, 0), 0, record.status().message(),
          false);
    }
  }

  // A parent that is not its predecessor's commit id: either this record or the one before it
  // was replaced (a fork writes the wrong predecessor; damage the wrong successor), so the detail
  // names both objects.
  static std::string WrongParentDetail(const Record& record, const std::string& expected,
                                       const std::string& key, uint64_t seq) {
    std::string before = seq == 0 ? "the stream's base" : RecordName(key, seq - 1);
    return "parent is '" + record.parent_commit_id.value_or("null") + "', expected '" + expected +
           "' (the commit id in " + before + "): this record or " + before + " was replaced";
  }

  bool Reported(DefectKind kind, const std::string& object) const {
    for (const Defect& d : report_.defects) {
      if (d.kind == kind && d.object == object) return true;
    }
    return false;
  }

  bool ApplyRecord(const std::string& key, uint64_t seq, GraphState& state) {
    const std::string name = RecordName(key, seq);
    Result<Record> record = ReadRecordAt(key, seq);
    if (!record.ok()) {
      Add(DefectKind::kRecordUnparsable, key, name, seq, record.status().message(), false);
      return false;
    }
    if (record->parent_commit_id.value_or("") != state.head_commit_id) {
      Add(DefectKind::kRecordWrongParent, key, name, seq,
          WrongParentDetail(*record, state.head_commit_id, key, seq), false);
      return false;
    }
    Status applied = state.Apply(*record, name);
    if (!applied.ok()) {
      Add(DefectKind::kRecordUnparsable, key, name, seq, applied.message(), false);
      return false;
    }
    return true;
  }

  Status CheckCheckpoint(const StreamScan& scan, const GraphState& state) {
    const std::string& key = scan.meta.key;
    const std::string name = CheckpointName(key, state.seq);
    Checkpoint expected = state.ToCheckpoint();
    if (!scan.checkpoints.count(state.seq)) {
      return Found(DefectKind::kCheckpointMissing, key, name, state.seq, "checkpoint is missing",
                   expected);
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                               ReadBounded(*rt_.store, name, kCheckpointBytesMax));
    Result<Checkpoint> found = read ? DecodeCheckpoint(read->data, name)
                                    : Result<Checkpoint>(Corruption("vanished", name));
    if (!found.ok() || found->seq != state.seq || found->stream != key) {
      return Found(DefectKind::kCheckpointTorn, key, name, state.seq,
                   found.ok() ? "checkpoint names another seq or stream" : found.status().message(),
                   expected);
    }
    expected.extra = found->extra;  // Unknown members are kept, and not compared.
    if (!(*found == expected)) {
      return Found(DefectKind::kCheckpointDiffers, key, name, state.seq,
                   "checkpoint differs from the fold of the records", expected);
    }
    return Status::Ok();
  }

  Result<std::optional<Hint>> ReadHint(const StreamScan& scan) {
    if (!scan.has_hint) return std::optional<Hint>();
    const std::string name = HintName(scan.meta.key);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                               ReadBounded(*rt_.store, name, kDocumentBytesMax));
    if (!read) return std::optional<Hint>();
    Result<Hint> decoded = DecodeHint(read->data, name);
    if (!decoded.ok()) return std::optional<Hint>();
    return std::optional<Hint>(std::move(*decoded));
  }

  // A record missing after `latest` (the end of the contiguous walk) is a gap when anything
  // proves a later seq was published: a later record, the hint, or a later checkpoint (D21).
  // Reported, never fixed: only the missing object itself can repair it.
  Result<bool> CheckGap(const StreamScan& scan, uint64_t latest, const std::optional<Hint>& hint) {
    const std::string& key = scan.meta.key;
    const uint64_t missing = latest + 1;
    std::string proof;
    uint64_t last_missing = missing;
    bool only_hint = false;
    if (auto next = scan.records.upper_bound(latest); next != scan.records.end()) {
      proof = "record " + std::to_string(*next) + " exists";
      last_missing = *next - 1;
    } else if (hint && hint->seq > latest) {
      proof = "the hint names seq " + std::to_string(hint->seq);
      last_missing = hint->seq;
      only_hint = true;
    } else if (auto cp = scan.checkpoints.upper_bound(latest); cp != scan.checkpoints.end()) {
      proof = "checkpoint " + CheckpointName(key, *cp) + " exists";
      last_missing = *cp;
    } else {
      return false;
    }
    // Writers may have published it after the listing (the hint is read after it): a record
    // absent after its proof was seen was deleted; one present now was not (D21).
    Result<storage::ObjectMeta> now = rt_.store->Head(RecordName(key, missing));
    if (now.ok()) return false;
    if (now.status().kind() != Kind::kNotFound) return now.status();
    Defect& d = Add(DefectKind::kRecordMissing, key, RecordName(key, missing), missing,
                    "record " + std::to_string(missing) + " is missing, but " + proof +
                        ": the stream cannot be read past seq " + std::to_string(latest) +
                        ", and no commit may be published into the gap",
                    false);
    d.advice = "restore " + RecordName(key, missing);
    if (last_missing > missing) d.advice += " through " + RecordName(key, last_missing);
    d.advice +=
        " from a backup or from an earlier version in a versioned bucket; repair never writes a "
        "record";
    if (only_hint) {
      d.advice += "; if no commit after seq " + std::to_string(latest) +
                  " was ever made (the hint itself is damaged), delete " + HintName(key) +
                  " and run repair again";
    }
    return true;
  }

  Status CheckHint(const StreamScan& scan, const std::optional<Hint>& hint, uint64_t latest,
                   bool gap, bool retired) {
    const std::string& key = scan.meta.key;
    // A hint ahead of the records is a gap (CheckGap reported it); a retire record is not a
    // commit and writes no hint, so a hint behind it is right.
    if (retired || (hint && hint->seq > latest)) return Status::Ok();
    if (!hint) {
      if (latest == scan.meta.base_seq() && !scan.has_hint && !gap) return Status::Ok();
      return FoundHint(DefectKind::kHintMissing, key, Hint{}, latest,
                       scan.has_hint ? "hint is unparsable" : "hint is missing");
    }
    if (hint->seq < latest) {
      return FoundHint(
          DefectKind::kHintBehind, key, *hint, latest,
          "hint says " + std::to_string(hint->seq) + ", latest is " + std::to_string(latest));
    }
    return Status::Ok();
  }

  Status Found(DefectKind kind, const std::string& key, const std::string& name, uint64_t seq,
               const std::string& detail, const Checkpoint& replacement) {
    Defect& d = Add(kind, key, name, seq, detail, true);
    if (options_.confirm) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::string bytes, EncodeCheckpoint(replacement));
      OMNIGRAPH_RETURN_IF_ERROR(rt_.store->Put(name, std::move(bytes)));
      d.fixed = true;
    }
    return Status::Ok();
  }

  Status FoundHint(DefectKind kind, const std::string& key, Hint hint, uint64_t latest,
                   const std::string& detail) {
    Defect& d = Add(kind, key, HintName(key), latest, detail, true);
    if (options_.confirm) {
      hint.seq = latest;
      hint.schema.reset();  // Its guess may be stale too: a reader then reads the record's.
      OMNIGRAPH_RETURN_IF_ERROR(rt_.store->Put(HintName(key), EncodeHint(hint)));
      d.fixed = true;
    }
    return Status::Ok();
  }

  Defect& Add(DefectKind kind, const std::string& key, const std::string& object, uint64_t seq,
              const std::string& detail, bool fixable) {
    report_.defects.push_back(Defect{kind, key, object, seq, detail, "", fixable, false});
    return report_.defects.back();
  }

  const storage::Runtime& rt_;
  const RepairOptions& options_;
  RepairReport& report_;
};

}  // namespace

std::string_view DefectKindName(DefectKind kind) {
  switch (kind) {
    case DefectKind::kHintMissing: return "hint_missing";
    case DefectKind::kHintBehind: return "hint_behind";
    case DefectKind::kCheckpointMissing: return "checkpoint_missing";
    case DefectKind::kCheckpointTorn: return "checkpoint_torn";
    case DefectKind::kCheckpointDiffers: return "checkpoint_differs";
    case DefectKind::kBaseCheckpointMissing: return "base_checkpoint_missing";
    case DefectKind::kRecordWrongParent: return "record_wrong_parent";
    case DefectKind::kRecordMissing: return "record_missing";
    case DefectKind::kRecordUnparsable: return "record_unparsable";
    case DefectKind::kRetiredWithoutRetireRecord: return "retired_without_retire_record";
    case DefectKind::kRetireRecordWithoutRetiredMetadata:
      return "retire_record_without_retired_metadata";
    case DefectKind::kPinManifestMissing: return "pin_manifest_missing";
    case DefectKind::kStaleStaging: return "stale_staging";
  }
  return "unknown";
}

Json Defect::ToJson() const {
  return Json{{"kind", DefectKindName(kind)},
              {"stream", stream},
              {"object", object},
              {"seq", seq},
              {"detail", detail},
              {"advice", advice},
              {"fixable", fixable},
              {"fixed", fixed}};
}

Json RepairReport::ToJson() const {
  Json arr = Json::array();
  for (const Defect& d : defects) arr.push_back(d.ToJson());
  return Json{{"defects", arr}};
}

Result<RepairReport> Repair(const storage::Runtime& runtime, const RepairOptions& options) {
  RepairReport report;
  Repairer repairer(runtime, options, report);
  // Which stream each name's highest generation names.
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<storage::ObjectMeta> gens,
                             storage::ListAll(*runtime.store, "_graph/names/"));
  std::set<std::string> named = {std::string(kMainKey)};
  for (const storage::ObjectMeta& m : gens) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                               ReadBounded(*runtime.store, m.name, kDocumentBytesMax));
    if (!read) continue;
    Result<NameGeneration> g = DecodeNameGeneration(read->data, m.name);
    if (g.ok()) named.insert(g->key);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<storage::ObjectMeta> streams,
                             storage::ListAll(*runtime.store, kStreamsPrefix));
  for (const storage::ObjectMeta& m : streams) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                               ReadBounded(*runtime.store, m.name, kDocumentBytesMax));
    if (!read) continue;
    OMNIGRAPH_ASSIGN_OR_RETURN(StreamMetadata meta, DecodeStreamMetadata(read->data, m.name));
    StreamScan scan{meta, named.count(meta.key) > 0, {}, {}, false};
    OMNIGRAPH_RETURN_IF_ERROR(repairer.ScanStream(scan));
  }
  OMNIGRAPH_RETURN_IF_ERROR(repairer.CheckStaged());
  return report;
}

}  // namespace omnigraph::commit
