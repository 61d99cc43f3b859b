#include "engine/ops/jsonl_reader.h"

#include <simdjson.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include "base/utf8.h"

namespace omnigraph::engine {

namespace sj = simdjson::ondemand;
using schema::Value;

namespace {

constexpr std::string_view kReserved[] = {"_tombstone",
                                          "_rowid",
                                          "_rowaddr",
                                          "_rowoffset",
                                          "_row_created_at_version",
                                          "_row_last_updated_at_version"};

// Nesting deeper than this inside `data` is refused (values are scalars or lists of scalars).
constexpr int kValueDepthMax = 4;

std::string LinePrefix(uint64_t line) { return "line " + std::to_string(line) + ": "; }

Status JsonError(uint64_t line, simdjson::error_code e) {
  return InvalidArgument(LinePrefix(line) + "invalid JSON: " + simdjson::error_message(e));
}

bool IsBlank(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

// Reads one JSON value as a schema::Value. A JSON object is reported as `*object` (and not
// read) so that the caller can word the error; any other failure is a JSON error.
simdjson::error_code ReadValue(sj::value v, int depth, Value* out, bool* object) {
  sj::json_type type;
  if (auto e = v.type().get(type)) return e;
  switch (type) {
    case sj::json_type::object: *object = true; return simdjson::SUCCESS;
    case sj::json_type::array: {
      if (depth >= kValueDepthMax) {
        *object = true;
        return simdjson::SUCCESS;
      }
      sj::array a;
      if (auto e = v.get_array().get(a)) return e;
      std::vector<Value> items;
      for (auto item : a) {
        sj::value iv;
        if (auto e = std::move(item).get(iv)) return e;
        Value x;
        if (auto e = ReadValue(iv, depth + 1, &x, object)) return e;
        if (*object) return simdjson::SUCCESS;
        items.push_back(std::move(x));
      }
      *out = Value::List(std::move(items));
      return simdjson::SUCCESS;
    }
    case sj::json_type::number: {
      sj::number_type nt;
      if (auto e = v.get_number_type().get(nt)) return e;
      if (nt == sj::number_type::signed_integer) {
        int64_t i = 0;
        if (auto e = v.get_int64().get(i)) return e;
        *out = Value::Int(i);
      } else if (nt == sj::number_type::unsigned_integer) {
        uint64_t u = 0;
        if (auto e = v.get_uint64().get(u)) return e;
        *out = Value::UInt(u);
      } else {
        double d = 0;
        if (auto e = v.get_double().get(d)) return e;
        *out = Value::Float(d);
      }
      return simdjson::SUCCESS;
    }
    case sj::json_type::string: {
      std::string_view s;
      if (auto e = v.get_string().get(s)) return e;
      *out = Value::String(std::string(s));
      return simdjson::SUCCESS;
    }
    case sj::json_type::boolean: {
      bool b = false;
      if (auto e = v.get_bool().get(b)) return e;
      *out = Value::Bool(b);
      return simdjson::SUCCESS;
    }
    case sj::json_type::null: {
      bool is_null = false;
      if (auto e = v.is_null().get(is_null)) return e;
      if (!is_null) return simdjson::N_ATOM_ERROR;
      *out = Value::Null();
      return simdjson::SUCCESS;
    }
  }
  return simdjson::INCORRECT_TYPE;
}

// The JSON spelling of a value for messages ("5", "\"x\"", "[1,2]", "an object").
std::string Spelling(const Value& v, bool object) {
  if (object) return "a JSON object";
  return v.DebugString();
}

// True when the first JSON value of `text` (an object, which the parser accepted) is followed
// by nothing but whitespace. simdjson 3.0's On-Demand document cannot tell whether a root
// object has trailing values ("{} {}"), so the loader finds the end of the first one itself.
bool EndsAfterFirstValue(std::string_view text) {
  int depth = 0;
  size_t i = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) break;
    }
  }
  return i >= text.size() || IsBlank(text.substr(i + 1));
}

}  // namespace

bool IsReservedPhysicalField(std::string_view name) {
  return std::find(std::begin(kReserved), std::end(kReserved), name) != std::end(kReserved);
}

Result<bool> StringLines::Next(std::string_view* line) {
  if (offset_ >= input_.size()) return false;
  size_t end = input_.find('\n', offset_);
  if (end == std::string_view::npos) end = input_.size();
  *line = input_.substr(offset_, end - offset_);
  offset_ = end + 1;
  return true;
}

Result<std::unique_ptr<FileLines>> FileLines::Open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return NotFound("cannot open '" + path + "' for reading");
  struct stat info {};
  const uint64_t size = fstat(fileno(file), &info) == 0 ? static_cast<uint64_t>(info.st_size) : 0;
  return std::unique_ptr<FileLines>(new FileLines(file, path, size));
}

FileLines::FileLines(std::FILE* file, std::string path, uint64_t size_bytes)
    : ReaderLines(
          [file, path](char* buffer, size_t capacity) -> Result<size_t> {
            const size_t got = std::fread(buffer, 1, capacity, file);
            if (got < capacity && std::ferror(file)) {
              return Status(Code::kTransient, "reading '" + path + "' failed");
            }
            return got;
          },
          path),
      file_(file),
      size_bytes_(size_bytes) {}

FileLines::~FileLines() { std::fclose(file_); }

Result<bool> ReaderLines::Next(std::string_view* line) {
  if (oversized_) return Internal("a line source read past a line over the limit");
  size_t scanned = consumed_;
  while (true) {
    const std::string_view held(buffer_.data(), end_);
    const size_t nl = held.find('\n', scanned);
    if (nl != std::string::npos && nl - consumed_ <= kLoadLineBytesMax) {
      *line = held.substr(consumed_, nl - consumed_);
      consumed_ = nl + 1;
      return true;
    }
    if (nl != std::string::npos || end_ - consumed_ > kLoadLineBytesMax) {
      // Over the limit: hand out its head (which the reader refuses) without reading the rest.
      oversized_ = true;
      *line = held.substr(consumed_, kLoadLineBytesMax + 1);
      return true;
    }
    if (eof_) break;
    // Drop the consumed lines only when reading more, so each byte moves at most once per read.
    std::memmove(buffer_.data(), buffer_.data() + consumed_, end_ - consumed_);
    end_ -= consumed_;
    consumed_ = 0;
    scanned = end_;
    // Grown, never shrunk or refilled: a reader that hands over little at a time costs little.
    if (buffer_.size() < end_ + kChunkBytes) buffer_.resize(end_ + kChunkBytes);
    OMNIGRAPH_ASSIGN_OR_RETURN(size_t got, read_(buffer_.data() + end_, kChunkBytes));
    if (got > kChunkBytes) return Internal("the reader of '" + name_ + "' overfilled its buffer");
    end_ += got;
    bytes_taken_ += got;
    if (got == 0) eof_ = true;
  }
  if (consumed_ >= end_) return false;
  *line = std::string_view(buffer_.data() + consumed_, end_ - consumed_);
  consumed_ = end_;
  return true;
}

struct JsonlLineParser::Parser {
  sj::parser parser;
};

JsonlLineParser::JsonlLineParser() : parser_(std::make_unique<Parser>()) {}

JsonlLineParser::~JsonlLineParser() = default;

bool IsBlankLine(std::string_view line) { return IsBlank(line); }

JsonlReader::JsonlReader(LineSource& lines) : lines_(lines) {}

Result<bool> JsonlReader::Next(JsonlRecord* record) {
  std::string_view line;
  while (true) {
    OMNIGRAPH_ASSIGN_OR_RETURN(bool more, lines_.Next(&line));
    if (!more) return false;
    ++line_;
    bytes_read_ += line.size() + 1;
    if (line.size() > kLoadLineBytesMax) {
      return Status(Code::kResourceLimit, LinePrefix(line_) + "the line is longer than " +
                                              std::to_string(kLoadLineBytesMax) +
                                              " bytes, the limit");
    }
    if (IsBlank(line)) continue;
    OMNIGRAPH_RETURN_IF_ERROR(parser_.Parse(line, line_, record));
    return true;
  }
}

Status JsonlLineParser::Parse(std::string_view line, uint64_t line_number, JsonlRecord* record) {
  // Cleared, not replaced: the strings keep their capacity from line to line.
  record->line = line_number;
  record->is_edge = false;
  record->type.clear();
  record->from.clear();
  record->to.clear();
  record->top_id.reset();
  record->data.clear();
  return ParseLine(line, line_number, record);
}

Status JsonlLineParser::ParseLine(std::string_view line, uint64_t n, JsonlRecord* r) {
  padded_.resize(line.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(padded_.data(), line.data(), line.size());
  sj::document doc;
  if (auto e = parser_->parser.iterate(padded_.data(), line.size(), padded_.size()).get(doc)) {
    // simdjson validates the UTF-8 of the whole line before anything of it is read; name the
    // first bad byte (the line itself may not be quoted: it is not valid text).
    if (std::optional<size_t> bad = FindInvalidUtf8(line); e == simdjson::UTF8_ERROR && bad) {
      return InvalidArgument(LinePrefix(n) + "the line is not valid UTF-8 (" +
                             DescribeInvalidUtf8(line, *bad) + ")");
    }
    return JsonError(n, e);
  }
  sj::object obj;
  if (auto e = doc.get_object().get(obj)) {
    if (e == simdjson::INCORRECT_TYPE) {
      return InvalidArgument(LinePrefix(n) + "graph batch record must be one JSON object");
    }
    return JsonError(n, e);
  }
  // The top-level names met so far (views into the parser's buffer, valid for this document).
  // Any name but the five of the envelope is refused at once, so a few are ever held.
  std::string_view seen[8];
  size_t seen_count = 0;
  bool has_type = false, has_edge = false, has_from = false, has_to = false;
  for (auto member : obj) {
    sj::field field;
    if (auto e = std::move(member).get(field)) return JsonError(n, e);
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError(n, e);
    if (std::find(seen, seen + seen_count, key) != seen + seen_count) {
      return InvalidArgument(LinePrefix(n) + "duplicate JSON member '" + std::string(key) + "'");
    }
    if (seen_count < std::size(seen)) seen[seen_count++] = key;
    if (key == "data") {
      sj::object data;
      if (auto e = field.value().get_object().get(data)) {
        if (e != simdjson::INCORRECT_TYPE) return JsonError(n, e);
        Value v;
        bool object = false;
        if (auto e2 = ReadValue(field.value(), 0, &v, &object)) return JsonError(n, e2);
        return InvalidArgument(LinePrefix(n) + "graph batch field 'data' must be an object, got " +
                               Spelling(v, object));
      }
      for (auto dm : data) {
        sj::field df;
        if (auto e = std::move(dm).get(df)) return JsonError(n, e);
        std::string_view dk;
        if (auto e = df.unescaped_key().get(dk)) return JsonError(n, e);
        for (const auto& [name, value] : r->data) {
          if (name == dk) {
            return InvalidArgument(LinePrefix(n) + "duplicate JSON member '" + std::string(dk) +
                                   "'");
          }
        }
        std::string name(dk);
        Value v;
        bool object = false;
        if (auto e = ReadValue(df.value(), 0, &v, &object)) return JsonError(n, e);
        if (object) {
          return InvalidArgument(LinePrefix(n) + "data field '" + name +
                                 "' holds a nested JSON object or array, which no property "
                                 "type accepts");
        }
        r->data.emplace_back(std::move(name), std::move(v));
      }
      continue;
    }
    std::string* target = key == "type"   ? &r->type
                          : key == "edge" ? &r->type
                          : key == "from" ? &r->from
                          : key == "to"   ? &r->to
                                          : nullptr;
    sj::json_type kind;
    if (auto e = field.value().type().get(kind)) return JsonError(n, e);
    if (target != nullptr && kind == sj::json_type::string) {
      // The common case, read straight into the record's string.
      std::string_view text;
      if (auto e = field.value().get_string().get(text)) return JsonError(n, e);
      target->assign(text);
      has_type = has_type || key == "type";
      has_edge = has_edge || key == "edge";
      has_from = has_from || key == "from";
      has_to = has_to || key == "to";
      continue;
    }
    Value v;
    bool object = false;
    if (auto e = ReadValue(field.value(), 0, &v, &object)) return JsonError(n, e);
    if (key == "id") {
      if (object) {
        return InvalidArgument(LinePrefix(n) + "field 'id' must be a string, got a JSON object");
      }
      r->top_id = std::move(v);
      continue;
    }
    if (target == nullptr) {
      if (IsReservedPhysicalField(key)) {
        return InvalidArgument(LinePrefix(n) + "top-level field '" + std::string(key) +
                               "' is reserved physical state");
      }
      return InvalidArgument(LinePrefix(n) + "unknown top-level graph batch field '" +
                             std::string(key) + "'");
    }
    return InvalidArgument(LinePrefix(n) + "graph batch field '" + std::string(key) +
                           "' must be a string, got " + Spelling(v, object));
  }
  if (!EndsAfterFirstValue(line)) {
    return InvalidArgument(LinePrefix(n) + "invalid JSON: content after the record's object");
  }
  if (has_type == has_edge) {
    return InvalidArgument(LinePrefix(n) +
                           "graph batch record must contain exactly one of 'type' or 'edge'");
  }
  r->is_edge = has_edge;
  if (!r->is_edge && (has_from || has_to)) {
    return InvalidArgument(LinePrefix(n) + "unknown top-level graph batch field '" +
                           std::string(has_from ? "from" : "to") + "'");
  }
  if (r->is_edge && !has_from) {
    return InvalidArgument(LinePrefix(n) + "graph batch record requires field 'from'");
  }
  if (r->is_edge && !has_to) {
    return InvalidArgument(LinePrefix(n) + "graph batch record requires field 'to'");
  }
  return Status::Ok();
}

}  // namespace omnigraph::engine
