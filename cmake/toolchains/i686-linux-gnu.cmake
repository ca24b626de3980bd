# SPDX-License-Identifier: MIT
# Cross build for 32-bit x86 Linux with Debian's i686-linux-gnu-gcc, run under qemu-i386-static:
#   cmake -S . -B build-i686 --toolchain cmake/toolchains/i686-linux-gnu.cmake
set(ONYX_CROSS_TRIPLE i686-linux-gnu)
set(ONYX_CROSS_PROCESSOR i686)
set(ONYX_CROSS_QEMU qemu-i386-static)
set(ONYX_CROSS_LOADER /lib/ld-linux.so.2)
set(ONYX_CROSS_MULTIARCH i386-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-common.cmake)
