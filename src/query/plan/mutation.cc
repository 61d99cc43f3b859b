#include "query/plan/mutation.h"

#include "base/utf8.h"
#include "query/exec/column_codec.h"
#include "query/exec/mutation_where.h"
#include "schema/keys.h"
#include "table/table_manifest.h"

namespace omnigraph::query {

using schema::Value;

namespace {

// OK unless a string of `value` (or of its list items) is not valid UTF-8.
Status CheckTextUtf8(const Value& value, const std::string& what) {
  if (value.tag() == Value::Tag::kString) return CheckUtf8(value.string_value(), what);
  if (value.tag() != Value::Tag::kList) return Status::Ok();
  for (const Value& item : value.list_items()) {
    OMNIGRAPH_RETURN_IF_ERROR(CheckTextUtf8(item, what));
  }
  return Status::Ok();
}

class MutationPlanner {
 public:
  MutationPlanner(const CheckedQuery& query, const MutationContext& context)
      : query_(query), context_(context) {}

  Result<MutationEffects> Run() {
    for (const CheckedMutation& m : query_.mutations) {
      out_.strict = out_.strict || m.stmt->kind != MutationKind::kInsert;
      switch (m.stmt->kind) {
        case MutationKind::kInsert: OMNIGRAPH_RETURN_IF_ERROR(Insert(*m.stmt, *m.target)); break;
        case MutationKind::kUpdate: OMNIGRAPH_RETURN_IF_ERROR(Update(*m.stmt, *m.target)); break;
        case MutationKind::kDelete: OMNIGRAPH_RETURN_IF_ERROR(Delete(*m.stmt, *m.target)); break;
      }
    }
    // Drop tables the query named but did not change.
    for (auto it = out_.tables.begin(); it != out_.tables.end();) {
      if (it->second.rows.empty() && it->second.deletes.empty()) {
        it = out_.tables.erase(it);
      } else {
        ++it;
      }
    }
    return std::move(out_);
  }

 private:
  // The value of a literal, parameter or now(), as a value of `type` (property `prop` of type
  // `owner`).
  Result<Value> Operand(const MatchValue& v, const schema::PropType& type, const std::string& prop,
                        const std::string& owner) {
    Value raw;
    switch (v.kind) {
      case MatchValue::Kind::kLiteral: raw = v.literal.value; break;
      case MatchValue::Kind::kNow: raw = Value::DateTime(context_.now_ms); break;
      case MatchValue::Kind::kExpr: {
        OMNIGRAPH_ASSIGN_OR_RETURN(raw, EvalConstant(v.expr, context_));
        break;
      }
      case MatchValue::Kind::kVariable: {
        auto it = context_.params.find(v.variable.text);
        if (it == context_.params.end()) {
          return InvalidArgument("missing value for parameter $" + v.variable.text);
        }
        raw = it->second;
        // Parameters bound from JSON were checked already (BindParams); typed ones handed in by
        // an embedding program were not, and text enters the tables here.
        if (type.scalar == schema::ScalarKind::kString) {
          OMNIGRAPH_RETURN_IF_ERROR(CheckTextUtf8(raw, "parameter $" + v.variable.text));
        }
        break;
      }
    }
    if (raw.is_null() && !type.nullable) {
      // The reference's words, which OmniGraph's scenario corpus pins.
      return InvalidArgument("cannot assign null to non-nullable property '" + prop + "' of " +
                             owner);
    }
    Result<Value> fitted = CoerceValue(raw, type);
    if (!fitted.ok()) {
      return InvalidArgument("value for `" + prop + "`: " + fitted.status().message());
    }
    return fitted;
  }

  // InvalidArgument when `m` assigns a refused Blob parameter (MutationContext::refused_blobs)
  // to a property of `type`; called once a statement has a row to write.
  Status AdmitBlobs(const Mutation& m, const schema::TypeDef& type) const {
    for (const Assignment& a : m.assignments) {
      if (a.value.kind != MatchValue::Kind::kVariable) continue;
      auto refused = context_.refused_blobs.find(a.value.variable.text);
      if (refused == context_.refused_blobs.end()) continue;
      for (const schema::PropertyDef& p : type.properties) {
        if (p.name == a.prop.text && p.type.scalar == schema::ScalarKind::kBlob) {
          return InvalidArgument(refused->second);
        }
      }
    }
    return Status::Ok();
  }

  static schema::PropType EndpointType() {
    schema::PropType t;
    t.scalar = schema::ScalarKind::kString;
    return t;
  }

  TableEffects& Effects(const schema::TypeDef& type) {
    TableEffects& e = out_.tables[type.table_key()];
    e.type = &type;
    return e;
  }

  void Count(const schema::TypeDef& type, uint64_t n) {
    (type.kind == schema::TypeKind::kEdge ? out_.affected_edges : out_.affected_nodes) += n;
  }

  Status Insert(const Mutation& m, const schema::TypeDef& type) {
    OMNIGRAPH_RETURN_IF_ERROR(AdmitBlobs(m, type));
    EntityRow row;
    row.values.assign(type.properties.size(), Value::Null());
    for (const Assignment& a : m.assignments) {
      if (type.kind == schema::TypeKind::kEdge && (a.prop.text == "from" || a.prop.text == "to")) {
        OMNIGRAPH_ASSIGN_OR_RETURN(Value v,
                                   Operand(a.value, EndpointType(), a.prop.text, type.name));
        (a.prop.text == "from" ? row.src : row.dst) = v.string_value();
        continue;
      }
      for (size_t i = 0; i < type.properties.size(); ++i) {
        if (type.properties[i].name != a.prop.text) continue;
        OMNIGRAPH_ASSIGN_OR_RETURN(
            row.values[i], Operand(a.value, type.properties[i].type, a.prop.text, type.name));
      }
    }
    TableEffects& effects = Effects(type);
    if (type.key() != nullptr) {
      schema::PropertyValueFn value_of = [&](const schema::PropertyDef& p) {
        for (size_t i = 0; i < type.properties.size(); ++i) {
          if (type.properties[i].id == p.id) return static_cast<const Value*>(&row.values[i]);
        }
        return static_cast<const Value*>(nullptr);
      };
      Result<std::string> id = type.kind == schema::TypeKind::kEdge
                                   ? schema::DeriveEdgeId(type, row.src, row.dst, value_of)
                                   : schema::DeriveNodeId(type, value_of);
      if (!id.ok()) return InvalidArgument("insert " + type.name + ": " + id.status().message());
      row.id = std::move(*id);
      effects.only_fresh = false;  // An upsert: it may replace an existing row.
    } else {
      row.id = context_.mint_id();
    }
    std::string id = row.id;
    effects.rows.insert_or_assign(id, std::move(row));
    Count(type, 1);
    return Status::Ok();
  }

  // Calls `add` with each row of `batch` (a batch of `type`'s table) as an EntityRow.
  static void ForEachRowOf(const table::ColumnBatch& batch, const schema::TypeDef& type,
                           const std::function<void(EntityRow)>& add) {
    const table::Column* ids = batch.FindColumn(table::kIdFieldId);
    const table::Column* src = batch.FindColumn(table::kSrcFieldId);
    const table::Column* dst = batch.FindColumn(table::kDstFieldId);
    std::vector<const table::Column*> cols;
    for (const schema::PropertyDef& p : type.properties) {
      cols.push_back(batch.FindColumn(static_cast<uint32_t>(p.id)));
    }
    for (uint64_t r = 0; r < batch.num_rows(); ++r) {
      EntityRow row;
      row.id = std::string(ids->StringAt(r));
      if (src != nullptr) row.src = std::string(src->StringAt(r));
      if (dst != nullptr) row.dst = std::string(dst->StringAt(r));
      for (const table::Column* c : cols) {
        row.values.push_back(c == nullptr ? Value::Null() : ValueAt(*c, r));
      }
      add(std::move(row));
    }
  }

  // The base rows of `type`, loaded once.
  Result<const std::map<std::string, EntityRow>*> BaseRows(const schema::TypeDef& type) {
    auto it = base_.find(type.table_key());
    if (it != base_.end()) return &it->second;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version,
                               context_.open_table(type));
    std::map<std::string, EntityRow> rows;
    OMNIGRAPH_RETURN_IF_ERROR(version->Scan({}, [&](table::ColumnBatch batch) -> Status {
      ForEachRowOf(batch, type, [&](EntityRow row) {
        std::string id = row.id;
        rows.emplace(std::move(id), std::move(row));
      });
      return Status::Ok();
    }));
    auto [pos, inserted] = base_.emplace(type.table_key(), std::move(rows));
    return &pos->second;
  }

  // The base row `id` of `type`, or nullopt when the base has none: from the whole table when it
  // was loaded, else one lookup by id (the id index and the row's fragment, not the table).
  Result<std::optional<EntityRow>> BaseRow(const schema::TypeDef& type, const std::string& id) {
    auto loaded = base_.find(type.table_key());
    if (loaded != base_.end()) {
      auto row = loaded->second.find(id);
      if (row == loaded->second.end()) return std::optional<EntityRow>();
      return std::optional<EntityRow>(row->second);
    }
    std::map<std::string, std::optional<EntityRow>>& known = looked_up_[type.table_key()];
    auto seen = known.find(id);
    if (seen != known.end()) return seen->second;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version,
                               context_.open_table(type));
    const std::string ids[] = {id};
    OMNIGRAPH_ASSIGN_OR_RETURN(table::LookupResult found, version->Lookup(ids));
    std::optional<EntityRow> row;
    if (found.found[0]) ForEachRowOf(found.rows, type, [&](EntityRow r) { row = std::move(r); });
    known.emplace(id, row);
    return row;
  }

  // The id a `where` fixes when it is `key = value` on a node type keyed by that one property
  // (the id derives from the key: schema/keys.h), so the rows it matches are found by id.
  // nullopt when the predicate is of another form, or the value cannot be a key (null, NaN).
  static std::optional<std::string> KeyedId(const schema::TypeDef& type, const Predicate& where,
                                            const Value& operand) {
    if (type.kind != schema::TypeKind::kNode || where.op != CompOp::kEq || operand.is_null()) {
      return std::nullopt;
    }
    const std::vector<const schema::PropertyDef*> keys = type.KeyProperties();
    if (keys.size() != 1 || keys[0]->name != where.prop.text) return std::nullopt;
    Result<std::string> id = schema::DeriveNodeId(type, std::span<const Value>(&operand, 1));
    if (!id.ok()) return std::nullopt;
    return std::move(*id);
  }

  // Calls `visit` for every current row of `type` (overlay first, then base rows it does not
  // shadow or delete).
  Status ForEachCurrent(const schema::TypeDef& type,
                        const std::function<Status(const EntityRow&)>& visit) {
    using RowMap = std::map<std::string, EntityRow>;
    OMNIGRAPH_ASSIGN_OR_RETURN(const RowMap* base, BaseRows(type));
    TableEffects& effects = Effects(type);
    for (const auto& [id, row] : effects.rows) OMNIGRAPH_RETURN_IF_ERROR(visit(row));
    for (const auto& [id, row] : *base) {
      if (effects.rows.contains(id) || effects.deletes.contains(id)) continue;
      OMNIGRAPH_RETURN_IF_ERROR(visit(row));
    }
    return Status::Ok();
  }

  static bool Compare(CompOp op, const Value& current, const Value& operand) {
    if (current.is_null() || operand.is_null()) return false;
    return CompareHolds(op, Value::Compare(current, operand));
  }

  // The ids of current rows of `type` matching `where`.
  Result<std::vector<std::string>> Matching(const schema::TypeDef& type, const Predicate& where) {
    int index = -1;  // Property index; -1 src, -2 dst.
    schema::PropType operand_type = EndpointType();
    if (type.kind == schema::TypeKind::kEdge &&
        (where.prop.text == "from" || where.prop.text == "to")) {
      index = where.prop.text == "from" ? -1 : -2;
    } else {
      for (size_t i = 0; i < type.properties.size(); ++i) {
        if (type.properties[i].name == where.prop.text) index = static_cast<int>(i);
      }
      if (index < 0)
        return InvalidArgument("type `" + type.name + "` has no property `" + where.prop.text +
                               "`");
      operand_type = type.properties[index].type;
      operand_type.nullable = true;
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(Value operand,
                               Operand(where.value, operand_type, where.prop.text, type.name));
    std::vector<std::string> ids;
    auto visit = [&](const EntityRow& row) -> Status {
      const Value current = index == -1   ? Value::String(row.src)
                            : index == -2 ? Value::String(row.dst)
                                          : row.values[index];
      if (Compare(where.op, current, operand)) ids.push_back(row.id);
      return Status::Ok();
    };
    if (std::optional<std::string> id = KeyedId(type, where, operand)) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<EntityRow> row, CurrentRow(type, *id));
      if (row) OMNIGRAPH_RETURN_IF_ERROR(visit(*row));
      return ids;
    }
    OMNIGRAPH_RETURN_IF_ERROR(ForEachCurrent(type, visit));
    return ids;
  }

  // The ids of current rows of `type` matching the `where` of `m` (a predicate or a Boolean
  // condition).
  Result<std::vector<std::string>> Matching(const schema::TypeDef& type, const Mutation& m) {
    if (!m.condition) return Matching(type, *m.where);
    std::vector<std::string> ids;
    OMNIGRAPH_RETURN_IF_ERROR(ForEachCurrent(type, [&](const EntityRow& row) -> Status {
      OMNIGRAPH_ASSIGN_OR_RETURN(bool match, RowMatches(*m.condition, type, row, context_));
      if (match) ids.push_back(row.id);
      return Status::Ok();
    }));
    return ids;
  }

  // The current row `id` of `type`: the overlay's, else the base's unless deleted, else none
  // (what ForEachCurrent visits, for one id).
  Result<std::optional<EntityRow>> CurrentRow(const schema::TypeDef& type, const std::string& id) {
    TableEffects& effects = Effects(type);
    auto it = effects.rows.find(id);
    if (it != effects.rows.end()) return std::optional<EntityRow>(it->second);
    if (effects.deletes.contains(id)) return std::optional<EntityRow>();
    return BaseRow(type, id);
  }

  // The current row `id` of `type`, which Matching found.
  Result<EntityRow> Current(const schema::TypeDef& type, const std::string& id) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<EntityRow> row, CurrentRow(type, id));
    if (!row) return Status(Code::kInternal, "row '" + id + "' of " + type.name + " vanished");
    return std::move(*row);
  }

  Status Update(const Mutation& m, const schema::TypeDef& type) {
    std::vector<std::pair<size_t, Value>> sets;
    for (const Assignment& a : m.assignments) {
      for (size_t i = 0; i < type.properties.size(); ++i) {
        const schema::PropertyDef& p = type.properties[i];
        if (p.name != a.prop.text) continue;
        if (type.IsKeyProperty(p.id)) {
          return InvalidArgument("update " + type.name + ": cannot update @key property `" +
                                 p.name + "` (keys are immutable; delete and re-insert instead)");
        }
        OMNIGRAPH_ASSIGN_OR_RETURN(Value v, Operand(a.value, p.type, a.prop.text, type.name));
        sets.emplace_back(i, std::move(v));
      }
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> ids, Matching(type, m));
    if (!ids.empty()) OMNIGRAPH_RETURN_IF_ERROR(AdmitBlobs(m, type));
    TableEffects& effects = Effects(type);
    for (const std::string& id : ids) {
      OMNIGRAPH_ASSIGN_OR_RETURN(EntityRow row, Current(type, id));
      for (const auto& [i, v] : sets) row.values[i] = v;
      effects.rows.insert_or_assign(id, std::move(row));
      effects.only_fresh = false;
    }
    Count(type, ids.size());
    return Status::Ok();
  }

  Status Delete(const Mutation& m, const schema::TypeDef& type) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> ids, Matching(type, m));
    TableEffects& effects = Effects(type);
    for (const std::string& id : ids) {
      effects.rows.erase(id);
      effects.deletes.insert(id);
    }
    Count(type, ids.size());
    if (type.kind != schema::TypeKind::kNode || ids.empty()) return Status::Ok();
    // Cascade to the incident edges of every edge type.
    const std::set<std::string> gone(ids.begin(), ids.end());
    for (const schema::TypeDef& edge : catalog().edges()) {
      const bool from = edge.from.type_id == type.id, to = edge.to.type_id == type.id;
      if (!from && !to) continue;
      std::vector<std::string> doomed;
      OMNIGRAPH_RETURN_IF_ERROR(ForEachCurrent(edge, [&](const EntityRow& row) -> Status {
        if ((from && gone.contains(row.src)) || (to && gone.contains(row.dst))) {
          doomed.push_back(row.id);
        }
        return Status::Ok();
      }));
      TableEffects& edge_effects = Effects(edge);
      for (const std::string& id : doomed) {
        edge_effects.rows.erase(id);
        edge_effects.deletes.insert(id);
      }
      Count(edge, doomed.size());
    }
    return Status::Ok();
  }

  const schema::Catalog& catalog() const { return *context_.catalog; }

  const CheckedQuery& query_;
  const MutationContext& context_;
  MutationEffects out_;
  // Whole base tables by table key, loaded by a scan when a statement needs every row.
  std::map<std::string, std::map<std::string, EntityRow>> base_;
  // Base rows looked up by id (nullopt: not in the base), by table key, for tables not loaded.
  std::map<std::string, std::map<std::string, std::optional<EntityRow>>> looked_up_;
};

}  // namespace

Result<MutationEffects> PlanMutation(const CheckedQuery& query, const MutationContext& context) {
  if (query.kind != QueryKind::kMutation) {
    return InvalidArgument("query '" + query.decl->name.text + "' is not a mutation");
  }
  OMNIGRAPH_CHECK_MSG(context.catalog != nullptr && context.open_table && context.mint_id,
                      "PlanMutation needs a catalog, a table opener and an id minter");
  MutationPlanner planner(query, context);
  return planner.Run();
}

Result<table::ColumnBatch> EffectRows(const TableEffects& effects) {
  OMNIGRAPH_ASSIGN_OR_RETURN(RowsBuilder builder, RowsBuilder::Make(*effects.type));
  std::vector<std::optional<Value>> values;
  for (const auto& [id, row] : effects.rows) {
    values.assign(row.values.begin(), row.values.end());
    OMNIGRAPH_RETURN_IF_ERROR(builder.Append(id, row.src, row.dst, values));
  }
  return builder.Finish();
}

}  // namespace omnigraph::query
