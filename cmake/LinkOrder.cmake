# The release preset lays out, at the front of each program's code, the functions a cold process
# runs: opening a graph, a first read, the CLI's start (decision 251, docs/design/cold-start.md).
# Every function gets its own section (-ffunction-sections) and lld places the sections that
# cmake/link-order.txt names first, in its order; the rest follow as usual. A fresh process then
# pages in a few dense 64 KiB windows of code instead of one window per scattered function.
# scripts/link-order.sh regenerates the list; a name the code no longer has is ignored, so a stale
# list only costs locality, never correctness.
option(OMNIGRAPH_LINK_ORDER "Order the code of cold paths first (lld and cmake/link-order.txt)" OFF)
if(OMNIGRAPH_LINK_ORDER AND NOT OMNIGRAPH_SANITIZE STREQUAL "")
  message(STATUS "omnigraph: OMNIGRAPH_LINK_ORDER is for builds without a sanitizer; off")
elseif(OMNIGRAPH_LINK_ORDER)
  find_program(OMNIGRAPH_LD_LLD ld.lld)
  if(NOT OMNIGRAPH_LD_LLD)
    message(FATAL_ERROR "OMNIGRAPH_LINK_ORDER needs lld (ld.lld; scripts/install-deps.sh installs it)")
  endif()
  set(OMNIGRAPH_LINK_ORDER_FILE ${CMAKE_SOURCE_DIR}/cmake/link-order.txt)
  add_compile_options(-ffunction-sections)
  add_link_options(-fuse-ld=lld "LINKER:--symbol-ordering-file=${OMNIGRAPH_LINK_ORDER_FILE}"
                   "LINKER:--no-warn-symbol-ordering")
  message(STATUS "omnigraph: code of cold paths first, as ${OMNIGRAPH_LINK_ORDER_FILE} orders it")
endif()
