/* SPDX-License-Identifier: MIT */
/*
 * The heap of onyx-lib.wasm (cmake/wasm.cmake), in place of wasi-libc's
 * dlmalloc: that one is 8.8 KB of the module's code, more than any part of
 * onyx but session creation, for the few dozen blocks a page's sessions
 * hold at a time. This one keeps free chunks with boundary tags (Knuth's),
 * so that freed neighbours merge and the memory a large tensor gave back
 * serves the next one, on one list per power of two of their size, so that
 * no call's cost grows with the number of free chunks: a model of 100,000
 * names, freed, leaves 100,000 small chunks that one list would walk past
 * on every larger malloc. malloc looks at SCAN chunks of the request's own
 * class, the closest fits, then takes the first chunk of the smallest class
 * above, where every chunk fits; free is O(1). So a call looks at no more
 * than CLASSES classes and SCAN + 1 chunks, three times at most when memory
 * grows (tests/check_wasm_malloc.c counts them).
 *
 * Memory is wasm's linear memory past __heap_base, grown with memory.grow
 * in 64 KiB pages; nothing else in the module grows it (dlmalloc, wasi-libc's
 * only other user of sbrk, is not linked). A chunk is a 16-byte header, the
 * block's size with two flags, then the payload, 16-byte aligned as
 * max_align_t wants. A free chunk keeps its list links in the header's
 * padding and its size again in its last word, so that the chunk after it
 * finds its start. The chunk at the end of each region, a header only, is
 * marked used, which stops merging there.
 *
 * Not thread-safe: WASI has no threads here (cmake/toolchains/wasm32-wasi.cmake).
 * A failure returns NULL without setting errno: with -mbulk-memory errno
 * is a thread-local the module's objects and wasi-libc's would disagree
 * on, and neither onyx nor the package reads it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HDR       16u         /* header bytes, the payload's alignment too */
#define PAGE      65536u      /* wasm's memory page */
#define MAX_PAGES 65535u      /* a page short of 4 GiB, so that ends fit in size_t */
#define USED      ((size_t)1) /* this chunk is allocated */
#define PREV_USED ((size_t)2) /* the chunk before it is allocated (or there is none) */
#define FLAGS     ((size_t)15)
#define CLASSES   (sizeof(size_t) * 8) /* class k: sizes 2^k to 2^(k+1) - 1 */
#define SCAN      8                    /* chunks of the request's own class looked at */

/* The test's count of chunks and classes looked at; not in the module. */
#ifdef ONYX_WASM_MALLOC_STEPS
unsigned long onyx_wasm_malloc_steps;
#define STEP() (onyx_wasm_malloc_steps++)
#else
#define STEP() ((void)0)
#endif

typedef struct free_chunk {
  size_t head;
  struct free_chunk *next, *prev;
} free_chunk;

extern unsigned char __heap_base;

static free_chunk *bins[CLASSES]; /* free chunks by class, the last freed first */
static unsigned char *last;       /* the end chunk of the region grown last */

#define HEAD(c) (*(size_t *)(void *)(c))

static size_t chunk_size(const unsigned char *c) {
  return *(const size_t *)(const void *)c & ~FLAGS;
}

static size_t class_of(size_t size) { return CLASSES - 1 - (size_t)__builtin_clzl(size); }

static void unlink_chunk(free_chunk *f) {
  if (f->prev)
    f->prev->next = f->next;
  else
    bins[class_of(chunk_size((unsigned char *)f))] = f->next;
  if (f->next) f->next->prev = f->prev;
}

/* Frees chunk c (its header says its size and PREV_USED), merged with a free
 * neighbour on either side, onto its class's list. */
static void release(unsigned char *c) {
  size_t size = chunk_size(c), prev = HEAD(c) & PREV_USED;
  unsigned char *next = c + size;
  if (!(HEAD(next) & USED)) {
    unlink_chunk((free_chunk *)(void *)next);
    size += chunk_size(next);
  }
  if (!prev) {
    size_t before = *(size_t *)(void *)(c - sizeof(size_t));
    c -= before;
    unlink_chunk((free_chunk *)(void *)c);
    size += before;
    prev = HEAD(c) & PREV_USED;
  }
  free_chunk *f = (free_chunk *)(void *)c;
  f->head = size | prev;
  *(size_t *)(void *)(c + size - sizeof(size_t)) = size;
  free_chunk **bin = &bins[class_of(size)];
  f->prev = NULL;
  f->next = *bin;
  if (*bin) (*bin)->prev = f;
  *bin = f;
  HEAD(c + size) &= ~PREV_USED;
}

/* Adds [start, end) (16-byte aligned) to the heap: merged with the region
 * before when it follows that one's end chunk, else a region of its own. */
static void add_memory(unsigned char *start, unsigned char *end) {
  unsigned char *c = start, *stop = end - HDR;
  size_t prev = PREV_USED;
  if (last != NULL && start == last + HDR) {
    c = last;
    prev = HEAD(last) & PREV_USED;
  }
  HEAD(stop) = USED;
  last = stop;
  HEAD(c) = (size_t)(stop - c) | USED | prev;
  release(c);
}

/* Makes a free chunk of at least need bytes: the memory the module started
 * with, then pages grown. 0 when memory cannot grow. */
static int more(size_t need) {
  size_t pages = __builtin_wasm_memory_size(0);
  if (last == NULL) {
    uintptr_t start = ((uintptr_t)&__heap_base + HDR - 1) & ~(uintptr_t)(HDR - 1);
    uintptr_t end = (uintptr_t)pages * PAGE;
    if (pages <= MAX_PAGES && end >= start + 2 * HDR) {
      add_memory((unsigned char *)start, (unsigned char *)end);
      return 1;
    }
  }
  /* A new region needs its first chunk and its end chunk. */
  size_t grow = (need + 2 * HDR + PAGE - 1) / PAGE;
  if (pages > MAX_PAGES || grow > MAX_PAGES - pages) return 0;
  size_t old = __builtin_wasm_memory_grow(0, grow);
  if (old == SIZE_MAX) return 0;
  add_memory((unsigned char *)(old * PAGE), (unsigned char *)((old + grow) * PAGE));
  return 1;
}

/* Takes need bytes from the front of free chunk f; a remainder that can
 * hold a free chunk's header and size stays free. */
static void *take(free_chunk *f, size_t need) {
  unsigned char *c = (unsigned char *)f;
  size_t size = chunk_size(c), prev = f->head & PREV_USED;
  unlink_chunk(f);
  if (size - need >= HDR) {
    HEAD(c) = need | USED | prev;
    HEAD(c + need) = (size - need) | USED | PREV_USED;
    release(c + need);
  } else {
    HEAD(c) = size | USED | prev;
    HEAD(c + size) |= PREV_USED;
  }
  return c + HDR;
}

/* A free chunk of at least need bytes, NULL when there is none in reach:
 * the first of SCAN in the request's class that fits, else the first of
 * a class above, where every chunk fits. */
static free_chunk *find(size_t need) {
  for (size_t k = class_of(need); k < CLASSES; k++) {
    STEP();
    free_chunk *f = bins[k];
    for (int i = 0; f != NULL && i < SCAN; f = f->next, i++) {
      STEP();
      if (chunk_size((unsigned char *)f) >= need) return f;
    }
  }
  return NULL;
}

/* Once the memory the module started with is on the lists (the first
 * more()), more() leaves a chunk of need bytes first on its class's list,
 * so the next find() takes it. */
void *malloc(size_t n) {
  if (n > SIZE_MAX / 2) return NULL;
  if (n == 0) n = 1; /* a pointer of its own, as for any other size */
  size_t need = (n + 2 * HDR - 1) & ~(size_t)(HDR - 1);
  for (;;) {
    free_chunk *f = find(need);
    if (f != NULL) return take(f, need);
    if (!more(need)) return NULL;
  }
}

void free(void *p) {
  if (p != NULL) release((unsigned char *)p - HDR);
}

void *calloc(size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size) return NULL;
  void *p = malloc(n * size);
  if (p != NULL) memset(p, 0, n * size);
  return p;
}

/* In place when the block holds n already (blocks never shrink). */
void *realloc(void *p, size_t n) {
  if (p == NULL) return malloc(n);
  size_t have = chunk_size((unsigned char *)p - HDR) - HDR;
  if (n <= have) return p;
  void *q = malloc(n);
  if (q == NULL) return NULL;
  memcpy(q, p, have);
  free(p);
  return q;
}

/* Alignments past 16: a block align bytes larger, its front given back as
 * a free chunk of at least HDR bytes. */
void *aligned_alloc(size_t align, size_t n) {
  if (align == 0 || (align & (align - 1)) != 0) return NULL;
  if (align <= HDR) return malloc(n);
  if (n > SIZE_MAX / 2 - align) return NULL;
  unsigned char *p = malloc(n + align + HDR);
  if (p == NULL) return NULL;
  unsigned char *q = (unsigned char *)(((uintptr_t)p + HDR + align - 1) & ~(uintptr_t)(align - 1));
  unsigned char *c = p - HDR, *d = q - HDR;
  size_t gap = (size_t)(d - c);
  HEAD(d) = (chunk_size(c) - gap) | USED;
  HEAD(c) = gap | USED | (HEAD(c) & PREV_USED);
  release(c);
  return q;
}

int posix_memalign(void **out, size_t align, size_t n) {
  if (align < sizeof(void *) || (align & (align - 1)) != 0) return EINVAL;
  void *p = aligned_alloc(align, n);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}

size_t malloc_usable_size(void *p) {
  return p == NULL ? 0 : chunk_size((unsigned char *)p - HDR) - HDR;
}

/* wasi-libc's own calls (atexit, locales) go through these names. */
void *__libc_malloc(size_t n) { return malloc(n); }
void *__libc_calloc(size_t n, size_t size) { return calloc(n, size); }
void __libc_free(void *p) { free(p); }
