/* SPDX-License-Identifier: MIT */
/*
 * Replays files through a fuzz target without libFuzzer, so that every
 * build (gcc or clang, with or without sanitizers, under valgrind) can run
 * the inputs that once broke onyx (tests/regress/<target>/) and the seed
 * corpora.
 *
 *   fuzz_<target>_replay [--suffix SUFFIX]... PATH...
 *
 * A PATH that is a folder is walked recursively in name order; every
 * regular file in it whose name ends with one of the SUFFIXes (any file
 * when none is given, except README.md and names starting with '.') is
 * read into a buffer of exactly its size and passed to
 * LLVMFuzzerTestOneInput. A PATH that is a file is always replayed. A
 * broken invariant aborts, as under libFuzzer. Prints the number of files
 * replayed; exits 0, 1 when no file was replayed at all (a folder that lost
 * its files must not pass unnoticed) or when the driver's REPLAY_FINISH
 * function (a compile-time option) returns nonzero, 2 on a usage or I/O
 * error.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#define MAX_SUFFIXES 8

static const char *suffixes[MAX_SUFFIXES];
static int n_suffixes;
static unsigned long replayed;

static int wanted(const char *name) {
  if (name[0] == '.' || strcmp(name, "README.md") == 0) return 0;
  if (n_suffixes == 0) return 1;
  size_t n = strlen(name);
  for (int i = 0; i < n_suffixes; i++) {
    size_t k = strlen(suffixes[i]);
    if (n >= k && strcmp(name + n - k, suffixes[i]) == 0) return 1;
  }
  return 0;
}

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 0;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  for (;;) {
    if (buf == NULL) {
      fprintf(stderr, "replay: out of memory reading %s\n", path);
      fclose(f);
      return 0;
    }
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    uint8_t *grown = realloc(buf, cap * 2);
    if (grown == NULL) free(buf);
    buf = grown;
    cap *= 2;
  }
  int failed = ferror(f);
  fclose(f);
  if (failed) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    free(buf);
    return 0;
  }
  /* An exact-size copy, so that a read one byte past the input is caught
   * by the sanitizers and valgrind as it would be under libFuzzer. */
  uint8_t *exact = malloc(n ? n : 1);
  if (exact == NULL) {
    free(buf);
    return 0;
  }
  if (n) memcpy(exact, buf, n);
  free(buf);
  if (getenv("REPLAY_VERBOSE") != NULL) fprintf(stderr, "replay: %s\n", path);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  replayed++;
  return 1;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path, int top) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "replay: cannot find %s\n", path);
    return 0;
  }
  if (!S_ISDIR(st.st_mode)) {
    if (!S_ISREG(st.st_mode)) return 1;
    return top || wanted(strrchr(path, '/') ? strrchr(path, '/') + 1 : path) ? replay_file(path)
                                                                             : 1;
  }
  DIR *d = opendir(path);
  if (d == NULL) {
    fprintf(stderr, "replay: cannot open the folder %s\n", path);
    return 0;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  int ok = 1;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (n == cap) {
      size_t ncap = cap ? 2 * cap : 64;
      char **grown = realloc(names, ncap * sizeof *grown);
      if (grown == NULL) {
        ok = 0;
        break;
      }
      names = grown;
      cap = ncap;
    }
    size_t len = strlen(path) + strlen(e->d_name) + 2;
    names[n] = malloc(len);
    if (names[n] == NULL) {
      ok = 0;
      break;
    }
    snprintf(names[n], len, "%s/%s", path, e->d_name);
    n++;
  }
  closedir(d);
  if (n > 1) qsort(names, n, sizeof *names, compare_names);
  for (size_t i = 0; i < n; i++) {
    if (ok && !replay_path(names[i], 0)) ok = 0;
    free(names[i]);
  }
  free(names);
  return ok;
}

int main(int argc, char **argv) {
  int n_paths = 0, ok = 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--suffix") == 0) {
      if (i + 1 >= argc || n_suffixes == MAX_SUFFIXES) {
        fprintf(stderr, "usage: %s [--suffix SUFFIX]... PATH...\n", argv[0]);
        return 2;
      }
      suffixes[n_suffixes++] = argv[++i];
    }
  }
  for (int i = 1; i < argc && ok; i++) {
    if (strcmp(argv[i], "--suffix") == 0) {
      i++;
      continue;
    }
    n_paths++;
    ok = replay_path(argv[i], 1);
  }
  if (n_paths == 0) {
    fprintf(stderr, "usage: %s [--suffix SUFFIX]... PATH...\n", argv[0]);
    return 2;
  }
  printf("%lu files replayed\n", replayed);
  if (!ok) return 2;
#ifdef REPLAY_FINISH
  /* A driver's own verdict on all the files together. */
  int REPLAY_FINISH(void);
  if (replayed > 0 && REPLAY_FINISH() != 0) return 1;
#endif
  return replayed > 0 ? 0 : 1;
}
