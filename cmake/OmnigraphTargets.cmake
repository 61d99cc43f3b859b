# Helpers that give every library, test and tool the same flags.

# Two include roots. src/ holds the layers' internal headers (includes are rooted at src/,
# STYLE.md); include/ holds the public API (include/omnigraph/). Internal code sees both through
# omnigraph_internal_headers, which every layer links PUBLIC and every internal test and tool
# links PRIVATE. The public API is the library omnigraph_api (src/engine/CMakeLists.txt), whose
# users see include/ and nothing else: the CLI, the public example and api_test are built that
# way (PUBLIC_API below), so a public header that reached into src/ would not compile there.
add_library(omnigraph_internal_headers INTERFACE)
target_include_directories(omnigraph_internal_headers
  INTERFACE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

# omnigraph_library(NAME SOURCES ... [DEPS ...] [PUBLIC_DEPS ...])
# A layer's static library.
function(omnigraph_library name)
  cmake_parse_arguments(arg "" "" "SOURCES;DEPS;PUBLIC_DEPS" ${ARGN})
  add_library(${name} STATIC ${arg_SOURCES})
  target_compile_options(${name} PRIVATE ${OMNIGRAPH_WARNINGS})
  target_link_libraries(${name} PUBLIC omnigraph_internal_headers ${arg_PUBLIC_DEPS}
                        PRIVATE ${arg_DEPS})
endfunction()

# omnigraph_executable(NAME SOURCES ... [DEPS ...] [PUBLIC_API])
# PUBLIC_API: a front end of the public API; it sees include/ only (through omnigraph_api in DEPS).
function(omnigraph_executable name)
  cmake_parse_arguments(arg "PUBLIC_API" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${arg_SOURCES})
  target_compile_options(${name} PRIVATE ${OMNIGRAPH_WARNINGS})
  if(OMNIGRAPH_LINK_ORDER_FILE)
    # A new order relinks (cmake/LinkOrder.cmake).
    set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS ${OMNIGRAPH_LINK_ORDER_FILE})
  endif()
  if(arg_PUBLIC_API)
    target_link_libraries(${name} PRIVATE ${arg_DEPS})
  else()
    target_link_libraries(${name} PRIVATE omnigraph_internal_headers ${arg_DEPS})
  endif()
endfunction()

# omnigraph_test(NAME SOURCES ... DEPS ... LABELS unit|integration|concurrency|sim|slow ... [TIMEOUT s]
#                [PUBLIC_API])
# One GoogleTest executable; every TEST in it becomes a ctest entry carrying the given labels.
function(omnigraph_test name)
  if(NOT OMNIGRAPH_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(arg "PUBLIC_API" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT arg_LABELS)
    message(FATAL_ERROR "omnigraph_test(${name}) needs LABELS")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  set(public_api)
  if(arg_PUBLIC_API)
    set(public_api PUBLIC_API)
  endif()
  omnigraph_executable(${name} SOURCES ${arg_SOURCES} DEPS ${arg_DEPS} GTest::gtest GTest::gmock
                       GTest::gtest_main ${public_api})
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
    TEST_LIST ${name}_TESTS
    PROPERTIES TIMEOUT ${arg_TIMEOUT})
  # CMake 3.25's gtest_discover_tests keeps only the first element of a list-valued property, so
  # labels and the environment are set by a script that ctest runs after discovery.
  set(script ${CMAKE_CURRENT_BINARY_DIR}/${name}_properties.cmake)
  file(WRITE ${script}
    "if(DEFINED ${name}_TESTS)\n"
    "  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${arg_LABELS}\"\n"
    "    ENVIRONMENT \"OMNIGRAPH_SOURCE_DIR=${CMAKE_SOURCE_DIR};OMNIGRAPH_BIN_DIR=${CMAKE_BINARY_DIR}/bin\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${script})
endfunction()
