# Warnings of STYLE.md; -Werror only when OMNIGRAPH_WERROR=ON (CI).
set(OMNIGRAPH_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(OMNIGRAPH_WERROR)
  list(APPEND OMNIGRAPH_WARNINGS -Werror)
endif()
