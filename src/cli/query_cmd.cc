// query [NAME] (--query F | -e SRC) [--params JSON | --params-file F] [--branch B | --snapshot ID]
//       [--format table|json|jsonl|csv|kv | --json] URI
// query NAME [ARG...] (no --query, -e): the stored query NAME of a served graph (stored_cmds.cc)
// query --alias NAME [ARG...]: an alias of ./omnigraph.yaml, deprecated (alias_cmd.cc)
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"

namespace omnigraph::cli {
namespace {

using api::ReadTarget;

// A result cell as text for the table, csv and kv formats.
std::string CellText(const Json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void PrintCsv(const std::vector<std::string>& columns, const Json& rows) {
  for (size_t i = 0; i < columns.size(); ++i) std::cout << (i ? "," : "") << CsvField(columns[i]);
  std::cout << "\n";
  for (const Json& row : rows) {
    for (size_t i = 0; i < columns.size(); ++i) {
      std::cout << (i ? "," : "") << CsvField(CellText(row[columns[i]]));
    }
    std::cout << "\n";
  }
}

// The cut of `text` to at most `width` characters (counted as UTF-8 code points), never inside a
// character.
size_t CutAt(const std::string& text, size_t width) {
  size_t chars = 0, i = 0;
  while (i < text.size() && chars < width) {
    ++i;
    while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
    ++chars;
  }
  return i;
}

size_t Chars(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

// A cell's lines under the style: whole, cut with '…', or wrapped at max_width.
std::vector<std::string> CellLines(const std::string& text, const TableStyle& style) {
  if (style.max_width == 0 || Chars(text) <= style.max_width) return {text};
  if (!style.wrap) return {text.substr(0, CutAt(text, style.max_width - 1)) + "\u2026"};
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t n = CutAt(text.substr(at), style.max_width);
    lines.push_back(text.substr(at, n));
    at += n;
  }
  return lines;
}

void PrintTable(const std::vector<std::string>& columns, const Json& rows,
                const TableStyle& style) {
  std::vector<std::vector<std::vector<std::string>>> body;  // row, column, line
  std::vector<size_t> width;
  for (const std::string& c : columns) width.push_back(Chars(c));
  for (const Json& row : rows) {
    body.emplace_back();
    for (size_t i = 0; i < columns.size(); ++i) {
      body.back().push_back(CellLines(CellText(row[columns[i]]), style));
      for (const std::string& l : body.back().back()) width[i] = std::max(width[i], Chars(l));
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      std::cout << (i ? "  " : "") << cells[i]
                << std::string(i + 1 < cells.size() ? width[i] - Chars(cells[i]) : 0, ' ');
    }
    std::cout << "\n";
  };
  line(columns);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  line(rule);
  for (const auto& row : body) {
    size_t height = 1;
    for (const auto& cell : row) height = std::max(height, cell.size());
    for (size_t h = 0; h < height; ++h) {
      std::vector<std::string> cells;
      for (const auto& cell : row) cells.push_back(h < cell.size() ? cell[h] : "");
      line(cells);
    }
  }
  std::cout << "(" << rows.size() << (rows.size() == 1 ? " row)\n" : " rows)\n");
}

// Prints a query envelope in one of OmniGraph's CLI's formats.
Status PrintRows(const Json& result, const std::string& format, const TableStyle& style) {
  std::vector<std::string> columns;
  for (const Json& c : result["columns"]) {
    columns.push_back(c.is_object() ? c["name"].get<std::string>() : c.get<std::string>());
  }
  const Json& rows = result["rows"];
  if (result.contains("warnings")) {
    for (const Json& w : result["warnings"])
      std::cerr << "warning: " << w.get<std::string>() << "\n";
  }
  if (format == "table" && result.contains("plan")) {
    // `explain`: the plan text as it is, not a one-column table.
    std::cout << result["plan"].get<std::string>();
    return Status::Ok();
  }
  if (format == "json") {
    std::cout << result.dump(2) << "\n";
  } else if (format == "jsonl") {
    // OmniGraph's metadata line, then one object per row.
    Json meta = Json::object();
    meta["kind"] = "metadata";
    meta["query_name"] = result["query_name"];
    meta["target"] = result["target"];
    meta["row_count"] = result["row_count"];
    std::cout << meta.dump() << "\n";
    for (const Json& row : rows) std::cout << row.dump() << "\n";
  } else if (format == "csv") {
    PrintCsv(columns, rows);
  } else if (format == "kv") {
    for (size_t r = 0; r < rows.size(); ++r) {
      if (r > 0) std::cout << "\n";
      for (const std::string& c : columns) std::cout << c << ": " << CellText(rows[r][c]) << "\n";
    }
  } else if (format == "table") {
    PrintTable(columns, rows, style);
  } else {
    return InvalidArgument("unknown format '" + format + "' (table, json, jsonl, csv, kv)");
  }
  return Status::Ok();
}

struct ReadOptions {
  QueryOptions query;
  std::string snapshot;
  std::string format;  // empty: the operator's defaults.output, else table
  std::string alias;
};

// The stored-query and alias lanes: `args` may hold a name, arguments and (without --server or
// --store) the graph's URI last.
void RunNamedLane(Context& ctx, ReadOptions& o, CLI::App* query) {
  Result<Json> given = o.query.params_text.empty()
                           ? Result<Json>(Json::object())
                           : api::ParseJson(o.query.params_text, "--params");
  if (!given.ok()) return ctx.Fail(given.status());
  const std::string format =
      ctx.globals().json ? "json" : (query->count("--format") > 0 ? o.format : "");
  std::vector<std::string> args = o.query.args;
  if (!o.alias.empty()) {
    Status ran = RunProjectAlias(ctx, o.alias, args, *given, format);
    if (!ran.ok()) ctx.Fail(ran);
    return;
  }
  Globals& g = ctx.globals();
  if (g.store.empty() && g.server.empty() && args.size() >= 2) {
    g.uri = args.back();
    args.pop_back();
  }
  if (args.empty()) return ctx.Fail(InvalidArgument("give the stored query's name"));
  const std::string name = args.front();
  args.erase(args.begin());
  api::ReadTarget target;
  target.branch = o.query.branch;
  if (!o.snapshot.empty()) target.snapshot = o.snapshot;
  Status ran = RunStoredQuery(ctx, name, args, *given, target, format.empty() ? o.format : format);
  if (!ran.ok()) ctx.Fail(ran);
}

}  // namespace

Status PrintQueryRows(const Json& result, const std::string& format, const TableStyle& style) {
  return PrintRows(result, format, style);
}

void AddQueryCommand(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ReadOptions>();
  CLI::App* query = app.add_subcommand("query", "Run a read query");
  query->alias("read");
  query
      ->add_option("args", o->query.args,
                   "[NAME] URI; or a stored query's NAME and its arguments (no --query)")
      ->expected(0, -1);
  query
      ->add_option("--alias", o->alias,
                   "Run an alias of ./omnigraph.yaml with the arguments (deprecated)")
      ->check(NonEmpty());
  AddQueryOptions(query, o->query);
  query->add_option("--snapshot", o->snapshot, "Read at this commit instead")->check(NonEmpty());
  query->add_option("--format", o->format, "table | json | jsonl | csv | kv");
  query->add_flag("--json", ctx.globals().json, "Same as --format json");
  query->callback([&ctx, o, query] {
    // No --query and no -e, on a served graph: a stored query by name.
    const Globals& g = ctx.globals();
    const auto http = [](const std::string& u) {
      return u.starts_with("http://") || u.starts_with("https://");
    };
    const bool served = !g.server.empty() || http(g.store) ||
                        (!o->query.args.empty() && http(o->query.args.back()));
    const bool inline_source = !o->query.file.empty() || !o->query.source.empty();
    if (!o->alias.empty() || (!inline_source && served && o->query.params_file.empty())) {
      return RunNamedLane(ctx, *o, query);
    }
    if (o->query.args.size() > 2) {
      return ctx.Fail(InvalidArgument(
          "give at most a query name and the graph's URI; see 'omnigraph query --help'"));
    }
    Result<QueryRun> q = PrepareQuery(o->query, ctx);
    if (!q.ok()) {
      ctx.Fail(q.status());
      return;
    }
    ReadTarget target;
    target.branch = o->query.branch;
    if (!o->snapshot.empty()) target.snapshot = o->snapshot;
    Result<Json> out = q->db->Query(q->source, o->query.name, q->params, target);
    Status printed =
        out.ok()
            ? PrintRows(*out, ctx.globals().json ? "json" : ctx.QueryFormat(o->format), ctx.Table())
            : out.status();
    if (!printed.ok()) ctx.Fail(printed);
  });
}

}  // namespace omnigraph::cli
