# ccache, set up so that a clone of the repository in another folder hits the same cache: the base
# directory is this checkout, so absolute paths inside it hash as relative ones, and the working
# directory is left out of the hash.
find_program(OMNIGRAPH_CCACHE ccache)
if(OMNIGRAPH_CCACHE)
  set(launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} CCACHE_NOHASHDIR=1
      CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime,time_macros ${OMNIGRAPH_CCACHE})
  set(CMAKE_C_COMPILER_LAUNCHER ${launcher})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${launcher})
  # Debug information would otherwise carry this checkout's absolute path.
  add_compile_options(-fdebug-prefix-map=${CMAKE_SOURCE_DIR}=.)
  message(STATUS "omnigraph: ccache ${OMNIGRAPH_CCACHE} with base dir ${CMAKE_SOURCE_DIR}")
endif()
