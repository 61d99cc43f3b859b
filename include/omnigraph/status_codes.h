// OmniGraph C++ — the one list of failure kinds and codes.
//
// Every kind and every code is listed here once, with its stable lower-case name and (for a
// code) the kind it carries by default. Both Status types are generated from these lists: the
// engine's (src/base/status.h, omnigraph::Kind/Code) and the public API's
// (omnigraph/status.h, omnigraph::api::Kind/Code), their CodeName/KindName/KindOf, the mapping
// between the two (a static_cast, with static_asserts that the numbers agree) and the remote
// client's lookup of a code by the name an omnigraph-server returns (decision 200).
//
// The lists are a contract: an enumerator's number is its position in its list and its name is
// what the CLI prints and the HTTP API returns, so entries are only ever appended (never
// reordered, renamed or removed), and kOk stays first (number 0). A new code also needs an HTTP
// status (src/server/errors.cc) and a CLI exit status (src/cli/cli.cc): those switches have no
// default, so the build fails until they name it. src/base/status_test.cc pins every entry.
//
// No includes and no declarations: macros only, so that the engine's base layer may include
// this public header (scripts/lint_code.py allows exactly this one).
#pragma once

// X(enumerator, "name"): what the caller should do about a failure.
// clang-format off
#define OMNIGRAPH_STATUS_KINDS(X)                                                             \
  X(kOk, "ok")                                                                                \
  X(kInvalidArgument, "invalid_argument") /* The input is wrong; fix it. Nothing changed. */  \
  X(kNotFound, "not_found")               /* The thing named does not exist. */               \
  X(kAlreadyExists, "already_exists")     /* The thing to create exists already. */           \
  X(kPrecondition, "precondition")        /* A compare-and-swap or expected head lost. */     \
  X(kConflict, "conflict")                /* Another writer got there first; refresh. */      \
  X(kTransient, "transient")              /* Nothing happened; retrying the call is safe. */  \
  X(kUnknown, "unknown")                  /* A write may or may not have taken effect. */     \
  X(kConfiguration, "configuration")      /* Credentials, permissions, URI: fix the setup. */ \
  X(kPermanent, "permanent")              /* Corruption or protocol violation. */             \
  X(kResourceLimit, "resource_limit")     /* A named limit was exceeded. */                   \
  X(kUnsupported, "unsupported")          /* Not implemented or not allowed here. */          \
  X(kInternal, "internal")                /* A bug in OmniGraph. */

// X(enumerator, "name", default kind): what happened, more precisely than the kind.
#define OMNIGRAPH_STATUS_CODES(X)                                                              \
  X(kOk, "ok", kOk)                                                                            \
  X(kInvalidArgument, "invalid_argument", kInvalidArgument)                                    \
  X(kNotFound, "not_found", kNotFound)                                                         \
  X(kAlreadyExists, "already_exists", kAlreadyExists)                                          \
  X(kPrecondition, "precondition", kPrecondition)                                              \
  X(kTransient, "transient", kTransient)                                                       \
  X(kUnknown, "unknown", kUnknown)                                                             \
  X(kConfiguration, "configuration", kConfiguration)                                           \
  X(kPermanent, "permanent", kPermanent)                                                       \
  X(kCorruption, "corruption", kPermanent)                                                     \
  X(kFormatTooNew, "format_too_new", kPermanent)                                               \
  X(kTooLarge, "too_large", kResourceLimit)                                                    \
  X(kUnsupported, "unsupported", kUnsupported)                                                 \
  X(kInternal, "internal", kInternal)                                                          \
  X(kCancelled, "cancelled", kInternal)                                                        \
  /* Engine and protocol codes (docs/design/overview.md "Failures"). */                        \
  X(kReadSetChanged, "read_set_changed", kConflict)     /* A strict write's reads changed. */  \
  X(kRetriesExhausted, "retries_exhausted", kConflict)  /* Publishing lost too many races. */  \
  X(kPublicationInDoubt, "publication_in_doubt", kUnknown) /* Look at the branch first. */     \
  X(kBranchNotFound, "branch_not_found", kNotFound)                                            \
  X(kBranchExists, "branch_exists", kAlreadyExists)                                            \
  X(kCommitNotFound, "commit_not_found", kNotFound)                                            \
  X(kAlreadyInitialized, "already_initialized", kAlreadyExists) /* Init found a graph. */      \
  X(kInitializationIncomplete, "initialization_incomplete", kPermanent) /* Init unfinished. */ \
  X(kKeyConflict, "key_conflict", kConflict)                /* A write would repeat a key. */  \
  X(kPreconditionFailed, "precondition_failed", kPrecondition) /* if_commit is not head. */    \
  X(kMergeConflicts, "merge_conflicts", kConflict)                                             \
  X(kResourceLimit, "resource_limit", kResourceLimit)                                          \
  X(kUnknownStamp, "unknown_stamp", kConfiguration)  /* Not a graph this version knows. */     \
  X(kVersionsReclaimed, "versions_reclaimed", kPermanent) /* Removed by cleanup. */            \
  X(kParentlessCommit, "parentless_commit", kUnsupported) /* A diff of genesis. */             \
  X(kSchemaBoundary, "schema_boundary", kUnsupported) /* A diff of a schema change. */         \
  X(kIdempotencyConflict, "idempotency_conflict", kConflict) /* Key reused, other request. */  \
  X(kChangeCursorRejected, "change_cursor_rejected", kPrecondition) /* Other life, damaged. */ \
  X(kChangeFeedGap, "change_feed_gap", kPermanent)  /* Cleanup reclaimed; take a baseline. */
// clang-format on
