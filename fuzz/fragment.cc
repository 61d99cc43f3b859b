// Fuzz harness: a fragment file (.ogf): open it (tail, footer) and read every column, then read a
// few rows of each column as a point lookup does (FragmentReader::ReadRows: a fixed-width
// column's frames around a row, another scalar column's prefix), which must give the whole read's
// values whenever both succeed (docs/design/fuzzing.md; decision 219).
#include "fuzz_util.h"
#include "storage/memory_store.h"
#include "table/fragment_reader.h"
#include "table/row_gather.h"

namespace {

using namespace omnigraph;

// Reads rows [begin, end) of `field` (index `c` of the whole read `whole`) and checks them.
void CheckRows(const table::FragmentReader& reader, const table::ColumnBatch* whole, size_t c,
               uint32_t field, uint64_t begin, uint64_t end) {
  const uint32_t ids[] = {field};
  const table::RowRange rows[] = {{begin, end}};
  Result<std::vector<table::Column>> part = reader.ReadRows(ids, rows);
  fuzz::ExpectNamed(part, reader.name());
  if (!part.ok() || whole == nullptr) return;
  if ((*part)[0].length() != end - begin) fuzz::Finding("ReadRows gave the wrong row count");
  for (uint64_t row = begin; row < end; ++row) {
    std::string want, have;
    table::AppendValueImage(want, whole->column(c), row);
    table::AppendValueImage(have, (*part)[0], row - begin);
    if (want != have) fuzz::Finding("ReadRows differs from the whole read");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in = fuzz::Bytes(data, size);
  static storage::MemoryStore store;
  const std::string name = "tables/1-1/data/f.ogf";
  if (!store.Put(name, in).ok()) fuzz::Finding("memory store put failed");
  auto reader = table::OpenFragment(store, name, size);
  fuzz::ExpectNamed(reader, name);
  if (!reader.ok()) return 0;
  Result<table::ColumnBatch> all = (*reader)->ReadAll();
  fuzz::ExpectNamed(all, name);
  const table::ColumnBatch* whole = all.ok() ? &*all : nullptr;
  const table::FragmentFooter& footer = (*reader)->footer();
  const uint64_t n = footer.num_rows;
  for (size_t c = 0; c < footer.columns.size() && n > 0; ++c) {
    const uint32_t field = footer.columns[c].field.id;
    if ((*reader)->RangeDecodable(field)) {
      CheckRows(**reader, whole, c, field, n / 3, n / 3 + 1);
      CheckRows(**reader, whole, c, field, n - 1, n);
    } else if (table::PrefixDecodable(footer.columns[c].field.type)) {
      CheckRows(**reader, whole, c, field, 0, 1 + n / 2);
    }
  }
  return 0;
}
