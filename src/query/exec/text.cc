// The full-text forms of the executor (text.h; docs/design/fulltext.md "Execution").
#include "query/exec/text.h"

#include "query/exec/operators.h"
#include "query/text/fulltext_version.h"
#include "table/table_context.h"

#include <algorithm>
#include <optional>
#include <tuple>

namespace omnigraph::query::exec {

using schema::Value;
using text::FullTextIndex;

namespace {

const char* FormName(ExprKind k) {
  switch (k) {
    case ExprKind::kSearch: return "search";
    case ExprKind::kFuzzy: return "fuzzy";
    case ExprKind::kMatchText: return "match_text";
    default: return "bm25";
  }
}

Result<FullTextIndex> BuildIndex(const TableImage& image, uint32_t field_id) {
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage::ChunkedColumn* column, image.Column(field_id));
  text::Analyzer analyzer;
  return FullTextIndex::Build(
      image.size(),
      [&](uint32_t row) -> std::optional<std::string_view> {
        const table::Column& c = column->chunk(row);
        const uint32_t i = TableImage::ChunkedColumn::row(row);
        if (c.IsNull(i)) return std::nullopt;
        return c.StringAt(i);
      },
      analyzer);
}

}  // namespace

Result<std::shared_ptr<const FullTextIndex>> ExecContext::TextIndex(
    const Slot& slot, const schema::PropertyDef& prop) {
  const schema::TypeDef& type = *slot.type;
  if (prop.type.scalar != schema::ScalarKind::kString || prop.type.list) {
    return InvalidArgument("full-text search needs a String property; `" + type.name + "." +
                           prop.name + "` is " + prop.type.DisplayName());
  }
  if (!text::HasFullTextIndex(type, prop)) {
    return InvalidArgument("full-text search on `" + type.name + "." + prop.name +
                           "` needs its inverted index: declare `" + prop.name +
                           ": String @index` on " + type.name +
                           " (full-text predicates never fall back to a scan)");
  }
  const uint32_t field_id = static_cast<uint32_t>(prop.id);
  const std::string kind = text::FullTextKind(prop.id);
  const table::TableVersion& version = slot.image->version();
  const std::string key = "fts:" + VersionKey(version) + ":" + kind;
  const std::string scope = view_.cache_scope();
  if (auto hit = options_.cache->FindShared(scope, key)) {
    return std::static_pointer_cast<const FullTextIndex>(hit);
  }
  // Read the stored index (a full one, or a chain of deltas over one); when absent, damaged or
  // broken, build it from the column and store it in full (replacing a delta).
  const TableImage& image = *slot.image;
  // The chain's ids are read by position, any of them (VersionIds cannot fail).
  OMNIGRAPH_RETURN_IF_ERROR(image.LoadIds());
  std::optional<FullTextIndex> built;
  Result<FullTextIndex> stored = text::ReadFullTextChain(
      version, kind,
      text::VersionIds{image.size(), [&](uint32_t dense) { return image.id(dense); }});
  if (stored.ok()) {
    built = std::move(*stored);
  } else if (stored.status().kind() == Kind::kNotFound) {
    OMNIGRAPH_ASSIGN_OR_RETURN(FullTextIndex index, BuildIndex(image, field_id));
    built = std::move(index);
    (void)version.WriteDerived(kind, built->Encode());
  } else if (stored.status().code() == Code::kCorruption) {
    // Damage inside a payload whose envelope decodes would be kept by WriteDerived: put over it.
    OMNIGRAPH_ASSIGN_OR_RETURN(FullTextIndex index, BuildIndex(image, field_id));
    built = std::move(index);
    (void)version.context().ReplaceDerived(version.manifest(), kind, built->Encode());
  } else {
    return stored.status();
  }
  if (built->rows() != slot.image->size()) {
    return Corruption("full-text index " + kind + " of " + type.name + " has " +
                      std::to_string(built->rows()) + " rows; the version has " +
                      std::to_string(slot.image->size()));
  }
  auto index = std::make_shared<const FullTextIndex>(std::move(*built));
  options_.cache->PutShared(scope, key, index);
  return index;
}

void TextMatch::Prepare(std::string_view query, uint32_t edits) {
  std::vector<std::string> terms = text::QueryTerms(analyzer_, query);
  if (kind_ == ExprKind::kMatchText) phrase_ = analyzer_.Terms(query);
  for (const std::string& t : terms) {
    const int64_t id = index_->Find(t);
    if (kind_ == ExprKind::kBm25) {
      ids_.push_back(id);
    } else if (kind_ == ExprKind::kFuzzy) {
      alternatives_.push_back(index_->FuzzyTerms(t, edits));
    } else {
      alternatives_.push_back(id < 0 ? std::vector<int64_t>{} : std::vector<int64_t>{id});
    }
  }
}

bool TextMatch::AllTermsIn(uint32_t dense) const {
  if (alternatives_.empty()) return false;  // A query without terms matches nothing.
  for (const std::vector<int64_t>& alt : alternatives_) {
    bool any = false;
    for (size_t i = 0; i < alt.size() && !any; ++i) any = index_->Tf(alt[i], dense) > 0;
    if (!any) return false;
  }
  return true;
}

bool TextMatch::PhraseIn(uint32_t dense) const {
  const table::Column& c = column_->chunk(dense);
  const uint32_t i = TableImage::ChunkedColumn::row(dense);
  if (c.IsNull(i)) return false;
  std::vector<std::string> doc = analyzer_.Terms(c.StringAt(i));
  return std::search(doc.begin(), doc.end(), phrase_.begin(), phrase_.end()) != doc.end();
}

Value TextMatch::Eval(uint32_t dense) const {
  if (kind_ == ExprKind::kBm25) {
    if (!index_->IsDoc(dense)) return Value::Null();
    return Value::Float(index_->Bm25(ids_, dense));
  }
  if (!AllTermsIn(dense)) return Value::Bool(false);
  return Value::Bool(kind_ != ExprKind::kMatchText || PhraseIn(dense));
}

Result<CExpr> CompileText(ExecContext& ctx, const Expr& e, const Frame& frame) {
  const char* name = FormName(e.kind);
  const Expr& field = e.args.at(0);
  if (field.kind != ExprKind::kProp) {
    return InvalidArgument(std::string(name) + " needs a property `$var.prop` as its field");
  }
  const int slot = frame.Find(field.var.text);
  if (slot < 0) return Internal("variable `$" + field.var.text + "` is not bound");
  const Slot& s = frame.slots[slot];
  const schema::PropertyDef* prop = s.type->FindProperty(field.prop.text);
  if (prop == nullptr) {
    return InvalidArgument("type `" + s.type->name + "` has no property `" + field.prop.text + "`");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const FullTextIndex> index, ctx.TextIndex(s, *prop));
  const TableImage::ChunkedColumn* column = nullptr;
  if (e.kind == ExprKind::kMatchText) {
    OMNIGRAPH_ASSIGN_OR_RETURN(column, s.image->Column(static_cast<uint32_t>(prop->id)));
  }
  const Expr& query_expr = e.args.at(1);
  if (query_expr.kind != ExprKind::kLiteral && query_expr.kind != ExprKind::kVariable) {
    return InvalidArgument(std::string(name) + " query must be a parameter or a literal");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Value query, ctx.ConstantOf(query_expr));
  uint32_t edits = text::kFuzzyEditsDefault;
  if (e.kind == ExprKind::kFuzzy && e.args.size() > 2) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Value v, ctx.ConstantOf(e.args[2]));
    const bool is_int = v.tag() == Value::Tag::kInt || v.tag() == Value::Tag::kUInt;
    const int64_t n = v.tag() == Value::Tag::kInt ? v.int_value()
                      : v.tag() == Value::Tag::kUInt
                          ? static_cast<int64_t>(std::min<uint64_t>(v.uint_value(), INT64_MAX))
                          : -1;
    if (!is_int || n < 0 || n > static_cast<int64_t>(text::kFuzzyEditsMax)) {
      return InvalidArgument("fuzzy max_edits must be an integer from 0 to " +
                             std::to_string(text::kFuzzyEditsMax) + ", got " + v.DebugString());
    }
    edits = static_cast<uint32_t>(n);
  }
  CExpr out;
  out.kind = CExpr::Kind::kText;
  out.slot = slot;
  auto match = std::make_shared<TextMatch>(e.kind, std::move(index), column);
  if (!query.is_null()) {
    if (query.tag() != Value::Tag::kString) {
      return InvalidArgument(std::string(name) + " query is not a String: " + query.DebugString());
    }
    match->Prepare(query.string_value(), edits);
  }
  out.text = std::move(match);
  return out;
}

Result<CExpr> CompileRrf(ExecContext& ctx, const Expr& e, const Frame& frame) {
  double k = 60;
  if (e.args.size() > 2) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Value v, ctx.ConstantOf(e.args[2]));
    k = v.tag() == Value::Tag::kInt     ? static_cast<double>(v.int_value())
        : v.tag() == Value::Tag::kUInt  ? static_cast<double>(v.uint_value())
        : v.tag() == Value::Tag::kFloat ? v.float_value()
                                        : -1;
    if (!(k >= 0))
      return InvalidArgument("rrf k must be a non-negative number, got " + v.DebugString());
  }
  std::vector<double> fused(frame.rows, 0);
  for (int i = 0; i < 2; ++i) {
    const Expr& arg = e.args.at(static_cast<size_t>(i));
    OMNIGRAPH_ASSIGN_OR_RETURN(CExpr c, ctx.Compile(arg, frame));
    const bool bm25 = arg.kind == ExprKind::kBm25;
    // (key, entity, row): nearest ranks by distance ascending, bm25 by score descending; a row
    // bm25 gives no score (no query term) is not in that ranking.
    std::vector<std::tuple<double, uint32_t, uint32_t>> ranked;
    for (uint32_t r = 0; r < frame.rows; ++r) {
      Value v = ctx.Eval(c, frame, r);
      if (v.is_null() || (bm25 && v.float_value() <= 0)) continue;
      ranked.emplace_back(bm25 ? -v.float_value() : v.float_value(), frame.cols[c.slot][r], r);
    }
    std::sort(ranked.begin(), ranked.end());
    uint64_t rank = 0;
    for (size_t j = 0; j < ranked.size(); ++j) {
      if (j == 0 || std::get<0>(ranked[j]) != std::get<0>(ranked[j - 1]) ||
          std::get<1>(ranked[j]) != std::get<1>(ranked[j - 1])) {
        ++rank;
      }
      fused[std::get<2>(ranked[j])] += 1.0 / (k + static_cast<double>(rank));
    }
  }
  auto values = std::make_shared<std::vector<Value>>();
  values->reserve(fused.size());
  for (double f : fused) values->push_back(Value::Float(f));
  CExpr out;
  out.kind = CExpr::Kind::kFrameValue;
  out.frame_values = std::move(values);
  return out;
}

Status RunOutput(ExecContext& ctx, OutputState& out, const Bm25Step& step) {
  if (out.materialized) return Internal("bm25 runs on frame rows, not result rows");
  OMNIGRAPH_ASSIGN_OR_RETURN(CExpr score, ctx.Compile(*step.expr, out.frame));
  std::vector<uint32_t> kept;
  kept.reserve(out.order.size());
  for (uint32_t r : out.order) {
    Value v = ctx.Eval(score, out.frame, r);
    if (!v.is_null() && v.float_value() > 0) kept.push_back(r);
  }
  out.order = std::move(kept);
  return Status::Ok();
}

}  // namespace omnigraph::query::exec
