/* SPDX-License-Identifier: MIT */
/*
 * Element bytes in tests, right on either byte order. Kernels and decoded
 * tensors hold host-order elements; raw_data, external data and .npy files
 * hold little-endian ones. The helpers here compose and split values with
 * shifts and typed stores, independently of the library's own conversion,
 * so that a test checks the library rather than agreeing with it.
 */
#ifndef ONYX_TESTS_HOST_BYTES_H
#define ONYX_TESTS_HOST_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline bool host_is_big_endian(void) {
  const uint32_t probe = 0x01020304u;
  unsigned char first;
  memcpy(&first, &probe, 1);
  return first == 0x01;
}

/* Stores the low `size` (1, 2, 4 or 8) bytes of v as one host-order
 * element at out. */
static inline void store_host(uint64_t v, size_t size, void *out) {
  uint8_t u8 = (uint8_t)v;
  uint16_t u16 = (uint16_t)v;
  uint32_t u32 = (uint32_t)v;
  const void *p = size == 1   ? (const void *)&u8
                  : size == 2 ? (const void *)&u16
                  : size == 4 ? (const void *)&u32
                              : (const void *)&v;
  memcpy(out, p, size);
}

/* The host-order element of `size` bytes at p, zero-extended: its most
 * significant byte comes first on a big-endian host, last otherwise. */
static inline uint64_t load_host(const void *p, size_t size) {
  const uint8_t *b = p;
  uint64_t v = 0;
  for (size_t i = 0; i < size; i++) v = v << 8 | b[host_is_big_endian() ? i : size - 1 - i];
  return v;
}

/* The little-endian bytes of the low `size` bytes of each of n values. */
static inline void values_to_le(const uint64_t *values, size_t n, size_t size, uint8_t *out) {
  for (size_t i = 0; i < n; i++) {
    for (size_t b = 0; b < size; b++) out[i * size + b] = (uint8_t)(values[i] >> (8 * b));
  }
}

/* The host-order elements that n little-endian elements of `size` bytes
 * at le stand for. */
static inline void le_to_host_elems(const uint8_t *le, size_t n, size_t size, uint8_t *out) {
  for (size_t i = 0; i < n; i++) {
    uint64_t v = 0;
    for (size_t b = size; b-- > 0;) v = v << 8 | le[i * size + b];
    store_host(v, size, out + i * size);
  }
}

/* The little-endian bytes of n host-order elements of `size` bytes; in
 * place (out == host) is fine. */
static inline void host_to_le_elems(const void *host, size_t n, size_t size, uint8_t *out) {
  for (size_t i = 0; i < n; i++) {
    uint64_t v = load_host((const uint8_t *)host + i * size, size);
    for (size_t b = 0; b < size; b++) out[i * size + b] = (uint8_t)(v >> (8 * b));
  }
}

#endif
