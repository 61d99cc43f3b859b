// The syntax tree of a `.pg` file, as written, with source positions.
//
// The parser (parser.h) produces it; validation (validate.h) resolves interfaces, desugars
// property-level @key/@unique/@index into constraints and checks the rules of OmniGraph's schema
// language. Plain values; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schema/ir.h"
#include "schema/lexer.h"

namespace omnigraph::schema {

struct AstName {
  std::string name;
  SourcePos pos;
};

struct AstAnnotation {
  Annotation annotation;
  SourcePos pos;  // Of the '@'.
  bool has_args = false;
};

struct AstProperty {
  AstName name;
  PropType type;
  SourcePos type_pos;
  std::vector<AstAnnotation> annotations;
};

// A body-level constraint `@key(...)`, `@unique(...)`, `@index(...)`, `@range(...)`,
// `@check(...)`.
struct AstConstraint {
  ConstraintKind kind = ConstraintKind::kIndex;
  SourcePos pos;  // Of the '@'.
  std::vector<AstName> fields;
  std::optional<RangeBound> min;
  std::optional<RangeBound> max;
  std::string pattern;
  SourcePos pattern_pos;
};

struct AstType {
  TypeKind kind = TypeKind::kNode;
  AstName name;
  SourcePos decl_pos;  // Of the keyword.
  std::vector<AstAnnotation> annotations;
  std::vector<AstName> implements;  // Nodes.
  AstName from;                     // Edges.
  AstName to;                       // Edges.
  std::optional<Cardinality> card;  // Edges.
  SourcePos card_pos;
  std::vector<AstProperty> properties;
  std::vector<AstConstraint> constraints;
};

struct SchemaAst {
  std::vector<AstType> decls;  // Source order.
};

}  // namespace omnigraph::schema
