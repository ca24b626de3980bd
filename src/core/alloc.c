#include "core/alloc.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onyx.h"

static unsigned long fail_countdown;

void onyx__alloc_fail_at(unsigned long n) { fail_countdown = n; }

static int should_fail(void) {
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

void *onyx__arena_alloc(onyx__arena *arena, size_t size) {
  size_t align = alignof(max_align_t);
  size = (size + align - 1) & ~(align - 1);
  if (size == 0) size = align;
  onyx__arena_block *b = arena->head;
  if (b == NULL || b->cap - b->used < size) {
    size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
    if (cap > SIZE_MAX - sizeof *b) return NULL;
    b = onyx__malloc(sizeof *b + cap);
    if (b == NULL) return NULL;
    b->used = 0;
    b->cap = cap;
    /* A block made for one large request goes behind the current head so
     * that the head's remaining space is still used by later requests. */
    if (arena->head != NULL && cap > ARENA_BLOCK) {
      b->next = arena->head->next;
      arena->head->next = b;
    } else {
      b->next = arena->head;
      arena->head = b;
    }
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
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
  onyx__arena_block *b = arena->head;
  while (b != NULL) {
    onyx__arena_block *next = b->next;
    onyx__free(b);
    b = next;
  }
  arena->head = NULL;
}
