// JsonlReader: the envelope layer of the NDJSON load format (OmniGraph's load format), over
// simdjson's On-Demand parser. It splits the input into lines, parses each non-blank line into a
// Record (the node or edge envelope with its `data` members as JSON-kind schema::Values) and
// reports format errors as InvalidArgument "line N: ...". It knows nothing of the schema; the
// loader resolves types and properties. Not thread-safe (one parser, one padded line buffer).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "schema/value.h"

namespace omnigraph::engine {

// A line longer than this is refused (ResourceLimit): the reference's 32 MiB line bound.
inline constexpr uint64_t kLoadLineBytesMax = 32ull << 20;

// One parsed line.
struct JsonlRecord {
  uint64_t line = 0;
  bool is_edge = false;
  std::string type;  // `type` of a node, `edge` of an edge, as written.
  std::string from;  // Edges only.
  std::string to;
  // A top-level `id`, any JSON kind (the loader checks that it is a string).
  std::optional<schema::Value> top_id;
  // The members of `data` in input order (names unique).
  std::vector<std::pair<std::string, schema::Value>> data;
};

// Names the reference reserves for physical columns; refused as top-level or data fields.
bool IsReservedPhysicalField(std::string_view name);

// Where lines come from. A line is returned without its '\n' and stays valid until the next
// call. A source may cut a line longer than kLoadLineBytesMax short (to kLoadLineBytesMax + 1
// bytes) instead of holding all of it, and then end; the reader refuses such a line either way.
class LineSource {
 public:
  virtual ~LineSource() = default;
  // The next line into `*line`: true, or false at the end of the input.
  virtual Result<bool> Next(std::string_view* line) = 0;
};

// The lines of a string, which must outlive the source.
class StringLines final : public LineSource {
 public:
  explicit StringLines(std::string_view input) : input_(input) {}
  Result<bool> Next(std::string_view* line) override;

 private:
  std::string_view input_;
  size_t offset_ = 0;
};

// The lines of a local file, read in chunks of kFileChunkBytes; holds one chunk and one line.
class FileLines final : public LineSource {
 public:
  static constexpr size_t kFileChunkBytes = 1 << 20;
  // NotFound when the file cannot be opened.
  static Result<std::unique_ptr<FileLines>> Open(const std::string& path);
  ~FileLines() override;
  Result<bool> Next(std::string_view* line) override;

 private:
  FileLines(std::FILE* file, std::string path) : file_(file), path_(std::move(path)) {}
  std::FILE* file_;
  std::string path_;
  std::string buffer_;  // Bytes read; those before consumed_ were handed out already.
  size_t consumed_ = 0;
  bool eof_ = false;
  bool oversized_ = false;
};

class JsonlReader {
 public:
  // `lines` must outlive the reader.
  explicit JsonlReader(LineSource& lines);
  ~JsonlReader();
  JsonlReader(const JsonlReader&) = delete;
  JsonlReader& operator=(const JsonlReader&) = delete;

  // The next record into `*record`: true, or false at the end of the input. InvalidArgument
  // "line N: ..." for a malformed line; ResourceLimit for a line over kLoadLineBytesMax.
  Result<bool> Next(JsonlRecord* record);
  // Bytes of the lines read so far (for batching by size).
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  Status ParseLine(std::string_view line, JsonlRecord* record);

  LineSource& lines_;
  uint64_t line_ = 0;
  uint64_t bytes_read_ = 0;
  std::string padded_;
  // The simdjson parser (its namespace is an alias, which cannot be forward-declared).
  struct Parser;
  std::unique_ptr<Parser> parser_;
};

}  // namespace omnigraph::engine
