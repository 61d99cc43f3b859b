# asan = AddressSanitizer + UndefinedBehaviorSanitizer, both without recovery; tsan = ThreadSanitizer;
# fuzz = asan's two plus libFuzzer's coverage instrumentation (clang only; the fuzz preset and
# docs/design/fuzzing.md). Under fuzz every library is compiled -fsanitize=fuzzer-no-link and only
# the harnesses (fuzz/CMakeLists.txt) link libFuzzer's main with -fsanitize=fuzzer
# (OMNIGRAPH_FUZZ_LINK).
if(OMNIGRAPH_SANITIZE STREQUAL "asan")
  set(san -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(${san})
  add_link_options(${san})
  # CI builds this preset; its 66 executables each link every library statically and took 9 GB,
  # which a full disk once cut short. Linked without PIE (no dynamic relocations for the
  # instrumented data) and with compressed debug sections, they take about 45% less;
  # llvm-symbolizer still reads the line tables (decision 259).
  add_link_options(-no-pie -Wl,--compress-debug-sections=zlib)
elseif(OMNIGRAPH_SANITIZE STREQUAL "tsan")
  set(san -fsanitize=thread -fno-omit-frame-pointer)
  add_compile_options(${san})
  add_link_options(${san})
  # GCC warns (-Wtsan) that TSan does not model std::atomic_thread_fence, which Boost.Asio's
  # handler invocation uses; under -Werror that kept the server out of the tsan build. Our own
  # code uses no fences (mutexes and atomics TSan models); the warning is off so the server's
  # threads can be checked at all.
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag(-Wno-tsan OMNIGRAPH_HAS_WNO_TSAN)
  if(OMNIGRAPH_HAS_WNO_TSAN)
    add_compile_options(-Wno-tsan)
  endif()
elseif(OMNIGRAPH_SANITIZE STREQUAL "fuzz")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "OMNIGRAPH_SANITIZE=fuzz needs clang (libFuzzer); use the fuzz preset")
  endif()
  set(san -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(${san} -fsanitize=fuzzer-no-link)
  add_link_options(${san})
  set(OMNIGRAPH_FUZZ_LINK -fsanitize=fuzzer)
elseif(NOT OMNIGRAPH_SANITIZE STREQUAL "")
  message(FATAL_ERROR "OMNIGRAPH_SANITIZE must be empty, asan, tsan or fuzz, not '${OMNIGRAPH_SANITIZE}'")
endif()
