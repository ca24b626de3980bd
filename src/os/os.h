/*
 * The platform layer: every call the library makes to the operating system
 * goes through this interface, with one implementation file per platform
 * (posix.c). The rest of the library includes no OS header.
 */
#ifndef ONYX_OS_OS_H
#define ONYX_OS_OS_H

#include <stdbool.h>

/*
 * The kernel's hardware capability words (Linux: getauxval(AT_HWCAP) and
 * AT_HWCAP2), the way ARM Linux reports optional CPU features such as NEON
 * on 32-bit ARM. Both are 0 where the platform has no such words. Never
 * fails; thread-safe.
 */
void onyx__os_hwcap(unsigned long *hwcap, unsigned long *hwcap2);

#endif
