#include "base/json.h"

#include <set>
#include <vector>

namespace omnigraph {

namespace {

// The name of a member that appears twice in one object of `text` (which parses), found by
// keeping each open object's member names: the slow path, run only once a duplicate is known.
template <typename J>
std::string FirstDuplicate(std::string_view text) {
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  auto callback = [&](int /*depth*/, nlohmann::detail::parse_event_t event, J& parsed) {
    using Event = nlohmann::detail::parse_event_t;
    switch (event) {
      case Event::object_start: keys.emplace_back(); break;
      case Event::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case Event::key:
        if (!keys.empty() && !keys.back().insert(parsed.template get<std::string>()).second &&
            duplicate.empty()) {
          duplicate = parsed.template get<std::string>();
        }
        break;
      default: break;
    }
    return true;
  };
  // `text` parsed once already; a parse that throws here leaves no duplicate to name.
  J parsed = J::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? std::string() : duplicate;
}

template <typename J>
Result<J> ParseImpl(std::string_view text, std::string_view what, bool as_corruption) {
  const Code code = as_corruption ? Code::kCorruption : Code::kInvalidArgument;
  // A stored object's damage names the object (Status::object), as every decoder's errors do.
  const std::string object = as_corruption ? std::string(what) : std::string();
  // Duplicates are refused. The parser keeps the last of a repeated member, so an object that
  // had one holds fewer members than the keys it was given: each open object's key count is
  // compared with its size when it closes (no copy of any name; a fresh process parses every
  // document of its open this way, decision 229). The duplicate is named by a second parse.
  std::vector<size_t> counts;
  bool has_duplicate = false;
  auto callback = [&](int /*depth*/, nlohmann::detail::parse_event_t event, J& parsed) {
    using Event = nlohmann::detail::parse_event_t;
    switch (event) {
      case Event::object_start: counts.push_back(0); break;
      case Event::key:
        if (!counts.empty()) ++counts.back();
        break;
      case Event::object_end:
        if (!counts.empty()) {
          if (parsed.is_object() && parsed.size() != counts.back()) has_duplicate = true;
          counts.pop_back();
        }
        break;
      default: break;
    }
    return true;
  };
  J value;
  try {
    value = J::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/true);
  } catch (const nlohmann::json::parse_error& e) {
    return Status(code,
                  "invalid JSON in " + std::string(what) + " at byte " + std::to_string(e.byte) +
                      ": " + e.what(),
                  object);
  } catch (const nlohmann::json::exception& e) {
    // Not a syntax error but a value nlohmann refuses: a number beyond a double's range
    // ("1e999", out_of_range.406) is the one a parse throws (fuzz/regressions/manifest).
    return Status(code, "invalid JSON in " + std::string(what) + ": " + e.what(), object);
  }
  if (has_duplicate) {
    return Status(
        code, "duplicate member '" + FirstDuplicate<J>(text) + "' in " + std::string(what), object);
  }
  return value;
}

}  // namespace

Result<Json> ParseJson(std::string_view text, std::string_view what, bool as_corruption) {
  return ParseImpl<Json>(text, what, as_corruption);
}

Result<OrderedJson> ParseOrderedJson(std::string_view text, std::string_view what,
                                     bool as_corruption) {
  return ParseImpl<OrderedJson>(text, what, as_corruption);
}

std::string CanonicalJson(const Json& value) {
  // nlohmann::json stores objects in a std::map, so dump() already emits sorted keys.
  // Invalid UTF-8 (which validated inputs never contain) is replaced rather than thrown.
  return value.dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

std::string CanonicalJson(const OrderedJson& value) {
  return CanonicalJson(Json::parse(value.dump()));
}

}  // namespace omnigraph
