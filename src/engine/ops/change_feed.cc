#include "engine/ops/change_feed.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "base/hash.h"
#include "commit/branches.h"
#include "commit/names.h"
#include "commit/stream.h"
#include "engine/ops/commit_changes.h"
#include "engine/ops/export.h"
#include "engine/write/change_sets.h"

namespace omnigraph::engine {

namespace {

constexpr std::string_view kCursorPrefix = "c1.";
// Hex digits of the cursor's check: enough to catch a damaged or truncated cursor (it is not a
// secret: a cursor grants nothing, the server's auth does).
constexpr size_t kCursorCheckHexDigits = 16;
constexpr size_t kCursorBytesMax = 1024;
// Ancestors a branch's history may pass through (branches of branches); past it the chain is
// taken to be damaged rather than followed forever.
constexpr size_t kAncestorsMax = 1024;
constexpr std::string_view kBase64Url =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64UrlEncode(std::string_view in) {
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kBase64Url[(buffer >> bits) & 0x3f];
    }
  }
  if (bits > 0) out += kBase64Url[(buffer << (6 - bits)) & 0x3f];
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view in) {
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : in) {
    const size_t v = kBase64Url.find(c);
    if (v == std::string_view::npos) return std::nullopt;
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return out;
}

Status Rejected(std::string why) {
  return Status(Code::kChangeCursorRejected,
                "change cursor rejected: " + why +
                    "; start again from a baseline (`changes baseline`) or `--start now`");
}

FeedCursor CursorOf(const std::string& graph_id, const commit::GraphState& s) {
  return FeedCursor{graph_id, s.stream, s.seq, s.head_commit_id};
}

// The stream a position is on: an ancestor's in inherited history, else the followed one.
const std::string& On(const FeedCursor& c) { return c.on.empty() ? c.key : c.on; }

// The record after `at` (one GET), nullopt when there is none yet. Rejects a cursor whose
// commit the record does not follow.
Result<std::optional<commit::Record>> ReadNext(storage::ObjectStore& store, const FeedCursor& at) {
  const uint64_t seq = at.seq + 1;
  const std::string& key = On(at);
  const std::string name = commit::RecordName(key, seq);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::BoundedRead> read,
                             commit::ReadBounded(store, name, commit::kRecordBytesMax));
  if (!read) return std::optional<commit::Record>();
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record r, commit::DecodeRecord(read->data, name));
  if (r.seq != seq || r.stream != key) {
    return Status(Code::kCorruption, "record is stored under the wrong name", name);
  }
  if (r.kind == commit::RecordKind::kRetire) {
    return Rejected("the branch life it follows (stream " + key + ") was deleted at seq " +
                    std::to_string(seq));
  }
  if (r.parent_commit_id.value_or("") != at.commit_id) {
    return Rejected("seq " + std::to_string(seq) + " of stream " + key + " follows '" +
                    r.parent_commit_id.value_or("") + "', not the cursor's commit '" +
                    at.commit_id + "'");
  }
  return std::optional<commit::Record>(std::move(r));
}

// The export options of a baseline under `filter`: every type without kind or type filters, else
// the head's types both select; nullopt when they select none. A type name the head's schema does
// not have selects nothing, as it does in a poll (decision 155).
std::optional<ExportOptions> BaselineTypes(const Snapshot& head, const ChangeFilter& filter) {
  if (filter.kinds.empty() && filter.types.empty()) return ExportOptions{};
  const schema::Catalog& catalog = head.catalog();
  ExportOptions options;
  for (const char* kind : {"node", "edge"}) {
    if (!filter.kinds.empty() && !filter.kinds.count(kind)) continue;
    const bool edge = std::string_view(kind) == "edge";
    for (const schema::TypeDef& t : edge ? catalog.edges() : catalog.nodes()) {
      if (filter.types.empty() || filter.types.count(t.name)) options.types.push_back(t.name);
    }
  }
  if (options.types.empty()) return std::nullopt;
  return options;
}

bool IsMissingObject(const Status& s) {
  if (s.code() == Code::kVersionsReclaimed) return true;
  const std::string& object = s.object();
  return (s.code() == Code::kNotFound || s.code() == Code::kCorruption) &&
         (object.starts_with("tables/") || object.find("/changes/") != std::string::npos);
}

}  // namespace

std::string FilterScope(const ChangeFilter& filter) {
  if (filter.empty()) return "";
  auto list = [](const std::set<std::string>& values) {
    Json out = Json::array();
    for (const std::string& v : values) out.push_back(Json(v));
    return out;
  };
  const Json canonical =
      Json{{"k", list(filter.kinds)}, {"o", list(filter.ops)}, {"t", list(filter.types)}};
  return Sha256Hex(CanonicalJson(canonical)).substr(0, kCursorCheckHexDigits);
}

std::string EncodeFeedCursor(const FeedCursor& c) {
  Json fields = Json{{"c", c.commit_id}, {"g", c.graph_id}, {"k", c.key}, {"s", c.seq}};
  if (!c.scope.empty()) fields["f"] = c.scope;
  if (!c.on.empty()) fields["a"] = c.on;
  const std::string payload = Base64UrlEncode(CanonicalJson(fields));
  return std::string(kCursorPrefix) + payload + "." +
         Sha256Hex(payload).substr(0, kCursorCheckHexDigits);
}

Result<FeedCursor> DecodeFeedCursor(std::string_view text, std::string_view graph_id) {
  const std::string quoted =
      "'" + std::string(text.substr(0, 64)) + (text.size() > 64 ? "...'" : "'");
  if (text.size() > kCursorBytesMax || !text.starts_with(kCursorPrefix)) {
    return Rejected(quoted + " is not a change cursor");
  }
  text.remove_prefix(kCursorPrefix.size());
  const size_t dot = text.rfind('.');
  if (dot == std::string_view::npos ||
      Sha256Hex(text.substr(0, dot)).substr(0, kCursorCheckHexDigits) != text.substr(dot + 1)) {
    return Rejected(quoted + " is damaged (its check digits do not match)");
  }
  std::optional<std::string> json = Base64UrlDecode(text.substr(0, dot));
  Result<Json> parsed = json ? ParseJson(*json, "change cursor") : Result<Json>(Json());
  if (!parsed.ok() || !parsed->is_object() || !(*parsed)["c"].is_string() ||
      !(*parsed)["g"].is_string() || !(*parsed)["k"].is_string() ||
      !(*parsed)["s"].is_number_unsigned() ||
      (parsed->contains("f") && !(*parsed)["f"].is_string()) ||
      (parsed->contains("a") && !(*parsed)["a"].is_string())) {
    return Rejected(quoted + " is damaged (its content is not a cursor)");
  }
  FeedCursor c{(*parsed)["g"].get<std::string>(),
               (*parsed)["k"].get<std::string>(),
               (*parsed)["s"].get<uint64_t>(),
               (*parsed)["c"].get<std::string>(),
               parsed->contains("f") ? (*parsed)["f"].get<std::string>() : "",
               parsed->contains("a") ? (*parsed)["a"].get<std::string>() : ""};
  if (c.graph_id != graph_id) {
    return Rejected("it belongs to graph " + c.graph_id + ", not this graph (" +
                    std::string(graph_id) + ")");
  }
  if (!commit::ValidateStreamKey(c.key).ok() ||
      (!c.on.empty() && !commit::ValidateStreamKey(c.on).ok())) {
    return Rejected(quoted + " names no stream");
  }
  return c;
}

Result<FeedCursor> ChangeFeed::Start(std::string_view branch, std::string_view start) {
  const std::string& graph_id = graph_.stamp().graph_id;
  constexpr std::string_view kAfter = "after:";
  if (start != "now" && start != "beginning" && !start.starts_with(kAfter)) {
    return InvalidArgument("a feed starts 'now', 'beginning' or 'after:COMMIT_ID', not '" +
                           std::string(start) + "'");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot head, graph_.SnapshotOfBranch(branch));
  FeedCursor c = CursorOf(graph_id, head.state());
  if (start == "now") return c;
  commit::StreamOptions options{graph_.stamp().checkpoint_interval, false};
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<commit::Stream> stream,
                             commit::Stream::Open(graph_.runtime(), c.key, options));
  const commit::StreamMetadata& meta = stream->metadata();
  OMNIGRAPH_ASSIGN_OR_RETURN(auto ancestry, Ancestry(c.key, &meta));
  if (start == "beginning") {
    // The root of the chain (main's stream) is the ancestor that has no child entry pointing at
    // it; on main itself there is none.
    std::string root = c.key;
    for (const auto& [ancestor, fork] : ancestry) {
      if (std::none_of(ancestry.begin(), ancestry.end(),
                       [&a = ancestor](const auto& e) { return e.second.child == a; })) {
        root = ancestor;
      }
    }
    std::unique_ptr<commit::Stream> root_stream;
    if (root != c.key) {
      OMNIGRAPH_ASSIGN_OR_RETURN(root_stream,
                                 commit::Stream::Open(graph_.runtime(), root, options));
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record genesis,
                               (root_stream ? root_stream : stream)->ReadRecord(0));
    return FeedCursor{graph_id, c.key, 0, genesis.commit_id, "", root == c.key ? "" : root};
  }
  const std::string id(start.substr(kAfter.size()));
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record r, commit::LookupCommit(*graph_.runtime().store, id));
  const bool fork = meta.fork_commit_id && *meta.fork_commit_id == id;
  if (r.kind == commit::RecordKind::kCommit && (r.stream == c.key || fork)) {
    return FeedCursor{graph_id, c.key, r.seq, id};
  }
  auto inherited = ancestry.find(r.stream);
  if (r.kind == commit::RecordKind::kCommit && inherited != ancestry.end() &&
      r.seq <= inherited->second.seq) {
    return FeedCursor{graph_id, c.key, r.seq, id, "", r.stream};
  }
  return InvalidArgument("commit '" + id + "' is not on the first-parent chain of branch '" +
                         std::string(branch) + "' (stream " + c.key + " and the history it " +
                         "inherited up to its fork)");
}

Result<std::map<std::string, ChangeFeed::Fork>> ChangeFeed::Ancestry(
    const std::string& key, const commit::StreamMetadata* first) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = ancestry_.find(key);
    if (it != ancestry_.end()) return it->second;
  }
  std::map<std::string, Fork> out;
  commit::StreamOptions options{graph_.stamp().checkpoint_interval, false};
  for (std::string at = key;; first = nullptr) {
    commit::StreamMetadata meta;
    if (first != nullptr) {
      meta = *first;
    } else {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<commit::Stream> s,
                                 commit::Stream::Open(graph_.runtime(), at, options));
      meta = s->metadata();
    }
    if (!meta.parent_stream || !meta.fork_seq) break;
    if (out.count(*meta.parent_stream) || out.size() >= kAncestorsMax) {
      return Status(Code::kCorruption, "the stream's ancestry does not end at main", at);
    }
    out[*meta.parent_stream] = Fork{at, *meta.fork_seq};
    at = *meta.parent_stream;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (ancestry_.size() >= kFeedStatesMax) ancestry_.clear();
  ancestry_[key] = out;
  return out;
}

Status ChangeFeed::Route(FeedCursor& at) {
  if (at.on.empty()) return Status::Ok();
  OMNIGRAPH_ASSIGN_OR_RETURN(auto ancestry, Ancestry(at.key));
  while (!at.on.empty()) {
    auto it = ancestry.find(at.on);
    if (it == ancestry.end() || at.seq > it->second.seq) {
      return Rejected("its position (seq " + std::to_string(at.seq) + " of stream " + at.on +
                      ") is not in the history stream " + at.key + " inherited");
    }
    if (at.seq < it->second.seq) return Status::Ok();
    // At the fork commit: the child's next record follows it.
    at.on = it->second.child == at.key ? "" : it->second.child;
  }
  return Status::Ok();
}

Result<std::shared_ptr<const commit::GraphState>> ChangeFeed::StateAt(const FeedCursor& at) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = states_.find(On(at));
    if (it != states_.end() && it->second->seq == at.seq &&
        it->second->head_commit_id == at.commit_id) {
      return it->second;
    }
  }
  commit::StreamOptions options{graph_.stamp().checkpoint_interval, false};
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<commit::Stream> stream,
                             commit::Stream::Open(graph_.runtime(), On(at), options));
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::GraphState state, stream->ReadAt(at.seq));
  if (state.head_commit_id != at.commit_id) {
    return Rejected("seq " + std::to_string(at.seq) + " of stream " + On(at) + " is '" +
                    state.head_commit_id + "', not the cursor's commit '" + at.commit_id + "'");
  }
  // A fork commit is read from the parent stream; the feed folds the branch's records onto it.
  state.stream = On(at);
  return std::make_shared<const commit::GraphState>(std::move(state));
}

void ChangeFeed::Keep(std::shared_ptr<const commit::GraphState> state) {
  std::lock_guard<std::mutex> lock(mu_);
  if (states_.size() >= kFeedStatesMax && !states_.count(state->stream)) states_.clear();
  states_[state->stream] = std::move(state);
}

Status ChangeFeed::ExplainGap(const Status& failure, const FeedCursor& at, uint64_t seq) {
  if (!IsMissingObject(failure)) return failure;
  OMNIGRAPH_ASSIGN_OR_RETURN(uint64_t horizon, commit::ReclaimedBelowSeq(graph_.runtime(), On(at)));
  if (seq >= horizon) return failure;
  return Status(Code::kChangeFeedGap,
                "change feed gap: cleanup reclaimed the tables of the commits below seq " +
                    std::to_string(horizon) + " of stream " + On(at) +
                    " (the horizon), and the feed's next commit is seq " + std::to_string(seq) +
                    ": take a baseline (`changes baseline`) and follow its resume_cursor",
                commit::HorizonName(On(at)));
}

Result<Json> ChangeFeed::Poll(const FeedRequest& request) {
  if (request.limit == 0 || request.limit > kFeedPageCommitsMax) {
    return InvalidArgument("a feed page covers 1.." + std::to_string(kFeedPageCommitsMax) +
                           " commits, not " + std::to_string(request.limit));
  }
  OMNIGRAPH_RETURN_IF_ERROR(CheckChangeFilter(request.filter));
  const std::string scope = FilterScope(request.filter);
  FeedCursor at;
  if (!request.cursor.empty()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(at, DecodeFeedCursor(request.cursor, graph_.stamp().graph_id));
    // A cursor continues the feed it was issued for: resuming it under other filters would skip
    // (or repeat) the changes the two scopes differ in without anyone noticing.
    if (at.scope != scope) {
      return Rejected(
          "it was issued for " +
          (at.scope.empty() ? std::string("an unfiltered feed") : "the filter scope " + at.scope) +
          ", and this poll asks for " +
          (scope.empty() ? std::string("no filter") : "the scope " + scope) +
          " (give the same --kind, --type and --op)");
    }
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(at, Start(request.branch, request.start));
    at.scope = scope;
  }
  Json commits = Json::array();
  bool caught_up = false;
  std::shared_ptr<const commit::GraphState> state;
  while (commits.size() < request.limit) {
    const std::string was_on = On(at);
    OMNIGRAPH_RETURN_IF_ERROR(Route(at));
    if (state && On(at) != was_on) {
      // Past an ancestor's fork: the records that follow are the child's.
      auto moved = std::make_shared<commit::GraphState>(*state);
      moved->stream = On(at);
      state = std::move(moved);
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::Record> r,
                               ReadNext(*graph_.runtime().store, at));
    if (!r) {
      caught_up = true;
      break;
    }
    if (!state) {
      OMNIGRAPH_ASSIGN_OR_RETURN(state, StateAt(at));
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(Json block, Block(*r, state, at, request.filter));
    commits.push_back(std::move(block));
    at = FeedCursor{at.graph_id,  at.key, r->seq,
                    r->commit_id, scope,  r->stream == at.key ? "" : r->stream};
  }
  if (state) Keep(state);
  // The caller-owned cursor comes on the terminal page only; before it, the page token.
  return Json{{"stream", at.key},
              {"blocks", std::move(commits)},
              {"caught_up", caught_up},
              {caught_up ? "cursor" : "next_page_token", EncodeFeedCursor(at)}};
}

Result<Json> ChangeFeed::Block(const commit::Record& r,
                               std::shared_ptr<const commit::GraphState>& state,
                               const FeedCursor& at, const ChangeFilter& filter) {
  auto after = std::make_shared<commit::GraphState>(*state);
  OMNIGRAPH_RETURN_IF_ERROR(after->Apply(r, commit::RecordName(r.stream, r.seq)));
  Json block = Json{{"cause", CauseOf(r)}, {"seq", r.seq}};
  if (r.summary) block["summary"] = *r.summary;
  // A group commit's block names its members, so a consumer can attribute the changes.
  if (!r.members.empty()) block["members"] = BatchMembersJson(r);
  const bool boundary = r.change_set ? r.change_set->schema_boundary
                                     : state->schema.content_hash != after->schema.content_hash;
  if (boundary) {
    block["schema_boundary"] = true;
    block["changes"] = Json::array();
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot before, graph_.SnapshotOfState(state));
    OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot now, graph_.SnapshotOfState(after));
    Result<Json> changes = ChangesOf(graph_, r, before, now, filter);
    if (!changes.ok()) return ExplainGap(changes.status(), at, r.seq);
    block["changes"] = std::move(*changes);
  }
  state = std::move(after);
  return block;
}

Status ChangeFeed::Baseline(std::string_view branch, const ChangeFilter& filter,
                            const std::function<Status(std::string_view chunk)>& sink) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckChangeFilter(filter));
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot head, graph_.SnapshotOfBranch(branch));
  const std::optional<ExportOptions> options = BaselineTypes(head, filter);
  // A filter that selects no type exports nothing: the baseline is the cursor line alone.
  if (options) {
    OMNIGRAPH_RETURN_IF_ERROR(Export(head, *options, sink));
  }
  FeedCursor cursor = CursorOf(graph_.stamp().graph_id, head.state());
  cursor.scope = FilterScope(filter);
  const Json line = Json{{"baseline", Json{{"snapshot_commit_id", cursor.commit_id},
                                           {"resume_cursor", EncodeFeedCursor(cursor)}}}};
  return sink(CanonicalJson(line) + "\n");
}

}  // namespace omnigraph::engine
