# SPDX-License-Identifier: MIT
# WebAssembly targets, for the build through cmake/toolchains/wasm32-wasi.cmake
# (included from the top-level CMakeLists.txt there):
#
#   onyx_wasm_lib     onyx-lib.wasm, the library for JavaScript (js/): a
#                     reactor module exporting the C API calls the package
#                     makes (models come in as bytes), plus malloc and free
#   check_kernels     every SIMD128 kernel against the scalar reference
#   check_wasm_malloc the module's heap (src/os/wasm/malloc.c) under random use
#   check_bad_models  the bad-model suite's checker (scripts/cross.sh)
#
# The command itself (onyx.wasm) is the ordinary onyx target.

# The exports: what the JavaScript package calls, read from its sources
# (js/lib/*.js: every onyx_ name there that include/onyx.h declares as an
# ONYX_API function), plus malloc and free. One list, so the module and the
# package cannot drift apart: a function the package stops calling stops
# being exported, and --gc-sections drops what only it reached (the model
# introspection calls, onyx_tensor_encode, onyx_selftest's 42 KB of digests,
# the custom-operator registry, and the one-kernel calls onyx_ceil .. onyx_clip
# that would keep every type's kernel whatever the build configuration
# selects). The package reaches its module only through properties of this
# form, so a name missing from onyx.h is a configure error
# rather than a page that fails when it first calls it.
file(STRINGS ${PROJECT_SOURCE_DIR}/include/onyx.h ONYX_API_LINES REGEX "^ONYX_API ")
set(ONYX_API_NAMES)
foreach(line IN LISTS ONYX_API_LINES)
  if(line MATCHES "(onyx_[a-z0-9_]+)\\(")
    list(APPEND ONYX_API_NAMES ${CMAKE_MATCH_1})
  endif()
endforeach()
file(GLOB ONYX_JS_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/js/lib/*.js)
# An edit of the package or of onyx.h configures again, so the list follows.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ONYX_JS_SOURCES}
  ${PROJECT_SOURCE_DIR}/include/onyx.h)
set(ONYX_WASM_EXPORTS malloc free)
foreach(js IN LISTS ONYX_JS_SOURCES)
  file(READ ${js} text)
  # The instance's exports, called or passed on: e.onyx_x(..), exports.onyx_x.
  string(REGEX MATCHALL "\\.onyx_[a-z0-9_]+" calls "${text}")
  foreach(call IN LISTS calls)
    string(SUBSTRING "${call}" 1 -1 name)
    if(NOT name IN_LIST ONYX_API_NAMES)
      message(FATAL_ERROR "${js} calls ${name}, which include/onyx.h does not declare")
    endif()
    list(APPEND ONYX_WASM_EXPORTS ${name})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES ONYX_WASM_EXPORTS)
list(SORT ONYX_WASM_EXPORTS)
# The list, for js/build.sh's check of the module and for a reader.
string(REPLACE ";" "\n" text "${ONYX_WASM_EXPORTS}")
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/onyx-lib.exports CONTENT "${text}\n")
list(TRANSFORM ONYX_WASM_EXPORTS PREPEND "-Wl,--export=" OUTPUT_VARIABLE ONYX_WASM_EXPORT_FLAGS)

# The library's own objects, compiled for size (-Oz after the build type's
# flags, and link-time optimisation): the module is downloaded by every page
# that uses it. onyx-lib.wasm measured 164,828 bytes with the -O3 objects
# the command uses, 123,239 with -Oz, 119,795 with -Oz -flto (44,691
# gzipped), 115,921 (43,034) once the custom-operator API stayed out;
# 128,411 (45,867) by main 6842944, and 63,286 (24,311) for one op and
# type (tests/buildconfig/ceil-float.config). Then, for the one-op module:
# 51,546 exporting only what js/lib uses; 49,695 with -mbulk-memory
# (memcpy and memset become memory.copy and memory.fill, which every
# engine has had since 2020); 41,095 (16,433) with src/os/wasm/malloc.c
# for dlmalloc; the full module 107,585 (38,430) with all three.
# Definitions, include folders and warnings are onyx_objects'.
set(ONYX_WASM_LIB_FLAGS -flto -mbulk-memory)
add_library(onyx_wasm_lib_objects OBJECT ${ONYX_SOURCES} ${ONYX_ISA_SOURCES}
  src/os/wasm/malloc.c)
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

# The heap alone, in a command module (without -flto: wasm-ld 14's LTO of a
# command module fails on errno, which lives in thread-local storage).
add_executable(check_wasm_malloc tests/check_wasm_malloc.c src/os/wasm/malloc.c)
target_compile_options(check_wasm_malloc PRIVATE ${ONYX_WARNINGS} -Oz -mbulk-memory)
# The heap counts the chunks and classes each call looks at, for the test.
target_compile_definitions(check_wasm_malloc PRIVATE ONYX_WASM_MALLOC_STEPS)

add_executable(check_bad_models tests/check_bad_models.c)
target_compile_options(check_bad_models PRIVATE ${ONYX_WARNINGS})
target_include_directories(check_bad_models PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(check_bad_models PRIVATE onyx_static)

# CTest in this build (the cmocka suite is off): CTest runs the .wasm
# programs through the toolchain's Node runner. scripts/cross.sh wasm runs
# the conformance suites as well.
enable_testing()
add_test(NAME onyx.wasm.kernels COMMAND check_kernels)
add_test(NAME onyx.wasm.malloc COMMAND check_wasm_malloc)
set_tests_properties(onyx.wasm.malloc PROPERTIES PASS_REGULAR_EXPRESSION "operations, .*, ok")
add_test(NAME onyx.wasm.version COMMAND onyx --version)
set_tests_properties(onyx.wasm.version PROPERTIES PASS_REGULAR_EXPRESSION "isa wasm-simd128\\)")
add_test(NAME onyx.wasm.js COMMAND bash ${PROJECT_SOURCE_DIR}/js/build.sh --test ${PROJECT_BINARY_DIR})
