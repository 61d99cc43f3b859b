# Helpers that give every library, test and tool the same flags.

# omnigraph_library(NAME SOURCES ... [DEPS ...] [PUBLIC_DEPS ...])
# A layer's static library; includes are rooted at src/ (STYLE.md).
function(omnigraph_library name)
  cmake_parse_arguments(arg "" "" "SOURCES;DEPS;PUBLIC_DEPS" ${ARGN})
  add_library(${name} STATIC ${arg_SOURCES})
  target_include_directories(${name} PUBLIC ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)
  target_compile_options(${name} PRIVATE ${OMNIGRAPH_WARNINGS})
  target_link_libraries(${name} PUBLIC ${arg_PUBLIC_DEPS} PRIVATE ${arg_DEPS})
endfunction()

# omnigraph_executable(NAME SOURCES ... [DEPS ...])
function(omnigraph_executable name)
  cmake_parse_arguments(arg "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${arg_SOURCES})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)
  target_compile_options(${name} PRIVATE ${OMNIGRAPH_WARNINGS})
  target_link_libraries(${name} PRIVATE ${arg_DEPS})
endfunction()

# omnigraph_test(NAME SOURCES ... DEPS ... LABELS unit|integration|concurrency|sim|slow ... [TIMEOUT s])
# One GoogleTest executable; every TEST in it becomes a ctest entry carrying the given labels.
function(omnigraph_test name)
  if(NOT OMNIGRAPH_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(arg "" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT arg_LABELS)
    message(FATAL_ERROR "omnigraph_test(${name}) needs LABELS")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  omnigraph_executable(${name} SOURCES ${arg_SOURCES} DEPS ${arg_DEPS} GTest::gtest GTest::gmock
                       GTest::gtest_main)
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
