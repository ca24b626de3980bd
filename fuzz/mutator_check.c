/* SPDX-License-Identifier: MIT */
/*
 * The structure-aware mutator (model_mutator.c) without libFuzzer: every
 * build runs it over the checked-in corpus as a short, deterministic fuzz
 * run (the CTest test fuzz.mutator.model), so that a broken mutator shows
 * up before anyone runs the real fuzzer.
 *
 * Linked with replay.c, which feeds each file to LLVMFuzzerTestOneInput
 * below; fuzz_model.c's entry point is compiled in as fuzz_model_one_input.
 * For each file, ROUNDS mutants are made in a chain (each from the last
 * one that got a session, every fourth by crossing it over with the one before),
 * and each one
 *   - fits in MAX_LEN bytes;
 *   - is the same when made again from the same input and seed;
 *   - goes through every check of fuzz_model.
 * At the end (replay_finish) the mutants must, taken together, mostly
 * load and get a session; otherwise the mutator has stopped reaching
 * what it is for. The figures are printed either way.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "onyx.h"

#define ROUNDS  48
#define MAX_LEN 16384

/* The shares of mutants that must load, and get a session, in percent. */
#define MIN_LOADED_PERCENT  50
#define MIN_SESSION_PERCENT 30

int fuzz_model_one_input(const uint8_t *data, size_t size);
int replay_finish(void);

static unsigned long mutants, loaded, sessions, unchanged, byte_mutations;

/* libFuzzer's byte mutator, as far as this check needs it: a few bytes
 * flipped, or one byte when there are none, chosen from a hash of the
 * input so that the same input gets the same mutant. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) {
  uint64_t state = fuzz_hash(data, size);
  byte_mutations++;
  if (size == 0) {
    if (max_size == 0) return 0;
    data[0] = (uint8_t)fuzz_next(&state);
    return 1;
  }
  for (uint64_t k = 1 + fuzz_next(&state) % 4; k > 0; k--)
    data[fuzz_next(&state) % size] ^= (uint8_t)(1u << (fuzz_next(&state) % 8));
  return size;
}

/* Counts the mutant; returns whether it gets a session. */
static int count_reach(const uint8_t *data, size_t size) {
  onyx_model *m = NULL;
  onyx_error err;
  mutants++;
  if (onyx_model_load_memory(data, size, &m, &err) != ONYX_OK) return 0;
  loaded++;
  onyx_session *s = NULL;
  (void)onyx_session_create(m, NULL, &s, &err);
  int ok = s != NULL;
  if (ok) {
    sessions++;
    onyx_session_free(s);
  }
  onyx_model_free(m);
  return ok;
}

/* One mutant of in (n bytes) into out, made twice to see that it is the
 * same; with `other`, by crossover. Returns its size. */
static size_t mutate(const uint8_t *in, size_t n, const uint8_t *other, size_t n_other,
                     uint8_t *out, unsigned seed) {
  static uint8_t again[MAX_LEN];
  size_t len[2];
  uint8_t *dest[2] = {out, again};
  for (int k = 0; k < 2; k++) {
    if (other != NULL) {
      len[k] = LLVMFuzzerCustomCrossOver(in, n, other, n_other, dest[k], MAX_LEN, seed);
    } else {
      memcpy(dest[k], in, n);
      len[k] = LLVMFuzzerCustomMutator(dest[k], n, MAX_LEN, seed);
    }
    if (len[k] > MAX_LEN)
      fuzz_die("a mutant of %zu bytes is over the limit of %d", len[k], MAX_LEN);
  }
  if (len[0] != len[1] || memcmp(out, again, len[0]) != 0)
    fuzz_die("two mutants of the same input with seed %u differ", seed);
  return len[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static uint8_t buf[3][MAX_LEN];
  if (size > MAX_LEN) return 0;
  memcpy(buf[0], data, size);
  size_t len[3] = {size, 0, 0};
  unsigned seed = (unsigned)fuzz_hash(data, size);
  int cur = 0;
  for (unsigned r = 0; r < ROUNDS; r++) {
    int next = (cur + 1) % 3, prev = (cur + 2) % 3;
    size_t n;
    if (r % 4 == 3) {
      n = mutate(buf[cur], len[cur], buf[prev], len[prev], buf[next], seed + r);
      if (n == 0) continue; /* no crossover of these two */
    } else {
      n = mutate(buf[cur], len[cur], NULL, 0, buf[next], seed + r);
      unchanged += n == len[cur] && memcmp(buf[next], buf[cur], n) == 0;
    }
    len[next] = n;
    int reaches = count_reach(buf[next], n);
    fuzz_model_one_input(buf[next], n);
    /* The chain goes on from mutants that get a session, as a fuzzer
     * keeps the inputs that reach further. */
    if (reaches) cur = next;
  }
  return 0;
}

int replay_finish(void) {
  printf("mutants: %lu, loaded %lu, with a session %lu, unchanged %lu, byte mutations %lu\n",
         mutants, loaded, sessions, unchanged, byte_mutations);
  if (mutants == 0) return 1;
  if (loaded * 100 < mutants * MIN_LOADED_PERCENT) {
    printf("FAIL: under %d%% of the mutants load\n", MIN_LOADED_PERCENT);
    return 1;
  }
  if (sessions * 100 < mutants * MIN_SESSION_PERCENT) {
    printf("FAIL: under %d%% of the mutants get a session\n", MIN_SESSION_PERCENT);
    return 1;
  }
  if (unchanged * 10 > mutants) {
    printf("FAIL: over 10%% of the mutants are their input unchanged\n");
    return 1;
  }
  return 0;
}
