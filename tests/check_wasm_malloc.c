/* SPDX-License-Identifier: MIT */
/*
 * onyx-lib.wasm's heap (src/os/wasm/malloc.c), linked in place of
 * wasi-libc's: random mallocs, callocs, reallocs, aligned allocations and
 * frees, small and large (past a 64 KiB page, so that memory grows), each
 * block filled with a pattern of its own and checked before it is freed or
 * moved, so that overlapping blocks or a realloc that loses bytes show as a
 * wrong byte. Then every block is freed and one block of the memory
 * allocated at the peak must fit without the memory growing, and the memory
 * must not have grown past four times the peak: freed neighbours merge.
 * Then the pattern that made one free list quadratic: 100,000 small blocks
 * (a model's names) between blocks that stay, freed after larger blocks
 * beside them, which are then allocated again, then 200,000 larger mallocs
 * with frees among them. No call, there or in the random test, may
 * look at more than MOST_STEPS chunks and classes (the heap's count, built
 * with ONYX_WASM_MALLOC_STEPS): one list looked at all 100,000. Prints
 * "malloc: N operations, ... ok" or what went wrong.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 256
/* Three searches (a first call, then two after memory grows), each of 32
 * classes, 8 chunks of the request's class and the one that fits in a
 * class above (src/os/wasm/malloc.c). */
#define MOST_STEPS 123
#define NAMES      100000
#define LARGER     200000
#define LIVE       1024

extern unsigned long onyx_wasm_malloc_steps;
static unsigned long most_steps; /* in one call so far */

/* Whether the call that began at step count `from` looked at too much. */
static int too_many(unsigned long from, const char *what, long op) {
  unsigned long steps = onyx_wasm_malloc_steps - from;
  if (steps > most_steps) most_steps = steps;
  if (steps <= MOST_STEPS) return 0;
  printf("malloc: %s %ld looked at %lu chunks and classes (at most %d)\n", what, op, steps,
         MOST_STEPS);
  return 1;
}

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

static unsigned char *names[NAMES], *kept[2 * NAMES], *tensors[NAMES], *ring[LIVE];

/* Names and tensors with blocks that stay between them, so that none merge.
 * The tensors are freed, then the names, which one list then holds first:
 * every malloc of a tensor again walked past all the names to the tensors'
 * chunks. */
static int names_freed(void) {
  for (long i = 0; i < NAMES; i++) {
    names[i] = malloc(8 + (size_t)i % 24);
    kept[2 * i] = malloc(8 + (size_t)i % 8);
    tensors[i] = malloc(240);
    kept[2 * i + 1] = malloc(8);
    if (names[i] == NULL || kept[2 * i] == NULL || tensors[i] == NULL || kept[2 * i + 1] == NULL)
      return printf("malloc: name %ld failed\n", i), 1;
  }
  for (long i = 0; i < NAMES; i++) free(tensors[i]);
  for (long i = 0; i < NAMES; i++) free(names[i]);
  for (long i = 0; i < NAMES; i++) {
    unsigned long from = onyx_wasm_malloc_steps;
    if ((tensors[i] = malloc(240)) == NULL) return printf("malloc: tensor %ld failed\n", i), 1;
    if (too_many(from, "tensor malloc", i)) return 1;
  }
  return 0;
}

/* Then larger blocks, LIVE at a time; each block's first and last bytes
 * are checked. */
static int fragmented(void) {
  if (names_freed()) return 1;
  unsigned long start = onyx_wasm_malloc_steps;
  for (long op = 0; op < LARGER; op++) {
    unsigned char **r = &ring[op % LIVE];
    if (*r != NULL) {
      size_t n = malloc_usable_size(*r);
      if (r[0][0] != (unsigned char)op || r[0][n - 1] != (unsigned char)(op + 1))
        return printf("malloc: larger block %ld changed\n", op - LIVE), 1;
      free(*r);
    }
    size_t n = 64 + next() % 960;
    unsigned long from = onyx_wasm_malloc_steps;
    if ((*r = malloc(n)) == NULL) return printf("malloc: larger block %ld failed\n", op), 1;
    if (too_many(from, "larger malloc", op)) return 1;
    n = malloc_usable_size(*r);
    r[0][0] = (unsigned char)(op + LIVE), r[0][n - 1] = (unsigned char)(op + LIVE + 1);
  }
  printf("malloc: %d larger mallocs after freeing %d names: %.1f steps each\n", LARGER, NAMES,
         (double)(onyx_wasm_malloc_steps - start) / LARGER);
  for (int i = 0; i < LIVE; i++) free(ring[i]);
  for (long i = 0; i < NAMES; i++) free(kept[2 * i]), free(kept[2 * i + 1]), free(tensors[i]);
  return 0;
}

int main(void) {
  long ops = 50000;
  size_t peak = 0, live = 0;
  for (long op = 0; op < ops; op++) {
    unsigned long from = onyx_wasm_malloc_steps;
    if (step((int)(next() % SLOTS), op) || too_many(from, "operation", op)) return 1;
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
  if (fragmented()) return 1;
  printf("malloc: %ld operations, peak %zu bytes in %zu pages, at most %lu steps a call, ok\n", ops,
         peak, pages, most_steps);
  return 0;
}
