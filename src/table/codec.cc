#include "table/codec.h"

#include <zstd.h>

#include <cstring>

namespace omnigraph::table {

namespace {

struct Contexts {
  Contexts() : compress(ZSTD_createCCtx()), decompress(ZSTD_createDCtx()) {}
  ~Contexts() {
    ZSTD_freeCCtx(compress);
    ZSTD_freeDCtx(decompress);
  }
  Contexts(const Contexts&) = delete;
  Contexts& operator=(const Contexts&) = delete;
  ZSTD_CCtx* compress;
  ZSTD_DCtx* decompress;
};

Contexts& ThreadContexts() {
  thread_local Contexts contexts;
  return contexts;
}

}  // namespace

Status ValidateZstdLevel(int level) {
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
    return InvalidArgument("zstd level " + std::to_string(level) + " is outside [" +
                           std::to_string(ZSTD_minCLevel()) + ", " +
                           std::to_string(ZSTD_maxCLevel()) + "]");
  }
  return Status::Ok();
}

Result<size_t> ZstdCompressAppend(std::span<const uint8_t> source, int level, std::string& out) {
  const size_t start = out.size();
  out.resize(start + ZSTD_compressBound(source.size()));
  const size_t written = ZSTD_compressCCtx(ThreadContexts().compress, out.data() + start,
                                           out.size() - start, source.data(), source.size(), level);
  if (ZSTD_isError(written)) {
    out.resize(start);
    return Internal(std::string("zstd compression failed: ") + ZSTD_getErrorName(written));
  }
  out.resize(start + written);
  return written;
}

Status ZstdDecompressExact(std::string_view source, std::span<uint8_t> destination) {
  const size_t produced = ZSTD_decompressDCtx(ThreadContexts().decompress, destination.data(),
                                              destination.size(), source.data(), source.size());
  if (ZSTD_isError(produced)) {
    return Corruption(std::string("zstd frame does not decode: ") + ZSTD_getErrorName(produced));
  }
  if (produced != destination.size()) {
    return Corruption("zstd frame decodes to " + std::to_string(produced) + " bytes; expected " +
                      std::to_string(destination.size()));
  }
  return Status::Ok();
}

std::vector<uint8_t> DeltaEncode32(std::span<const uint8_t> raw) {
  std::vector<uint8_t> out(raw.size());
  uint32_t prev = 0;
  for (size_t at = 0; at + sizeof(uint32_t) <= raw.size(); at += sizeof(uint32_t)) {
    uint32_t value;
    std::memcpy(&value, raw.data() + at, sizeof(value));
    const uint32_t delta = value - prev;
    std::memcpy(out.data() + at, &delta, sizeof(delta));
    prev = value;
  }
  return out;
}

void DeltaDecode32(std::span<uint8_t> bytes) {
  uint32_t sum = 0;
  for (size_t at = 0; at + sizeof(uint32_t) <= bytes.size(); at += sizeof(uint32_t)) {
    uint32_t delta;
    std::memcpy(&delta, bytes.data() + at, sizeof(delta));
    sum += delta;
    std::memcpy(bytes.data() + at, &sum, sizeof(sum));
  }
}

}  // namespace omnigraph::table
