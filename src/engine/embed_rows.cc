#include "engine/embed_rows.h"

#include <vector>

namespace omnigraph::engine {

using schema::Value;

bool HasEmbeds(const schema::TypeDef& type) {
  for (const schema::PropertyDef& p : type.properties) {
    if (p.embed) return true;
  }
  return false;
}

namespace {

// The vectors of `texts` into the rows `targets` of property `index`.
Status FillChunk(query::Embedder& embedder, const schema::TypeDef& type, size_t index,
                 const std::string& model, const std::vector<std::string>& texts,
                 const std::vector<size_t>& targets,
                 const std::function<Value&(size_t row, size_t property)>& at,
                 const std::function<std::string(size_t row)>& label) {
  const schema::PropertyDef& p = type.properties[index];
  const std::string what = type.name + "." + p.name;
  Result<std::vector<std::vector<float>>> vectors =
      embedder.Embed(texts, model, p.type.vector_dim, what);
  if (!vectors.ok()) {
    std::string where = label(targets.front());
    if (targets.size() > 1) where += " to " + label(targets.back());
    return Status(vectors.status().code(), where + ": @embed of property '" + p.name + "' of " +
                                               type.table_key() + ": " +
                                               vectors.status().message());
  }
  for (size_t k = 0; k < targets.size(); ++k) {
    std::vector<Value> items;
    items.reserve((*vectors)[k].size());
    for (float f : (*vectors)[k]) items.push_back(Value::Float(f));
    at(targets[k], index) = Value::List(std::move(items));
  }
  return Status::Ok();
}

}  // namespace

Status FillEmbeddings(query::LazyEmbedder& embedder, const schema::TypeDef& type, size_t rows,
                      const std::function<Value&(size_t row, size_t property)>& at,
                      const std::function<std::string(size_t row)>& label) {
  for (size_t index = 0; index < type.properties.size(); ++index) {
    const schema::PropertyDef& p = type.properties[index];
    if (!p.embed) continue;
    const schema::PropertyDef* source = type.FindPropertyById(p.embed->source_property_id);
    if (source == nullptr) source = type.FindProperty(p.embed->source_property);
    if (source == nullptr) {
      return Internal("@embed of " + type.name + "." + p.name + " names no property of the type");
    }
    const size_t source_index = static_cast<size_t>(source - type.properties.data());
    std::vector<std::string> texts;
    std::vector<size_t> targets;
    std::string model;
    auto flush = [&]() -> Status {
      if (texts.empty()) return Status::Ok();
      OMNIGRAPH_ASSIGN_OR_RETURN(query::Embedder * e, embedder.Get());
      if (model.empty()) {
        OMNIGRAPH_ASSIGN_OR_RETURN(model, e->ModelFor(*p.embed, type.name + "." + p.name));
      }
      Status s = FillChunk(*e, type, index, model, texts, targets, at, label);
      texts.clear();
      targets.clear();
      return s;
    };
    for (size_t row = 0; row < rows; ++row) {
      const Value& text = at(row, source_index);
      if (!at(row, index).is_null() || text.tag() != Value::Tag::kString) continue;
      texts.push_back(text.string_value());
      targets.push_back(row);
      if (texts.size() >= query::kEmbedBatchInputsMax) OMNIGRAPH_RETURN_IF_ERROR(flush());
    }
    OMNIGRAPH_RETURN_IF_ERROR(flush());
  }
  return Status::Ok();
}

}  // namespace omnigraph::engine
