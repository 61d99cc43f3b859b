// UTF-8 validation: the one check every text input passes (query and schema sources, literals,
// parameters, actor and branch names, NDJSON values) and every output path relies on.
//
// Valid means RFC 3629: no overlong forms, no surrogates (U+D800..U+DFFF), nothing above
// U+10FFFF, no truncated sequence. Errors name the first bad byte by its offset (and, for
// sources, its line and column) and never echo the bad bytes themselves, so a message about bad
// text is itself valid UTF-8. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace omnigraph {

// The length (1..4) of the valid UTF-8 sequence that starts at text[offset], or 0 when none
// does. `offset` must be less than text.size().
size_t Utf8SequenceLength(std::string_view text, size_t offset);

// The byte offset of the first byte that does not begin a valid UTF-8 sequence; nullopt when
// the whole text is valid.
std::optional<size_t> FindInvalidUtf8(std::string_view text);

inline bool IsValidUtf8(std::string_view text) { return !FindInvalidUtf8(text).has_value(); }

// "byte 0xe9 at offset 3": how a message names the first bad byte of `text` at `offset`.
std::string DescribeInvalidUtf8(std::string_view text, size_t offset);

// OK for valid text; otherwise InvalidArgument "<what> is not valid UTF-8 (byte 0xe9 at offset
// 3)".
Status CheckUtf8(std::string_view text, std::string_view what);

// A 1-based line and column (columns count bytes, as the parsers' positions do).
struct TextPosition {
  uint32_t line = 1;
  uint32_t column = 1;
};

// The line and column of byte `offset` of `text` (offset <= text.size()).
TextPosition PositionAt(std::string_view text, size_t offset);

// `text` with every byte that is not part of a valid UTF-8 sequence written as "\xNN": for
// quoting untrusted text in a message.
std::string EscapeInvalidUtf8(std::string_view text);

}  // namespace omnigraph
