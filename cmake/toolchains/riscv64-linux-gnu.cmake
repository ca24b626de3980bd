# SPDX-License-Identifier: MIT
# Cross build for 64-bit RISC-V Linux with Debian's riscv64-linux-gnu-gcc, run under qemu-riscv64-static:
#   cmake -S . -B build-riscv64 --toolchain cmake/toolchains/riscv64-linux-gnu.cmake
set(ONYX_CROSS_TRIPLE riscv64-linux-gnu)
set(ONYX_CROSS_PROCESSOR riscv64)
set(ONYX_CROSS_QEMU qemu-riscv64-static)
set(ONYX_CROSS_LOADER /lib/ld-linux-riscv64-lp64d.so.1)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-common.cmake)
