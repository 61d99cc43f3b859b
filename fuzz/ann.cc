// Fuzz harness: a vector index payload (derived kind annl2.N), opened through faiss and, when it
// decodes, searched (its lists, and its codes when it has them) (docs/design/fuzzing.md).
// OMNIGRAPH_FUZZ_PRINT=1 prints each outcome (to check that the seeds decode).
#include <cstdlib>
#include <vector>

#include "base/executor.h"
#include "fuzz_util.h"
#include "table/ann_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  Result<std::shared_ptr<const table::AnnIndex>> index = table::AnnIndex::Decode(in, "d.ann");
  fuzz::ExpectNamed(index, "d.ann");
  // An index that decodes is one a reader searches: every list probed, every answer a row.
  if (index.ok()) {
    const table::AnnIndex& ann = **index;
    const std::vector<float> query(ann.dim(), 1.0f);
    Result<std::vector<uint32_t>> near = ann.Search(query, 8, {}, ann.lists());
    if (!near.ok()) fuzz::Finding("search of a decoded index: " + near.status().ToString());
    for (uint32_t row : *near) {
      if (row >= ann.rows()) fuzz::Finding("search answered row " + std::to_string(row));
    }
    // Codes that decode are scanned (format 4, decision 224): every answer a row.
    if (ann.has_codes()) {
      InlineExecutor one;
      Result<std::vector<uint32_t>> coded = ann.SearchCodes(query, 8, one);
      if (!coded.ok()) fuzz::Finding("scan of decoded codes: " + coded.status().ToString());
      for (uint32_t row : *coded) {
        if (row >= ann.rows()) fuzz::Finding("codes answered row " + std::to_string(row));
      }
    }
  }
  if (std::getenv("OMNIGRAPH_FUZZ_PRINT") != nullptr) {
    std::fprintf(stderr, "ann: %s\n",
                 index.ok() ? ("indexed " + std::to_string((*index)->indexed())).c_str()
                            : index.status().ToString().c_str());
  }
  return 0;
}
