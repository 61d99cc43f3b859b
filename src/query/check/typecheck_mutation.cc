// Mutation statements: insert, update and delete against node and edge types, and the rule
// that a query either inserts/updates or deletes (typecheck_internal.h).

#include <set>

#include "query/check/typecheck_internal.h"

namespace omnigraph::query::internal {
namespace {

PropType EndpointType() {
  PropType t;
  t.scalar = ScalarKind::kString;
  return t;
}

std::string Props(const TypeDef& type) {
  std::vector<std::string> names;
  for (const schema::PropertyDef& p : type.properties) names.push_back(p.name);
  return names.empty() ? type.name + " has no properties"
                       : "its properties are " + ListNames(names, 12);
}

}  // namespace

bool Checker::CheckMutations() {
  std::set<GraphFact> reads, writes;
  for (const Mutation& m : query_.mutations) {
    CheckedMutation cm;
    if (!CheckMutation(m, &cm)) return false;
    out_->mutations.push_back(cm);
    const TypeDef& target = *cm.target;
    GraphFact fact{target.kind, target.name};
    reads.insert(fact);
    writes.insert(fact);
    if (target.kind == schema::TypeKind::kEdge && m.kind == MutationKind::kInsert) {
      reads.insert(GraphFact{schema::TypeKind::kNode, target.from.name});
      reads.insert(GraphFact{schema::TypeKind::kNode, target.to.name});
    }
    if (target.kind == schema::TypeKind::kNode && m.kind == MutationKind::kDelete) {
      // A node delete cascades to the incident edges of every edge type.
      for (const TypeDef& e : catalog_.edges()) {
        if (e.from.type_id == target.id || e.to.type_id == target.id) {
          reads.insert(GraphFact{schema::TypeKind::kEdge, e.name});
          writes.insert(GraphFact{schema::TypeKind::kEdge, e.name});
        }
      }
    }
  }
  if (!CheckMixing()) return false;
  out_->reads.assign(reads.begin(), reads.end());
  out_->writes.assign(writes.begin(), writes.end());
  return true;
}

bool Checker::CheckMutation(const Mutation& m, CheckedMutation* out) {
  out->stmt = &m;
  const TypeDef* type = catalog_.FindTable(m.type.text);
  if (type == nullptr) {
    std::vector<std::string> names;
    for (const TypeDef& n : catalog_.nodes()) names.push_back(n.name);
    for (const TypeDef& e : catalog_.edges()) names.push_back(e.name);
    return Fail("T10", m.type.span, "unknown node/edge type `" + m.type.text + "`",
                "the node and edge types are " + ListNames(names, 12));
  }
  out->target = type;
  bool edge = type->kind == schema::TypeKind::kEdge;
  switch (m.kind) {
    case MutationKind::kInsert:
      if (m.assignments.empty()) {
        return Fail("T10", m.span, "insert mutation requires at least one assignment");
      }
      return CheckInsert(m, *type);
    case MutationKind::kUpdate:
      if (edge) {
        return Fail("T16", m.type.span,
                    "update mutation for edge type `" + type->name + "` is not supported",
                    "delete the edge and insert it again with the new values");
      }
      if (m.assignments.empty()) {
        return Fail("T10", m.span, "update mutation requires at least one assignment");
      }
      return CheckAssignments(m, *type) && CheckPredicate(m, *type);
    case MutationKind::kDelete: return CheckPredicate(m, *type);
  }
  return true;
}

// Duplicate names (T13), then each assignment's property and value; edge `from`/`to` are
// String endpoint ids.
bool Checker::CheckAssignments(const Mutation& m, const TypeDef& type) {
  std::set<std::string> seen;
  for (const Assignment& a : m.assignments) {
    if (!seen.insert(a.prop.text).second) {
      return Fail("T13", a.prop.span, "duplicate assignment for property `" + a.prop.text + "`",
                  "assign each property once");
    }
  }
  bool edge = type.kind == schema::TypeKind::kEdge;
  for (const Assignment& a : m.assignments) {
    if (edge && (a.prop.text == "from" || a.prop.text == "to")) {
      if (!CheckMatchValue(a.value, EndpointType(), a.prop.text)) return false;
      continue;
    }
    const schema::PropertyDef* prop = type.FindProperty(a.prop.text);
    if (prop == nullptr) {
      const std::string hint =
          a.prop.text == "id"
              ? "; the engine assigns system identity; it cannot be set through a property "
                "assignment"
              : "";
      return Fail("T11", a.prop.span,
                  "type `" + type.name + "` has no property `" + a.prop.text + "`" + hint,
                  edge ? Props(type) + "; the endpoints are `from` and `to`" : Props(type));
    }
    if (!CheckMatchValue(a.value, prop->type, a.prop.text)) return false;
  }
  return true;
}

bool Checker::CheckInsert(const Mutation& m, const TypeDef& type) {
  if (!CheckAssignments(m, type)) return false;
  std::set<std::string> assigned;
  for (const Assignment& a : m.assignments) assigned.insert(a.prop.text);
  if (type.kind == schema::TypeKind::kEdge) {
    for (const char* endpoint : {"from", "to"}) {
      if (assigned.count(endpoint) == 0) {
        return Fail(
            "T12", m.type.span,
            "insert for `" + type.name + "` must provide required endpoint `" + endpoint + "`",
            std::string("add `") + endpoint + ": $" + endpoint + "` (a " +
                (std::string(endpoint) == "from" ? type.from.name : type.to.name) + " id)");
      }
    }
  }
  for (const schema::PropertyDef& p : type.properties) {
    if (p.type.nullable || assigned.count(p.name) > 0) continue;
    if (p.embed) {
      if (assigned.count(p.embed->source_property) > 0) continue;
      return Fail("T12", m.type.span,
                  "insert for `" + type.name + "` must provide non-nullable property `" + p.name +
                      "` or @embed source `" + p.embed->source_property + "`");
    }
    return Fail(
        "T12", m.type.span,
        "insert for `" + type.name + "` must provide non-nullable property `" + p.name + "`",
        "add `" + p.name + ": $" + p.name + "` (" + p.type.DisplayName() + ")");
  }
  return true;
}

bool Checker::CheckPredicate(const Mutation& m, const TypeDef& type) {
  if (m.condition) return CheckMutationCondition(m, type);
  const Predicate& p = *m.where;
  if (!CheckShadowedLiteral(type, p.prop.text, p.prop.span)) return false;
  if (type.kind == schema::TypeKind::kEdge && (p.prop.text == "from" || p.prop.text == "to")) {
    return CheckMatchValue(p.value, EndpointType(), p.prop.text);
  }
  const schema::PropertyDef* prop = type.FindProperty(p.prop.text);
  if (prop == nullptr) {
    return Fail("T11", p.prop.span,
                "type `" + type.name + "` has no property `" + p.prop.text + "`" +
                    SystemFieldHint(p.prop.text, type.kind == schema::TypeKind::kEdge, ""),
                Props(type));
  }
  if (prop->type.scalar == ScalarKind::kBlob) {
    return Fail("T11", p.prop.span,
                "blob property `" + p.prop.text + "` cannot be used in WHERE predicates");
  }
  return CheckMatchValue(p.value, prop->type, p.prop.text);
}

bool Checker::CheckMatchValue(const MatchValue& v, const PropType& expected,
                              const std::string& prop) {
  switch (v.kind) {
    case MatchValue::Kind::kLiteral: return CheckLiteral(v.literal, expected, prop);
    case MatchValue::Kind::kNow: return CheckNow(expected, prop, v.span);
    case MatchValue::Kind::kExpr: return CheckConstantValue(v, expected, prop);
    case MatchValue::Kind::kVariable: break;
  }
  const PropType* actual = ParamType(v.variable.text);
  if (actual == nullptr) {
    PropType declared = expected;
    declared.enum_values.clear();
    if (declared.is_enum()) declared.scalar = ScalarKind::kString;
    return Fail(
        "T14", v.span,
        "mutation variable `$" + v.variable.text + "` must be a declared query parameter",
        "add `$" + v.variable.text + ": " + declared.DisplayName() + "` to the query's parameters");
  }
  // A String parameter may be assigned to a Blob property (an external URI).
  bool blob_uri = expected.scalar == ScalarKind::kBlob && actual->scalar == ScalarKind::kString &&
                  !actual->list;
  if (!TypesCompatible(*actual, expected) && !blob_uri) {
    return Fail("T7", v.span,
                "cannot assign/compare " + actual->DisplayName() + " with " +
                    expected.DisplayName() + " for property `" + prop + "`");
  }
  return true;
}

// OmniGraph's mutation rules, the D2 rule: a query is inserts/updates or deletes, never both.
bool Checker::CheckMixing() {
  const std::vector<Mutation>& ms = query_.mutations;
  bool first_delete = ms.front().kind == MutationKind::kDelete;
  for (const Mutation& m : ms) {
    if ((m.kind == MutationKind::kDelete) != first_delete) {
      return Fail(kMutationMixCode, m.span,
                  "mutation '" + query_.name.text +
                      "' on the same query mixes inserts/updates and deletes; split into "
                      "separate mutations: (1) inserts and updates, then (2) deletes",
                  "a query is either constructive or destructive; run the two queries on a "
                  "branch and merge it if they must land in one atomic commit");
    }
  }
  return true;
}

}  // namespace omnigraph::query::internal

namespace omnigraph::query {

Status CheckBranchStatement(const BranchStatement& statement, bool as_mutation) {
  const std::string what = BranchOpName(statement.op);
  auto at = [](const Span& span) {
    return std::to_string(span.begin.line) + ":" + std::to_string(span.begin.column) + ": ";
  };
  if (statement.is_read() && as_mutation) {
    return InvalidArgument(at(statement.span) + "`" + what +
                           "` is a read; run it with query, not mutate");
  }
  if (!statement.is_read() && !as_mutation) {
    return InvalidArgument(at(statement.span) + "`" + what +
                           "` changes the graph; run it with mutate, not query");
  }
  if ((statement.op == BranchOp::kCreate || statement.op == BranchOp::kDelete) &&
      statement.branch.text == "main") {
    return InvalidArgument(at(statement.branch.span) + "`" + what +
                           "` cannot name main: main always exists and cannot be deleted");
  }
  if (statement.other && statement.other->text == statement.branch.text) {
    return InvalidArgument(at(statement.other->span) + "`" + what + "` names branch '" +
                           statement.branch.text + "' on both sides");
  }
  return Status::Ok();
}

}  // namespace omnigraph::query
