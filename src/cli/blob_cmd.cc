// blob get | stat ENTITY TYPE ID PROPERTY: one logical node or edge Blob cell, as OmniGraph's
// docs/user/cli/reference.md "Blob read commands" describes (docs/design/blob.md). The graph is
// addressed by --store or --server (+ --graph), a profile or the defaults; there is no positional
// graph URI. `get` writes the raw bytes to stdout or --out as they arrive (4 MiB at most at a
// time); `stat` reads no payload.
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"

namespace omnigraph::cli {
namespace {

using api::ReadTarget;

struct BlobOptions {
  std::vector<std::string> cell;  // ENTITY TYPE ID PROPERTY
  std::string branch;
  std::string snapshot;
  std::optional<uint64_t> offset;
  std::optional<uint64_t> length;
  std::string out;
};

void AddCellOptions(CLI::App* cmd, BlobOptions& o) {
  cmd->add_option("cell", o.cell, "ENTITY (node|edge) TYPE ID PROPERTY")->expected(4)->required();
  auto* branch = cmd->add_option("--branch", o.branch, "Read this branch (default main)");
  branch->check(NonEmpty());
  cmd->add_option("--snapshot", o.snapshot, "Read at this commit instead")
      ->check(NonEmpty())
      ->excludes(branch);
}

Result<std::pair<api::BlobSelector, ReadTarget>> CellOf(const BlobOptions& o) {
  if (o.cell[0] != "node" && o.cell[0] != "edge") {
    return InvalidArgument("ENTITY must be node or edge, not '" + o.cell[0] + "'");
  }
  ReadTarget target;
  if (!o.branch.empty()) target.branch = o.branch;
  if (!o.snapshot.empty()) target.snapshot = o.snapshot;
  return std::make_pair(api::BlobSelector{o.cell[0], o.cell[1], o.cell[2], o.cell[3]}, target);
}

// stat's JSON contract: selector, kind, size and etag (managed) or uri (external), and target.
Json StatJson(const BlobOptions& o, const Json& stat) {
  Json out = Json::object();
  out["selector"] =
      Json{{"entity", o.cell[0]}, {"type", o.cell[1]}, {"id", o.cell[2]}, {"property", o.cell[3]}};
  out["kind"] = stat["kind"];
  if (stat["kind"].string_value() == "managed") {
    out["size"] = stat["size"];
    out["etag"] = stat["etag"];
  } else {
    out["uri"] = stat["uri"];
  }
  Json target = Json::object();
  if (!o.branch.empty()) target["branch"] = o.branch;
  if (!o.snapshot.empty()) target["snapshot"] = o.snapshot;
  target["resolved_snapshot"] = stat["resolved_snapshot"];
  out["target"] = std::move(target);
  return out;
}

std::string StatText(const BlobOptions& o, const Json& stat) {
  std::string text = o.cell[0] + " " + o.cell[1] + " '" + o.cell[2] + "' " + o.cell[3] + ": ";
  if (stat["kind"].string_value() == "managed") {
    text += "managed, " + std::to_string(stat["size"].get<uint64_t>()) + " bytes, etag " +
            stat["etag"].string_value();
  } else {
    text += "external " + stat["uri"].string_value();
  }
  return text + ", snapshot " + stat["resolved_snapshot"].string_value();
}

void AddBlobStat(CLI::App* blob, Context& ctx) {
  auto o = std::make_shared<BlobOptions>();
  CLI::App* stat = blob->add_subcommand("stat", "What a Blob cell is, without its bytes");
  AddCellOptions(stat, *o);
  stat->add_flag("--json", ctx.globals().json, "Print JSON");
  stat->callback([&ctx, o] {
    Result<std::pair<api::BlobSelector, ReadTarget>> cell = CellOf(*o);
    if (!cell.ok()) return ctx.Fail(cell.status());
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->StatBlob(cell->first, cell->second) : db.status();
    if (!out.ok()) return ctx.Fail(out.status());
    ctx.Print(StatJson(*o, *out), StatText(*o, *out));
  });
}

// The range --offset and --length select; InvalidArgument for --length 0 or an overflow.
Result<std::optional<api::BlobRange>> RangeOf(const BlobOptions& o) {
  if (!o.offset && !o.length) return std::optional<api::BlobRange>();
  const uint64_t start = o.offset.value_or(0);
  uint64_t end = std::numeric_limits<uint64_t>::max();  // To the end.
  if (o.length) {
    if (*o.length == 0) return InvalidArgument("--length must be at least 1");
    if (*o.length > std::numeric_limits<uint64_t>::max() - start) {
      return InvalidArgument("--offset + --length overflows");
    }
    end = start + *o.length;
  }
  return std::optional<api::BlobRange>(api::BlobRange{start, end});
}

void AddBlobGet(CLI::App* blob, Context& ctx) {
  auto o = std::make_shared<BlobOptions>();
  CLI::App* get = blob->add_subcommand("get", "Write a Blob cell's bytes to stdout or --out");
  AddCellOptions(get, *o);
  get->add_option("--offset", o->offset, "The first byte (default 0)");
  get->add_option("--length", o->length, "At most this many bytes (default: to the end)");
  get->add_option("--out", o->out, "Write to this file instead of stdout")->check(NonEmpty());
  get->callback([&ctx, o] {
    Result<std::optional<api::BlobRange>> range = RangeOf(*o);
    if (!range.ok()) return ctx.Fail(range.status());
    Result<std::pair<api::BlobSelector, ReadTarget>> cell = CellOf(*o);
    if (!cell.ok()) return ctx.Fail(cell.status());
    Result<std::unique_ptr<Database>> db = ctx.Open();
    if (!db.ok()) return ctx.Fail(db.status());
    // --out is opened at the first byte (or at the end of an empty value): a failure before any
    // byte leaves an existing file untouched.
    std::FILE* file = nullptr;
    auto open = [&]() -> Status {
      if (o->out.empty() || file != nullptr) return Status::Ok();
      file = std::fopen(o->out.c_str(), "wb");
      if (file == nullptr) return InvalidArgument("cannot write '" + o->out + "'");
      return Status::Ok();
    };
    auto sink = [&](std::string_view chunk) -> Status {
      if (Status opened = open(); !opened.ok()) return opened;
      if (file != nullptr) {
        if (std::fwrite(chunk.data(), 1, chunk.size(), file) != chunk.size()) {
          return Status(Code::kTransient, "writing '" + o->out + "' failed");
        }
        return Status::Ok();
      }
      std::cout.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      return std::cout ? Status::Ok() : Status(Code::kTransient, "stdout failed");
    };
    Result<Json> out = (*db)->ReadBlob(cell->first, cell->second, *range, sink);
    Status done = out.ok() ? open() : out.status();
    if (file != nullptr && std::fclose(file) != 0 && done.ok()) {
      done = Status(Code::kTransient, "writing '" + o->out + "' failed");
    }
    std::cout.flush();
    if (!done.ok()) ctx.Fail(done);
  });
}

}  // namespace

void AddBlobCommands(CLI::App& app, Context& ctx) {
  CLI::App* blob = app.add_subcommand("blob", "Read one node or edge Blob cell");
  blob->require_subcommand(1);
  AddBlobGet(blob, ctx);
  AddBlobStat(blob, ctx);
}

}  // namespace omnigraph::cli
