/* SPDX-License-Identifier: MIT */
/*
 * The shared-library calls of platforms that cannot load one: WebAssembly
 * (WASI has no dlopen) and the freestanding build (ONYX_PLATFORM=none).
 * Loading an op library fails with a message saying so. See os.h.
 */
#include "os/os.h"

#if defined(ONYX_PLATFORM_NONE) || defined(__wasi__)

int onyx__os_library_open(const char *path, onyx__os_library **out, char *why, size_t cap) {
  (void)path;
  *out = NULL;
  if (cap > 0) {
    const char msg[] = "this platform cannot load shared libraries";
    size_t n = sizeof msg - 1 < cap - 1 ? sizeof msg - 1 : cap - 1;
    for (size_t i = 0; i < n; i++) why[i] = msg[i];
    why[n] = '\0';
  }
  return ONYX__OS_E_UNSUPPORTED;
}

void (*onyx__os_library_symbol(onyx__os_library *lib, const char *name))(void) {
  (void)lib;
  (void)name;
  return NULL;
}

void onyx__os_library_close(onyx__os_library *lib) { (void)lib; }

#else
/* ISO C forbids an empty translation unit. */
typedef int onyx__os_library_none_unused;
#endif
