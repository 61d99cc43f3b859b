#include "table/codec.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>

namespace omnigraph::table {

namespace {

// Each thread's contexts, made on first use: a thread that only reads (every query thread)
// never allocates a compression context.
template <typename Context, Context* (*Create)(), size_t (*Free)(Context*)>
Context* ThreadContext() {
  struct Owner {
    Context* context = Create();
    ~Owner() { Free(context); }
  };
  thread_local Owner owner;
  return owner.context;
}

ZSTD_CCtx* ThreadCompressContext() {
  return ThreadContext<ZSTD_CCtx, ZSTD_createCCtx, ZSTD_freeCCtx>();
}

ZSTD_DCtx* ThreadDecompressContext() {
  return ThreadContext<ZSTD_DCtx, ZSTD_createDCtx, ZSTD_freeDCtx>();
}

Status Undecodable(size_t code) {
  return Corruption(std::string("zstd frame does not decode: ") + ZSTD_getErrorName(code));
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
  const size_t written = ZSTD_compressCCtx(ThreadCompressContext(), out.data() + start,
                                           out.size() - start, source.data(), source.size(), level);
  if (ZSTD_isError(written)) {
    out.resize(start);
    return Internal(std::string("zstd compression failed: ") + ZSTD_getErrorName(written));
  }
  out.resize(start + written);
  return written;
}

Status ZstdDecompressExact(std::string_view source, std::span<uint8_t> destination) {
  const size_t produced = ZSTD_decompressDCtx(ThreadDecompressContext(), destination.data(),
                                              destination.size(), source.data(), source.size());
  if (ZSTD_isError(produced)) return Undecodable(produced);
  if (produced != destination.size()) {
    return Corruption("zstd frame decodes to " + std::to_string(produced) + " bytes; expected " +
                      std::to_string(destination.size()));
  }
  return Status::Ok();
}

Result<size_t> ZstdCompressFramesAppend(std::span<const uint8_t> source, int level,
                                        uint64_t frame_bytes, std::string& out) {
  if (frame_bytes == 0 || source.size() <= frame_bytes) {
    return ZstdCompressAppend(source, level, out);
  }
  const size_t start = out.size();
  for (size_t at = 0; at < source.size(); at += frame_bytes) {
    Result<size_t> appended = ZstdCompressAppend(
        source.subspan(at, std::min<size_t>(frame_bytes, source.size() - at)), level, out);
    if (!appended.ok()) {
      out.resize(start);
      return appended.status();
    }
  }
  return out.size() - start;
}

namespace {

// Decodes the first `destination.size()` bytes of the one frame at the start of `frame`, which
// decodes to `frame_bytes`: streaming, block by block, so the blocks past them are not decoded.
Status DecodeFramePrefix(std::string_view frame, uint64_t frame_bytes,
                         std::span<uint8_t> destination) {
  if (destination.size() == frame_bytes) return ZstdDecompressExact(frame, destination);
  ZSTD_DCtx* context = ThreadDecompressContext();
  ZSTD_DCtx_reset(context, ZSTD_reset_session_only);
  ZSTD_inBuffer in{frame.data(), frame.size(), 0};
  ZSTD_outBuffer out{destination.data(), destination.size(), 0};
  Status status = Status::Ok();
  while (out.pos < out.size && status.ok()) {
    const size_t in_before = in.pos, out_before = out.pos;
    const size_t result = ZSTD_decompressStream(context, &out, &in);
    if (ZSTD_isError(result)) {
      status = Undecodable(result);
    } else if (out.pos < out.size && (result == 0 || in.pos == in.size ||
                                      (in.pos == in_before && out.pos == out_before))) {
      // The decoder returns before the output is full only when the frame ended or it needs
      // input it lacks.
      status = Corruption("zstd frame ends after " + std::to_string(out.pos) +
                          " bytes; its header says " + std::to_string(frame_bytes));
    }
  }
  // A frame left half-decoded must not leak into the thread's next decompression.
  ZSTD_DCtx_reset(context, ZSTD_reset_session_only);
  return status;
}

}  // namespace

Status ZstdDecompressRange(std::string_view source, uint64_t total_bytes, uint64_t begin,
                           std::span<uint8_t> destination) {
  const uint64_t end = begin + destination.size();
  if (end > total_bytes) {
    return Corruption("bytes [" + std::to_string(begin) + ", " + std::to_string(end) +
                      ") of a buffer of " + std::to_string(total_bytes));
  }
  if (begin == 0 && end == total_bytes) return ZstdDecompressExact(source, destination);
  std::vector<uint8_t> scratch;
  uint64_t at = 0;  // Where the next frame's bytes start in the decoded buffer.
  while (at < end) {
    if (source.empty()) {
      return Corruption("zstd frames end after " + std::to_string(at) + " bytes; expected " +
                        std::to_string(total_bytes));
    }
    const unsigned long long frame_bytes = ZSTD_getFrameContentSize(source.data(), source.size());
    const size_t stored = ZSTD_findFrameCompressedSize(source.data(), source.size());
    if (frame_bytes == ZSTD_CONTENTSIZE_ERROR || ZSTD_isError(stored)) {
      return Corruption("zstd frame does not decode: no valid frame at decoded byte " +
                        std::to_string(at));
    }
    if (frame_bytes == ZSTD_CONTENTSIZE_UNKNOWN) {
      // Only a writer other than ours omits the size: decode the whole buffer, then copy.
      std::vector<uint8_t> whole(total_bytes);
      OMNIGRAPH_RETURN_IF_ERROR(ZstdDecompressExact(source, whole));
      std::copy(whole.begin() + static_cast<ptrdiff_t>(begin),
                whole.begin() + static_cast<ptrdiff_t>(end), destination.begin());
      return Status::Ok();
    }
    if (frame_bytes > total_bytes - at) {
      return Corruption("zstd frames decode to more than " + std::to_string(total_bytes) +
                        " bytes");
    }
    if (at + frame_bytes > begin) {
      // The frame holds some of [begin, end): decode it up to what is needed, then copy. zstd
      // decodes whole blocks of up to ZSTD_BLOCKSIZE_MAX (128 KiB) of output, so stopping early
      // saves nothing in a frame no larger than one block, while the streaming decoder it takes
      // allocates and first touches its own buffers (in a fresh process, a third of a lookup's
      // decode was their page faults): such a frame is decoded whole, in one call, into
      // `scratch`.
      const uint64_t needed = frame_bytes <= ZSTD_BLOCKSIZE_MAX
                                  ? frame_bytes
                                  : std::min<uint64_t>(end, at + frame_bytes) - at;
      scratch.resize(needed);
      OMNIGRAPH_RETURN_IF_ERROR(DecodeFramePrefix(source.substr(0, stored), frame_bytes,
                                                  {scratch.data(), scratch.size()}));
      const uint64_t from = std::max(begin, at) - at;
      const uint64_t to = std::min<uint64_t>(end, at + frame_bytes) - at;
      std::copy(scratch.begin() + static_cast<ptrdiff_t>(from),
                scratch.begin() + static_cast<ptrdiff_t>(to),
                destination.begin() + static_cast<ptrdiff_t>(at + from - begin));
    }
    at += frame_bytes;
    source.remove_prefix(stored);
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
