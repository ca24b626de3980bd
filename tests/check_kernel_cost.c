/* SPDX-License-Identifier: MIT */
/*
 * A kernel's cost must not depend on its data: a branch per element that
 * goes one way or the other with the value runs fast on constant input
 * and slowly on random input, and lets a caller's timing learn about the
 * data. The work is counted, not timed: a child process runs every kernel
 * under `valgrind --tool=callgrind` on random input and on two constant
 * inputs (all zero bits, and one random element repeated), each between a
 * reset of the counters and a labelled dump, and the parent compares the
 * instruction counts: each constant run within 10% of the random one.
 *
 * It checks the portable kernels (the scalar table) and the kernels of the
 * best level this build and CPU have (as far as valgrind emulates it), and
 * prints instructions per element for each, the figures the kernels'
 * speed is judged by.
 *
 *   check_kernel_cost [N]           runs the child on N elements (default 100000)
 *   check_kernel_cost --child N     the child
 *   check_kernel_cost --labels N    the child, printing each label before its
 *                                   call (bench/qemu_cost.sh counts under qemu)
 *
 * Without valgrind, or in a sanitizer, unoptimized or cross build, it
 * prints SKIP and exits 77.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define ONYX_HAVE_CALLGRIND_H 1
#endif
#endif
#ifndef ONYX_HAVE_CALLGRIND_H
/* A cross build (no valgrind headers for the target): only the qemu
 * counts of bench/qemu_cost.sh, which read the markers below. */
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(label) ((void)(label))
#endif

#include "core/dtype.h"
#include "kernels/kernels.h"
#include "onyx.h"

#define MAX_SPREAD 0.10

static const onyx_dtype TYPES[] = {
#define ONYX_X_(name, value, cname, size) ONYX_DTYPE_##name,
    ONYX_DTYPE_MAP(ONYX_X_)
#undef ONYX_X_
};
#define N_TYPES (sizeof TYPES / sizeof TYPES[0])
static const char *const OPS[] = {
#define ONYX_X_(name, lname) lname,
    ONYX__KOP_MAP(ONYX_X_)
#undef ONYX_X_
};
/* The inputs, in the order the child runs them. */
static const char *const INPUTS[] = {"random", "zero", "constant"};
#define N_INPUTS 3
/* The tables: the portable kernels, and the best the CPU has. */
static const char *const WHICH[] = {"portable", "best"};
#define N_WHICH 2

static onyx__ukernel kernel_of(int which, int op, onyx_dtype t) {
  if (which == 0) return onyx__kernels_scalar.k[op][onyx__dtype_index(t)];
  return onyx__kernel_get((onyx__kop)op, t, ONYX_ISA_BEST);
}

static uint64_t rng_state = UINT64_C(0x2545f4914f6cdd1d);
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Fills n elements of es bytes: input 0 random bits, 1 zero bits, 2 the
 * first random element repeated. */
static void fill(unsigned char *x, size_t n, size_t es, int input) {
  for (size_t i = 0; i < n * es; i += 8) {
    const uint64_t v = rng();
    memcpy(x + i, &v, n * es - i < 8 ? n * es - i : 8);
  }
  if (input == 1) memset(x, 0, n * es);
  for (size_t i = 1; input == 2 && i < n; i++) memcpy(x + i * es, x, es);
}

/* Clip's bounds: a range inside the type's, so that random elements fall
 * below, inside and above it. */
static void clip_bounds(onyx_dtype t, onyx__kparams *p) {
  static const unsigned char lo_f32[] = {0x00, 0x00, 0x80, 0xbf},
                             hi_f32[] = {0x00, 0x00, 0x80, 0x3f};
  const double dlo = -1.0, dhi = 1.0;
  const uint16_t f16lo = 0xbc00, f16hi = 0x3c00, bflo = 0xbf80, bfhi = 0x3f80;
  const int8_t s8lo = -50, s8hi = 60;
  const int64_t slo = -1000, shi = 2000;
  const uint8_t u8lo = 50, u8hi = 200;
  const uint64_t ulo = 1000, uhi = UINT64_C(1) << 40;
  const void *lo = NULL, *hi = NULL;
  int16_t s16lo = (int16_t)slo, s16hi = (int16_t)shi;
  int32_t s32lo = (int32_t)slo, s32hi = (int32_t)shi;
  uint16_t u16lo = (uint16_t)ulo, u16hi = 60000;
  uint32_t u32lo = (uint32_t)ulo, u32hi = UINT32_C(3000000000);
  switch (t) {
    case ONYX_DTYPE_FLOAT:
      lo = lo_f32, hi = hi_f32;
      break;
    case ONYX_DTYPE_DOUBLE:
      lo = &dlo, hi = &dhi;
      break;
    case ONYX_DTYPE_FLOAT16:
      lo = &f16lo, hi = &f16hi;
      break;
    case ONYX_DTYPE_BFLOAT16:
      lo = &bflo, hi = &bfhi;
      break;
    case ONYX_DTYPE_INT8:
      lo = &s8lo, hi = &s8hi;
      break;
    case ONYX_DTYPE_INT16:
      lo = &s16lo, hi = &s16hi;
      break;
    case ONYX_DTYPE_INT32:
      lo = &s32lo, hi = &s32hi;
      break;
    case ONYX_DTYPE_INT64:
      lo = &slo, hi = &shi;
      break;
    case ONYX_DTYPE_UINT8:
      lo = &u8lo, hi = &u8hi;
      break;
    case ONYX_DTYPE_UINT16:
      lo = &u16lo, hi = &u16hi;
      break;
    case ONYX_DTYPE_UINT32:
      lo = &u32lo, hi = &u32hi;
      break;
    case ONYX_DTYPE_UINT64:
      lo = &ulo, hi = &uhi;
      break;
    default:
      break;
  }
  onyx__clip_params(t, lo, hi, p);
}

/* Where each measured call begins and ends, for counting under qemu
 * (bench/qemu_cost.sh: qemu-user's instruction trace, which names the
 * function of every instruction it runs). Not inlined, so that they show. */
__attribute__((noinline)) void onyx_cost_mark_begin(void) { __asm__ volatile(""); }
__attribute__((noinline)) void onyx_cost_mark_end(void) { __asm__ volatile(""); }

/* The child: every (table, op, type, input), each between a reset of the
 * counters and a dump labelled "TABLE OP TYPE INPUT", and between the
 * qemu markers; with print set it writes each label on stdout as it goes. */
static int child(size_t n, bool print) {
  unsigned char *x = malloc(n * 8 + 8), *y = malloc(n * 8 + 8);
  if (x == NULL || y == NULL) return 1;
  for (int w = 0; w < N_WHICH; w++)
    for (int op = 0; op < ONYX__KOP_COUNT; op++)
      for (size_t ti = 0; ti < N_TYPES; ti++) {
        const onyx__ukernel k = kernel_of(w, op, TYPES[ti]);
        if (k == NULL) continue;
        onyx__kparams p;
        clip_bounds(TYPES[ti], &p);
        for (int in = 0; in < N_INPUTS; in++) {
          char label[96];
          fill(x, n, onyx_dtype_size(TYPES[ti]), in);
          snprintf(label, sizeof label, "%s %s %s %s", WHICH[w], OPS[op],
                   onyx_dtype_name(TYPES[ti]), INPUTS[in]);
          if (print) printf("%s\n", label);
          CALLGRIND_ZERO_STATS;
          onyx_cost_mark_begin();
          k(n, x, y, &p);
          onyx_cost_mark_end();
          CALLGRIND_DUMP_STATS_AT(label);
        }
      }
  free(x);
  free(y);
  return 0;
}

/* The counts the child dumped, by label, from callgrind's one combined
 * output file. */
typedef struct count {
  char label[96];
  uint64_t ir;
} count;

static size_t read_counts(const char *path, count *c, size_t cap) {
  FILE *f = fopen(path, "r");
  const char *trigger = "desc: Trigger: Client Request: ";
  char line[1024];
  size_t k = 0;
  if (f == NULL) return 0;
  while (fgets(line, sizeof line, f) != NULL && k < cap) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, trigger, strlen(trigger)) == 0) {
      const char *l = line + strlen(trigger);
      const size_t len = strlen(l) < sizeof c[k].label - 1 ? strlen(l) : sizeof c[k].label - 1;
      memcpy(c[k].label, l, len);
      c[k].label[len] = '\0';
      c[k].ir = 0;
    } else if (strncmp(line, "totals: ", 8) == 0 && c[k].label[0] != '\0') {
      c[k].ir = strtoull(line + 8, NULL, 10);
      k++;
      if (k < cap) c[k].label[0] = '\0';
    }
  }
  fclose(f);
  return k;
}

static uint64_t find(const count *c, size_t nc, const char *label) {
  for (size_t i = 0; i < nc; i++)
    if (strcmp(c[i].label, label) == 0) return c[i].ir;
  return 0;
}

static int parent(const char *self, size_t n) {
  enum { CAP = N_WHICH * ONYX__KOP_COUNT * 16 * N_INPUTS };
  static count counts[CAP];
  char dir[] = "/tmp/onyx-kcost-XXXXXX", cmd[4096], path[256];
  if (mkdtemp(dir) == NULL) return 1;
  snprintf(cmd, sizeof cmd,
           "'%s' --tool=callgrind --combine-dumps=yes --log-file='%s/log' "
           "--callgrind-out-file='%s/cg' '%s' --child %zu",
           ONYX_VALGRIND, dir, dir, self, n);
  int failed = system(cmd) != 0;
  snprintf(path, sizeof path, "%s/cg", dir);
  counts[0].label[0] = '\0';
  const size_t nc = read_counts(path, counts, CAP);
  remove(path);
  snprintf(path, sizeof path, "%s/log", dir);
  remove(path);
  rmdir(dir);
  if (failed) printf("FAIL the child under valgrind failed\n");
  printf("instructions per element, %zu elements: random, zero, constant\n", n);
  for (int w = 0; w < N_WHICH; w++)
    for (int op = 0; op < ONYX__KOP_COUNT; op++)
      for (size_t ti = 0; ti < N_TYPES; ti++) {
        if (kernel_of(w, op, TYPES[ti]) == NULL) continue;
        double per[N_INPUTS];
        bool bad = false;
        for (int in = 0; in < N_INPUTS; in++) {
          char label[96];
          snprintf(label, sizeof label, "%s %s %s %s", WHICH[w], OPS[op],
                   onyx_dtype_name(TYPES[ti]), INPUTS[in]);
          per[in] = (double)find(counts, nc, label) / (double)n;
          bad |= per[in] <= 0.0;
        }
        for (int in = 1; in < N_INPUTS; in++)
          bad |= per[in] > per[0] * (1 + MAX_SPREAD) || per[in] < per[0] * (1 - MAX_SPREAD);
        printf("%s %-8s %-5s %-8s %7.2f %7.2f %7.2f\n", bad ? "FAIL" : "ok  ", WHICH[w], OPS[op],
               onyx_dtype_name(TYPES[ti]), per[0], per[1], per[2]);
        failed |= bad;
      }
  return failed;
}

/* A sanitizer build cannot run under valgrind: the test then skips. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ONYX_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ONYX_SANITIZED 1
#endif
#endif
#ifndef ONYX_SANITIZED
#define ONYX_SANITIZED 0
#endif
/* Unoptimized code branches where the optimizer selects: the shipped
 * kernels' cost is the optimized build's. */
#ifdef __OPTIMIZE__
#define ONYX_OPTIMIZED 1
#else
#define ONYX_OPTIMIZED 0
#endif

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--child") == 0)
    return child(strtoull(argv[2], NULL, 10), false);
  if (argc == 3 && strcmp(argv[1], "--labels") == 0)
    return child(strtoull(argv[2], NULL, 10), true);
  const size_t n = argc == 2 ? strtoull(argv[1], NULL, 10) : 100000;
  if (ONYX_SANITIZED) {
    printf("SKIP: valgrind cannot run a sanitizer build\n");
    return 77;
  }
  if (!ONYX_OPTIMIZED) {
    printf("SKIP: an unoptimized build; the kernels' cost is judged optimized\n");
    return 77;
  }
  if (ONYX_VALGRIND[0] == '\0') {
    printf("SKIP: no valgrind for this build: none was found, or it is a cross build\n");
    return 77;
  }
  return parent(argv[0], n);
}
