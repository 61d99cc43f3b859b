// Fuzz harness: the .pg schema parser, checker and initial identity (docs/design/fuzzing.md).
#include "fuzz_util.h"
#include "schema/catalog.h"
#include "schema/identity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  Result<schema::SchemaIr> ir = schema::AcceptInitial(in);
  fuzz::ExpectNamed(ir, "");
  if (ir.ok()) fuzz::ExpectNamed(schema::Catalog::Build(std::move(*ir)), "");
  return 0;
}
