#include "base/table_pin.h"

#include <cinttypes>
#include <cstdio>

namespace omnigraph {

std::string TableId::Root() const {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "tables/%016" PRIx64 "-%016" PRIx64, stable_table_id,
                incarnation);
  return buf;
}

}  // namespace omnigraph
