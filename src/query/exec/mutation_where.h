// The Boolean `where` of an update or delete (Mutation::condition; docs/design/
// query-language.md "Mutation where"): evaluated against one current row of the target type,
// three-valued (query/exec/bool_eval.h); the row matches only when the condition is true. Bare
// names are the row's properties (`from`/`to` an edge's endpoints), `@id`, `@src`, `@dst` its
// identity and endpoints; parameters, literals and now() are constants of the invocation.
// Pure; thread-safe.
#pragma once

#include "base/status.h"
#include "query/parse/ast.h"
#include "query/plan/mutation.h"

namespace omnigraph::query {

// Whether `row` of `type` satisfies `condition`. InvalidArgument for a missing parameter or a
// name the type does not have (the typechecker rejects both first).
Result<bool> RowMatches(const Expr& condition, const schema::TypeDef& type, const EntityRow& row,
                        const MutationContext& context);

// The value of a constant expression (an assignment's or a predicate's `$age > 30`): literals,
// parameters, now() and Boolean forms over them. InvalidArgument for anything else.
Result<schema::Value> EvalConstant(const Expr& e, const MutationContext& context);

}  // namespace omnigraph::query
