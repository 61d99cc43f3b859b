// The README's first command runs this demo: a local embedded graph root on the record protocol.
// It creates the main stream if the root is new, publishes three commits, reads the head cold
// from a fresh handle, travels back in time and prints the object operations each step cost.
//
// This program uses the engine's internal headers (commit/, storage/) on purpose, to show the
// protocol underneath the engine; it is not an example of the public API. That example is
// examples/embedded.cc, which uses include/omnigraph/ alone.
#include <cstdio>

#include "commit/stream.h"
#include "storage/counting_store.h"
#include "storage/uri.h"

using namespace omnigraph;

namespace {

int Fail(const Status& s) {
  std::fprintf(stderr, "omnigraph-demo: %s\n", s.ToString().c_str());
  return 1;
}

commit::RecordContent Genesis() {
  commit::RecordContent c;
  c.schema = commit::SchemaRef{"demo", "sha256:demo", 1, "demo", Json::object()};
  const char* keys[] = {"node:Person", "node:Company", "edge:WorksAt"};
  for (uint64_t id = 1; id <= 3; ++id) {
    c.registrations.push_back({id, 1, keys[id - 1], id == 3 ? "edge" : "node", Json::object()});
    c.pins.push_back({id, 1, keys[id - 1], 0, (1ULL << 63) | id, "tx-0", 0, Json::object()});
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "/tmp/omnigraph-demo";
  Result<std::shared_ptr<storage::ObjectStore>> opened = storage::OpenStore(root);
  if (!opened.ok()) return Fail(opened.status());
  auto counting = std::make_shared<storage::CountingStore>(*opened);
  storage::Runtime rt = storage::Runtime::ForStore(counting, 2);

  if (!counting->Head(commit::StreamMetadataName("main")).ok()) {
    Result<commit::Record> genesis = commit::CreateMainStream(rt, Genesis(), "demo");
    if (!genesis.ok()) return Fail(genesis.status());
    std::printf("created graph root %s (genesis %s)\n", root.c_str(), genesis->commit_id.c_str());
  }
  Result<std::unique_ptr<commit::Stream>> main = commit::Stream::Open(rt, "main");
  if (!main.ok()) return Fail(main.status());
  for (int i = 0; i < 3; ++i) {
    commit::PublishRequest request;
    request.actor = "demo";
    request.stage = [](const commit::GraphState& base) -> Result<commit::RecordContent> {
      commit::RecordContent c;
      TablePin pin = base.tables.at(TableId{1, 1}).pin;
      pin.target_version += 1;
      pin.entity_count += 100;
      c.pins.push_back(pin);
      return c;
    };
    storage::OpCounts before = counting->Snapshot();
    Result<commit::PublishResult> r = (*main)->Publish(request);
    if (!r.ok()) return Fail(r.status());
    (*main)->WaitForBackground();
    std::printf("published %s: %s\n", r->commit_id.c_str(),
                (counting->Snapshot() - before).ToString().c_str());
  }
  Result<std::unique_ptr<commit::Stream>> fresh = commit::Stream::Open(rt, "main");
  if (!fresh.ok()) return Fail(fresh.status());
  storage::OpCounts before = counting->Snapshot();
  Result<std::shared_ptr<const commit::GraphState>> head = (*fresh)->ReadHead();
  if (!head.ok()) return Fail(head.status());
  std::printf("cold read of main: seq %llu, head %s, node:Person has %llu rows (%s)\n",
              static_cast<unsigned long long>((*head)->seq), (*head)->head_commit_id.c_str(),
              static_cast<unsigned long long>((*head)->FindByKey("node:Person")->pin.entity_count),
              (counting->Snapshot() - before).ToString().c_str());
  Result<commit::GraphState> past = (*fresh)->ReadAt((*head)->seq / 2);
  if (!past.ok()) return Fail(past.status());
  std::printf("time travel to seq %llu: node:Person had %llu rows\n",
              static_cast<unsigned long long>(past->seq),
              static_cast<unsigned long long>(past->FindByKey("node:Person")->pin.entity_count));
  return 0;
}
