# SPDX-License-Identifier: MIT
# Freestanding build for Cortex-M3 microcontrollers with Debian's
# arm-none-eabi-gcc and newlib (packages gcc-arm-none-eabi,
# libnewlib-arm-none-eabi): the static library only, ONYX_PLATFORM=none
# (no files, no threads), for size (-Os), with a section per function and
# object so that a program's --gc-sections link keeps only what it calls.
#   cmake -S . -B build-cortex-m3 --toolchain cmake/toolchains/cortex-m3.cmake
# scripts/baremetal.sh links the test image (startup code, linker script and
# --specs=rdimon.specs semihosting, in baremetal/) and runs it under QEMU.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR cortex-m3)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
# Test programs cannot link without a board's startup code and memory map.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
# -Wno-format: newlib's uint32_t is unsigned long, which the messages print
# with %u as on every other target; both are 32 bits here, so the output is
# right, and the Linux builds check the formats. -Wno-type-limits: enums are
# as small as their values here (the EABI's short enums), so the range
# checks on enum arguments have parts that cannot be true on this target.
set(CMAKE_C_FLAGS_INIT
  "-mcpu=cortex-m3 -mthumb -ffunction-sections -fdata-sections -Wno-format -Wno-type-limits")
set(CMAKE_C_FLAGS_RELEASE_INIT "-Os -DNDEBUG")
set(CMAKE_C_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")
set(ONYX_PLATFORM none CACHE STRING "The platform layer: posix or none")
set(ONYX_BUILD_TESTS OFF CACHE BOOL "Build the test suite")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
