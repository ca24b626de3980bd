/* SPDX-License-Identifier: MIT */
/*
 * Byte order. ONNX stores raw_data and external data little-endian, and so
 * do .pb and .npy files; kernels work on host-order elements. Payloads are
 * converted once, where they enter or leave the library, with the helpers
 * here and nowhere else.
 *
 * The host's order is found by looking at the bytes of a constant rather
 * than by a preprocessor test, so that no build depends on a compiler's
 * predefined macros; compilers fold it to a constant, and on little-endian
 * hosts onyx__le_to_host compiles to nothing.
 */
#ifndef ONYX_CORE_BYTEORDER_H
#define ONYX_CORE_BYTEORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline bool onyx__host_big_endian(void) {
  const uint16_t one = 1;
  uint8_t first = 0;
  memcpy(&first, &one, 1);
  return first == 0;
}

/* Reverses the bytes of each of the nbytes / width elements at p. */
static inline void onyx__swap_bytes(void *p, size_t nbytes, size_t width) {
  uint8_t *b = p;
  if (width < 2) return;
  for (size_t at = 0; at + width <= nbytes; at += width) {
    for (size_t i = 0, j = width - 1; i < j; i++, j--) {
      uint8_t t = b[at + i];
      b[at + i] = b[at + j];
      b[at + j] = t;
    }
  }
}

/*
 * Converts nbytes of elements width bytes wide, in place, from
 * little-endian to host order; the same call converts host order back to
 * little-endian. Nothing is done on little-endian hosts.
 */
static inline void onyx__le_to_host(void *p, size_t nbytes, size_t width) {
  if (onyx__host_big_endian()) onyx__swap_bytes(p, nbytes, width);
}

#endif
