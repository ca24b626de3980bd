/* SPDX-License-Identifier: MIT */
/*
 * Peak memory of `onyx run`: check_memory ONYX
 *
 * Generates two models whose one initializer of 64 MiB of floats feeds a
 * Ceil, one with the data embedded as raw_data at an offset that is not a
 * multiple of 4 and one with the data in a file beside the model, runs
 * `ONYX run MODEL --output-dir D` on each and reads the child's peak
 * resident set size (wait4). A run needs the initializer and the output,
 * twice the tensor's bytes; it fails above 2.2 times, which would mean a
 * copy of either. Exit status 77 (a skip) in sanitizer builds, whose
 * shadow memory is not onyx's.
 */
#define _GNU_SOURCE /* memmem, wait4 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model_builder.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SANITIZED 1
#endif
#endif

enum { N = 1 << 24 }; /* floats: 64 MiB */
#define TENSOR_BYTES ((size_t)N * sizeof(float))
#define LIMIT_KB     ((long)(2.2 * (double)TENSOR_BYTES / 1024.0))

static int write_file(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(p, 1, n, f) != n) {
    fprintf(stderr, "FAIL: cannot write %s: %s\n", path, strerror(errno));
    if (f) fclose(f);
    return -1;
  }
  return fclose(f) == 0 ? 0 : -1;
}

/* The model y = Ceil(name) around the initializer message t (freed). */
static void ceil_model(onyx__pbw *m, onyx__pbw *t, const char *name) {
  onyx__pbw g = {0};
  int64_t n = N;
  mb_msg(&g, 5, t);
  mb_node(&g, "Ceil", "ceil", name, NULL, NULL, "y", NULL);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  mb_model(m, 8, 13, &g);
}

/* Embedded: the tensor's name is lengthened until raw_data starts at an
 * offset that is not a multiple of 4, as it usually does in real files. */
static int write_embedded(const char *path, const float *w) {
  static const char *const names[] = {"w", "wx", "wxy", "wxyz"};
  int64_t n = N;
  for (int k = 0; k < 4; k++) {
    onyx__pbw t = {0}, m = {0};
    mb_tensor(&t, names[k], ONYX_DTYPE_FLOAT, 1, &n, w, TENSOR_BYTES);
    ceil_model(&m, &t, names[k]);
    uint8_t head[64]; /* the payload's first bytes, little-endian as stored */
    host_to_le_elems(w, 16, sizeof *w, head);
    const unsigned char *hit = m.failed ? NULL : memmem(m.buf, m.len, head, 64);
    size_t offset = hit != NULL ? (size_t)(hit - m.buf) : 0;
    if (hit != NULL && offset % 4 != 0) {
      printf("embedded: raw_data at file offset %zu\n", offset);
      int rc = write_file(path, m.buf, m.len);
      onyx__pbw_free(&m);
      return rc;
    }
    onyx__pbw_free(&m);
  }
  fprintf(stderr, "FAIL: could not place raw_data at an unaligned offset\n");
  return -1;
}

/* External: the model names w.bin beside it. */
static int write_external(const char *dir, const char *path, const float *w) {
  char data[256], len[32];
  snprintf(data, sizeof data, "%s/w.bin", dir);
  uint8_t *le = malloc(TENSOR_BYTES); /* external data is little-endian */
  if (le == NULL) return -1;
  host_to_le_elems(w, N, sizeof(float), le);
  int wrote = write_file(data, le, TENSOR_BYTES);
  free(le);
  if (wrote != 0) return -1;
  snprintf(len, sizeof len, "%zu", TENSOR_BYTES);
  int64_t n = N;
  onyx__pbw t = {0}, m = {0};
  mb_tensor_external(&t, "w", ONYX_DTYPE_FLOAT, 1, &n, "w.bin", "0", len);
  ceil_model(&m, &t, "w");
  int rc = m.failed ? -1 : write_file(path, m.buf, m.len);
  onyx__pbw_free(&m);
  return rc;
}

/* Runs `onyx run model --output-dir out` and returns its peak RSS in KiB,
 * or -1 when it fails. */
static long run_peak_kb(const char *onyx, const char *model, const char *out) {
  fflush(stdout); /* else the child would write the buffer again */
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (freopen("/dev/null", "w", stdout) == NULL) _exit(126);
    execl(onyx, onyx, "run", model, "--output-dir", out, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid) return -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "FAIL: %s run %s: status %d\n", onyx, model, status);
    return -1;
  }
  return ru.ru_maxrss; /* KiB on Linux */
}

/* The output file holds the header and then every value of Ceil(w). */
static int check_output(const char *out, const float *w) {
  char path[300];
  snprintf(path, sizeof path, "%s/y.pb", out);
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "FAIL: no output %s\n", path);
    return -1;
  }
  int bad = fseek(f, -(long)TENSOR_BYTES, SEEK_END) != 0;
  float v[1024];
  for (size_t i = 0; !bad && i < N; i += 1024) {
    bad = fread(v, sizeof v, 1, f) != 1;
    le_to_host_elems((const uint8_t *)v, 1024, sizeof *v, (uint8_t *)v); /* .pb is little-endian */
    for (size_t j = 0; !bad && j < 1024; j++) bad = v[j] != ceilf(w[i + j]);
  }
  fclose(f);
  unlink(path);
  if (bad) fprintf(stderr, "FAIL: %s does not hold Ceil(w)\n", path);
  return bad ? -1 : 0;
}

static int measure(const char *onyx, const char *what, const char *model, const char *out,
                   const float *w) {
  long kb = run_peak_kb(onyx, model, out);
  if (kb < 0 || check_output(out, w) != 0) return 1;
  printf("%s: onyx run peak RSS %ld KiB for a %zu KiB tensor (%.2fx; limit 2.2x, %ld KiB)\n", what,
         kb, TENSOR_BYTES / 1024, (double)kb * 1024.0 / (double)TENSOR_BYTES, LIMIT_KB);
  if (kb > LIMIT_KB) {
    fprintf(stderr, "FAIL: %s: peak RSS %ld KiB is above %ld KiB\n", what, kb, LIMIT_KB);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: check_memory ONYX\n");
    return 2;
  }
#ifdef SANITIZED
  printf("SKIP: a sanitizer build: its shadow memory would be counted as onyx's\n");
  return 77;
#endif
  float *w = malloc(TENSOR_BYTES);
  if (w == NULL) return 1;
  for (size_t i = 0; i < N; i++) w[i] = (float)(i % 100000) * 0.37f - 100.0f;
  char dir[] = "/tmp/onyx_memory_XXXXXX";
  if (mkdtemp(dir) == NULL) return 1;
  char emb[300], ext[300], out[300], data[300];
  snprintf(emb, sizeof emb, "%s/embedded.onnx", dir);
  snprintf(ext, sizeof ext, "%s/external.onnx", dir);
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(data, sizeof data, "%s/w.bin", dir);
  int failed = write_embedded(emb, w) != 0 || write_external(dir, ext, w) != 0;
  if (!failed) failed |= measure(argv[1], "embedded", emb, out, w);
  unlink(emb);
  if (!failed) failed |= measure(argv[1], "external", ext, out, w);
  unlink(ext);
  unlink(data);
  rmdir(out);
  rmdir(dir);
  free(w);
  return failed;
}
