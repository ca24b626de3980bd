/* SPDX-License-Identifier: MIT */
/*
 * The size image: a minimal program that loads one Ceil model from memory
 * (embedded by blob.S) and runs it in a static arena of ONYX_ARENA_SIZE
 * bytes, so that arm-none-eabi-size shows what onyx costs a firmware.
 * Built with ONYX_ARENA_SIZE 0, it instead prints the size
 * onyx_session_arena_size() gives; scripts/baremetal.sh builds it that way
 * first, then with the size it printed, and runs both under QEMU.
 * Exits 0 when y = Ceil(x) came out right.
 */
#include <stdint.h>
#include <string.h>

#include "onyx.h"

#if ONYX_ARENA_SIZE == 0
#include <stdio.h>
#endif

extern const unsigned char onyx_blob[], onyx_blob_end[];

int main(void) {
  onyx_model *m;
  if (onyx_model_load_memory(onyx_blob, (size_t)(onyx_blob_end - onyx_blob), &m, NULL) != ONYX_OK)
    return 1;
#if ONYX_ARENA_SIZE == 0
  size_t size = 0;
  if (onyx_session_arena_size(m, NULL, &size, NULL) != ONYX_OK) return 2;
  printf("arena %lu\n", (unsigned long)size);
  return 0;
#else
  static _Alignas(8) unsigned char arena[ONYX_ARENA_SIZE];
  onyx_session *s;
  onyx_session_options o;
  onyx_session_options_init(&o);
  o.arena = arena;
  o.arena_size = sizeof arena;
  if (onyx_session_create(m, &o, &s, NULL) != ONYX_OK) return 2;
  float x[2] = {-1.5f, 1.2f}, y[2];
  onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {2}, x, sizeof x}, out = {.data = y, .size = sizeof y};
  if (onyx_session_run(s, &in, 1, &out, 1, NULL) != ONYX_OK) return 3;
  /* Compared as bits: a float compare would link libgcc's soft-float
   * compares (265 bytes), which onyx itself does not need. */
  static const float want[2] = {-1.0f, 2.0f};
  uint32_t got_bits[2], want_bits[2];
  memcpy(got_bits, y, sizeof y);
  memcpy(want_bits, want, sizeof want);
  return got_bits[0] == want_bits[0] && got_bits[1] == want_bits[1] ? 0 : 4;
#endif
}
