/* SPDX-License-Identifier: MIT */
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
/* Test hook: the number of heap allocations (onyx__malloc, _calloc and
 * _realloc calls) since the program started. */
unsigned long onyx__alloc_count(void);

/*
 * An arena: many small allocations freed together. Used for everything a
 * model or session owns, so that a failure half-way through building one
 * cannot leak. Blocks are chained; nothing is ever moved.
 *
 * A fixed arena (onyx__arena_fixed) instead hands out the caller's memory
 * (onyx_session_options.arena) and never touches the heap: when that memory
 * is used up, allocations return NULL. Its mark can be taken and reset to,
 * so that what one run allocates is given back before the next.
 */
typedef struct onyx__arena_block onyx__arena_block;
typedef struct onyx__arena {
  onyx__arena_block *head;
  unsigned char *fixed; /* the caller's memory, or NULL for heap blocks */
  size_t fixed_size, fixed_used;
  size_t fixed_peak; /* the most of fixed_size ever used, front and top together */
  /* Temporary memory (onyx__arena_temp): a fixed arena's comes off its top
   * end, fixed_top bytes; a heap arena's from blocks of its own. */
  size_t fixed_top;
  onyx__arena_block *temp_head;
} onyx__arena;

/* Returns zeroed memory aligned for any type, or NULL when out of memory.
 * Allocating zero bytes returns a valid, unique pointer. */
void *onyx__arena_alloc(onyx__arena *arena, size_t size);
/* Copies n bytes and a NUL into the arena. */
char *onyx__arena_strndup(onyx__arena *arena, const char *s, size_t n);
void onyx__arena_free(onyx__arena *arena);

/* Zeroed memory, aligned for any type, that is kept only until
 * onyx__arena_temp_free: what session creation needs only while building,
 * so that a session keeps memory for its data, not for how it was built.
 * A fixed arena takes it from its top end while kept allocations grow from
 * the front, so giving it back leaves no hole. NULL when out of memory. */
void *onyx__arena_temp(onyx__arena *arena, size_t size);
/* The temporary memory in use, and giving back what was taken after such
 * a mark (a fixed arena's; a heap arena keeps it until temp_free). */
size_t onyx__arena_temp_mark(const onyx__arena *arena);
void onyx__arena_temp_reset(onyx__arena *arena, size_t mark);
/* Gives back all temporary memory. */
void onyx__arena_temp_free(onyx__arena *arena);

/* Makes *arena a fixed arena on the size bytes at mem. Bytes before the
 * first address aligned for any type are skipped. */
void onyx__arena_fixed(onyx__arena *arena, void *mem, size_t size);
/* Carves size bytes, aligned for any type and not zeroed, off the front
 * of [*mem, *mem + *size) and advances both; NULL when they do not fit. */
void *onyx__carve(unsigned char **mem, size_t *size, size_t n);
/* A fixed arena's used bytes, and going back to them: everything
 * allocated after the mark is given back. No-ops on a heap arena. */
size_t onyx__arena_mark(const onyx__arena *arena);
void onyx__arena_reset(onyx__arena *arena, size_t mark);
/* Zeroed memory for count * size bytes from a fixed arena, or else from
 * the heap; and giving it back (nothing for a fixed arena, whose memory
 * is given back with the arena). NULL on overflow or when out of memory. */
void *onyx__arena_or_heap_calloc(onyx__arena *arena, size_t count, size_t size);
void onyx__arena_or_heap_free(onyx__arena *arena, void *ptr);

/* Overflow-checked size arithmetic: return 0 on overflow. */
static inline int onyx__mul_size(size_t a, size_t b, size_t *out) {
  if (a != 0 && b > (size_t)-1 / a) return 0;
  *out = a * b;
  return 1;
}

#endif
