// omnigraph-bench table: write and scan speed of fragment files (.ogf) beside plain zstd.
//
// Rows of (id String, I64, F64, 50-byte String) are written as `--fragments` zstd-compressed
// fragments (default 8). The full scan opens each fragment with its recorded size, reads every
// column and hands every value to a consumer that folds it into a checksum (checked against the
// checksum of the source rows). The physical reference, in the same run, fetches the same column
// byte ranges from the same store, decompresses the same zstd buffers with plain
// ZSTD_decompressDCtx into a reused buffer and memcpys the result out. MB/s are megabytes
// (10^6) of uncompressed column buffers per second for both, so the ratio compares like with
// like. Each measurement is the best of --repeat runs.
//
// Table versions (src/table/table_store.h), on the same rows as one table of `--fragments`
// fragments: `lookup_p50_us` / `lookup_p99_us` are the latencies of single-id lookups of
// `--lookups` random ids (all four columns returned) on a warm version, after the id index was
// built once (`id_index_build_ms`, reported separately); `upsert_1pct_rows_per_s` stages an upsert
// of 1% of the rows (existing ids, new values) from a cold TableStore, so it includes reading the
// base's id column and building its index; `upsert_1pct_warm_rows_per_s` is the same upsert on a
// store whose cache already holds the base's index. The reference for a lookup is a
// std::unordered_map<std::string, size_t> find over the same ids in memory.
#include <zstd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/random.h"
#include "bench/bench.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "table/column_builder.h"
#include "table/fragment_reader.h"
#include "table/fragment_writer.h"
#include "table/table_store.h"

namespace omnigraph::bench {
namespace {

using table::Column;
using table::ColumnBatch;
using table::ColumnBuilder;
using table::DataType;
using table::TypeId;

#define TABLE_BENCH_CHECK(expr)                                                   \
  do {                                                                            \
    ::omnigraph::Status s_ = ::omnigraph::internal::ToStatus(expr);               \
    if (!s_.ok()) {                                                               \
      std::fprintf(stderr, "omnigraph-bench table: %s\n", s_.ToString().c_str()); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

constexpr size_t kPayloadBytes = 50;

// The source rows, generated before any timing.
struct Rows {
  std::vector<std::string> ids;
  std::vector<int64_t> counts;
  std::vector<double> scores;
  std::vector<std::string> payloads;
};

Rows Generate(uint64_t rows) {
  Random random(20240601);
  Rows out;
  static const char kWords[][8] = {"graph", "node",  "edge",   "table",
                                   "scan",  "store", "commit", "query"};
  for (uint64_t i = 0; i < rows; ++i) {
    char id[32];
    std::snprintf(id, sizeof(id), "person-%010llu", static_cast<unsigned long long>(i));
    out.ids.emplace_back(id);
    out.counts.push_back(random.Range(-1000000, 1000000));
    out.scores.push_back(random.NextDouble() * 100.0);
    // Text-like payloads: words and a number, so zstd has something to do (as with real data).
    std::string payload;
    while (payload.size() < kPayloadBytes) {
      payload += kWords[random.Uniform(8)];
      payload += ' ';
      payload += std::to_string(random.Uniform(1000));
      payload += ' ';
    }
    payload.resize(kPayloadBytes);
    out.payloads.push_back(std::move(payload));
  }
  return out;
}

table::Schema BenchSchema() {
  return {{1, "id", DataType::Scalar(TypeId::kString), false},
          {2, "count", DataType::Scalar(TypeId::kI64), false},
          {3, "score", DataType::Scalar(TypeId::kF64), false},
          {4, "payload", DataType::Scalar(TypeId::kString), false}};
}

// The consumer: folds every value into a checksum (a multiply-xor chain; strings by XXH3).
struct Checksum {
  uint64_t h = 0;
  void Fold(uint64_t v) { h = (h ^ v) * 0x9E3779B97F4A7C15ull + 1; }
  void FoldNull() { Fold(0x6E756C6Cull); }
  void FoldString(const char* data, size_t size) { Fold(XXH3_64bits(data, size)); }
};

// Hands every value of `column` to the consumer, iterating over raw spans (no per-value calls
// through the column).
void Consume(const Column& column, Checksum& sum) {
  const uint64_t n = column.length();
  const bool has_nulls = column.null_count() > 0;
  switch (column.type().id) {
    case TypeId::kI64: {
      const int64_t* v = column.values<int64_t>().data();
      for (uint64_t i = 0; i < n; ++i) {
        if (has_nulls && column.IsNull(i)) {
          sum.FoldNull();
        } else {
          sum.Fold(static_cast<uint64_t>(v[i]));
        }
      }
      break;
    }
    case TypeId::kF64: {
      const double* v = column.values<double>().data();
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t bits;
        std::memcpy(&bits, &v[i], 8);
        if (has_nulls && column.IsNull(i)) {
          sum.FoldNull();
        } else {
          sum.Fold(bits);
        }
      }
      break;
    }
    case TypeId::kString: {
      const int32_t* o = column.offsets().data();
      const char* bytes = column.value_bytes();
      for (uint64_t i = 0; i < n; ++i) {
        if (has_nulls && column.IsNull(i)) {
          sum.FoldNull();
        } else {
          sum.FoldString(bytes + o[i], static_cast<size_t>(o[i + 1] - o[i]));
        }
      }
      break;
    }
    default: std::fprintf(stderr, "unexpected column type\n"); std::exit(1);
  }
}

struct Fragment {
  std::string name;
  uint64_t size_bytes;
  uint64_t begin_row, end_row;
};

ColumnBatch BuildBatch(const Rows& rows, uint64_t begin, uint64_t end) {
  ColumnBuilder id(DataType::Scalar(TypeId::kString), false);
  ColumnBuilder count(DataType::Scalar(TypeId::kI64), false);
  ColumnBuilder score(DataType::Scalar(TypeId::kF64), false);
  ColumnBuilder payload(DataType::Scalar(TypeId::kString), false);
  id.Reserve(end - begin, (end - begin) * rows.ids[begin].size());
  count.Reserve(end - begin);
  score.Reserve(end - begin);
  payload.Reserve(end - begin, (end - begin) * kPayloadBytes);
  for (uint64_t i = begin; i < end; ++i) {
    id.AppendString(rows.ids[i]);
    count.Append<int64_t>(rows.counts[i]);
    score.Append<double>(rows.scores[i]);
    payload.AppendString(rows.payloads[i]);
  }
  std::vector<Column> columns;
  for (ColumnBuilder* b : {&id, &count, &score, &payload}) {
    Result<Column> column = b->Finish();
    TABLE_BENCH_CHECK(column.status());
    columns.push_back(std::move(column).value());
  }
  return ColumnBatch(BenchSchema(), std::move(columns), end - begin);
}

// The full (or projected) scan; returns the checksum and adds the uncompressed bytes decoded.
uint64_t Scan(storage::ObjectStore& store, const std::vector<Fragment>& fragments,
              const std::vector<uint32_t>& field_ids, uint64_t* bytes) {
  Checksum sum;
  for (const Fragment& fragment : fragments) {
    auto reader = table::OpenFragment(store, fragment.name, fragment.size_bytes);
    TABLE_BENCH_CHECK(reader.status());
    Result<ColumnBatch> batch = (*reader)->Read(field_ids);
    TABLE_BENCH_CHECK(batch.status());
    for (size_t c = 0; c < batch->num_columns(); ++c) {
      Consume(batch->column(c), sum);
      const auto& meta =
          (*reader)->footer().columns[(*reader)->footer().FindColumn(batch->field(c).id)];
      for (const auto& buffer : meta.buffers) *bytes += buffer.uncompressed_bytes;
    }
  }
  return sum.h;
}

// What plain zstd does with the same bytes: the column ranges, fetched the same way, each
// buffer decompressed into a reused buffer and copied out.
struct ReferenceColumn {
  std::string name;
  storage::ByteRange range;
  std::vector<table::BufferMeta> buffers;
};

uint64_t Reference(storage::ObjectStore& store, const std::vector<ReferenceColumn>& columns,
                   std::vector<char>& scratch, std::vector<char>& out) {
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  uint64_t bytes = 0;
  for (const ReferenceColumn& column : columns) {
    Result<storage::GetResult> got = store.Get(column.name, column.range);
    TABLE_BENCH_CHECK(got.status());
    for (const table::BufferMeta& buffer : column.buffers) {
      const char* src = got->data.data() + (buffer.offset - column.range.offset);
      size_t n = buffer.uncompressed_bytes;
      if (scratch.size() < n) scratch.resize(n);
      if (out.size() < n) out.resize(n);
      if (buffer.codec == table::Codec::kZstd) {
        size_t r = ZSTD_decompressDCtx(dctx, scratch.data(), n, src, buffer.stored_bytes);
        if (ZSTD_isError(r) || r != n) {
          std::fprintf(stderr, "reference decompression failed\n");
          std::exit(1);
        }
        std::memcpy(out.data(), scratch.data(), n);
      } else {
        std::memcpy(out.data(), src, n);
      }
      bytes += n;
    }
  }
  ZSTD_freeDCtx(dctx);
  return bytes;
}

// The rows [begin, end) as a batch of the table schema (the id column under its reserved id).
ColumnBatch BuildTableBatch(const Rows& rows, uint64_t begin, uint64_t end) {
  ColumnBatch plain = BuildBatch(rows, begin, end);
  table::Schema schema = BenchSchema();
  schema[0].id = table::kIdFieldId;
  return ColumnBatch(schema, plain.ReleaseColumns(), end - begin);
}

struct TableNumbers {
  double create_rows_per_s = 0;
  double id_index_build_ms = 0;
  double lookup_p50_us = 0;
  double lookup_p99_us = 0;
  double reference_lookup_p50_us = 0;
  double upsert_1pct_rows_per_s = 0;
  double upsert_1pct_warm_rows_per_s = 0;
};

TableNumbers TableVersions(std::shared_ptr<storage::ObjectStore> store, const Rows& source,
                           uint64_t rows, uint64_t fragment_count, uint64_t lookups) {
  TableNumbers out;
  table::TableStoreOptions options;
  options.fragment_rows_max = std::max<uint64_t>(1, (rows + fragment_count - 1) / fragment_count);
  options.cache_bytes = 2ull << 30;
  storage::Runtime runtime = storage::Runtime::ForStore(store, 2);
  table::TableStore tables(runtime, options);
  ColumnBatch all = BuildTableBatch(source, 0, rows);
  const table::NewTable spec{TableId{0xBE, 1}, "Bench", all.schema()};
  int64_t t0 = NowNanos();
  Result<TablePin> pin = tables.Create(spec, all, table::StagedAgainst{"main", 0});
  TABLE_BENCH_CHECK(pin.status());
  out.create_rows_per_s = static_cast<double>(rows) / (static_cast<double>(NowNanos() - t0) / 1e9);
  auto version = tables.Open(*pin);
  TABLE_BENCH_CHECK(version.status());

  Random random(7);
  t0 = NowNanos();
  TABLE_BENCH_CHECK((*version)->Lookup(std::vector<std::string>{source.ids[0]}).status());
  out.id_index_build_ms = static_cast<double>(NowNanos() - t0) / 1e6;
  std::vector<double> samples, reference;
  std::unordered_map<std::string, size_t> map;
  map.reserve(rows);
  for (uint64_t i = 0; i < rows; ++i) map.emplace(source.ids[i], i);
  size_t sink = 0;
  for (uint64_t i = 0; i < lookups; ++i) {
    const std::string& id = source.ids[random.Uniform(rows)];
    t0 = NowNanos();
    Result<table::LookupResult> found = (*version)->Lookup(std::span(&id, 1));
    samples.push_back(static_cast<double>(NowNanos() - t0) / 1e3);
    TABLE_BENCH_CHECK(found.status());
    if (found->rows.num_rows() != 1) {
      std::fprintf(stderr, "omnigraph-bench table: lookup of %s found nothing\n", id.c_str());
      std::exit(1);
    }
    t0 = NowNanos();
    sink += map.find(id)->second;
    reference.push_back(static_cast<double>(NowNanos() - t0) / 1e3);
  }
  if (sink == 0xFFFFFFFF) std::printf("%zu", sink);
  out.lookup_p50_us = Percentile(samples, 50);
  out.lookup_p99_us = Percentile(samples, 99);
  out.reference_lookup_p50_us = Percentile(reference, 50);

  // 1% of the rows, existing ids spread over the table, with new values.
  const uint64_t count = std::max<uint64_t>(1, rows / 100);
  Rows changed;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t row = (i * 7919 * 101) % rows;
    changed.ids.push_back(source.ids[row]);
    changed.counts.push_back(source.counts[row] + 1);
    changed.scores.push_back(source.scores[row] * 2);
    changed.payloads.push_back(source.payloads[row]);
  }
  ColumnBatch upsert = BuildTableBatch(changed, 0, count);
  table::TableStore cold(runtime, options);
  t0 = NowNanos();
  Result<TablePin> next = cold.Upsert(*pin, upsert, table::StagedAgainst{"main", 1});
  TABLE_BENCH_CHECK(next.status());
  out.upsert_1pct_rows_per_s =
      static_cast<double>(count) / (static_cast<double>(NowNanos() - t0) / 1e9);
  t0 = NowNanos();
  next = tables.Upsert(*pin, upsert, table::StagedAgainst{"main", 1});
  TABLE_BENCH_CHECK(next.status());
  out.upsert_1pct_warm_rows_per_s =
      static_cast<double>(count) / (static_cast<double>(NowNanos() - t0) / 1e9);
  auto after = tables.Open(*next);
  TABLE_BENCH_CHECK(after.status());
  if ((*after)->entity_count() != rows) {
    std::fprintf(stderr, "omnigraph-bench table: upsert changed the row count\n");
    std::exit(1);
  }
  return out;
}

int Main(const std::vector<std::string>& args) {
  Flags flags(args, {"backend", "rows", "fragments", "level", "repeat", "json", "root", "lookups"});
  if (!flags.error().empty()) {
    std::fprintf(stderr,
                 "omnigraph-bench table: %s\nusage: omnigraph-bench table --backend "
                 "memory|file [--rows 1000000] [--fragments 8] [--level 3] "
                 "[--repeat 3] [--lookups 10000] [--root DIR] [--json]\n",
                 flags.error().c_str());
    return 2;
  }
  const std::string backend = flags.Get("backend", "memory");
  const uint64_t rows = static_cast<uint64_t>(flags.GetInt("rows", 1000000));
  const uint64_t fragment_count = static_cast<uint64_t>(flags.GetInt("fragments", 8));
  const int repeat = static_cast<int>(flags.GetInt("repeat", 3));
  const uint64_t lookups = static_cast<uint64_t>(flags.GetInt("lookups", 10000));
  table::FragmentWriteOptions options;
  options.zstd_level = static_cast<int>(flags.GetInt("level", 3));
  if (rows == 0 || fragment_count == 0 || repeat < 1) {
    std::fprintf(stderr, "omnigraph-bench table: --rows, --fragments and --repeat must be > 0\n");
    return 2;
  }

  std::shared_ptr<storage::ObjectStore> store;
  std::string dir;
  if (backend == "memory") {
    store = std::make_shared<storage::MemoryStore>("table-bench");
  } else if (backend == "file") {
    std::string root = flags.Get("root", std::filesystem::temp_directory_path().string());
    dir = root + "/omnigraph-table-bench-" + std::to_string(NowNanos());
    auto local = storage::LocalStore::Open(dir);
    TABLE_BENCH_CHECK(local.status());
    store = std::move(local).value();
  } else {
    std::fprintf(stderr, "omnigraph-bench table: unknown backend '%s' (memory, file)\n",
                 backend.c_str());
    return 2;
  }

  const Rows source = Generate(rows);
  uint64_t expected = 0;
  {
    Checksum sum;
    // The scan folds column by column within each fragment.
    std::vector<Fragment> layout;
    for (uint64_t f = 0; f < fragment_count; ++f) {
      uint64_t begin = rows * f / fragment_count, end = rows * (f + 1) / fragment_count;
      for (uint64_t i = begin; i < end; ++i)
        sum.FoldString(source.ids[i].data(), source.ids[i].size());
      for (uint64_t i = begin; i < end; ++i) sum.Fold(static_cast<uint64_t>(source.counts[i]));
      for (uint64_t i = begin; i < end; ++i) {
        uint64_t bits;
        std::memcpy(&bits, &source.scores[i], 8);
        sum.Fold(bits);
      }
      for (uint64_t i = begin; i < end; ++i)
        sum.FoldString(source.payloads[i].data(), kPayloadBytes);
    }
    expected = sum.h;
  }

  // Write: build the columns and write each fragment.
  std::vector<Fragment> fragments;
  uint64_t stored_bytes = 0;
  const int64_t write_start = NowNanos();
  for (uint64_t f = 0; f < fragment_count; ++f) {
    const uint64_t begin = rows * f / fragment_count, end = rows * (f + 1) / fragment_count;
    ColumnBatch batch = BuildBatch(source, begin, end);
    const std::string name = "tables/bench/data/" + std::to_string(f) + ".ogf";
    Result<table::WrittenFragment> written = table::WriteFragment(*store, name, batch, options);
    TABLE_BENCH_CHECK(written.status());
    fragments.push_back(Fragment{name, written->size_bytes, begin, end});
    stored_bytes += written->size_bytes;
  }
  const double write_s = static_cast<double>(NowNanos() - write_start) / 1e9;

  // The reference's plan: every column's range and buffers (from the footers, untimed).
  std::vector<ReferenceColumn> reference_columns;
  for (const Fragment& fragment : fragments) {
    auto reader = table::OpenFragment(*store, fragment.name, fragment.size_bytes);
    TABLE_BENCH_CHECK(reader.status());
    for (const table::ColumnMeta& column : (*reader)->footer().columns) {
      reference_columns.push_back(ReferenceColumn{
          fragment.name, {column.begin(), column.end() - column.begin()}, column.buffers});
    }
  }

  const std::vector<uint32_t> all_fields = {1, 2, 3, 4}, one_field = {2};
  double scan_s = 1e30, one_s = 1e30, reference_s = 1e30;
  uint64_t scan_bytes = 0, one_bytes = 0, reference_bytes = 0;
  std::vector<char> scratch, out;
  for (int r = 0; r < repeat; ++r) {
    uint64_t bytes = 0;
    int64_t t0 = NowNanos();
    const uint64_t checksum = Scan(*store, fragments, all_fields, &bytes);
    scan_s = std::min(scan_s, static_cast<double>(NowNanos() - t0) / 1e9);
    scan_bytes = bytes;
    if (checksum != expected) {
      std::fprintf(stderr, "omnigraph-bench table: scan checksum %llx, expected %llx\n",
                   static_cast<unsigned long long>(checksum),
                   static_cast<unsigned long long>(expected));
      return 1;
    }
    bytes = 0;
    t0 = NowNanos();
    Scan(*store, fragments, one_field, &bytes);
    one_s = std::min(one_s, static_cast<double>(NowNanos() - t0) / 1e9);
    one_bytes = bytes;
    t0 = NowNanos();
    reference_bytes = Reference(*store, reference_columns, scratch, out);
    reference_s = std::min(reference_s, static_cast<double>(NowNanos() - t0) / 1e9);
  }
  const TableNumbers t =
      TableVersions(store, source, rows, fragment_count, std::max<uint64_t>(1, lookups));
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  const double n = static_cast<double>(rows);
  const double write_rows_per_s = n / write_s;
  const double scan_rows_per_s = n / scan_s;
  const double scan_mb_per_s = static_cast<double>(scan_bytes) / 1e6 / scan_s;
  const double one_rows_per_s = n / one_s;
  const double one_mb_per_s = static_cast<double>(one_bytes) / 1e6 / one_s;
  const double reference_mb_per_s = static_cast<double>(reference_bytes) / 1e6 / reference_s;
  const double ratio = scan_mb_per_s / reference_mb_per_s;
  if (flags.Has("json")) {
    std::printf(
        "{\"backend\":\"%s\",\"rows\":%llu,\"fragments\":%llu,\"zstd_level\":%d,\"repeat\":%d,"
        "\"stored_bytes\":%llu,\"uncompressed_bytes\":%llu,\"write_rows_per_s\":%.0f,"
        "\"scan_rows_per_s\":%.0f,\"scan_mb_per_s\":%.1f,\"one_column_scan_rows_per_s\":%.0f,"
        "\"one_column_scan_mb_per_s\":%.1f,\"reference_mb_per_s\":%.1f,"
        "\"scan_to_reference_ratio\":%.3f,\"checksum\":\"%016llx\",\"table_create_rows_per_s\":%."
        "0f,"
        "\"id_index_build_ms\":%.1f,\"lookups\":%llu,\"lookup_p50_us\":%.2f,\"lookup_p99_us\":%.2f,"
        "\"reference_lookup_p50_us\":%.3f,\"upsert_1pct_rows_per_s\":%.0f,"
        "\"upsert_1pct_warm_rows_per_s\":%.0f}\n",
        backend.c_str(), static_cast<unsigned long long>(rows),
        static_cast<unsigned long long>(fragment_count), options.zstd_level, repeat,
        static_cast<unsigned long long>(stored_bytes), static_cast<unsigned long long>(scan_bytes),
        write_rows_per_s, scan_rows_per_s, scan_mb_per_s, one_rows_per_s, one_mb_per_s,
        reference_mb_per_s, ratio, static_cast<unsigned long long>(expected), t.create_rows_per_s,
        t.id_index_build_ms, static_cast<unsigned long long>(lookups), t.lookup_p50_us,
        t.lookup_p99_us, t.reference_lookup_p50_us, t.upsert_1pct_rows_per_s,
        t.upsert_1pct_warm_rows_per_s);
  } else {
    std::printf("table bench: backend=%s rows=%llu fragments=%llu zstd level %d\n", backend.c_str(),
                static_cast<unsigned long long>(rows),
                static_cast<unsigned long long>(fragment_count), options.zstd_level);
    std::printf("  stored %.1f MB for %.1f MB of column buffers\n",
                static_cast<double>(stored_bytes) / 1e6, static_cast<double>(scan_bytes) / 1e6);
    std::printf("  write            %12.0f rows/s\n", write_rows_per_s);
    std::printf("  full scan        %12.0f rows/s  %8.1f MB/s\n", scan_rows_per_s, scan_mb_per_s);
    std::printf("  one-column scan  %12.0f rows/s  %8.1f MB/s\n", one_rows_per_s, one_mb_per_s);
    std::printf("  zstd + memcpy    %12s         %8.1f MB/s\n", "", reference_mb_per_s);
    std::printf("  scan / reference %12.3f\n", ratio);
    std::printf("  table create     %12.0f rows/s\n", t.create_rows_per_s);
    std::printf("  id index build   %12.1f ms\n", t.id_index_build_ms);
    std::printf("  lookup by id     p50 %8.2f us  p99 %8.2f us  (hash map p50 %.3f us)\n",
                t.lookup_p50_us, t.lookup_p99_us, t.reference_lookup_p50_us);
    std::printf("  upsert 1%%        %12.0f rows/s cold  %12.0f rows/s warm\n",
                t.upsert_1pct_rows_per_s, t.upsert_1pct_warm_rows_per_s);
  }
  return 0;
}

Registrar reg("table",
              "fragment write and scan speed beside plain zstd decompression (--backend "
              "memory|file [--rows N] [--json])",
              &Main);

}  // namespace
}  // namespace omnigraph::bench
