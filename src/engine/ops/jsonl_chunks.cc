#include "engine/ops/jsonl_chunks.h"

#include <string_view>

namespace omnigraph::engine {

// Lines of the input and, once parsed, their records. Everything is kept from chunk to chunk
// (cleared, not freed), so a load of many chunks allocates for the first few only.
struct ChunkedJsonlReader::Chunk {
  // The non-blank lines, end to end, and where each sits in `text`.
  struct Line {
    size_t offset = 0;
    size_t size = 0;
    uint64_t number = 0;
    uint64_t bytes_end = 0;  // Bytes read up to the end of this line.
  };
  std::string text;
  std::vector<Line> lines;
  // records[i] is lines[i]'s, for i < parsed; `error` is lines[parsed]'s when not ok.
  std::vector<JsonlRecord> records;
  size_t parsed = 0;
  Status error;
  // Met while reading after the last line (a line over the limit, a failing source): reported
  // once the lines before it are taken.
  Status read_error;
  uint64_t bytes_end = 0;  // Bytes read up to the end of the chunk (trailing blank lines too).
  JsonlLineParser parser;
  std::unique_ptr<TaskGroup> group;

  void Clear() {
    text.clear();
    lines.clear();
    parsed = 0;
    error = Status::Ok();
    read_error = Status::Ok();
  }

  // Parses the lines up to the first that fails.
  void Parse() {
    if (records.size() < lines.size()) records.resize(lines.size());
    for (const Line& line : lines) {
      error = parser.Parse(std::string_view(text).substr(line.offset, line.size), line.number,
                           &records[parsed]);
      if (!error.ok()) return;
      ++parsed;
    }
  }
};

ChunkedJsonlReader::ChunkedJsonlReader(LineSource& lines, Executor& executor, size_t chunk_bytes)
    : lines_(lines), executor_(executor), chunk_bytes_(chunk_bytes) {}

ChunkedJsonlReader::~ChunkedJsonlReader() {
  for (const std::unique_ptr<Chunk>& chunk : ahead_) chunk->group->Wait().IgnoreError();
}

void ChunkedJsonlReader::FillChunk(Chunk& chunk) {
  chunk.Clear();
  while (chunk.text.size() < chunk_bytes_) {
    std::string_view line;
    Result<bool> more = lines_.Next(&line);
    if (!more.ok() || !*more) {
      input_done_ = true;
      chunk.read_error = more.status();
      break;
    }
    ++line_;
    bytes_taken_ += line.size() + 1;
    if (line.size() > kLoadLineBytesMax) {
      // What JsonlReader reports for this line; nothing after it is read.
      input_done_ = true;
      chunk.read_error = Status(Code::kResourceLimit,
                                "line " + std::to_string(line_) + ": the line is longer than " +
                                    std::to_string(kLoadLineBytesMax) + " bytes, the limit");
      break;
    }
    if (IsBlankLine(line)) continue;
    chunk.lines.push_back(Chunk::Line{chunk.text.size(), line.size(), line_, bytes_taken_});
    chunk.text.append(line);
  }
  chunk.bytes_end = bytes_taken_;
}

void ChunkedJsonlReader::ReadAhead() {
  while (!input_done_ && ahead_.size() < kParseChunksAhead) {
    std::unique_ptr<Chunk> chunk;
    if (spare_.empty()) {
      chunk = std::make_unique<Chunk>();
    } else {
      chunk = std::move(spare_.back());
      spare_.pop_back();
    }
    FillChunk(*chunk);
    chunk->group = std::make_unique<TaskGroup>(executor_);
    Chunk* raw = chunk.get();
    chunk->group->Add([raw]() -> Status {
      raw->Parse();
      return Status::Ok();
    });
    ahead_.push_back(std::move(chunk));
  }
}

Result<const JsonlRecord*> ChunkedJsonlReader::Next() {
  while (true) {
    if (current_ != nullptr) {
      Chunk& c = *current_;
      if (next_ < c.parsed) {
        bytes_read_ = c.lines[next_].bytes_end;
        return &c.records[next_++];
      }
      if (!c.error.ok()) return c.error;
      if (!c.read_error.ok()) return c.read_error;
      bytes_read_ = c.bytes_end;
      spare_.push_back(std::move(current_));
    }
    // Reading ahead first: the chunks handed over are parsed while this thread waits or, once
    // the oldest is back, adds its records.
    ReadAhead();
    if (ahead_.empty()) return static_cast<const JsonlRecord*>(nullptr);
    current_ = std::move(ahead_.front());
    ahead_.pop_front();
    current_->group->Wait().IgnoreError();  // Parse reports in the chunk, not here.
    current_->group.reset();
    next_ = 0;
  }
}

}  // namespace omnigraph::engine
