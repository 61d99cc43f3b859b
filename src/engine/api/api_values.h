// The conversions between the engine's values and the public API's (include/omnigraph/status.h,
// json.h): statuses keep their kind, code, message and object; JSON values keep their kind of
// number and their member order, so an envelope dumps to the same bytes on both sides.
// Pure functions; thread-safe.
#pragma once

#include "base/json.h"
#include "base/status.h"
#include "omnigraph/json.h"
#include "omnigraph/status.h"

namespace omnigraph::engine {

api::Code ToApi(Code code);
Code FromApi(api::Code code);
api::Kind ToApi(Kind kind);
Kind FromApi(api::Kind kind);

api::Status ToApi(const Status& status);
Status FromApi(const api::Status& status);

api::Json ToApi(const Json& value);
api::Json ToApi(const OrderedJson& value);
// Objects come back with sorted keys (Json is a sorted map), or in order (OrderedJson).
Json FromApi(const api::Json& value);
OrderedJson FromApiOrdered(const api::Json& value);

// A result of the engine as one of the API.
template <typename J>
api::Result<api::Json> ToApi(const Result<J>& result) {
  if (!result.ok()) return ToApi(result.status());
  return ToApi(*result);
}

}  // namespace omnigraph::engine
