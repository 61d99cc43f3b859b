// Cleanup of table objects: deletes exactly the objects its caller names — the engine's
// retention plan (D10 in docs/design/overview.md) decides what is unreachable; this layer never
// decides.
//
// Guarantees: only names inside a table folder
// (tables/{id}-{incarnation}/data|deletions|deleted|derived| versions/...) are accepted, and a bad
// name refuses the whole call before anything is deleted; an object younger than the grace period
// (by the store's last-modified time against the Runtime clock) is never deleted; data files,
// deletion vectors and deleted-id files are all deleted before any manifest (D10's order), so a
// cleanup cut short leaves every manifest it was to delete in place, and a retry with the same
// names finds them again. Reports the objects and bytes removed. Thread-safe; the deletes of one
// phase run in parallel on the Runtime's executor.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "storage/uri.h"

namespace omnigraph::table {

// D10 (docs/design/overview.md): nothing younger than an hour is deleted unless the caller says
// otherwise.
inline constexpr int64_t kDefaultGraceMicros = 3600ll * 1000 * 1000;

struct CleanupOptions {
  int64_t grace_micros = kDefaultGraceMicros;
};

struct CleanupReport {
  uint64_t objects_removed = 0;
  uint64_t bytes_removed = 0;
  std::vector<std::string> removed;       // In the order deleted (data before manifests).
  std::vector<std::string> kept_young;    // Named but younger than the grace period.
  std::vector<std::string> already_gone;  // Named but absent.
};

// Deletes the named objects as described above. InvalidArgument (nothing deleted) for a name
// outside a table folder or named twice; storage failures as reported (what was deleted before
// the failure stays deleted; a retry with the same names finishes the job).
Result<CleanupReport> CleanupObjects(const storage::Runtime& runtime,
                                     std::span<const std::string> names,
                                     const CleanupOptions& options = {});

}  // namespace omnigraph::table
