# armlower_add_test(<name> SOURCES <files...> [LIBS <targets...>] [LABELS <labels...>])
# Builds a doctest executable (doctest main provided) and registers it with ctest.
find_package(doctest REQUIRED)
if(NOT TARGET armlower_doctest_main)
  # file(CONFIGURE) rewrites the file only when its content changes (no rebuild per configure).
  file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/armlower_doctest_main.cpp
    CONTENT "#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN\n#include <doctest/doctest.h>\n")
  add_library(armlower_doctest_main STATIC ${CMAKE_BINARY_DIR}/armlower_doctest_main.cpp)
  target_link_libraries(armlower_doctest_main PUBLIC doctest::doctest)
endif()
function(armlower_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE armlower_doctest_main armlower::armlower ${T_LIBS})
  target_compile_definitions(${name} PRIVATE ARMLOWER_SHARED_DATA="${PROJECT_SOURCE_DIR}/../shared/data")
  add_test(NAME ${name} COMMAND ${name})
  if(T_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}")
  endif()
endfunction()

# Host checks for the x86 SIMD test variants: ARMLOWER_HOST_RUNS_AVX2 (this host compiles and runs
# -mavx2 -mfma code) and ARMLOWER_HAVE_SIMDE (SIMDe's portable AVX-512, Debian libsimde-dev, which the
# *_avx512_simde tests compile the AVX-512 paths against: results checked, speed not).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND NOT CMAKE_CROSSCOMPILING)
  include(CheckCXXSourceRuns)
  include(CheckIncludeFileCXX)
  set(CMAKE_REQUIRED_FLAGS "-mavx2 -mfma")
  check_cxx_source_runs("#include <immintrin.h>
int main() { __m256i v = _mm256_set1_epi32(1); v = _mm256_add_epi32(v, v);
  __m256 f = _mm256_fmadd_ps(_mm256_set1_ps(1.f), _mm256_set1_ps(2.f), _mm256_set1_ps(3.f));
  return (_mm256_extract_epi32(v, 0) == 2 && _mm256_cvtss_f32(f) == 5.f) ? 0 : 1; }" ARMLOWER_HOST_RUNS_AVX2)
  unset(CMAKE_REQUIRED_FLAGS)
  check_include_file_cxx(simde/x86/avx512.h ARMLOWER_HAVE_SIMDE)
  if(ARMLOWER_HOST_RUNS_AVX2 AND NOT ARMLOWER_HAVE_SIMDE)
    message(WARNING "simde/x86/avx512.h not found (Debian libsimde-dev): the AVX-512 paths are not tested")
  endif()
endif()

# armlower_add_avx512_simde_test(<name> <define> SOURCES <files...> [LABELS <labels...>])
# A test built with -mavx2 -mfma and <define>, under which the AVX-512 paths compile against SIMDe.
# -ffp-contract=off: SIMDe's portable arithmetic must not be fused differently from the reference
# paths (the FMA-contraction caveat of the bit-identical claims; seen in the ASan build).
function(armlower_add_avx512_simde_test name define)
  cmake_parse_arguments(T "" "" "SOURCES;LABELS" ${ARGN})
  if(NOT (ARMLOWER_HOST_RUNS_AVX2 AND ARMLOWER_HAVE_SIMDE))
    return()
  endif()
  armlower_add_test(${name} SOURCES ${T_SOURCES} LABELS ${T_LABELS})
  target_compile_definitions(${name} PRIVATE ${define})
  target_compile_options(${name} PRIVATE -O2 -fno-fast-math -ffp-contract=off -mavx2 -mfma -Wno-psabi)
endfunction()

# armlower_add_avx2_cpu_test(<target>)
# Runs the test executable <target> once more on an emulated AVX2-only x86-64 CPU (QEMU user mode,
# `-cpu Haswell`: AVX2, FMA, no AVX-512), so the run-time dispatch (cpuid) takes the paths an AVX2-only
# machine takes — the AVX2 kernels and packed layouts, the portable RESCALE loop — whatever CPU builds
# the tests. Results only (emulated speed means nothing). Needs `qemu-x86_64` (Debian qemu-user) and a
# build for the generic x86-64 target (no -march, no sanitizers: their shadow memory does not map under
# QEMU user mode); skipped otherwise.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND NOT CMAKE_CROSSCOMPILING)
  find_program(ARMLOWER_QEMU_X86_64 qemu-x86_64)
endif()
function(armlower_add_avx2_cpu_test target)
  if(NOT ARMLOWER_QEMU_X86_64 OR NOT TARGET ${target} OR CMAKE_CXX_FLAGS MATCHES "-march=|sanitize")
    return()
  endif()
  add_test(NAME ${target}.avx2_cpu COMMAND ${ARMLOWER_QEMU_X86_64} -cpu Haswell $<TARGET_FILE:${target}>)
  get_test_property(${target} LABELS labels)
  if(NOT labels)
    set(labels "")
  endif()
  set_tests_properties(${target}.avx2_cpu PROPERTIES LABELS "${labels};avx2_cpu")
endfunction()
