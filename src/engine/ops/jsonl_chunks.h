// ChunkedJsonlReader: the NDJSON envelope reader of a load (jsonl_reader.h), with the parsing
// moved off the caller's thread. The caller's thread cuts the input into chunks of whole lines
// (numbered as it goes) and hands each chunk to the runtime's executor, where a JsonlLineParser
// of the chunk's own parses its lines; the caller takes the records back chunk by chunk, in input
// order. What it returns — every record, its line number, the bytes read up to it, and the first
// error — is what JsonlReader returns over the same input, however the lines fall into chunks and
// whichever thread parsed them (docs/design/load.md "Parsing on the pool"). One consumer thread;
// the chunks being parsed are the reader's own until they come back.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "base/executor.h"
#include "base/status.h"
#include "engine/ops/jsonl_reader.h"

namespace omnigraph::engine {

// A chunk is handed to the executor once it holds this many bytes of lines (or the input ended).
inline constexpr size_t kParseChunkBytes = 256 << 10;
// Chunks read ahead of the one the caller takes records from: they are parsed meanwhile. The
// text and records of these (plus one line over kParseChunkBytes each) are the reader's memory.
inline constexpr size_t kParseChunksAhead = 4;

class ChunkedJsonlReader {
 public:
  // `lines` and `executor` must outlive the reader. `chunk_bytes` is kParseChunkBytes but for
  // tests, which cut an input into many chunks.
  ChunkedJsonlReader(LineSource& lines, Executor& executor, size_t chunk_bytes = kParseChunkBytes);
  // Waits for the chunks still being parsed.
  ~ChunkedJsonlReader();
  ChunkedJsonlReader(const ChunkedJsonlReader&) = delete;
  ChunkedJsonlReader& operator=(const ChunkedJsonlReader&) = delete;

  // The next record, valid until the next call; nullptr at the end of the input. The errors of
  // JsonlReader::Next, for the line it would report them on.
  Result<const JsonlRecord*> Next();
  // Bytes of the lines read up to the record returned last (up to the end, after the end).
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  struct Chunk;
  // Reads lines into chunks and hands them to the executor until kParseChunksAhead are ahead or
  // the input ended.
  void ReadAhead();
  // Fills `chunk` with the next lines of the input.
  void FillChunk(Chunk& chunk);

  LineSource& lines_;
  Executor& executor_;
  size_t chunk_bytes_;
  uint64_t line_ = 0;         // Lines read from the source so far.
  uint64_t bytes_taken_ = 0;  // Bytes of those lines, with their newlines.
  bool input_done_ = false;   // The source ended, or failed (the failure is the last chunk's).
  std::deque<std::unique_ptr<Chunk>> ahead_;   // Being parsed, oldest first.
  std::vector<std::unique_ptr<Chunk>> spare_;  // Parsed and taken: reused.
  std::unique_ptr<Chunk> current_;             // The chunk records are taken from.
  size_t next_ = 0;                            // Its next record.
  uint64_t bytes_read_ = 0;
};

}  // namespace omnigraph::engine
