/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets share: the libFuzzer entry point's declaration, a
 * way to stop on a broken invariant, the checks every failing onyx call must
 * pass, and a small deterministic generator for input data.
 *
 * A target stops with abort() on anything that is a bug in onyx rather than
 * in the input: a status outside the list, ONYX_INTERNAL, an error record
 * that disagrees with the returned status or has no message, an out-pointer
 * left set after a failure, or results that differ between identical runs.
 * Sanitizers report memory errors, undefined behaviour and leaks on their
 * own; libFuzzer reports hangs and excessive memory use.
 */
#ifndef ONYX_FUZZ_H
#define ONYX_FUZZ_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onyx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* libFuzzer's hooks for a structure-aware mutator (model_mutator.c), and
 * its own byte mutator, which they fall back on; mutator_check.c supplies
 * a stand-in for the latter where libFuzzer is not linked. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
                                 size_t size2, uint8_t *out, size_t max_out, unsigned int seed);

#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 1, 2)))
#endif
static inline void
fuzz_die(const char *fmt, ...);

static inline void fuzz_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fuzz: invariant broken: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  abort();
}

/* The checks on a call's status and error record. Returns st. */
static inline onyx_status fuzz_check(const char *call, onyx_status st, const onyx_error *err) {
  if ((unsigned)st > (unsigned)ONYX_INTERNAL) fuzz_die("%s returned status %d", call, (int)st);
  if (st == ONYX_OK) return st;
  if (st == ONYX_INTERNAL) fuzz_die("%s: ONYX_INTERNAL: %.512s", call, err->message);
  if (err->status != st) {
    fuzz_die("%s returned %s but the error record says %s", call, onyx_status_name(st),
             onyx_status_name(err->status));
  }
  if (memchr(err->message, '\0', sizeof err->message) == NULL) {
    fuzz_die("%s: %s with an unterminated message", call, onyx_status_name(st));
  }
  if (err->message[0] == '\0') fuzz_die("%s: %s with an empty message", call, onyx_status_name(st));
  return st;
}

/* FNV-1a over the input, to seed the generator: the same input always
 * gets the same choices and the same data. */
static inline uint64_t fuzz_hash(const uint8_t *data, size_t size) {
  uint64_t h = 14695981039346656037u;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211u;
  return h;
}

/* splitmix64 */
static inline uint64_t fuzz_next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* The element count of a shape, or 0 with *ok = 0 when a dim is negative
 * or the product exceeds cap. A zero dim makes the count 0 whatever the
 * others are. */
static inline size_t fuzz_count(const int64_t *dims, uint32_t rank, size_t cap, int *ok) {
  size_t c = 1;
  *ok = 1;
  for (uint32_t d = 0; d < rank; d++) {
    if (dims[d] < 0) {
      *ok = 0;
      return 0;
    }
    if (dims[d] == 0) c = 0;
  }
  if (c == 0) return 0;
  for (uint32_t d = 0; d < rank; d++) {
    if ((uint64_t)dims[d] > cap || c > cap / (size_t)dims[d]) {
      *ok = 0;
      return 0;
    }
    c *= (size_t)dims[d];
  }
  return c;
}

#endif
