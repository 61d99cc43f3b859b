// The nearest common ancestor of two commits (commit/merge_base.h).
#include "commit/merge_base.h"

#include <map>
#include <set>

#include "commit/stream.h"
#include "commit/testing_hooks.h"

namespace omnigraph::commit {

namespace {

constexpr uint8_t kFromA = 1;
constexpr uint8_t kFromB = 2;

// Queue order: the highest generation first, then the smallest commit id.
struct Newer {
  bool operator()(const std::pair<uint64_t, std::string>& x,
                  const std::pair<uint64_t, std::string>& y) const {
    if (x.first != y.first) return x.first > y.first;
    return x.second < y.second;
  }
};

struct Seen {
  Record record;
  uint8_t sides = 0;
};

}  // namespace

Result<MergeBase> FindMergeBase(storage::ObjectStore& store, std::string_view a,
                                std::string_view b) {
  std::map<std::string, Seen, std::less<>> seen;
  std::set<std::pair<uint64_t, std::string>, Newer> queue;
  MergeBase out;
  // Reads a commit the first time it is met and queues it; marks it with `sides` either way.
  auto visit = [&](std::string_view id, uint8_t sides) -> Status {
    auto it = seen.find(id);
    if (it == seen.end()) {
      OMNIGRAPH_ASSIGN_OR_RETURN(Record record, LookupCommit(store, id));
      ++out.records_read;
      queue.emplace(record.generation, record.commit_id);
      it = seen.emplace(std::string(id), Seen{std::move(record), 0}).first;
    }
    it->second.sides |= sides;
    return Status::Ok();
  };
  OMNIGRAPH_RETURN_IF_ERROR(visit(a, kFromA));
  OMNIGRAPH_RETURN_IF_ERROR(visit(b, kFromB));
  while (!queue.empty()) {
    const std::string id = queue.begin()->second;
    queue.erase(queue.begin());
    Seen& at = seen.find(id)->second;
    if (at.sides == (kFromA | kFromB)) {
      out.base = at.record;
      return out;
    }
    const uint8_t sides = at.sides;
    if (sides == kFromA) ++out.a_only;
    if (sides == kFromB) ++out.b_only;
    const std::optional<std::string> parent = at.record.parent_commit_id;
    const std::optional<Lineage> lineage = at.record.lineage;
    if (parent) OMNIGRAPH_RETURN_IF_ERROR(visit(*parent, sides));
    if (lineage && !TestingHooks().merge_base_first_parent_only) {
      OMNIGRAPH_RETURN_IF_ERROR(visit(lineage->merged_parent_commit_id, sides));
    }
  }
  return Status(Code::kCorruption,
                "commits '" + std::string(a) + "' and '" + std::string(b) + "' share no ancestor");
}

}  // namespace omnigraph::commit
