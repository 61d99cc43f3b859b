#include "query/check/lint.h"

#include <algorithm>
#include <map>
#include <set>

#include "query/parse/parser.h"

namespace omnigraph::query {
namespace {

constexpr const char* kL201 = "L201";
constexpr const char* kHardcodedMutationWarning =
    "mutation declares no params; hardcoded mutations are easy to miss";

const char* ScalarKindJson(schema::ScalarKind k) {
  switch (k) {
    case schema::ScalarKind::kString: return "string";
    case schema::ScalarKind::kBool: return "bool";
    case schema::ScalarKind::kI32:
    case schema::ScalarKind::kU32: return "int";
    case schema::ScalarKind::kI64:
    case schema::ScalarKind::kU64: return "bigint";
    case schema::ScalarKind::kF32:
    case schema::ScalarKind::kF64: return "float";
    case schema::ScalarKind::kDate: return "date";
    case schema::ScalarKind::kDateTime: return "datetime";
    case schema::ScalarKind::kBlob: return "blob";
    case schema::ScalarKind::kVector: return "vector";
  }
  return "?";
}

OrderedJson FactsJson(const std::vector<GraphFact>& facts) {
  OrderedJson out = OrderedJson::array();
  for (const GraphFact& f : facts) {
    OrderedJson j;
    j["kind"] = std::string(schema::TypeKindName(f.kind));
    j["type_name"] = f.type_name;
    out.push_back(std::move(j));
  }
  return out;
}

OrderedJson PositionJson(const Span& span) {
  OrderedJson j;
  j["line"] = span.begin.line;
  j["column"] = span.begin.column;
  j["byte"] = span.begin.offset;
  return j;
}

OrderedJson DiagnosticJson(const Diagnostic& d) {
  OrderedJson j;
  j["code"] = d.code;
  j["message"] = d.message;
  j["position"] = PositionJson(d.span);
  if (!d.fix.empty()) j["fix"] = d.fix;
  return j;
}

// L201: nullable, non-key, non-@embed properties of node types that have update queries but
// that no update query assigns.
std::vector<LintFinding> UpdateCoverage(const schema::Catalog& catalog, const QueryFile& file,
                                        const std::vector<LintQuery>& results) {
  struct Coverage {
    std::set<std::string> queries;
    std::set<std::string> assigned;
  };
  std::map<std::string, Coverage> coverage;
  for (size_t i = 0; i < file.queries.size(); ++i) {
    if (results[i].error) continue;
    for (const Mutation& m : file.queries[i].mutations) {
      if (m.kind != MutationKind::kUpdate) continue;
      Coverage& c = coverage[m.type.text];
      c.queries.insert(file.queries[i].name.text);
      for (const Assignment& a : m.assignments) c.assigned.insert(a.prop.text);
    }
  }
  std::vector<LintFinding> out;
  for (const schema::TypeDef& type : catalog.nodes()) {
    auto it = coverage.find(type.name);
    if (it == coverage.end()) continue;
    std::set<std::string> embed_targets;
    for (const schema::PropertyDef& p : type.properties) {
      if (p.embed) embed_targets.insert(p.name);
    }
    std::vector<const schema::PropertyDef*> props;
    for (const schema::PropertyDef& p : type.properties) props.push_back(&p);
    std::sort(props.begin(), props.end(), [](auto* a, auto* b) { return a->name < b->name; });
    for (const schema::PropertyDef* p : props) {
      if (!p->type.nullable || type.IsKeyProperty(p->id) || embed_targets.count(p->name) > 0 ||
          it->second.assigned.count(p->name) > 0) {
        continue;
      }
      LintFinding f;
      f.diagnostic.severity = Severity::kWarning;
      f.diagnostic.code = kL201;
      f.diagnostic.message =
          type.name + "." + p->name + " exists in schema but no update query sets it";
      f.diagnostic.fix = "set it in an update query, or make it non-nullable if it never changes";
      f.type_name = type.name;
      f.property = p->name;
      f.query_names.assign(it->second.queries.begin(), it->second.queries.end());
      out.push_back(std::move(f));
    }
  }
  return out;
}

// A declared parameter as the stored-query catalog's ParamDescriptor: {name, kind, item_kind?,
// vector_dim?, nullable}; an enum parameter is a string.
OrderedJson ParamJson(const Param& p) {
  OrderedJson j;
  j["name"] = p.name.text;
  if (p.type.list) {
    j["kind"] = "list";
    j["item_kind"] = ScalarKindJson(p.type.scalar);
  } else {
    j["kind"] = ScalarKindJson(p.type.scalar);
    if (p.type.scalar == schema::ScalarKind::kVector) j["vector_dim"] = p.type.vector_dim;
  }
  j["nullable"] = p.type.nullable;
  return j;
}

}  // namespace

OrderedJson ColumnJson(const ResultColumn& c) {
  OrderedJson j;
  j["name"] = c.name;
  if (c.type.kind == ExprType::Kind::kEntity) {
    j["kind"] = "object";
  } else if (c.type.value.list) {
    j["kind"] = "list";
    j["item_kind"] = ScalarKindJson(c.type.value.scalar);
  } else {
    j["kind"] = ScalarKindJson(c.type.value.scalar);
    if (c.type.value.scalar == schema::ScalarKind::kVector) {
      j["vector_dim"] = c.type.value.vector_dim;
    }
  }
  j["nullable"] = c.nullable;
  return j;
}

size_t LintReport::error_count() const {
  size_t n = 0;
  for (const LintQuery& q : queries) n += q.error ? 1 : 0;
  for (const LintFinding& f : findings) n += f.diagnostic.severity == Severity::kError ? 1 : 0;
  return n;
}

size_t LintReport::warning_count() const {
  size_t n = 0;
  for (const LintQuery& q : queries) n += q.warnings.size();
  for (const LintFinding& f : findings) n += f.diagnostic.severity == Severity::kWarning ? 1 : 0;
  return n;
}

OrderedJson LintReport::ToJson() const {
  OrderedJson j;
  j["status"] = ok() ? "ok" : "error";
  j["queries_processed"] = queries.size();
  j["errors"] = error_count();
  j["warnings"] = warning_count();
  j["infos"] = 0;
  OrderedJson qs = OrderedJson::array();
  for (const LintQuery& q : queries) {
    OrderedJson e;
    e["name"] = q.name;
    e["line"] = q.line;
    e["kind"] = QueryKindName(q.kind);
    e["params"] = OrderedJson::array();
    for (const OrderedJson& p : q.params) e["params"].push_back(p);
    if (q.description) e["description"] = *q.description;
    if (q.instruction) e["instruction"] = *q.instruction;
    e["status"] = q.error ? "error" : "ok";
    if (q.error) {
      e["error"] = q.error->Render();
      e["diagnostic"] = DiagnosticJson(*q.error);
    }
    e["warnings"] = q.warnings;
    if (!q.error) {
      OrderedJson op;
      op["result"] = OrderedJson::array();
      for (const ResultColumn& c : q.columns) op["result"].push_back(ColumnJson(c));
      op["reads"] = FactsJson(q.reads);
      op["writes"] = FactsJson(q.writes);
      e["operation"] = std::move(op);
    }
    qs.push_back(std::move(e));
  }
  j["results"] = std::move(qs);
  OrderedJson fs = OrderedJson::array();
  for (const LintFinding& f : findings) {
    OrderedJson e;
    e["severity"] = SeverityName(f.diagnostic.severity);
    e["code"] = f.diagnostic.code;
    e["message"] = f.diagnostic.message;
    if (f.has_position) e["position"] = PositionJson(f.diagnostic.span);
    if (!f.diagnostic.fix.empty()) e["fix"] = f.diagnostic.fix;
    if (!f.type_name.empty()) e["type_name"] = f.type_name;
    if (!f.property.empty()) e["property"] = f.property;
    if (!f.query_names.empty()) e["query_names"] = f.query_names;
    fs.push_back(std::move(e));
  }
  j["findings"] = std::move(fs);
  return j;
}

LintReport LintQuerySource(const schema::Catalog& catalog, std::string_view source) {
  LintReport report;
  ParseOutcome parsed = ParseQueries(source);
  if (parsed.error) {
    LintFinding f;
    f.diagnostic = *parsed.error;
    f.has_position = true;
    report.findings.push_back(std::move(f));
    return report;
  }
  const QueryFile& file = *parsed.file;
  for (const QueryDecl& decl : file.queries) {
    LintQuery q;
    q.name = decl.name.text;
    q.line = decl.span.begin.line;
    for (const Param& p : decl.params) q.params.push_back(ParamJson(p));
    q.description = decl.description;
    q.instruction = decl.instruction;
    q.kind = decl.is_mutation() ? QueryKind::kMutation : QueryKind::kRead;
    if (decl.is_mutation() && decl.params.empty()) q.warnings.push_back(kHardcodedMutationWarning);
    QueryCheck check = CheckQuery(catalog, decl);
    if (check.error) {
      q.error = std::move(check.error);
    } else {
      q.columns = std::move(check.checked->columns);
      q.reads = std::move(check.checked->reads);
      q.writes = std::move(check.checked->writes);
    }
    report.queries.push_back(std::move(q));
  }
  report.findings = UpdateCoverage(catalog, file, report.queries);
  return report;
}

}  // namespace omnigraph::query
