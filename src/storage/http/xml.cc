#include "storage/http/xml.h"

#include <charconv>
#include <cstring>
#include <ctime>

namespace omnigraph::storage::http {

namespace {

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

template <typename T>
bool ParseNumber(std::string_view s, T* out, int base = 10) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, base);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

bool ParseU64(std::string_view s, uint64_t* out) { return ParseNumber(s, out); }

Result<std::string> XmlUnescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out.push_back(text[i]);
      continue;
    }
    size_t semi = text.find(';', i);
    if (semi == std::string_view::npos || semi - i > 12) {
      return Status(Code::kPermanent, "malformed XML entity in S3 response near '" +
                                          std::string(text.substr(i, 12)) + "'");
    }
    std::string_view entity = text.substr(i + 1, semi - i - 1);
    if (entity == "amp") {
      out.push_back('&');
    } else if (entity == "lt") {
      out.push_back('<');
    } else if (entity == "gt") {
      out.push_back('>');
    } else if (entity == "quot") {
      out.push_back('"');
    } else if (entity == "apos") {
      out.push_back('\'');
    } else {
      uint32_t cp = 0;
      bool ok = entity.size() > 1 && entity[0] == '#' &&
                (entity[1] == 'x' || entity[1] == 'X' ? ParseNumber(entity.substr(2), &cp, 16)
                                                      : ParseNumber(entity.substr(1), &cp, 10));
      if (!ok || cp > 0x10ffff) {
        return Status(Code::kPermanent,
                      "unknown XML entity '&" + std::string(entity) + ";' in S3 response");
      }
      AppendUtf8(cp, &out);
    }
    i = semi;
  }
  return out;
}

std::optional<std::string_view> XmlFirst(std::string_view xml, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">";
  const std::string empty = "<" + std::string(tag) + "/>";
  const std::string close = "</" + std::string(tag) + ">";
  size_t start = xml.find(open);
  size_t self_closed = xml.find(empty);
  if (self_closed != std::string_view::npos && self_closed < start) return std::string_view();
  if (start == std::string_view::npos) return std::nullopt;
  start += open.size();
  size_t end = xml.find(close, start);
  if (end == std::string_view::npos) return std::nullopt;
  return xml.substr(start, end - start);
}

std::vector<std::string_view> XmlAll(std::string_view xml, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">";
  const std::string close = "</" + std::string(tag) + ">";
  std::vector<std::string_view> out;
  size_t pos = 0;
  while ((pos = xml.find(open, pos)) != std::string_view::npos) {
    size_t start = pos + open.size();
    size_t end = xml.find(close, start);
    if (end == std::string_view::npos) break;
    out.push_back(xml.substr(start, end - start));
    pos = end + close.size();
  }
  return out;
}

std::optional<int64_t> ParseIso8601Micros(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fff…]Z
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text.back() != 'Z') {
    return std::nullopt;
  }
  std::tm tm{};
  int fields[6];
  const size_t offsets[6] = {0, 5, 8, 11, 14, 17};
  const size_t widths[6] = {4, 2, 2, 2, 2, 2};
  for (int i = 0; i < 6; ++i) {
    if (!ParseNumber(text.substr(offsets[i], widths[i]), &fields[i])) return std::nullopt;
  }
  tm.tm_year = fields[0] - 1900;
  tm.tm_mon = fields[1] - 1;
  tm.tm_mday = fields[2];
  tm.tm_hour = fields[3];
  tm.tm_min = fields[4];
  tm.tm_sec = fields[5];
  int64_t micros = static_cast<int64_t>(timegm(&tm)) * 1'000'000;
  std::string_view fraction = text.substr(19, text.size() - 20);
  if (!fraction.empty()) {
    if (fraction[0] != '.' || fraction.size() < 2) return std::nullopt;
    fraction.remove_prefix(1);
    int64_t scale = 100'000;
    for (char c : fraction) {
      if (c < '0' || c > '9') return std::nullopt;
      micros += (c - '0') * scale;
      scale /= 10;
    }
  }
  return micros;
}

std::optional<int64_t> ParseHttpDateMicros(std::string_view text) {
  std::tm tm{};
  std::string s(text);
  const char* end = strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(timegm(&tm)) * 1'000'000;
}

std::string StripQuotes(std::string_view etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return std::string(etag);
}

}  // namespace omnigraph::storage::http
