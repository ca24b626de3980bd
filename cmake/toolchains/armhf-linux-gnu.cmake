# SPDX-License-Identifier: MIT
# Cross build for 32-bit ARMv7 hard-float Linux with Debian's arm-linux-gnueabihf-gcc, run under qemu-arm-static:
#   cmake -S . -B build-armhf --toolchain cmake/toolchains/armhf-linux-gnu.cmake
set(ONYX_CROSS_TRIPLE arm-linux-gnueabihf)
set(ONYX_CROSS_PROCESSOR armv7l)
set(ONYX_CROSS_QEMU qemu-arm-static)
set(ONYX_CROSS_LOADER /lib/ld-linux-armhf.so.3)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-common.cmake)
