#include "storage/counting_store.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace omnigraph::storage {

namespace {
bool TraceRequested() {
  const char* v = std::getenv("OMNIGRAPH_STORE_TRACE");
  return v != nullptr && std::strcmp(v, "1") == 0;
}
}  // namespace

CountingStore::CountingStore(std::shared_ptr<ObjectStore> inner)
    : inner_(std::move(inner)), trace_(TraceRequested()) {}

void CountingStore::Trace(uint64_t round, std::string_view op, std::string_view name,
                          std::optional<ByteRange> range) const {
  std::string line =
      "store: round=" + std::to_string(round) + " " + std::string(op) + " " + std::string(name);
  if (range) {
    line += " [" + std::to_string(range->offset) + "+" + std::to_string(range->length) + "]";
  }
  line += "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

OpCounts OpCounts::operator-(const OpCounts& e) const {
  OpCounts d;
  d.gets = gets - e.gets;
  d.heads = heads - e.heads;
  d.puts = puts - e.puts;
  d.put_if_absent = put_if_absent - e.put_if_absent;
  d.put_if_match = put_if_match - e.put_if_match;
  d.lists = lists - e.lists;
  d.deletes = deletes - e.deletes;
  d.bytes_read = bytes_read - e.bytes_read;
  d.bytes_written = bytes_written - e.bytes_written;
  d.shared_gets = shared_gets - e.shared_gets;
  d.rounds = rounds - e.rounds;
  return d;
}

std::string OpCounts::ToString() const {
  return "gets=" + std::to_string(gets) + " heads=" + std::to_string(heads) +
         " puts=" + std::to_string(puts) + " put_if_absent=" + std::to_string(put_if_absent) +
         " put_if_match=" + std::to_string(put_if_match) + " lists=" + std::to_string(lists) +
         " deletes=" + std::to_string(deletes) + " bytes_read=" + std::to_string(bytes_read) +
         " bytes_written=" + std::to_string(bytes_written) +
         " shared_gets=" + std::to_string(shared_gets) + " rounds=" + std::to_string(rounds);
}

OpCounts CountingStore::Snapshot() const {
  OpCounts c;
  c.gets = gets_.load();
  c.heads = heads_.load();
  c.puts = puts_.load();
  c.put_if_absent = put_if_absent_.load();
  c.put_if_match = put_if_match_.load();
  c.lists = lists_.load();
  c.deletes = deletes_.load();
  c.bytes_read = bytes_read_.load();
  c.bytes_written = bytes_written_.load();
  c.shared_gets = shared_gets_.load();
  c.rounds = rounds_.load();
  return c;
}

void CountingStore::Reset() {
  for (auto* c : {&gets_, &heads_, &puts_, &put_if_absent_, &put_if_match_, &lists_, &deletes_,
                  &bytes_read_, &bytes_written_, &shared_gets_, &rounds_}) {
    c->store(0);
  }
}

void CountingStore::Finish(uint64_t round) {
  uint64_t seen = rounds_.load(std::memory_order_acquire);
  while (seen < round && !rounds_.compare_exchange_weak(seen, round, std::memory_order_acq_rel)) {
  }
}

Result<GetResult> CountingStore::Get(std::string_view name, std::optional<ByteRange> range) {
  ++gets_;
  Result<GetResult> r = InRound(
      "get", name, [&] { return inner_->Get(name, range); }, range);
  if (r.ok()) bytes_read_ += r->data.size();
  return r;
}

Result<SharedGetResult> CountingStore::GetShared(std::string_view name,
                                                 std::optional<ByteRange> range) {
  ++gets_;
  ++shared_gets_;
  Result<SharedGetResult> r = InRound(
      "get", name, [&] { return inner_->GetShared(name, range); }, range);
  if (r.ok()) bytes_read_ += r->data.size();
  return r;
}

Result<ObjectMeta> CountingStore::Head(std::string_view name) {
  ++heads_;
  return InRound("head", name, [&] { return inner_->Head(name); });
}

Status CountingStore::Put(std::string_view name, std::string_view data) {
  ++puts_;
  bytes_written_ += data.size();
  return InRound("put", name, [&] { return inner_->Put(name, data); });
}

Result<bool> CountingStore::PutIfAbsent(std::string_view name, std::string_view data) {
  ++put_if_absent_;
  bytes_written_ += data.size();
  return InRound("put_if_absent", name, [&] { return inner_->PutIfAbsent(name, data); });
}

Result<std::string> CountingStore::PutIfMatch(std::string_view name, std::string_view data,
                                              std::string_view etag) {
  ++put_if_match_;
  bytes_written_ += data.size();
  return InRound("put_if_match", name, [&] { return inner_->PutIfMatch(name, data, etag); });
}

Result<ListPage> CountingStore::List(const ListOptions& options) {
  ++lists_;
  return InRound("list", options.prefix, [&] { return inner_->List(options); });
}

Status CountingStore::Delete(std::string_view name) {
  ++deletes_;
  return InRound("delete", name, [&] { return inner_->Delete(name); });
}

}  // namespace omnigraph::storage
