# SPDX-License-Identifier: MIT
# unit.test_simd.emulated_avx512: tests/unit/test_simd.c against the AVX-512
# kernels, emulated on AVX2. On a machine with AVX2 and F16C but no AVX-512,
# unit.test_simd never reaches src/kernels/x86/kernels_avx512.c;
# this test compiles that file, unmodified, for AVX2 with SIMDe standing in
# for the AVX-512 intrinsics (tests/emu/immintrin.h says what it emulates
# and how), and runs test_simd.c with that table in the avx2 level's place.
# Where the build has src/kernels/x86/kernels_avx512fp16.c, it compiles
# that file the same way and links it in place of the real one, and
# test_simd.c's test_fp16_table checks it. Included from
# tests/CMakeLists.txt.
#
# Skipped, with the reason in its output, when it cannot run: no SIMDe
# headers (Debian's libsimde-dev), not x86-64, a compiler other than GCC or
# Clang, or (at run time) a CPU that has AVX-512 and AVX512-FP16, where
# unit.test_simd checks the kernels natively, or lacks AVX2. On a CPU with
# AVX-512 but not AVX512-FP16 it checks only the AVX512-FP16 kernels.

set(ONYX_EMU_TEST onyx.unit.test_simd.emulated_avx512)

find_path(ONYX_SIMDE_INCLUDE_DIR simde/x86/avx512.h
  DOC "SIMDe headers (Debian's libsimde-dev), for the AVX-512 emulation test")

set(ONYX_EMU_SKIP "")
if(NOT ONYX_HAVE_X86 OR NOT ONYX_AVX512_SOURCES OR NOT ONYX_AVX2_SOURCES)
  set(ONYX_EMU_SKIP "not an x86-64 build with AVX2 and AVX-512 kernel files")
elseif(NOT CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  set(ONYX_EMU_SKIP "the emulation needs GCC or Clang (#include_next, target flags)")
elseif(NOT ONYX_SIMDE_INCLUDE_DIR)
  set(ONYX_EMU_SKIP
    "SIMDe headers (simde/x86/avx512.h) not found; install libsimde-dev (scripts/deps.sh)")
endif()

if(ONYX_EMU_SKIP)
  message(STATUS "onyx: ${ONYX_EMU_TEST} will be skipped: ${ONYX_EMU_SKIP}")
  add_test(NAME ${ONYX_EMU_TEST} COMMAND ${CMAKE_COMMAND} -E echo "skipped: ${ONYX_EMU_SKIP}")
  set_tests_properties(${ONYX_EMU_TEST} PROPERTIES SKIP_REGULAR_EXPRESSION "^skipped: "
    LABELS emulation)
  return()
endif()

# A kernel file through the shim, for AVX2 only, with the library's own
# definitions and warnings. tests/emu is a system directory so that SIMDe's
# headers are not held to -Wpedantic -Werror; the kernel file itself still
# is.
function(onyx_emu_kernels target source)
  add_library(${target} OBJECT ${source})
  target_include_directories(${target} SYSTEM BEFORE PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/emu ${ONYX_SIMDE_INCLUDE_DIR})
  target_include_directories(${target} PRIVATE
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  # -Wno-psabi: GCC and Clang note that 64-byte vectors pass differently
  # without -mavx512f; the kernel file's functions are all static, so no call
  # crosses a translation unit and the difference cannot matter.
  target_compile_options(${target} PRIVATE ${ONYX_WARNINGS} -mavx2 -mfma -mf16c -Wno-psabi)
  target_compile_definitions(${target} PRIVATE
    $<TARGET_PROPERTY:onyx_objects,COMPILE_DEFINITIONS>)
endfunction()

# kernels_avx512_emulated.c renames the table to the avx2 level's.
onyx_emu_kernels(onyx_emu_avx512 ${CMAKE_CURRENT_SOURCE_DIR}/emu/kernels_avx512_emulated.c)
set(ONYX_EMU_OBJECTS $<TARGET_OBJECTS:onyx_emu_avx512>)
# The library's objects that the emulated ones replace.
set(ONYX_EMU_REPLACED "/kernels_avx2[.]c[.]o(bj)?$")
set(ONYX_EMU_DEFINITIONS)
if(ONYX_AVX512FP16_SOURCES)
  # kernels_avx512fp16_emulated.c keeps the table's name.
  onyx_emu_kernels(onyx_emu_avx512fp16
    ${CMAKE_CURRENT_SOURCE_DIR}/emu/kernels_avx512fp16_emulated.c)
  list(APPEND ONYX_EMU_OBJECTS $<TARGET_OBJECTS:onyx_emu_avx512fp16>)
  set(ONYX_EMU_REPLACED "/kernels_avx2[.]c[.]o(bj)?$|/kernels_avx512fp16[.]c[.]o(bj)?$")
  set(ONYX_EMU_DEFINITIONS ONYX_HAVE_X86=1 ONYX_HAVE_AVX512FP16_KERNELS=1
    ONYX_TEST_FP16_EMULATED=1)
else()
  message(STATUS "onyx: ${ONYX_EMU_TEST} will not check AVX512-FP16 kernels: "
    "the build has none")
endif()

# The program: test_simd.c (included by the driver), the library's objects
# less those of the real tables emulated here, and the emulated tables in
# their place.
add_executable(test_simd_emulated_avx512
  ${CMAKE_CURRENT_SOURCE_DIR}/emu/test_simd_emulated.c
  ${ONYX_EMU_OBJECTS}
  "$<FILTER:$<TARGET_OBJECTS:onyx_objects>,EXCLUDE,${ONYX_EMU_REPLACED}>")
target_include_directories(test_simd_emulated_avx512 PRIVATE
  ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR}
  ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_compile_options(test_simd_emulated_avx512 PRIVATE ${ONYX_WARNINGS})
target_compile_definitions(test_simd_emulated_avx512 PRIVATE _POSIX_C_SOURCE=200809L
  ${ONYX_EMU_DEFINITIONS})
target_link_libraries(test_simd_emulated_avx512 PRIVATE PkgConfig::CMOCKA m Threads::Threads)

add_test(NAME ${ONYX_EMU_TEST} COMMAND test_simd_emulated_avx512)
set_tests_properties(${ONYX_EMU_TEST} PROPERTIES SKIP_RETURN_CODE 77 LABELS emulation)
