/* SPDX-License-Identifier: MIT */
#include "core/alloc.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onyx.h"

static unsigned long fail_countdown;

void onyx__alloc_fail_at(unsigned long n) { fail_countdown = n; }

/* Relaxed: a count for tests, read after the calls it counts returned. */
static atomic_ulong heap_calls;

unsigned long onyx__alloc_count(void) {
  return atomic_load_explicit(&heap_calls, memory_order_relaxed);
}

static int should_fail(void) {
  atomic_fetch_add_explicit(&heap_calls, 1, memory_order_relaxed);
  if (fail_countdown == 0) return 0;
  return --fail_countdown == 0;
}

void *onyx__malloc(size_t size) { return should_fail() ? NULL : malloc(size ? size : 1); }

void *onyx__calloc(size_t count, size_t size) {
  if (should_fail()) return NULL;
  if (count == 0 || size == 0) return calloc(1, 1);
  return calloc(count, size);
}

void *onyx__realloc(void *ptr, size_t size) {
  return should_fail() ? NULL : realloc(ptr, size ? size : 1);
}

void onyx__free(void *ptr) { free(ptr); }

void onyx_free(void *ptr) { free(ptr); }

struct onyx__arena_block {
  onyx__arena_block *next;
  size_t used, cap;
  alignas(max_align_t) unsigned char data[];
};

enum { ARENA_BLOCK = 16384 };

/* Bumps a fixed arena's front; size is already rounded up. */
static void *fixed_alloc(onyx__arena *arena, size_t size) {
  if (arena->fixed_size - arena->fixed_used - arena->fixed_top < size) return NULL;
  void *p = arena->fixed + arena->fixed_used;
  arena->fixed_used += size;
  if (arena->fixed_peak < arena->fixed_used + arena->fixed_top)
    arena->fixed_peak = arena->fixed_used + arena->fixed_top;
  memset(p, 0, size);
  return p;
}

/* size rounded up to the alignment of any type (at least one unit, so
 * that each allocation is unique), or 0 on overflow. */
static size_t round_size(size_t size) {
  size_t align = alignof(max_align_t);
  if (size > SIZE_MAX - align) return 0;
  size = (size + align - 1) & ~(align - 1);
  return size == 0 ? align : size;
}

/* Bumps the head of the block list *head, adding a block when it is full. */
static void *heap_alloc(onyx__arena_block **head, size_t size) {
  onyx__arena_block *b = *head;
  if (b == NULL || b->cap - b->used < size) {
    size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
    if (cap > SIZE_MAX - sizeof *b) return NULL;
    b = onyx__malloc(sizeof *b + cap);
    if (b == NULL) return NULL;
    b->used = 0;
    b->cap = cap;
    /* A block made for one large request goes behind the current head so
     * that the head's remaining space is still used by later requests. */
    if (*head != NULL && cap > ARENA_BLOCK) {
      b->next = (*head)->next;
      (*head)->next = b;
    } else {
      b->next = *head;
      *head = b;
    }
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

static void free_blocks(onyx__arena_block **head) {
  onyx__arena_block *b = *head;
  while (b != NULL) {
    onyx__arena_block *next = b->next;
    onyx__free(b);
    b = next;
  }
  *head = NULL;
}

void *onyx__arena_alloc(onyx__arena *arena, size_t size) {
  size = round_size(size);
  if (size == 0) return NULL;
  if (arena->fixed != NULL) return fixed_alloc(arena, size);
  return heap_alloc(&arena->head, size);
}

void *onyx__arena_temp(onyx__arena *arena, size_t size) {
  size = round_size(size);
  if (size == 0) return NULL;
  if (arena->fixed == NULL) return heap_alloc(&arena->temp_head, size);
  if (arena->fixed_size - arena->fixed_used - arena->fixed_top < size) return NULL;
  arena->fixed_top += size;
  if (arena->fixed_peak < arena->fixed_used + arena->fixed_top)
    arena->fixed_peak = arena->fixed_used + arena->fixed_top;
  /* fixed_size is a multiple of the alignment, so the top end is aligned. */
  unsigned char *p = arena->fixed + arena->fixed_size - arena->fixed_top;
  memset(p, 0, size);
  return p;
}

size_t onyx__arena_temp_mark(const onyx__arena *arena) { return arena->fixed_top; }

void onyx__arena_temp_reset(onyx__arena *arena, size_t mark) {
  if (arena->fixed != NULL && mark <= arena->fixed_top) arena->fixed_top = mark;
}

void onyx__arena_temp_free(onyx__arena *arena) {
  arena->fixed_top = 0;
  free_blocks(&arena->temp_head);
}

char *onyx__arena_strndup(onyx__arena *arena, const char *s, size_t n) {
  if (n == SIZE_MAX) return NULL;
  char *d = onyx__arena_alloc(arena, n + 1);
  if (d == NULL) return NULL;
  if (n) memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

void onyx__arena_free(onyx__arena *arena) {
  arena->fixed_used = 0;
  free_blocks(&arena->head);
  onyx__arena_temp_free(arena);
}

void *onyx__carve(unsigned char **mem, size_t *size, size_t n) {
  size_t align = alignof(max_align_t);
  size_t skip = (align - (uintptr_t)*mem % align) % align;
  if (*size < skip || *size - skip < n) return NULL;
  void *p = *mem + skip;
  *mem += skip + n;
  *size -= skip + n;
  return p;
}

void onyx__arena_fixed(onyx__arena *arena, void *mem, size_t size) {
  unsigned char *base = mem;
  /* An empty carve aligns the start; memory too small for that is none. */
  if (onyx__carve(&base, &size, 0) == NULL) size = 0;
  /* Whole units only, so that the top end (onyx__arena_temp) is aligned. */
  size &= ~(alignof(max_align_t) - 1);
  *arena = (onyx__arena){NULL, base, size, 0, 0, 0, NULL};
}

size_t onyx__arena_mark(const onyx__arena *arena) { return arena->fixed_used; }

void onyx__arena_reset(onyx__arena *arena, size_t mark) {
  if (arena->fixed != NULL && mark <= arena->fixed_used) arena->fixed_used = mark;
}

void *onyx__arena_or_heap_calloc(onyx__arena *arena, size_t count, size_t size) {
  if (arena->fixed == NULL) return onyx__calloc(count, size);
  size_t n;
  return onyx__mul_size(count, size, &n) ? onyx__arena_alloc(arena, n) : NULL;
}

void onyx__arena_or_heap_free(onyx__arena *arena, void *ptr) {
  if (arena->fixed == NULL) onyx__free(ptr);
}
