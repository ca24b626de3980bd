# SPDX-License-Identifier: MIT
# WebAssembly (wasm32-wasi) with Debian's clang, lld and wasi-libc
# (packages clang, lld-14, wasi-libc, libclang-rt-14-dev-wasm32):
#   cmake -S . -B build-wasm --toolchain cmake/toolchains/wasm32-wasi.cmake
#   cmake --build build-wasm
# gives onyx.wasm (the command, a WASI command module), onyx-lib.wasm (the
# library for JavaScript, a reactor module; see js/) and the test programs
# check_kernels.wasm and check_bad_models.wasm. Programs run under Node's
# WASI through js/tools/wasi-run.mjs, which CTest and scripts/cross.sh use
# as the emulator. Kernels are the SIMD128 ones (-msimd128), chosen at build
# time: wasm has no run-time feature detection. WASI has no threads here,
# so ONYX_THREADS is forced OFF.
set(CMAKE_SYSTEM_NAME WASI)
set(CMAKE_SYSTEM_PROCESSOR wasm32)
set(CMAKE_SYSTEM_VERSION 1)
# Platform/WASI.cmake: the .wasm suffix, and no shared libraries.
list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_LIST_DIR}/wasi)

set(ONYX_WASI_TARGET wasm32-wasi)
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET ${ONYX_WASI_TARGET})
set(CMAKE_AR llvm-ar-14 CACHE FILEPATH "archiver")
set(CMAKE_RANLIB llvm-ranlib-14 CACHE FILEPATH "ranlib")
set(CMAKE_C_FLAGS_INIT "-msimd128")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
# A static library is all a compiler check can link without a runner.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(ONYX_THREADS OFF CACHE BOOL "WASI has no threads" FORCE)

find_program(ONYX_NODE node)
if(NOT ONYX_NODE)
  set(ONYX_NODE node)
endif()
# Node 18 (Debian 12's) needs the flag for node:wasi; Node 20 accepts it.
get_filename_component(ONYX_WASI_RUN ${CMAKE_CURRENT_LIST_DIR}/../../js/tools/wasi-run.mjs ABSOLUTE)
set(CMAKE_CROSSCOMPILING_EMULATOR ${ONYX_NODE} --experimental-wasi-unstable-preview1 --no-warnings
  ${ONYX_WASI_RUN})
# For scripts/cross.sh, which runs the onyx command through the same runner.
set(ONYX_CROSS_EMULATOR "${CMAKE_CROSSCOMPILING_EMULATOR}" CACHE INTERNAL "WASI runner")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# cmocka is not built for WASI: the CTest suite stays off, and the kernels
# are checked by check_kernels.wasm instead (cmake/wasm.cmake).
set(ONYX_BUILD_TESTS OFF CACHE BOOL "cmocka is not built for WASI")
