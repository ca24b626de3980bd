/* SPDX-License-Identifier: MIT */
/*
 * onyx-lib.wasm's heap (src/os/wasm/malloc.c), linked in place of
 * wasi-libc's: random mallocs, callocs, reallocs, aligned allocations and
 * frees, small and large (past a 64 KiB page, so that memory grows), each
 * block filled with a pattern of its own and checked before it is freed or
 * moved, so that overlapping blocks or a realloc that loses bytes show as a
 * wrong byte. Then every block is freed and one block of the memory
 * allocated at the peak must fit without the memory growing, and the memory
 * must not have grown past four times the peak: freed neighbours merge. Prints "malloc: N
 * operations, ok" or what went wrong.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 256

static struct {
  unsigned char *p;
  size_t n;
  unsigned char tag;
} slot[SLOTS];

static uint32_t rng = 12345u;
static uint32_t next(void) {
  rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
  return rng;
}

static size_t pick_size(void) {
  uint32_t r = next() % 100;
  if (r < 60) return next() % 64;
  if (r < 90) return next() % 4096;
  return 65536 + next() % 300000;
}

static int check(int i, const char *when) {
  for (size_t k = 0; k < slot[i].n; k++) {
    if (slot[i].p[k] != (unsigned char)(slot[i].tag + k)) {
      printf("malloc: block %d (%zu bytes) byte %zu changed, %s\n", i, slot[i].n, k, when);
      return 1;
    }
  }
  return 0;
}

static void fill(int i, size_t from) {
  for (size_t k = from; k < slot[i].n; k++) slot[i].p[k] = (unsigned char)(slot[i].tag + k);
}

static int step(int i, long op) {
  if (slot[i].p != NULL) {
    if (check(i, "before its free or realloc")) return 1;
    if (next() % 3 == 0) {
      size_t n = pick_size();
      unsigned char *q = realloc(slot[i].p, n);
      if (q == NULL) return printf("malloc: realloc of %zu bytes failed\n", n), 1;
      size_t kept = n < slot[i].n ? n : slot[i].n;
      slot[i].p = q, slot[i].n = kept;
      if (check(i, "after realloc")) return 1;
      slot[i].n = n;
      fill(i, kept);
      return 0;
    }
    free(slot[i].p);
    slot[i].p = NULL;
    return 0;
  }
  size_t n = pick_size();
  uint32_t how = next() % 4;
  unsigned char *p;
  if (how == 0) {
    p = calloc(n, 1);
    for (size_t k = 0; p != NULL && k < n; k++)
      if (p[k] != 0) return printf("malloc: calloc byte %zu is %d\n", k, p[k]), 1;
  } else if (how == 1) {
    size_t align = (size_t)32 << (next() % 8);
    p = aligned_alloc(align, n);
    if (p != NULL && (uintptr_t)p % align != 0)
      return printf("malloc: aligned_alloc(%zu) gave %p\n", align, (void *)p), 1;
  } else {
    p = malloc(n);
    if (p != NULL && (uintptr_t)p % 16 != 0)
      return printf("malloc: %p is unaligned\n", (void *)p), 1;
  }
  if (p == NULL) return printf("malloc: operation %ld: %zu bytes failed\n", op, n), 1;
  slot[i].p = p, slot[i].n = n, slot[i].tag = (unsigned char)next();
  fill(i, 0);
  return 0;
}

int main(void) {
  long ops = 50000;
  size_t peak = 0, live = 0;
  for (long op = 0; op < ops; op++) {
    if (step((int)(next() % SLOTS), op)) return 1;
    live = 0;
    if (op % 1000 == 0) {
      for (int i = 0; i < SLOTS; i++) live += slot[i].p ? slot[i].n : 0;
      if (live > peak) peak = live;
    }
  }
  for (int i = 0; i < SLOTS; i++) {
    if (slot[i].p != NULL && check(i, "at the end")) return 1;
    free(slot[i].p);
  }
  /* Blocks that never merged would leave memory grown many times over. */
  size_t pages = __builtin_wasm_memory_size(0);
  if (pages * 65536 > 4 * peak + (4u << 20)) {
    printf("malloc: memory grew to %zu pages for a peak of %zu bytes\n", pages, peak);
    return 1;
  }
  void *all = malloc(peak);
  if (all == NULL || __builtin_wasm_memory_size(0) != pages) {
    printf("malloc: %zu bytes after freeing everything grew memory from %zu pages\n", peak, pages);
    return 1;
  }
  free(all);
  printf("malloc: %ld operations, peak %zu bytes in %zu pages, ok\n", ops, peak, pages);
  return 0;
}
