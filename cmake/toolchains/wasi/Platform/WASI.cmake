# SPDX-License-Identifier: MIT
# The WASI platform for CMake, which has none of its own in 3.25: programs
# are .wasm modules, and there are no shared libraries (wasm-ld links one
# module). Found through cmake/toolchains/wasm32-wasi.cmake.
set(CMAKE_EXECUTABLE_SUFFIX .wasm)
set(CMAKE_STATIC_LIBRARY_PREFIX lib)
set(CMAKE_STATIC_LIBRARY_SUFFIX .a)
set_property(GLOBAL PROPERTY TARGET_SUPPORTS_SHARED_LIBS FALSE)
set(CMAKE_C_OUTPUT_EXTENSION .o)
