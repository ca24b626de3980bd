/* SPDX-License-Identifier: MIT */
/* See copy_loop.h. GCC and Clang target attributes give each width its own
 * function in one file; the CPU check picks one per call (cheap next to a
 * copy of a thousand bytes or more). */
#include "copy_loop.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define COPY_LOOP(NAME, TARGET, V, LOAD, STORE)                                                \
  __attribute__((target(TARGET))) static void NAME(void *dst, const void *src, size_t bytes) { \
    char *d = dst;                                                                             \
    const char *s = src;                                                                       \
    size_t i = 0;                                                                              \
    for (; bytes - i >= 4 * sizeof(V); i += 4 * sizeof(V)) {                                   \
      V a = LOAD((const void *)(s + i));                                                       \
      V b = LOAD((const void *)(s + i + sizeof(V)));                                           \
      V c = LOAD((const void *)(s + i + 2 * sizeof(V)));                                       \
      V e = LOAD((const void *)(s + i + 3 * sizeof(V)));                                       \
      STORE((void *)(d + i), a);                                                               \
      STORE((void *)(d + i + sizeof(V)), b);                                                   \
      STORE((void *)(d + i + 2 * sizeof(V)), c);                                               \
      STORE((void *)(d + i + 3 * sizeof(V)), e);                                               \
    }                                                                                          \
    memcpy(d + i, s + i, bytes - i);                                                           \
  }

COPY_LOOP(copy512, "avx512f", __m512i, _mm512_loadu_si512, _mm512_storeu_si512)
COPY_LOOP(copy256, "avx2", __m256i, _mm256_loadu_si256, _mm256_storeu_si256)
COPY_LOOP(copy128, "sse2", __m128i, _mm_loadu_si128, _mm_storeu_si128)

const char *copy_loop_isa(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512";
  if (__builtin_cpu_supports("avx2")) return "avx2";
  return "sse2";
}

void copy_loop(void *dst, const void *src, size_t bytes) {
  if (__builtin_cpu_supports("avx512f"))
    copy512(dst, src, bytes);
  else if (__builtin_cpu_supports("avx2"))
    copy256(dst, src, bytes);
  else
    copy128(dst, src, bytes);
}
#else
const char *copy_loop_isa(void) { return NULL; }
void copy_loop(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); }
#endif
