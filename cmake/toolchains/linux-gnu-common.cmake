# SPDX-License-Identifier: MIT
# The part every Linux cross toolchain file shares. The including file sets
#   ONYX_CROSS_TRIPLE     the GNU triple of Debian's cross compiler
#   ONYX_CROSS_PROCESSOR  CMAKE_SYSTEM_PROCESSOR for the target
#   ONYX_CROSS_QEMU       the qemu-user program that runs target programs
#   ONYX_CROSS_LOADER     the target's dynamic loader, as an absolute path
#   ONYX_CROSS_MULTIARCH  (optional) Debian's multiarch folder name under
#                         /usr/lib, where it is not the triple (i386-linux-gnu)
# and then includes this file.
#
# Programs run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR), which CTest
# puts in front of every test whose command is an executable target. Where
# the host has the target's loader (it does once a multiarch package such as
# libcmocka-dev:arm64 pulled in libc6:arm64), qemu must run without -L:
# with -L /usr/<triple> it would start the cross packages' ld.so, which then
# finds the host's multiarch libc.so.6, a different build, and threaded
# programs hang or crash. Without that loader, -L /usr/<triple> is the only
# way to find the cross libc.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${ONYX_CROSS_PROCESSOR})
# The triple's gcc, unless the command line names another compiler
# (scripts/cross.sh builds aarch64 with Clang too: -DCMAKE_C_COMPILER=clang
# -DCMAKE_C_COMPILER_TARGET=aarch64-linux-gnu).
if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER ${ONYX_CROSS_TRIPLE}-gcc)
endif()
if(NOT ONYX_CROSS_MULTIARCH)
  set(ONYX_CROSS_MULTIARCH ${ONYX_CROSS_TRIPLE})
endif()
set(CMAKE_LIBRARY_ARCHITECTURE ${ONYX_CROSS_MULTIARCH})

find_program(ONYX_CROSS_QEMU_PATH ${ONYX_CROSS_QEMU})
if(NOT ONYX_CROSS_QEMU_PATH)
  set(ONYX_CROSS_QEMU_PATH ${ONYX_CROSS_QEMU})
endif()
if(EXISTS ${ONYX_CROSS_LOADER})
  set(CMAKE_CROSSCOMPILING_EMULATOR ${ONYX_CROSS_QEMU_PATH})
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR ${ONYX_CROSS_QEMU_PATH} -L /usr/${ONYX_CROSS_TRIPLE})
endif()

# For scripts/cross.sh, which runs the onyx command under the same qemu.
set(ONYX_CROSS_EMULATOR "${CMAKE_CROSSCOMPILING_EMULATOR}" CACHE INTERNAL "qemu command line")

# Libraries and headers of the target only: the cross libc under
# /usr/<triple> and multiarch packages under /usr/lib/<triple> (found
# through CMAKE_LIBRARY_ARCHITECTURE below the root /). Programs (python3,
# valgrind) are the host's.
set(CMAKE_FIND_ROOT_PATH /usr/${ONYX_CROSS_TRIPLE} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg_check_modules (cmocka) must read the target's .pc files, never the
# host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${ONYX_CROSS_MULTIARCH}/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
