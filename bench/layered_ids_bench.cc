// omnigraph-bench layered-ids: the in-memory part of the first read of a new table version after
// a one-row insert (issue [36]; docs/benchmarks.md "The first read of a new version"). An id
// index of N rows is extended by a one-row delta the old way (ApplyIdsDelta: a new flat array,
// every id copied) and the new way (IdIndex::Extend: a layer over the held index), and then a
// point read's calls are made on it (Find, Position, IdAt and RefAt of one id). Each run extends
// the previous run's index, as a warm reader following a write flood does. Reported: the median
// and p90 time per version, and the entries each way writes.
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "table/index_delta.h"
#include "table/layered_ids.h"

namespace omnigraph::bench {
namespace {

using table::IdIndex;

struct Chain {
  IdIndex index;
  table::TableManifest manifest;
};

IdIndex BaseIndex(int64_t rows, table::TableManifest& manifest) {
  std::string blob;
  std::vector<uint32_t> ends;
  std::vector<table::RowRef> refs;
  for (int64_t i = 0; i < rows; ++i) {
    blob += "p" + std::to_string(1000000 + i);
    ends.push_back(static_cast<uint32_t>(blob.size()));
    refs.push_back(table::RowRef{0, static_cast<uint32_t>(i)});
  }
  manifest.fragments.push_back(
      table::FragmentEntry{"f0", "data/f0.ogf", static_cast<uint64_t>(rows), 0, {}});
  manifest.entity_count = static_cast<uint64_t>(rows);
  return IdIndex(std::move(blob), std::move(ends), std::move(refs));
}

// One version: a one-row insert, then a point read's calls. Returns ns; adds entries written.
int64_t Version(Chain& chain, int64_t serial, bool layered, uint64_t& entries) {
  table::TableManifest next = chain.manifest;
  next.fragments.push_back(table::FragmentEntry{"n" + std::to_string(serial), "", 1, 0, {}});
  next.entity_count += 1;
  table::IdsDelta delta;
  delta.added.blob = "x" + std::to_string(1000000 + serial);
  delta.added.ends = {static_cast<uint32_t>(delta.added.blob.size())};
  delta.refs = {table::RowRef{static_cast<uint32_t>(next.fragments.size() - 1), 0}};
  const std::string probe = "p" + std::to_string(1000000 + (serial * 7919) % 1000);
  const int64_t start = NowNanos();
  Result<IdIndex> out =
      layered ? chain.index.Extend(chain.manifest, delta, next, "bench")
              : table::ApplyIdsDelta(chain.index, chain.manifest, delta, next, "bench");
  if (!out.ok()) {
    std::fprintf(stderr, "%s\n", out.status().ToString().c_str());
    return -1;
  }
  const int64_t at = out->Position(probe);
  const bool ok = out->Find(probe) != nullptr && at >= 0 &&
                  out->IdAt(static_cast<size_t>(at)) == probe &&
                  out->RefAt(static_cast<size_t>(at)).source == 0;
  const int64_t took = NowNanos() - start;
  if (!ok) return -1;
  entries += out->entries_merged();
  chain.index = std::move(*out);
  chain.manifest = std::move(next);
  return took;
}

int Main(const std::vector<std::string>& args) {
  Flags flags(args, {"rows", "versions"});
  if (!flags.error().empty()) {
    std::fprintf(stderr, "omnigraph-bench layered-ids: %s\n", flags.error().c_str());
    return 2;
  }
  const int64_t versions = flags.GetInt("versions", 200);
  std::printf(
      "| rows | way | p50 us | p90 us | entries written per version |\n|---|---|---|---|---|\n");
  for (int64_t rows : flags.GetIntList("rows", {1000, 10000, 50000})) {
    for (bool layered : {false, true}) {
      Chain chain;
      chain.index = BaseIndex(rows, chain.manifest);
      std::vector<double> us;
      uint64_t entries = 0;
      for (int64_t v = 0; v < versions; ++v) {
        const int64_t ns = Version(chain, v, layered, entries);
        if (ns < 0) {
          std::fprintf(stderr, "omnigraph-bench layered-ids: a version failed\n");
          return 1;
        }
        us.push_back(static_cast<double>(ns) / 1000.0);
      }
      const double p50 = Percentile(us, 50);
      const double p90 = Percentile(us, 90);
      std::printf("| %lld | %s | %.1f | %.1f | %.1f |\n", static_cast<long long>(rows),
                  layered ? "layered" : "flat merge", p50, p90,
                  static_cast<double>(entries) / static_cast<double>(versions));
    }
  }
  return 0;
}

Registrar registrar("layered-ids", "the id index of a new version: flat merge against a layer",
                    &Main);

}  // namespace
}  // namespace omnigraph::bench
