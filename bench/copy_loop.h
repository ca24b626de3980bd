/* SPDX-License-Identifier: MIT */
/*
 * A plain vector copy: loads and stores of the widest vectors the CPU has,
 * four a step, the loop shape of onyx's kernels without their arithmetic.
 * No kernel that loads, computes and stores with ordinary stores can be
 * faster, so the benchmark prints it beside memcpy: where memcpy beats it
 * (glibc copies mid-sized buffers with REP MOVSB, which writes whole cache
 * lines without first reading them), onyx/memcpy is bounded by
 * loop/memcpy, whatever the kernel does.
 */
#ifndef ONYX_BENCH_COPY_LOOP_H
#define ONYX_BENCH_COPY_LOOP_H

#include <stddef.h>

/* The vector width copy_loop uses on this CPU: "avx512", "avx2", "sse2",
 * or NULL where none is built (not x86-64, or a compiler without
 * target attributes). */
const char *copy_loop_isa(void);

/* Copies bytes from src to dst (not overlapping). Only when copy_loop_isa()
 * is not NULL. */
void copy_loop(void *dst, const void *src, size_t bytes);

#endif
