/* SPDX-License-Identifier: MIT */
/*
 * The platform layer of a freestanding build (ONYX_PLATFORM=none), for
 * microcontrollers: no file system, no clock, one CPU, no threads (the
 * build sets ONYX_THREADS=OFF, so src/os/threads_none.c has the thread
 * calls). Models load from memory; every file call fails with
 * ONYX__OS_E_UNSUPPORTED, which the loaders report as ONYX_IO "not
 * supported on this platform". See os.h.
 */
#include "os/os.h"

#if defined(ONYX_PLATFORM_NONE)

const char *onyx__os_error_text(int error) {
  return error == ONYX__OS_E_UNSUPPORTED ? "not supported on this platform" : "system error";
}

unsigned onyx__os_cpu_count(void) { return 1; }

uint64_t onyx__os_clock_ns(void) { return 0; }

void onyx__os_hwcap(unsigned long *hwcap, unsigned long *hwcap2) {
  *hwcap = 0;
  *hwcap2 = 0;
}

static uint64_t mix64(uint64_t z) { /* splitmix64's finalizer */
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

uint64_t onyx__os_seed(void) {
  /* Without a clock or address-space randomisation, the stack depth and a
   * counter make seeds differ from call to call; nothing here is secret
   * from whoever flashed the device. No threads: the counter needs no
   * atomics. */
  static uint64_t calls;
  char here = 0;
  return mix64(mix64((uint64_t)(uintptr_t)&here) ^ ++calls);
}

bool onyx__os_file_is_open(onyx__os_file f) { return f.fd >= 0; }

int onyx__os_file_open(const char *path, onyx__os_file *out) {
  (void)path;
  *out = ONYX__OS_FILE_NONE;
  return ONYX__OS_E_UNSUPPORTED;
}

int onyx__os_file_create(const char *path, onyx__os_file *out) {
  return onyx__os_file_open(path, out);
}

int onyx__os_file_open_inside(const char *dir, const char *rel, onyx__os_file *out, bool *in_dir,
                              size_t *at, size_t *len) {
  (void)rel;
  *in_dir = true; /* the folder itself cannot be opened */
  *at = 0;
  *len = 0;
  return onyx__os_file_open(dir, out);
}

int onyx__os_file_close(onyx__os_file f) {
  (void)f;
  return 0;
}

int onyx__os_file_info_get(onyx__os_file f, onyx__os_file_info *info) {
  (void)f, (void)info;
  return ONYX__OS_E_UNSUPPORTED;
}

int onyx__os_path_info(const char *path, onyx__os_file_info *info) {
  (void)path, (void)info;
  return ONYX__OS_E_UNSUPPORTED;
}

int onyx__os_file_pread(onyx__os_file f, void *buf, size_t n, uint64_t offset, size_t *got) {
  (void)f, (void)buf, (void)n, (void)offset;
  *got = 0;
  return ONYX__OS_E_UNSUPPORTED;
}

int onyx__os_file_write_all(onyx__os_file f, const void *p, size_t n) {
  (void)f, (void)p, (void)n;
  return ONYX__OS_E_UNSUPPORTED;
}

int onyx__os_file_map(onyx__os_file f, uint64_t offset, size_t n, onyx__os_map *map,
                      const void **data) {
  (void)f, (void)offset, (void)n;
  *map = (onyx__os_map){NULL, 0};
  *data = NULL;
  return ONYX__OS_E_UNSUPPORTED;
}

void onyx__os_unmap(onyx__os_map map) { (void)map; }

#else
/* ISO C forbids an empty translation unit. */
typedef int onyx__os_none_unused;
#endif
