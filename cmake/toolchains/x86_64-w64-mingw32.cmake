# SPDX-License-Identifier: MIT
# Cross build for Windows x86-64 with Debian's mingw-w64 compiler
# (gcc-mingw-w64-x86-64); programs run under wine64 (package wine64):
#   cmake -S . -B build-win --toolchain cmake/toolchains/x86_64-w64-mingw32.cmake
# Outputs onyx.exe, onyx.dll with its import library libonyx.dll.a, and the
# static library libonyx.a.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(ONYX_CROSS_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${ONYX_CROSS_TRIPLE}-gcc)
set(CMAKE_RC_COMPILER ${ONYX_CROSS_TRIPLE}-windres)

# Debian installs the wine64 launcher outside PATH (/usr/lib/wine/wine64).
# WINEDEBUG=-all keeps wine's own diagnostics out of the programs' output.
find_program(ONYX_WINE64 wine64 PATHS /usr/lib/wine NO_DEFAULT_PATH)
find_program(ONYX_WINE64 wine64)
if(NOT ONYX_WINE64)
  set(ONYX_WINE64 /usr/lib/wine/wine64)
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR env WINEDEBUG=-all ${ONYX_WINE64})
# For scripts/cross.sh, which runs the onyx command under the same wine.
set(ONYX_CROSS_EMULATOR "${CMAKE_CROSSCOMPILING_EMULATOR}" CACHE INTERNAL "wine command line")

# Libraries and headers of the target only; programs are the host's.
set(CMAKE_FIND_ROOT_PATH /usr/${ONYX_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} /usr/${ONYX_CROSS_TRIPLE}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# The test suite needs cmocka, which Debian does not build for mingw-w64:
# off by default here (scripts/cross.sh windows runs what needs none).
set(ONYX_BUILD_TESTS OFF CACHE BOOL "Build the test suite")
