// A load on a thread pool (docs/design/load.md "Batches written while reading"): batches are
// written on the runtime's executor while the next lines are parsed, at most kLoadWritesInFlight
// at a time; the graph is the one an inline load makes, and a failed write fails the load with
// nothing published. The input is parsed on the pool in chunks (jsonl_chunks.h): the records, the
// first error and the graph are those of a one-thread read, wherever the chunks fall.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "base/executor.h"
#include "engine/ops/export.h"
#include "engine/ops/jsonl_chunks.h"
#include "engine/ops/load.h"
#include "storage/forwarding_store.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
node Note { text: String }
edge Knows: Person -> Person
)";

// People (with `repeats`, some named twice: the last line wins), notes with generated ids, and
// a chain of Knows edges.
std::string Input(int people, bool repeats = true) {
  std::string out;
  for (int i = 0; i < people; ++i) {
    out += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"(","age":)" +
           std::to_string(i % 90) + "}}\n";
    if (repeats && i % 7 == 3) {
      out += R"({"type":"Person","data":{"name":"p)" + std::to_string(i / 2) + R"(","age":99}})" +
             std::string("\n");
    }
    out += R"({"type":"Note","data":{"text":"note )" + std::to_string(i) + "\"}}\n";
  }
  for (int i = 1; i < people; ++i) {
    out += R"({"edge":"Knows","from":"p)" + std::to_string(i - 1) + R"(","to":"p)" +
           std::to_string(i) + "\"}\n";
  }
  return out;
}

// Fragment writes (objects under a table's data/ folder) slowed by `delay`, with how many run at
// once; the `fail_at`-th of them (1-based; 0 = none) fails permanently.
class SlowFragmentStore : public storage::ForwardingStore {
 public:
  SlowFragmentStore(std::shared_ptr<storage::ObjectStore> inner, std::chrono::milliseconds delay,
                    int fail_at = 0)
      : ForwardingStore(std::move(inner)), delay_(delay), fail_at_(fail_at) {}

  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override {
    if (name.find("/data/") == std::string_view::npos) return inner().PutIfAbsent(name, data);
    const int n = ++fragments_;
    const int now = ++running_;
    int seen = most_;
    while (now > seen && !most_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(delay_);
    --running_;
    if (n == fail_at_) return Status(Code::kPermanent, "injected: fragment write refused");
    return inner().PutIfAbsent(name, data);
  }

  int most_at_once() const { return most_; }
  int fragments() const { return fragments_; }

 private:
  std::chrono::milliseconds delay_;
  int fail_at_;
  std::atomic<int> fragments_{0};
  std::atomic<int> running_{0};
  std::atomic<int> most_{0};
};

// A graph whose runtime runs tasks on a pool of four threads (or inline), over `store`.
std::unique_ptr<Graph> NewGraph(std::shared_ptr<storage::ObjectStore> store, bool pool) {
  storage::Runtime rt = storage::Runtime::ForTest(std::move(store), 5);
  if (pool) rt.executor = std::make_shared<ThreadPool>(4);
  Result<std::unique_ptr<Graph>> g = Graph::Init(rt, kSchema);
  OMNIGRAPH_CHECK_MSG(g.ok(), g.status().ToString());
  return std::move(*g);
}

std::string ExportOf(Graph& g) {
  Result<Snapshot> s = g.SnapshotOfBranch("main");
  OMNIGRAPH_CHECK(s.ok());
  ExportOptions options;
  options.types = {"Person", "Knows"};  // Notes' ids are generated: they differ by run.
  Result<std::string> out = ExportToString(*s, options);
  OMNIGRAPH_CHECK_MSG(out.ok(), out.status().ToString());
  return *out;
}

TEST(LoadOnAPoolTest, BatchesWrittenOnAPoolLoadTheGraphAnInlineLoadDoes) {
  const std::string input = Input(120);
  for (LoadMode mode : {LoadMode::kAppend, LoadMode::kMerge, LoadMode::kOverwrite}) {
    SCOPED_TRACE(std::string(LoadModeName(mode)));
    // An append refuses a repeated id: it loads the input without the repeats.
    const std::string in = mode == LoadMode::kAppend ? Input(120, false) : input;
    auto slow = std::make_shared<SlowFragmentStore>(std::make_shared<storage::MemoryStore>(),
                                                    std::chrono::milliseconds(2));
    std::unique_ptr<Graph> pooled = NewGraph(slow, true);
    std::unique_ptr<Graph> inline_graph = NewGraph(std::make_shared<storage::MemoryStore>(), false);
    LoadOptions options;
    options.limits = LoadLimits{5, 1 << 20, 256};  // Tiny batches; the sorts spill.
    LoadOptions pooled_options = options;
    pooled_options.limits.parse_chunk_bytes = 100;  // Two lines or so a chunk.
    Result<LoadResult> a = Load(*pooled, "main", in, mode, pooled_options);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    Result<LoadResult> b = Load(*inline_graph, "main", in, mode, options);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ(ExportOf(*pooled), ExportOf(*inline_graph));
    EXPECT_EQ(a->total_entities, b->total_entities);
    Result<Snapshot> s = pooled->SnapshotOfBranch("main");
    ASSERT_TRUE(s.ok());
    Result<std::shared_ptr<const table::TableVersion>> notes = s->Table("node:Note");
    ASSERT_TRUE(notes.ok());
    EXPECT_EQ((*notes)->entity_count(), 120u);
    EXPECT_GE((*notes)->manifest().fragments.size(), 20u) << "the rows were written in batches";
    // Every fragment the version names was written (none left as an empty slot).
    for (const auto& f : (*notes)->manifest().fragments) EXPECT_FALSE(f.path.empty());
    EXPECT_GE(slow->most_at_once(), 2) << "batches were written while the next were read";
    EXPECT_LE(slow->most_at_once(), static_cast<int>(kLoadWritesInFlight + 1));
  }
}

TEST(LoadOnAPoolTest, AtMostTheBoundOfBatchesAreBeingWrittenAtOnce) {
  auto slow = std::make_shared<SlowFragmentStore>(std::make_shared<storage::MemoryStore>(),
                                                  std::chrono::milliseconds(20));
  std::unique_ptr<Graph> g = NewGraph(slow, true);
  LoadOptions options;
  options.limits = LoadLimits{4, 1 << 20, 1 << 20};
  std::string notes;
  for (int i = 0; i < 80; ++i)
    notes += R"({"type":"Note","data":{"text":"n"}})"
             "\n";
  Result<LoadResult> r = Load(*g, "main", notes, LoadMode::kAppend, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(slow->fragments(), 20);
  // The batch being flushed joins at most kLoadWritesInFlight already in flight before the
  // oldest is waited for.
  EXPECT_LE(slow->most_at_once(), static_cast<int>(kLoadWritesInFlight + 1));
  EXPECT_GE(slow->most_at_once(), 2);
}

TEST(LoadOnAPoolTest, AFailedBatchWriteFailsTheLoadAndPublishesNothing) {
  for (int fail_at : {1, 4, 9}) {
    SCOPED_TRACE("fragment write " + std::to_string(fail_at) + " fails");
    auto slow = std::make_shared<SlowFragmentStore>(std::make_shared<storage::MemoryStore>(),
                                                    std::chrono::milliseconds(1), fail_at);
    std::unique_ptr<Graph> g = NewGraph(slow, true);
    const std::string before = ExportOf(*g);
    Result<Snapshot> head = g->SnapshotOfBranch("main");
    ASSERT_TRUE(head.ok());
    LoadOptions options;
    options.limits = LoadLimits{5, 1 << 20, 1 << 20};
    Result<LoadResult> r = Load(*g, "main", Input(30), LoadMode::kMerge, options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kPermanent) << r.status().ToString();
    EXPECT_NE(r.status().message().find("injected"), std::string::npos);
    Result<Snapshot> after = g->SnapshotOfBranch("main");
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(after->commit_id(), head->commit_id()) << "nothing was published";
    EXPECT_EQ(ExportOf(*g), before);
  }
}

// One record as text, with the bytes read up to it, for comparing two readers.
std::string Describe(const JsonlRecord& r, uint64_t bytes_read) {
  std::string out = std::to_string(r.line) + (r.is_edge ? " edge " : " node ") + r.type + " " +
                    r.from + " " + r.to + " " +
                    (r.top_id ? r.top_id->DebugString() : std::string("-")) + " @" +
                    std::to_string(bytes_read);
  for (const auto& [name, value] : r.data) out += " " + name + "=" + value.DebugString();
  return out;
}

// What JsonlReader reads of `input`: each record, then the end ("end @bytes") or the error.
std::vector<std::string> OneThreadRead(std::string_view input) {
  StringLines lines(input);
  JsonlReader reader(lines);
  std::vector<std::string> out;
  JsonlRecord record;
  while (true) {
    Result<bool> more = reader.Next(&record);
    if (!more.ok()) {
      out.push_back(more.status().ToString());
      return out;
    }
    if (!*more) break;
    out.push_back(Describe(record, reader.bytes_read()));
  }
  out.push_back("end @" + std::to_string(reader.bytes_read()));
  return out;
}

// The same through a ChunkedJsonlReader on `executor`, in chunks of `chunk_bytes`.
std::vector<std::string> ChunkedRead(std::string_view input, Executor& executor,
                                     size_t chunk_bytes) {
  StringLines lines(input);
  ChunkedJsonlReader reader(lines, executor, chunk_bytes);
  std::vector<std::string> out;
  while (true) {
    Result<const JsonlRecord*> record = reader.Next();
    if (!record.ok()) {
      out.push_back(record.status().ToString());
      return out;
    }
    if (*record == nullptr) break;
    out.push_back(Describe(**record, reader.bytes_read()));
  }
  out.push_back("end @" + std::to_string(reader.bytes_read()));
  return out;
}

// Blank lines, a CRLF ending, ids in both places, data values of several kinds.
std::string MixedInput(int records) {
  std::string out = "\n  \t\n";
  for (int i = 0; i < records; ++i) {
    switch (i % 4) {
      case 0:
        out += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"(","age":7}})";
        break;
      case 1: out += R"({"edge":"Knows","from":"p1","to":"p)" + std::to_string(i) + R"("})"; break;
      case 2:
        out += R"({"type":"Note","id":"n)" + std::to_string(i) + R"(","data":{"text":"\u00e9"}})";
        break;
      default:
        out += R"({"edge":"Knows","from":"a","to":"b","data":{"w":[1,2.5,null]}})"
               "\r";
        break;
    }
    out += i % 5 == 2 ? "\n\n" : "\n";
  }
  return out;
}

TEST(LoadOnAPoolTest, ChunkedParsingReadsWhatOneThreadReads) {
  ThreadPool pool(4);
  InlineExecutor inline_executor;
  const std::string input = MixedInput(60);
  const std::vector<std::string> expected = OneThreadRead(input);
  ASSERT_EQ(expected.size(), 61u);
  for (size_t chunk_bytes : {size_t{1}, size_t{90}, size_t{1000}, kParseChunkBytes}) {
    SCOPED_TRACE("chunks of " + std::to_string(chunk_bytes) + " bytes");
    EXPECT_EQ(ChunkedRead(input, pool, chunk_bytes), expected);
    EXPECT_EQ(ChunkedRead(input, inline_executor, chunk_bytes), expected);
  }
  EXPECT_EQ(ChunkedRead("", pool, 1), OneThreadRead(""));
  EXPECT_EQ(ChunkedRead("\n\n", pool, 1), OneThreadRead("\n\n"));
}

TEST(LoadOnAPoolTest, TheFirstBadLineIsTheErrorWhicheverChunkItFallsIn) {
  ThreadPool pool(4);
  const std::string good = MixedInput(40);
  const std::vector<std::string> bad_lines = {
      R"({"type":"Person","data":{"name":"x"})",  // Invalid JSON.
      R"({"type":"Person","edge":"Knows"})",      // Both type and edge.
      "[1]",                                      // Not an object.
      std::string(kLoadLineBytesMax + 1, ' '),    // Over the line limit.
  };
  for (const std::string& bad : bad_lines) {
    for (size_t at : {size_t{0}, size_t{1}, size_t{17}, size_t{40}}) {
      // The bad line goes after `at` lines of the good input; a second bad line follows later,
      // which must not be the one reported.
      size_t cut = 0;
      for (size_t i = 0; i < at; ++i) cut = good.find('\n', cut) + 1;
      const std::string input = good.substr(0, cut) + bad + "\n" + good.substr(cut) + "[2]\n";
      const std::vector<std::string> expected = OneThreadRead(input);
      ASSERT_NE(expected.back().find("line "), std::string::npos) << expected.back();
      for (size_t chunk_bytes : {size_t{1}, size_t{200}, kParseChunkBytes}) {
        SCOPED_TRACE("bad line " + bad.substr(0, 40) + " after " + std::to_string(at) +
                     " lines, chunks of " + std::to_string(chunk_bytes));
        EXPECT_EQ(ChunkedRead(input, pool, chunk_bytes), expected);
      }
    }
  }
}

TEST(LoadOnAPoolTest, AMalformedLineParsedOnThePoolLeavesNothing) {
  const std::string good = Input(60);
  for (size_t at : {size_t{3}, size_t{70}, size_t{150}}) {
    SCOPED_TRACE("malformed line after " + std::to_string(at) + " lines");
    size_t cut = 0;
    for (size_t i = 0; i < at; ++i) cut = good.find('\n', cut) + 1;
    const std::string input = good.substr(0, cut) + "{\"type\":\n" + good.substr(cut);
    auto memory = std::make_shared<storage::MemoryStore>();
    std::unique_ptr<Graph> pooled = NewGraph(memory, true);
    std::unique_ptr<Graph> inline_graph = NewGraph(std::make_shared<storage::MemoryStore>(), false);
    Result<std::vector<storage::ObjectMeta>> before = storage::ListAll(*memory, "");
    ASSERT_TRUE(before.ok());
    LoadOptions options;
    options.limits = LoadLimits{5, 1 << 20, 256};  // Batches are written ahead of the bad line.
    LoadOptions pooled_options = options;
    pooled_options.limits.parse_chunk_bytes = 300;
    Result<LoadResult> a = Load(*pooled, "main", input, LoadMode::kMerge, pooled_options);
    Result<LoadResult> b = Load(*inline_graph, "main", input, LoadMode::kMerge, options);
    ASSERT_FALSE(a.ok());
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(a.status().ToString(), b.status().ToString());
    EXPECT_NE(a.status().message().find("line " + std::to_string(at + 1) + ": invalid JSON"),
              std::string::npos)
        << a.status().ToString();
    Result<std::vector<storage::ObjectMeta>> after = storage::ListAll(*memory, "");
    ASSERT_TRUE(after.ok());
    ASSERT_EQ(after->size(), before->size()) << "the fragments written ahead were deleted";
    for (size_t i = 0; i < after->size(); ++i) {
      EXPECT_EQ((*after)[i].name, (*before)[i].name);
      EXPECT_EQ((*after)[i].etag, (*before)[i].etag);
    }
  }
}

}  // namespace
}  // namespace omnigraph::engine
