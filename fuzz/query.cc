// Fuzz harness: the .gq query parser and typechecker (docs/design/fuzzing.md). Input: a .pg
// schema and a .gq file (fuzz::Split); the file is parsed, and each query it declares is
// type-checked against the schema when the schema is accepted. The corpus pairs the shared
// cookbooks' schemas with their query files.
#include "fuzz_util.h"
#include "query/check/typecheck.h"
#include "query/parse/parser.h"
#include "schema/catalog.h"
#include "schema/identity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  auto [schema_source, source] = fuzz::Split(fuzz::Bytes(data, size));
  Result<query::QueryFile> file = query::ParseQueryFile(source);
  fuzz::ExpectNamed(file, "");
  if (!file.ok()) return 0;
  Result<schema::SchemaIr> ir = schema::AcceptInitial(schema_source);
  if (!ir.ok()) return 0;
  Result<schema::Catalog> catalog = schema::Catalog::Build(std::move(*ir));
  if (!catalog.ok()) return 0;
  for (const query::QueryDecl& decl : file->queries) {
    fuzz::ExpectNamed(query::TypecheckQuery(*catalog, decl), "");
  }
  if (file->statement) {
    fuzz::ExpectNamed(query::CheckBranchStatement(*file->statement, true), "");
    fuzz::ExpectNamed(query::CheckBranchStatement(*file->statement, false), "");
  }
  return 0;
}
