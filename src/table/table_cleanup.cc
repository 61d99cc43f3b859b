#include "table/table_cleanup.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/executor.h"

namespace omnigraph::table {

namespace {

enum class Phase { kData, kManifest };

// The phase of `name`, or InvalidArgument when it is not an object of a table folder:
// "tables/{16 hex}-{16 hex}/{data|deletions|deleted|versions}/{file}".
Result<Phase> PhaseOf(const std::string& name) {
  const auto bad = [&](const char* why) {
    return InvalidArgument(std::string("cleanup refuses a name that is not a table object: ") + why,
                           name);
  };
  constexpr std::string_view kPrefix = "tables/";
  if (!std::string_view(name).starts_with(kPrefix)) return bad("not under tables/");
  const std::string_view rest = std::string_view(name).substr(kPrefix.size());
  if (rest.size() < 34 || rest[16] != '-' || rest[33] != '/') return bad("no table folder");
  for (size_t i = 0; i < 33; ++i) {
    if (i != 16 && !std::isxdigit(static_cast<unsigned char>(rest[i])))
      return bad("no table folder");
  }
  const std::string_view path = rest.substr(34);
  const size_t slash = path.find('/');
  if (slash == std::string_view::npos || slash + 1 == path.size() ||
      path.find('/', slash + 1) != std::string_view::npos) {
    return bad("not a file of a table subfolder");
  }
  const std::string_view folder = path.substr(0, slash);
  if (folder == "versions") return Phase::kManifest;
  if (folder == "data" || folder == "deletions" || folder == "deleted" || folder == "derived") {
    return Phase::kData;
  }
  return bad("unknown table subfolder");
}

}  // namespace

Result<CleanupReport> CleanupObjects(const storage::Runtime& runtime,
                                     std::span<const std::string> names,
                                     const CleanupOptions& options) {
  std::vector<std::string> phases[2];
  std::set<std::string_view> seen;
  for (const std::string& name : names) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Phase phase, PhaseOf(name));
    if (!seen.insert(name).second) return InvalidArgument("cleanup names an object twice", name);
    phases[phase == Phase::kData ? 0 : 1].push_back(name);
  }
  CleanupReport report;
  for (std::vector<std::string>& phase : phases) {
    // Sorted so that reports (and deletion order with an inline executor) are deterministic.
    std::sort(phase.begin(), phase.end());
    std::vector<int> outcome(phase.size(), 0);  // 1 removed, 2 young, 3 gone.
    std::vector<uint64_t> sizes(phase.size(), 0);
    TaskGroup group(*runtime.executor);
    for (size_t i = 0; i < phase.size(); ++i) {
      group.Add([&, i]() -> Status {
        Result<storage::ObjectMeta> meta = runtime.store->Head(phase[i]);
        if (!meta.ok()) {
          if (meta.status().kind() != Kind::kNotFound) return meta.status();
          outcome[i] = 3;
          return Status::Ok();
        }
        // The clock is read per object, after its HEAD, so an object written while cleanup runs
        // is measured against a time no earlier than its write.
        if (runtime.clock->NowMicros() - meta->last_modified_micros < options.grace_micros) {
          outcome[i] = 2;
          return Status::Ok();
        }
        OMNIGRAPH_RETURN_IF_ERROR(runtime.store->Delete(phase[i]));
        outcome[i] = 1;
        sizes[i] = meta->size_bytes;
        return Status::Ok();
      });
    }
    const Status status = group.Wait();
    for (size_t i = 0; i < phase.size(); ++i) {
      if (outcome[i] == 1) {
        report.removed.push_back(phase[i]);
        ++report.objects_removed;
        report.bytes_removed += sizes[i];
      } else if (outcome[i] == 2) {
        report.kept_young.push_back(phase[i]);
      } else if (outcome[i] == 3) {
        report.already_gone.push_back(phase[i]);
      }
    }
    // Manifests are deleted only after every data file was: a failure stops here.
    OMNIGRAPH_RETURN_IF_ERROR(status);
  }
  return report;
}

}  // namespace omnigraph::table
