// Test helpers for the commit layer: a graph root with a genesis of three tables, and a publish
// step that bumps one table's pin.
#pragma once

#include <memory>
#include <string>

#include "commit/stream.h"
#include "storage/counting_store.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/test_util.h"

namespace omnigraph::commit::testing {

inline Registration TestRegistration(uint64_t id, std::string key) {
  return Registration{id, 1, std::move(key), id == 3 ? "edge" : "node", Json::object()};
}

inline TablePin TestPin(uint64_t id, const std::string& key, uint64_t version) {
  return TablePin{id,
                  1,
                  key,
                  version,
                  (1ULL << 63) | (id << 32) | version,
                  "tx-" + std::to_string(id) + "-" + std::to_string(version),
                  version * 10,
                  Json::object()};
}

// Genesis content: node:Person (1), node:Company (2), edge:WorksAt (3), each pinned at version 0.
inline RecordContent TestGenesis() {
  RecordContent c;
  c.schema = SchemaRef{"graph-1", "sha256:abc", 1, "def", Json::object()};
  const char* keys[] = {"node:Person", "node:Company", "edge:WorksAt"};
  for (uint64_t id = 1; id <= 3; ++id) {
    c.registrations.push_back(TestRegistration(id, keys[id - 1]));
    c.pins.push_back(TestPin(id, keys[id - 1], 0));
  }
  return c;
}

// A stage step that pins table (seq % 3) + 1 at version seq + 1.
inline StageFn BumpOneTable() {
  return [](const GraphState& base) -> Result<RecordContent> {
    RecordContent c;
    uint64_t id = base.seq % 3 + 1;
    const TableState& t = base.tables.at(TableId{id, 1});
    c.pins.push_back(TestPin(id, t.registration.table_key, base.seq + 1));
    return c;
  };
}

// A store stack for one test: backend (memory or local dir) under a CountingStore.
struct TestStore {
  explicit TestStore(bool local) {
    std::shared_ptr<storage::ObjectStore> inner;
    if (local) {
      dir = std::make_unique<storage::TempDir>();
      inner = std::shared_ptr<storage::ObjectStore>(*storage::LocalStore::Open(dir->path()));
    } else {
      inner = std::make_shared<storage::MemoryStore>();
    }
    counting = std::make_shared<storage::CountingStore>(inner);
    runtime = storage::Runtime::ForTest(counting, 7);
  }
  std::unique_ptr<storage::TempDir> dir;
  std::shared_ptr<storage::CountingStore> counting;
  storage::Runtime runtime;
};

}  // namespace omnigraph::commit::testing
