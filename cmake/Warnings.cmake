# Warnings of STYLE.md; -Werror only when OMNIGRAPH_WERROR=ON (CI).
# Designated initializers that leave defaulted members out are intended, hence
# -Wno-missing-field-initializers.
set(OMNIGRAPH_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wno-missing-field-initializers)
if(OMNIGRAPH_WERROR)
  list(APPEND OMNIGRAPH_WARNINGS -Werror)
endif()
