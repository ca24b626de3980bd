# SPDX-License-Identifier: MIT
# Cross build for IBM Z (s390x, big-endian) Linux with Debian's s390x-linux-gnu-gcc, run under qemu-s390x-static:
#   cmake -S . -B build-s390x --toolchain cmake/toolchains/s390x-linux-gnu.cmake
set(ONYX_CROSS_TRIPLE s390x-linux-gnu)
set(ONYX_CROSS_PROCESSOR s390x)
set(ONYX_CROSS_QEMU qemu-s390x-static)
set(ONYX_CROSS_LOADER /lib/ld64.so.1)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-common.cmake)
