# Every dependency comes from a Debian 12 package (scripts/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(CURL REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
find_package(roaring REQUIRED)  # Target roaring::roaring.
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
pkg_check_modules(SIMDJSON REQUIRED IMPORTED_TARGET simdjson)
find_package(SQLite3 REQUIRED)
# YAML configuration files (cluster.yaml, omnigraph.yaml, policy bundles). Target yaml-cpp.
find_package(yaml-cpp 0.7 REQUIRED)
# Full-text analysis (docs/design/fulltext.md): Unicode normalization and Snowball stemming.
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
find_path(STEMMER_INCLUDE_DIR libstemmer.h REQUIRED)
find_library(STEMMER_LIBRARY stemmer REQUIRED)
add_library(omnigraph_stemmer INTERFACE)
target_include_directories(omnigraph_stemmer SYSTEM INTERFACE ${STEMMER_INCLUDE_DIR})
target_link_libraries(omnigraph_stemmer INTERFACE ${STEMMER_LIBRARY})
# The vector index (src/table/ann_index.cc): faiss's static library, which links BLAS/LAPACK
# itself and needs the OpenMP runtime from the consumer. Its BLAS and LAPACK are bound on first
# use instead (src/table/lazy_blas.cc), so that a process that never builds or searches a vector
# index does not load OpenBLAS at start (a fresh process spent most of its dynamic linking there).
find_package(OpenMP REQUIRED)
find_package(faiss REQUIRED)  # Target faiss.
set_property(TARGET faiss PROPERTY INTERFACE_LINK_LIBRARIES
             "$<LINK_ONLY:OpenMP::OpenMP_CXX>;omnigraph_lazy_blas")
if(OMNIGRAPH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
