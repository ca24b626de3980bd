/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4), for the self-test's digests of kernel outputs.
 * onyx carries its own because no C library provides one (neither glibc,
 * musl, newlib, mingw's msvcrt nor wasi-libc), and the self-test must run
 * on every platform onyx builds for, microcontrollers included, without a
 * crypto library. Incremental: init, update any number of times, final.
 */
#ifndef ONYX_VERIFY_SHA256_H
#define ONYX_VERIFY_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ONYX__SHA256_BYTES 32

typedef struct onyx__sha256 {
  uint32_t h[8];
  uint64_t length; /* bytes hashed so far */
  unsigned char block[64];
  size_t used; /* bytes in block */
} onyx__sha256;

void onyx__sha256_init(onyx__sha256 *s);
void onyx__sha256_update(onyx__sha256 *s, const void *data, size_t n);
void onyx__sha256_final(onyx__sha256 *s, unsigned char out[ONYX__SHA256_BYTES]);

/* The digest as 64 lower-case hex digits and a NUL. */
void onyx__sha256_hex(const unsigned char digest[ONYX__SHA256_BYTES], char out[65]);

#endif
