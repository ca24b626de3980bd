/*
 * All library allocations go through these functions, so that tests can make
 * the N-th allocation fail and check that every failure is clean.
 */
#ifndef ONYX_CORE_ALLOC_H
#define ONYX_CORE_ALLOC_H

#include <stddef.h>

void *onyx__malloc(size_t size);
void *onyx__calloc(size_t count, size_t size);
void *onyx__realloc(void *ptr, size_t size);
void onyx__free(void *ptr);

/* Test hook: when set to N > 0, the N-th allocation from now fails (and the
 * counter stops). 0 disables. Not thread-safe; for tests only. */
void onyx__alloc_fail_at(unsigned long n);

/*
 * An arena: many small allocations freed together. Used for everything a
 * model or session owns, so that a failure half-way through building one
 * cannot leak. Blocks are chained; nothing is ever moved.
 */
typedef struct onyx__arena_block onyx__arena_block;
typedef struct onyx__arena {
  onyx__arena_block *head;
} onyx__arena;

/* Returns zeroed memory aligned for any type, or NULL when out of memory.
 * Allocating zero bytes returns a valid, unique pointer. */
void *onyx__arena_alloc(onyx__arena *arena, size_t size);
/* Copies n bytes and a NUL into the arena. */
char *onyx__arena_strndup(onyx__arena *arena, const char *s, size_t n);
void onyx__arena_free(onyx__arena *arena);

/* Overflow-checked size arithmetic: return 0 on overflow. */
static inline int onyx__mul_size(size_t a, size_t b, size_t *out) {
  if (a != 0 && b > (size_t)-1 / a) return 0;
  *out = a * b;
  return 1;
}

#endif
