#include "base/json.h"

#include <set>
#include <vector>

namespace omnigraph {

namespace {

template <typename J>
Result<J> ParseImpl(std::string_view text, std::string_view what, bool as_corruption) {
  const Code code = as_corruption ? Code::kCorruption : Code::kInvalidArgument;
  // A stored object's damage names the object (Status::object), as every decoder's errors do.
  const std::string object = as_corruption ? std::string(what) : std::string();
  // A stack of the member names seen in each open object, to refuse duplicates.
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
  if (!duplicate.empty()) {
    return Status(code, "duplicate member '" + duplicate + "' in " + std::string(what), object);
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
