# Warnings of STYLE.md; -Werror only when OMNIGRAPH_WERROR=ON (CI).
# Designated initializers that leave defaulted members out are intended, hence
# -Wno-missing-field-initializers.
set(OMNIGRAPH_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wno-missing-field-initializers)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # g++ 12 reports false positives inside libstdc++ at -O2 (std::string's -Wrestrict, GCC bug
  # 105329; std::regex and std::function under sanitizers as -Wmaybe-uninitialized, GCC bug
  # 105562). They are about the standard library, not our code, and would fail -Werror builds.
  list(APPEND OMNIGRAPH_WARNINGS -Wno-restrict)
  if(NOT OMNIGRAPH_SANITIZE STREQUAL "")
    list(APPEND OMNIGRAPH_WARNINGS -Wno-maybe-uninitialized)
  endif()
endif()
if(OMNIGRAPH_WERROR)
  list(APPEND OMNIGRAPH_WARNINGS -Werror)
endif()
