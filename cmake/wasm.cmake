# SPDX-License-Identifier: MIT
# WebAssembly targets, for the build through cmake/toolchains/wasm32-wasi.cmake
# (included from the top-level CMakeLists.txt there):
#
#   onyx_wasm_lib     onyx-lib.wasm, the library for JavaScript (js/): a
#                     reactor module exporting the C API but the file calls
#                     (models come in as bytes), plus malloc and free
#   check_kernels     every SIMD128 kernel against the scalar reference
#   check_bad_models  the bad-model suite's checker (scripts/cross.sh)
#
# The command itself (onyx.wasm) is the ordinary onyx target.

# The exports: every ONYX_API function of include/onyx.h whose name does
# not say it takes a file, so that JavaScript cannot name one (models come
# in as bytes), and --gc-sections drops the file loaders. The code that
# reads external data stays linked, though a model from memory never
# reaches it: the module imports 14 WASI calls (clock, environment and file
# calls), which js/lib/wasi.js supplies itself.
file(STRINGS ${PROJECT_SOURCE_DIR}/include/onyx.h ONYX_API_LINES REGEX "^ONYX_API ")
set(ONYX_WASM_EXPORTS malloc free)
foreach(line IN LISTS ONYX_API_LINES)
  if(line MATCHES "(onyx_[a-z0-9_]+)\\(")
    set(name ${CMAKE_MATCH_1})
    # Custom operators need C callbacks, which JavaScript cannot hand to
    # the module: their API stays out, and --gc-sections drops the registry.
    # So does onyx_selftest (its digests and SHA-256 are 42 KB): a page
    # has no use for it, and the command onyx.wasm runs it.
    if(NOT name MATCHES "_file" AND NOT name MATCHES "^onyx_op_" AND NOT name STREQUAL "onyx_selftest")
      list(APPEND ONYX_WASM_EXPORTS ${name})
    endif()
  endif()
endforeach()
list(TRANSFORM ONYX_WASM_EXPORTS PREPEND "-Wl,--export=" OUTPUT_VARIABLE ONYX_WASM_EXPORT_FLAGS)

# The library's own objects, compiled for size (-Oz after the build type's
# flags, and link-time optimisation): the module is downloaded by every page
# that uses it. onyx-lib.wasm measured 164,828 bytes with the -O3 objects
# the command uses, 123,239 with -Oz, 119,795 with -Oz -flto (44,691
# gzipped), 115,921 (43,034) once the custom-operator API stayed out.
# Definitions, include folders and warnings are onyx_objects'.
set(ONYX_WASM_LIB_FLAGS -flto)
add_library(onyx_wasm_lib_objects OBJECT ${ONYX_SOURCES} ${ONYX_ISA_SOURCES})
foreach(property COMPILE_DEFINITIONS INCLUDE_DIRECTORIES COMPILE_OPTIONS)
  set_property(TARGET onyx_wasm_lib_objects PROPERTY ${property}
    $<TARGET_PROPERTY:onyx_objects,${property}>)
endforeach()
target_compile_options(onyx_wasm_lib_objects PRIVATE -Oz ${ONYX_WASM_LIB_FLAGS})

add_executable(onyx_wasm_lib $<TARGET_OBJECTS:onyx_wasm_lib_objects>)
set_target_properties(onyx_wasm_lib PROPERTIES OUTPUT_NAME onyx-lib)
target_link_libraries(onyx_wasm_lib PRIVATE m)
target_link_options(onyx_wasm_lib PRIVATE ${ONYX_WASM_LIB_FLAGS} -mexec-model=reactor -Wl,--gc-sections -Wl,--strip-all
  ${ONYX_WASM_EXPORT_FLAGS})

add_executable(check_kernels tests/check_kernels.c)
target_compile_options(check_kernels PRIVATE ${ONYX_WARNINGS})
target_include_directories(check_kernels PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(check_kernels PRIVATE onyx_static)

add_executable(check_bad_models tests/check_bad_models.c)
target_compile_options(check_bad_models PRIVATE ${ONYX_WARNINGS})
target_include_directories(check_bad_models PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(check_bad_models PRIVATE onyx_static)

# CTest in this build (the cmocka suite is off): CTest runs the .wasm
# programs through the toolchain's Node runner. scripts/cross.sh wasm runs
# the conformance suites as well.
enable_testing()
add_test(NAME onyx.wasm.kernels COMMAND check_kernels)
add_test(NAME onyx.wasm.version COMMAND onyx --version)
set_tests_properties(onyx.wasm.version PROPERTIES PASS_REGULAR_EXPRESSION "isa wasm-simd128\\)")
add_test(NAME onyx.wasm.js COMMAND bash ${PROJECT_SOURCE_DIR}/js/build.sh --test ${PROJECT_BINARY_DIR})
