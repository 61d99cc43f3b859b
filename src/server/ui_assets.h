// The review page's files (src/server/ui/: HTML, standard ES modules, CSS), compiled into
// omnigraph-server by cmake/EmbedFiles.cmake, so the page needs no file, CDN or network at run
// time (docs/design/review-page.md). Immutable; read from any thread.
#pragma once

#include <string_view>
#include <vector>

namespace omnigraph::server::ui {

struct Asset {
  std::string_view path;   // relative to src/server/ui/: "index.html", "app.js"
  std::string_view bytes;  // the file as it is
};

// Every file, in the order the build lists them.
const std::vector<Asset>& Assets();

}  // namespace omnigraph::server::ui
