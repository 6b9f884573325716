# Sanitizer and fuzzing switches for separate build folders (CMakePresets.json: asan, tsan):
#   NNWB_SANITIZE=address,undefined | thread   instrument every target (-O1, line tables)
#   NNWB_FUZZ=ON                               also the libFuzzer targets of tests/fuzz (clang
#                                              only), in the same ASan build as the test suite
# A normal build sets neither and is unchanged.
set(NNWB_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address,undefined or thread")
option(NNWB_FUZZ "Build the libFuzzer targets of tests/fuzz too (clang; implies address,undefined)"
       OFF)

if(NNWB_FUZZ AND NOT NNWB_SANITIZE)
  set(NNWB_SANITIZE "address,undefined" CACHE STRING "" FORCE)
endif()

if(NNWB_SANITIZE)
  # -O1 keeps sanitized tests fast enough for CI; line tables give file:line in reports.
  add_compile_options(-O1 -fno-omit-frame-pointer -fsanitize=${NNWB_SANITIZE})
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    add_compile_options(-gline-tables-only)
  else()
    add_compile_options(-g1)
  endif()
  if(NNWB_SANITIZE MATCHES "undefined")
    # Every UBSan finding aborts, so a test (or a fuzzer) fails on it.
    add_compile_options(-fno-sanitize-recover=all)
  endif()
  add_link_options(-fsanitize=${NNWB_SANITIZE})
endif()

if(NNWB_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "NNWB_FUZZ needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++")
  endif()
  # Coverage instrumentation only where the fuzzed loaders live (nnwb_model: bar import,
  # experiment JSON, safetensors; see model/CMakeLists.txt); only the fuzz executables link
  # libFuzzer's main. The ASan runtime defines the coverage callbacks for the other programs.
endif()
