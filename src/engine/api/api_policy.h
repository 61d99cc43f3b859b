// The engine's side of api::Policy (include/omnigraph/policy.h): the validated bundle it wraps,
// for the local backend's gate (engine/api/api_local.cc).
#pragma once

#include "omnigraph/policy.h"
#include "policy/policy.h"

namespace omnigraph::api {

struct Policy::Impl {
  policy::Policy policy;
};

}  // namespace omnigraph::api
