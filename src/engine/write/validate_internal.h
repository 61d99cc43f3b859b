// The internals of write validation (validate.h), shared by the files that check one constraint
// family each: validate.cc runs the families (WriteValidator::Run) and holds what they share —
// the base versions, the change's ids, the scans and joins in id order; validate_values.cc the
// row-local value checks (enums, @range, @check); validate_keys.cc the keyed ids and @unique;
// validate_edges.cc the endpoints, dangling edges and @card. Only those files include it. A
// WriteValidator serves one ValidateWrite call on one thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/sorted_records.h"
#include "base/string_index.h"
#include "engine/write/validate.h"
#include "schema/value.h"

namespace omnigraph::engine::validate_internal {

using schema::Value;
using Op = TableChange::Op;

// Rows per base batch the checks read, and per batch of ids they look up.
inline constexpr uint64_t kValidateBatchRows = 1 << 16;

// Rust's f64 Display, which OmniGraph's messages use: integral values without a fraction,
// others in the shortest text that reads back.
std::string NumberText(double v);

// A value as OmniGraph's messages quote it: text as is, other values as DebugString.
std::string ValueText(const Value& v);

// A number as a double; none for a null or a value of another kind.
std::optional<double> NumericOf(const Value& v);

// The column of a constraint's field: its property id, or src/dst for an edge's endpoints.
uint32_t ColumnIdOf(const schema::FieldRef& f);

// Whether a change carries rows (every op but a delete).
inline bool HasRows(const TableChange& c) { return c.op != Op::kDelete; }
// A delete names the ids it removes; so does a patch (a merge's net change), beside its rows.
inline bool NamesRemovedIds(const TableChange& c) {
  return c.op == Op::kDelete || c.op == Op::kPatch;
}

// InvalidArgument "<row label>: <message>", the form of every violation.
Status Violation(const RowLabel& label, std::string_view table_key, uint64_t row,
                 const std::string& message);

// The id of row `row` of `batch`.
std::string_view IdAt(const table::ColumnBatch& batch, uint64_t row);

// Scans `version` in id order, projecting those of `field_ids` it has; `sink` sees, per batch,
// the column of each requested field or null when the version predates the property.
using ColumnsSink =
    std::function<Status(const table::ColumnBatch& batch, std::span<const table::Column*> cols)>;
Status ScanFields(const table::TableVersion& version, const std::vector<uint32_t>& field_ids,
                  const ColumnsSink& sink);

// Bytes equal exactly when the values are (a column holds one type, so tags do not mix).
void EncodeValue(const Value& v, std::string* out);

// A length-prefixed string inside a sort record's value.
void PutText(std::string_view text, std::string* out);

// The length-prefixed string at `*offset` (PutText), moving `*offset` past it.
std::string_view TextAt(std::string_view bytes, size_t* offset);

// Reads a sorted id list alongside an ascending sequence of probes: Contains(id) for ids given
// in ascending order.
class SortedProbe {
 public:
  explicit SortedProbe(const SortedRecords* records)
      : reader_(records == nullptr ? nullptr : records->Open()) {}
  Result<bool> Contains(std::string_view id) {
    if (reader_ == nullptr) return false;
    if (!started_) {
      started_ = true;
      OMNIGRAPH_ASSIGN_OR_RETURN(more_, reader_->Next(&next_, &value_));
    }
    while (more_ && next_ < id) {
      OMNIGRAPH_ASSIGN_OR_RETURN(more_, reader_->Next(&next_, &value_));
    }
    return more_ && next_ == id;
  }

 private:
  std::unique_ptr<SortedRecords::Reader> reader_;
  bool started_ = false, more_ = false;
  std::string_view next_, value_;
};

// One write, with the base versions it needs opened once. What crosses batches goes through
// ExternalSorters (memory `sort_bytes` each, the rest in temporary files) and merges in id
// order, so a check holds one batch of rows at a time however large the change or the base.
class WriteValidator {
 public:
  WriteValidator(const schema::Catalog& catalog, const std::map<std::string, TableChange>& changes,
                 const OpenTableFn& open_base, const RowLabel& label, const RowBatchesFn& batches,
                 uint64_t sort_bytes, Executor* executor = nullptr)
      : catalog_(catalog),
        changes_(changes),
        open_base_(open_base),
        label_(label),
        batches_(batches),
        sort_bytes_(sort_bytes),
        executor_(executor) {}

  // Run, reporting which check failed (ValidationFailure) for a violation.
  Status Run(ValidationFailure* failure) {
    Status s = Run();
    if (failure != nullptr && !s.ok()) *failure = failure_;
    return s;
  }

 private:
  // `s`, noting `kind` and `key` as the failed check when it is a violation.
  Status Tag(ConstraintKind kind, const std::string& key, Status s) {
    if (!s.ok() && s.code() == Code::kInvalidArgument) failure_ = ValidationFailure{key, kind};
    return s;
  }

  Status Run();

  Result<std::shared_ptr<const table::TableVersion>> Base(const std::string& key);

  const TableChange* ChangeOf(const std::string& key) const;

  // Visits the rows of a change with rows batch by batch, with the row number of each batch's
  // first row (a streaming load's pre-written fragments one at a time).
  Status ForEachBatch(const TableChange& c,
                      const std::function<Status(const table::ColumnBatch&, uint64_t)>& fn);

  // Adds (value of string column fields[i], row as 8 big-endian bytes) to sorters[i] for every
  // row of `change`, in one pass over its rows, so the records of one value sort in row order.
  Status SortColumnsWithRows(const TableChange& change, std::span<const uint32_t> fields,
                             std::span<ExternalSorter* const> sorters);

  // The ids a change names, ascending: those it writes (a streaming load's are sorted already),
  // or those it deletes. Computed once per change.
  const SortedRecords& ChangeIds(const TableChange& c);

  // The ids a delete or a patch removes, ascending; for other changes none. Computed once.
  const SortedRecords* RemovedIds(const TableChange& c);

  // Calls `fn(cols, row, kept)` for every row of the base version of `key`, in id order, with
  // `kept` false when `change` replaces or removes the row (an overwrite removes them all; a
  // null change keeps them). cols[0] is the id column.
  using BaseRowFn =
      std::function<Status(std::span<const table::Column*> cols, uint64_t row, bool kept)>;
  Status ScanBase(const std::string& key, const TableChange* change, std::vector<uint32_t> fields,
                  const BaseRowFn& fn);

  Status CheckUnique(const schema::TypeDef& type, const std::string& key,
                     const TableChange& change);

  // The tuple of `fields` at row `r` of `cols`: its sort key (empty when a value is null, which
  // @unique exempts) and its text for messages.
  static std::pair<std::string, std::string> TupleAt(std::span<const table::Column*> cols,
                                                     uint64_t r);

  // Within the change: records (tuple) -> (row, id, text) sorted, so rows holding one tuple are
  // adjacent in row order; the violation reported is the one a row-order pass meets first.
  // Against the base: the kept base rows' tuples, sorted, merged with the change's.
  Status CheckUniqueConstraint(const schema::TypeDef& type, const std::string& key,
                               const TableChange& change, const schema::Constraint& c);

  // How a streamed key met the records of a smaller sorted set: how many streamed keys equal a
  // record's key, and the payload of the first (streams here come in id order, so the first is
  // the smallest of them).
  struct JoinHit {
    uint64_t matches = 0;
    std::string first_payload;
  };
  using EmitFn = std::function<Status(std::string_view key, std::string_view payload)>;
  using ProduceFn = std::function<Status(const EmitFn& emit)>;
  using JoinedFn =
      std::function<Status(std::string_view key, std::string_view value, const JoinHit& hit)>;

  // Calls `each` for every record of `small` (in order) with what `produce` streamed against
  // it. A `small` that fits the budget is probed through a hash map while the keys stream;
  // a larger one is merged with the streamed keys, sorted.
  Status JoinKeys(const SortedRecords& small, const ProduceFn& produce, const JoinedFn& each);

  // Every endpoint of the new edges against the node ids the write adds or deletes and, for the
  // rest, the base node table (looked up a batch at a time): probed in hash sets when few node
  // ids change, else sorted and merged.
  Status CheckEndpoints(const schema::TypeDef& edge, const std::string& key,
                        const TableChange& change);

  // The node ids a write adds to and removes from one node table, in hash sets, when they fit
  // the budget: at most budget / 64 of each, a set costing its ids' bytes and at most 48 bytes
  // per id beside them (a view, and at most two 8-byte slots of the open-addressing table);
  // none when there are more (decision 210).
  struct NodeIdSet {
    std::string node_key;
    bool base_counts = true;  // An overwrite of the node table replaces its base ids.
    std::vector<char> held;   // The ids the views below point into, back to back.
    StringIndex added, removed;
  };
  Result<std::optional<NodeIdSet>> FewNodeIds(const schema::TypeDef& node);

  using MissFn = std::function<void(uint64_t row, int side, std::string_view id)>;

  // Few node ids change: every endpoint is probed in their sets as the rows stream (no sort);
  // those neither added nor removed are looked up in the base a batch at a time.
  Status ProbeEndpoints(const TableChange& change, const NodeIdSet* const sets[2],
                        const MissFn& miss);

  // Many node ids change: every endpoint of the new edges is sorted and merged with the sorted
  // ids the write adds or deletes; the rest are looked up in the base a batch at a time.
  Status SortAndMergeEndpoints(const TableChange& change, const schema::TypeDef* const nodes[2],
                               const MissFn& miss);

  // The ids the write removes (named deletes, or the base ids an overwrite leaves out) against
  // the endpoints of every edge the write keeps.
  Status CheckDangling(const schema::TypeDef& node, const std::string& key,
                       const TableChange& change);

  // The sources whose edges of `edge` the write changes, into `touched` as records (source ->
  // row, kind): one per new row (kFresh), and one per base row the write replaces or removes
  // (kGone, with the row or delete index that took it away). An overwrite takes every base row
  // away; those are added, as row 0, only when the edge has a min (no count falls below 0).
  Status SortTouchedSources(const schema::TypeDef& edge, const std::string& key,
                            const TableChange& change, ExternalSorter& touched);

  // Every touched source's outgoing count after the write — its new edges plus the base edges
  // the write keeps — is within min..max. A touched source left with no edges had some before
  // (only a base row the write took away can have touched it), so its count went down: it is
  // checked against min too (decision 23), unless the same write removes the source node. A
  // node that never had an edge of the type is not checked, as in the reference.
  Status CheckCardinality(const schema::TypeDef& edge, const std::string& key,
                          const TableChange& change);

  const schema::Catalog& catalog_;
  const std::map<std::string, TableChange>& changes_;
  const OpenTableFn& open_base_;
  const RowLabel& label_;
  const RowBatchesFn& batches_;
  const uint64_t sort_bytes_;
  // Where a batch's source endpoints are probed while this thread probes its targets (null, or
  // one thread: both here).
  Executor* const executor_;
  std::map<std::string, std::shared_ptr<const table::TableVersion>> bases_;
  std::map<const TableChange*, std::shared_ptr<const SortedRecords>> ids_;
  std::map<const TableChange*, std::shared_ptr<const SortedRecords>> removed_;
  ValidationFailure failure_;
};

// Keyed nodes and edges: each row's id is the one its key derives (an edge's from its endpoints
// and key properties).
Status CheckDerivedIds(const schema::TypeDef& type, const table::ColumnBatch& rows,
                       const RowLabel& label);

}  // namespace omnigraph::engine::validate_internal
