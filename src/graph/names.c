/* SPDX-License-Identifier: MIT */
/* Names -> indices: the hash table session creation finds values and
 * domains by. */
#include "graph/build.h"

#include <string.h>

#include "core/error.h"
#include "os/os.h"

/*
 * Open addressing over a power-of-two table; built once, never resized.
 *
 * The names come from the model, so the hash is keyed with a seed drawn for
 * each table: with a fixed hash, a hostile model can give all its values
 * names that land in one probe sequence and make session creation
 * quadratic (40,000 such names, a 1.2 MB model, took 17 s instead of
 * 50 ms). The seed mixes the platform's (onyx__os_seed: the clock and
 * addresses under ASLR) with the table's address; nothing iterates
 * the table, so results do not depend on it.
 */
static uint64_t mix64(uint64_t z) { /* splitmix64's finalizer */
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static uint64_t table_seed(const void *t) {
  return mix64(onyx__os_seed() ^ (uint64_t)(uintptr_t)t);
}

/* FNV-1a over 64 bits from the seed, then mixed so that every bit of the
 * state reaches the low bits the table uses. */
static uint32_t hash_name(const char *s, uint64_t seed) {
  uint64_t h = seed ^ 14695981039346656037u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return (uint32_t)mix64(h);
}

onyx_status onyx__names_init(onyx__name_table *t, onyx__arena *arena, size_t max_entries,
                             onyx_error *err) {
  /* As small as holds them at most half full: the tables are build-time
   * memory, and a microcontroller model has a handful of names. */
  uint32_t cap = 1;
  while (cap < 2 * max_entries + 1) {
    if (cap > UINT32_MAX / 2) return onyx__fail(err, ONYX_LIMIT, "the graph has too many names");
    cap *= 2;
  }
  t->cap = cap;
  t->seed = table_seed(t);
  t->slots = onyx__arena_temp(arena, sizeof(onyx__name_slot) * cap);
  if (t->slots == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  memset(t->slots, 0, sizeof(onyx__name_slot) * cap);
  return ONYX_OK;
}

/* The slot holding name, or the empty slot where it would go. */
onyx__name_slot *onyx__names_slot(const onyx__name_table *t, const char *name) {
  uint32_t i = hash_name(name, t->seed) & (t->cap - 1);
  while (t->slots[i].key != NULL && strcmp(t->slots[i].key, name) != 0) i = (i + 1) & (t->cap - 1);
  return &t->slots[i];
}

/* The index stored under name, or -1. */
int32_t onyx__names_find(const onyx__name_table *t, const char *name) {
  const onyx__name_slot *slot = onyx__names_slot(t, name);
  return slot->key != NULL ? slot->index : -1;
}
