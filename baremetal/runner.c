/* SPDX-License-Identifier: MIT */
/*
 * The bare-metal conformance runner: runs every case that
 * baremetal/pack_cases.py packed into the image and compares each output
 * with the expected one bit for bit (a NaN matches any NaN), as `onyx
 * test` does. Each session lives in an arena (onyx_session_options.arena):
 * of exactly onyx_session_arena_size() bytes where the model fixes its
 * input shapes, so that the size is checked on the target too, else of a
 * size doubled until the case's runs fit. Then checks what the platform
 * changes: loading a file fails cleanly and messages print sizes. Prints
 * "N passed, N failed" and returns 0 only when every case passed and both
 * checks held.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onyx.h"

extern const unsigned char onyx_blob[], onyx_blob_end[]; /* blob.S */

typedef struct reader {
  const unsigned char *p, *end;
  int bad; /* read past the end */
} reader;

static uint32_t read_u32(reader *r) {
  if (r->end - r->p < 4) {
    r->bad = 1;
    return 0;
  }
  uint32_t v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
               (uint32_t)r->p[3] << 24;
  r->p += 4;
  return v;
}

/* A blob: its length, its bytes, padding to 8 bytes (pack_cases.py). */
static const unsigned char *read_blob(reader *r, size_t *len) {
  *len = read_u32(r);
  size_t padded = (4 + *len + 7) / 8 * 8 - 4;
  if (r->bad || (size_t)(r->end - r->p) < padded) {
    r->bad = 1;
    return NULL;
  }
  const unsigned char *b = r->p;
  r->p += padded;
  return b;
}

typedef struct tensors {
  size_t n;
  onyx_tensor *t;
} tensors;

static void tensors_free(tensors *l) {
  for (size_t i = 0; i < l->n; i++) onyx_free(l->t[i].data);
  free(l->t);
  l->n = 0;
  l->t = NULL;
}

static int read_tensors(reader *r, tensors *l, char *why, size_t cap) {
  l->n = read_u32(r);
  l->t = calloc(l->n + 1, sizeof *l->t);
  if (l->t == NULL) return snprintf(why, cap, "out of memory"), 0;
  for (size_t i = 0; i < l->n; i++) {
    size_t len;
    const unsigned char *b = read_blob(r, &len);
    onyx_error err;
    if (b == NULL) return snprintf(why, cap, "the packed cases are cut short"), 0;
    if (onyx_tensor_decode(b, len, &l->t[i], NULL, &err) != ONYX_OK)
      return snprintf(why, cap, "tensor %u: %s", (unsigned)i, err.message), 0;
  }
  return 1;
}

static int is_nan(onyx_dtype dt, const unsigned char *p) {
  uint64_t bits = 0;
  size_t size = onyx_dtype_size(dt);
  for (size_t i = size; i-- > 0;) bits = bits << 8 | p[i];
  switch (dt) {
    case ONYX_DTYPE_FLOAT:
      return (bits & 0x7fffffffu) > 0x7f800000u;
    case ONYX_DTYPE_DOUBLE:
      return (bits & 0x7fffffffffffffffu) > 0x7ff0000000000000u;
    case ONYX_DTYPE_FLOAT16:
      return (bits & 0x7fffu) > 0x7c00u;
    case ONYX_DTYPE_BFLOAT16:
      return (bits & 0x7fffu) > 0x7f80u;
    default:
      return 0;
  }
}

static int compare(const onyx_tensor *got, const onyx_tensor *exp, char *why, size_t cap) {
  if (got->dtype != exp->dtype || got->rank != exp->rank)
    return snprintf(why, cap, "got type %d rank %u, expected type %d rank %u", (int)got->dtype,
                    (unsigned)got->rank, (int)exp->dtype, (unsigned)exp->rank),
           0;
  for (uint32_t d = 0; d < exp->rank; d++)
    if (got->dims[d] != exp->dims[d])
      return snprintf(why, cap, "dimension %u: got %lld, expected %lld", (unsigned)d,
                      (long long)got->dims[d], (long long)exp->dims[d]),
             0;
  size_t esize = onyx_dtype_size(exp->dtype);
  const unsigned char *g = got->data, *e = exp->data;
  for (size_t i = 0; esize && i < exp->size / esize; i++)
    if (memcmp(g + i * esize, e + i * esize, esize) != 0 &&
        !(is_nan(exp->dtype, g + i * esize) && is_nan(exp->dtype, e + i * esize)))
      return snprintf(why, cap, "element %lu differs", (unsigned long)i), 0;
  return 1;
}

/* Runs one data set in s; 1 when it passes, -1 when the arena ran out. */
static int run_set(onyx_session *s, reader *r, char *why, size_t cap) {
  tensors in = {0}, exp = {0}, got = {0};
  int pass = read_tensors(r, &in, why, cap) && read_tensors(r, &exp, why, cap);
  got.n = exp.n;
  got.t = calloc(exp.n + 1, sizeof *got.t);
  for (size_t k = 0; pass && got.t && k < exp.n; k++) {
    got.t[k].size = exp.t[k].size;
    got.t[k].data = malloc(exp.t[k].size ? exp.t[k].size : 1);
    if (got.t[k].data == NULL) pass = 0;
  }
  if (pass && got.t) {
    onyx_error err;
    onyx_status st = onyx_session_run(s, in.t, in.n, got.t, got.n, &err);
    if (st == ONYX_OUT_OF_MEMORY) pass = -1;
    if (st != ONYX_OK) snprintf(why, cap, "%s (%s)", err.message, onyx_status_name(st));
    for (size_t k = 0; st == ONYX_OK && k < exp.n && pass; k++)
      pass = compare(&got.t[k], &exp.t[k], why, cap);
    if (st != ONYX_OK && pass == 1) pass = 0;
  } else if (pass) {
    pass = 0;
    snprintf(why, cap, "out of memory");
  }
  tensors_free(&in);
  tensors_free(&exp);
  tensors_free(&got);
  return pass;
}

/* Runs every data set of a case in an arena of size bytes: 1 when all
 * pass, -1 when the arena was too small, else 0. */
static int run_sets(const onyx_model *m, size_t size, reader sets, char *why, size_t cap) {
  onyx_session_options o;
  onyx_session_options_init(&o);
  o.arena = malloc(size);
  o.arena_size = size;
  onyx_session *s = NULL;
  onyx_error err;
  int pass = 1;
  onyx_status st = o.arena ? onyx_session_create(m, &o, &s, &err) : ONYX_OUT_OF_MEMORY;
  if (st != ONYX_OK) {
    pass = st == ONYX_OUT_OF_MEMORY ? -1 : 0;
    snprintf(why, cap, "%s (%s)", o.arena ? err.message : "out of memory", onyx_status_name(st));
  }
  for (uint32_t n = read_u32(&sets), k = 0; pass == 1 && k < n; k++)
    pass = run_set(s, &sets, why, cap);
  onyx_session_free(s);
  free(o.arena);
  return pass;
}

static unsigned long exact_arenas;

/* Runs one case from r; 1 when it passes. */
static int run_case(reader *r, char *name, size_t name_cap, char *why, size_t cap) {
  size_t len, model_len;
  const unsigned char *n = read_blob(r, &len), *bytes = read_blob(r, &model_len);
  snprintf(name, name_cap, "%.*s", n ? (int)len : 7, n ? (const char *)n : "(?)");
  if (bytes == NULL) return snprintf(why, cap, "the packed cases are cut short"), 0;
  reader sets = *r;
  /* Skip the data sets: the runs read them from the copy. */
  for (uint32_t n_sets = read_u32(r), k = 0; k < 2 * n_sets && !r->bad; k++)
    for (uint32_t t = read_u32(r), i = 0; i < t && !r->bad; i++) read_blob(r, &len);
  onyx_model *m = NULL;
  onyx_error err;
  onyx_status st = onyx_model_load_memory(bytes, model_len, &m, &err);
  size_t size = 0;
  if (st == ONYX_OK) st = onyx_session_arena_size(m, NULL, &size, &err);
  int exact = st == ONYX_OK, pass = 0;
  if (st == ONYX_SHAPE) st = ONYX_OK, size = 4096; /* open shapes: grow as needed */
  if (st != ONYX_OK) snprintf(why, cap, "%s (%s)", err.message, onyx_status_name(st));
  while (st == ONYX_OK && (pass = run_sets(m, size, sets, why, cap)) < 0 && !exact &&
         size < (size_t)8 << 20)
    size *= 2;
  exact_arenas += exact && pass == 1;
  onyx_model_free(m);
  return pass == 1;
}

/* What the platform changes: files fail cleanly, and messages print sizes
 * (newlib's own printf has no %zu). 1 when both hold. */
static int platform_checks(void) {
  onyx_model *m = NULL;
  onyx_error err;
  onyx_status st = onyx_model_load_file("model.onnx", &m, &err);
  int files = st == ONYX_IO && strstr(err.message, "not supported on this platform") != NULL;
  if (!files) printf("FAIL loading a file: %s (%s)\n", err.message, onyx_status_name(st));
  /* A float tensor of shape [3] with 4 bytes of raw_data. */
  static const unsigned char short_tensor[] = {0x08, 0x03, 0x10, 0x01, 0x4a, 0x04, 0, 0, 0, 0};
  onyx_tensor t;
  st = onyx_tensor_decode(short_tensor, sizeof short_tensor, &t, NULL, &err);
  const char *want = "raw_data has 4 bytes; shape [3] of float needs 12";
  int sizes = st == ONYX_TENSOR_DATA && strcmp(err.message, want) == 0;
  if (!sizes)
    printf("FAIL a message: '%s' (%s), expected '%s'\n", err.message, onyx_status_name(st), want);
  return files && sizes;
}

int main(void) {
  reader r = {onyx_blob, onyx_blob_end, 0};
  if (r.end - r.p < 8 || memcmp(r.p, "ONYXCASE", 8) != 0) {
    printf("the image holds no packed cases\n");
    return 1;
  }
  r.p += 8;
  unsigned long n = read_u32(&r), passed = 0, failed = 0;
  for (unsigned long i = 0; i < n && !r.bad; i++) {
    char name[128], why[512] = "";
    if (run_case(&r, name, sizeof name, why, sizeof why)) {
      passed++;
    } else {
      failed++;
      printf("FAIL %s: %s\n", name, why);
    }
  }
  if (r.bad) printf("the packed cases are cut short\n");
  int platform = platform_checks();
  printf("%lu cases ran in exactly the arena onyx_session_arena_size() gave\n", exact_arenas);
  printf("%lu passed, %lu failed\n", passed, failed);
  return failed == 0 && passed == n && !r.bad && platform ? 0 : 1;
}
