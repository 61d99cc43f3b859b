// JsonlReader: the envelope layer of the NDJSON load format (OmniGraph's load format), over
// simdjson's On-Demand parser. It splits the input into lines, parses each non-blank line into a
// Record (the node or edge envelope with its `data` members as JSON-kind schema::Values) and
// reports format errors as InvalidArgument "line N: ...". It knows nothing of the schema; the
// loader resolves types and properties. Not thread-safe (one parser, one padded line buffer).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
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

// Reads up to `capacity` bytes of an input into `buffer`: how many it read, 0 at the end only.
using ChunkReader = std::function<Result<size_t>(char* buffer, size_t capacity)>;

// The lines of an input read in chunks of kChunkBytes through a ChunkReader (a file, a stream,
// a caller's callback); holds one chunk and one line, however long the input.
class ReaderLines : public LineSource {
 public:
  static constexpr size_t kChunkBytes = 1 << 20;
  // `name` names the input in errors.
  ReaderLines(ChunkReader read, std::string name)
      : read_(std::move(read)), name_(std::move(name)) {}
  Result<bool> Next(std::string_view* line) override;
  // Bytes the reader has handed over so far.
  uint64_t bytes_taken() const { return bytes_taken_; }

 private:
  ChunkReader read_;
  std::string name_;
  // Bytes read are buffer_[0, end_); those before consumed_ were handed out already.
  std::string buffer_;
  size_t end_ = 0;
  size_t consumed_ = 0;
  uint64_t bytes_taken_ = 0;
  bool eof_ = false;
  bool oversized_ = false;
};

// The lines of a local file, read in chunks of ReaderLines::kChunkBytes.
class FileLines final : public ReaderLines {
 public:
  static constexpr size_t kFileChunkBytes = kChunkBytes;
  // NotFound when the file cannot be opened.
  static Result<std::unique_ptr<FileLines>> Open(const std::string& path);
  ~FileLines() override;
  // The file's size when it was opened.
  uint64_t size_bytes() const { return size_bytes_; }

 private:
  FileLines(std::FILE* file, std::string path, uint64_t size_bytes);
  std::FILE* file_;
  uint64_t size_bytes_;
};

// Parses one line of the format into a JsonlRecord. Holds a simdjson parser and a padded copy
// of the line, reused from line to line; not thread-safe (one per thread).
class JsonlLineParser {
 public:
  JsonlLineParser();
  ~JsonlLineParser();
  JsonlLineParser(const JsonlLineParser&) = delete;
  JsonlLineParser& operator=(const JsonlLineParser&) = delete;

  // Parses non-blank line number `line_number` into `*record` (cleared first; its strings keep
  // their capacity). InvalidArgument "line N: ..." for a malformed line.
  Status Parse(std::string_view line, uint64_t line_number, JsonlRecord* record);

 private:
  // Parse's work on a cleared record.
  Status ParseLine(std::string_view line, uint64_t n, JsonlRecord* r);

  std::string padded_;
  // The simdjson parser (its namespace is an alias, which cannot be forward-declared).
  struct Parser;
  std::unique_ptr<Parser> parser_;
};

// Whether a line holds only spaces, tabs and `\r` (skipped, though counted as a line).
bool IsBlankLine(std::string_view line);

// Reads records one line at a time on the caller's thread.
class JsonlReader {
 public:
  // `lines` must outlive the reader.
  explicit JsonlReader(LineSource& lines);
  JsonlReader(const JsonlReader&) = delete;
  JsonlReader& operator=(const JsonlReader&) = delete;

  // The next record into `*record`: true, or false at the end of the input. InvalidArgument
  // "line N: ..." for a malformed line; ResourceLimit for a line over kLoadLineBytesMax.
  Result<bool> Next(JsonlRecord* record);
  // Bytes of the lines read so far (for batching by size).
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  LineSource& lines_;
  uint64_t line_ = 0;
  uint64_t bytes_read_ = 0;
  JsonlLineParser parser_;
};

}  // namespace omnigraph::engine
