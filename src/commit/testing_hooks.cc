#include "commit/testing_hooks.h"

namespace omnigraph::commit {

PlantedBugs& TestingHooks() {
  static PlantedBugs hooks;
  return hooks;
}

}  // namespace omnigraph::commit
