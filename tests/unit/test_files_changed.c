/* SPDX-License-Identifier: MIT */
/*
 * A model file or its external data changed after load: truncated, or
 * replaced. onyx must answer with ONYX_IO naming the file, or with the
 * results of the file as loaded, and never fault (a mapping of a truncated
 * file raises SIGBUS) or compute with other weights.
 *
 * Each case uses a Ceil of one large initializer (more than ONYX__DEFER_MIN
 * bytes, so that it is left in its file at load), embedded as raw_data or
 * as external data.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "model_builder.h"
#include "onyx.h"

enum { N = ONYX__DEFER_MIN / 4 * 3 + 5 }; /* floats in the initializer */

typedef struct fixture {
  char dir[64];
  char model[128];
  char data[128]; /* the external data file, "" when embedded */
  float *w;       /* the initializer's values */
} fixture;

static void write_file(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(p, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

/* y = Ceil(w), w an initializer of N floats; external when asked. */
static void make_model(fixture *fx, bool external) {
  snprintf(fx->dir, sizeof fx->dir, "/tmp/onyx_changed_XXXXXX");
  assert_non_null(mkdtemp(fx->dir));
  snprintf(fx->model, sizeof fx->model, "%s/model.onnx", fx->dir);
  fx->data[0] = '\0';
  fx->w = malloc(N * sizeof *fx->w);
  assert_non_null(fx->w);
  for (int i = 0; i < N; i++) fx->w[i] = (float)i * 0.37f - 100.0f;
  int64_t n = N;
  onyx__pbw g = {0}, t = {0}, m = {0};
  if (external) {
    snprintf(fx->data, sizeof fx->data, "%s/w.bin", fx->dir);
    uint8_t *le = malloc(N * sizeof *fx->w); /* external data is little-endian */
    assert_non_null(le);
    host_to_le_elems(fx->w, N, sizeof *fx->w, le);
    write_file(fx->data, le, N * sizeof *fx->w);
    free(le);
    char len[32];
    snprintf(len, sizeof len, "%zu", N * sizeof *fx->w);
    mb_tensor_external(&t, "w", ONYX_DTYPE_FLOAT, 1, &n, "w.bin", "0", len);
  } else {
    mb_tensor(&t, "w", ONYX_DTYPE_FLOAT, 1, &n, fx->w, N * sizeof *fx->w);
  }
  mb_msg(&g, 5, &t);
  mb_node(&g, "Ceil", "ceil", "w", NULL, NULL, "y", NULL);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  mb_model(&m, 8, 13, &g);
  write_file(fx->model, m.buf, m.len);
  onyx__pbw_free(&m);
}

static void drop_fixture(fixture *fx) {
  unlink(fx->model);
  if (fx->data[0]) unlink(fx->data);
  assert_int_equal(rmdir(fx->dir), 0);
  free(fx->w);
}

/* Truncates both files to a few bytes. */
static void truncate_files(const fixture *fx) {
  assert_int_equal(truncate(fx->model, 16), 0);
  if (fx->data[0]) assert_int_equal(truncate(fx->data, 16), 0);
}

/* Checks every value of y against Ceil(w) and frees it. */
static void check_output(onyx_tensor *y, const fixture *fx) {
  assert_int_equal(y->size, N * sizeof(float));
  const float *v = y->data;
  for (int i = 0; i < N; i++) assert_true(v[i] == ceilf(fx->w[i]));
  onyx_free(y->data);
}

/* Runs s once; on success checks the output. */
static onyx_status run_once(onyx_session *s, const fixture *fx, onyx_error *err) {
  onyx_tensor y;
  memset(&y, 0, sizeof y);
  onyx_status st = onyx_session_run(s, NULL, 0, &y, 1, err);
  if (st == ONYX_OK) check_output(&y, fx);
  return st;
}

static void expect_io(onyx_status st, const onyx_error *err, const char *file) {
  if (st != ONYX_IO) fail_msg("expected ONYX_IO, got %s: %s", onyx_status_name(st), err->message);
  if (strstr(err->message, file) == NULL) fail_msg("'%s' does not name %s", err->message, file);
}

/* The file that holds the payload, as the message names it. */
static const char *payload_file(const fixture *fx) { return fx->data[0] ? "w.bin" : fx->model; }

/* When the files are truncated. */
typedef enum when { AFTER_LOAD, AFTER_SESSION, AFTER_FIRST_RUN } when;

/*
 * Truncated after load or between session creation and the first run: the
 * run fails cleanly, and a second try fails the same way rather than using
 * half a tensor. After a good first run, truncation changes nothing: the
 * weights were read.
 */
static void truncated(bool external, when w) {
  fixture fx;
  make_model(&fx, external);
  onyx_model *m = NULL;
  onyx_session *s = NULL;
  onyx_error err = {0};
  if (onyx_model_load_file(fx.model, &m, &err) != ONYX_OK) fail_msg("%s", err.message);
  if (w == AFTER_LOAD) truncate_files(&fx);
  if (onyx_session_create(m, NULL, &s, &err) != ONYX_OK) fail_msg("%s", err.message);
  if (w == AFTER_FIRST_RUN && run_once(s, &fx, &err) != ONYX_OK) fail_msg("%s", err.message);
  if (w != AFTER_LOAD) truncate_files(&fx);
  for (int attempt = 0; attempt < 2; attempt++) {
    onyx_status st = run_once(s, &fx, &err);
    if (w == AFTER_FIRST_RUN) {
      if (st != ONYX_OK) fail_msg("%s", err.message);
    } else {
      expect_io(st, &err, payload_file(&fx));
    }
  }
  onyx_session_free(s);
  onyx_model_free(m);
  drop_fixture(&fx);
}

static void test_truncated_embedded(void **state) {
  (void)state;
  for (when w = AFTER_LOAD; w <= AFTER_FIRST_RUN; w++) truncated(false, w);
}

static void test_truncated_external(void **state) {
  (void)state;
  for (when w = AFTER_LOAD; w <= AFTER_FIRST_RUN; w++) truncated(true, w);
}

/* A file replaced by another of the same size (a new inode, as editors and
 * `mv` make): the run does not use the new weights. */
static void replaced_after_load(bool external) {
  fixture fx;
  make_model(&fx, external);
  const char *target = external ? fx.data : fx.model;
  char tmp[160];
  snprintf(tmp, sizeof tmp, "%s.new", target);
  FILE *f = fopen(target, "rb");
  assert_non_null(f);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long size = ftell(f);
  assert_true(size > 0);
  rewind(f);
  unsigned char *bytes = malloc((size_t)size);
  assert_non_null(bytes);
  assert_int_equal(fread(bytes, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  bytes[size - 1] ^= 0x40; /* the last weight's top bits */

  onyx_model *m = NULL;
  onyx_session *s = NULL;
  onyx_error err = {0};
  if (onyx_model_load_file(fx.model, &m, &err) != ONYX_OK) fail_msg("%s", err.message);
  if (onyx_session_create(m, NULL, &s, &err) != ONYX_OK) fail_msg("%s", err.message);
  write_file(tmp, bytes, (size_t)size);
  assert_int_equal(rename(tmp, target), 0);
  onyx_status st = run_once(s, &fx, &err);
  /* The model file stays open while a payload lies in it, so its old
   * bytes are still there and read (run_once checks them); external data
   * is opened again by name, so the new file is found and refused. */
  if (!external && st != ONYX_OK) fail_msg("%s", err.message);
  if (external &&
      (st != ONYX_IO || strstr(err.message, "changed after the model was loaded") == NULL)) {
    fail_msg("expected ONYX_IO saying the file changed, got %s: %s", onyx_status_name(st),
             err.message);
  }
  free(bytes);
  onyx_session_free(s);
  onyx_model_free(m);
  drop_fixture(&fx);
}

static void test_replaced_embedded(void **state) {
  (void)state;
  replaced_after_load(false);
}

static void test_replaced_external(void **state) {
  (void)state;
  replaced_after_load(true);
}

/* One session per thread, all of one model, all running for the first
 * time at once: each payload is read once and every run sees all of it. */
typedef struct first_run {
  onyx_session *session;
  pthread_barrier_t *start;
  onyx_tensor y; /* checked by the main thread: cmocka asserts there only */
  onyx_status status;
  onyx_error err;
} first_run;

static void *first_run_thread(void *arg) {
  first_run *r = arg;
  pthread_barrier_wait(r->start);
  r->status = onyx_session_run(r->session, NULL, 0, &r->y, 1, &r->err);
  return NULL;
}

static void test_concurrent_first_runs(void **state) {
  (void)state;
  enum { THREADS = 4 };
  for (int external = 0; external < 2; external++) {
    fixture fx;
    make_model(&fx, external);
    onyx_model *m = NULL;
    onyx_error err = {0};
    if (onyx_model_load_file(fx.model, &m, &err) != ONYX_OK) fail_msg("%s", err.message);
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    first_run runs[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
      memset(&runs[i], 0, sizeof runs[i]);
      runs[i].start = &start;
      if (onyx_session_create(m, NULL, &runs[i].session, &err) != ONYX_OK) {
        fail_msg("%s", err.message);
      }
    }
    for (int i = 0; i < THREADS; i++) {
      assert_int_equal(pthread_create(&threads[i], NULL, first_run_thread, &runs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
      assert_int_equal(pthread_join(threads[i], NULL), 0);
      if (runs[i].status != ONYX_OK) fail_msg("%s", runs[i].err.message);
      check_output(&runs[i].y, &fx);
      onyx_session_free(runs[i].session);
    }
    pthread_barrier_destroy(&start);
    onyx_model_free(m);
    drop_fixture(&fx);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_truncated_embedded),    cmocka_unit_test(test_truncated_external),
      cmocka_unit_test(test_replaced_embedded),     cmocka_unit_test(test_replaced_external),
      cmocka_unit_test(test_concurrent_first_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
