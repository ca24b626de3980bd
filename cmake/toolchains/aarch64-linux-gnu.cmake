# SPDX-License-Identifier: MIT
# Cross build for 64-bit ARM (AArch64) Linux with Debian's aarch64-linux-gnu-gcc, run under qemu-aarch64-static:
#   cmake -S . -B build-aarch64 --toolchain cmake/toolchains/aarch64-linux-gnu.cmake
set(ONYX_CROSS_TRIPLE aarch64-linux-gnu)
set(ONYX_CROSS_PROCESSOR aarch64)
set(ONYX_CROSS_QEMU qemu-aarch64-static)
set(ONYX_CROSS_LOADER /lib/ld-linux-aarch64.so.1)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-common.cmake)
