/* SPDX-License-Identifier: MIT */
/*
 * Kernel dispatch from CPU features. Each kernel table has one line in
 * dispatch.c: the table, the features it needs and the level it reports
 * as. The lines of one architecture stand in order of precedence, best
 * first, and end with the scalar table, which needs nothing; a lookup takes
 * the first line whose features the CPU has (less those a cap or ONYX_ISA
 * switches off) and whose table has the kernel.
 */
#ifndef ONYX_KERNELS_DISPATCH_H
#define ONYX_KERNELS_DISPATCH_H

#include <stddef.h>

#include "cpu/cpu.h"
#include "kernels/kernels.h"

typedef struct onyx__kernel_line {
  const onyx__kernel_table *table;
  onyx__cpu_mask needs; /* every feature the table's code uses */
  onyx_isa level;       /* the level its kernels report as */
} onyx__kernel_line;

/* This build's lines, in order of precedence; *n receives their number. */
const onyx__kernel_line *onyx__kernel_lines(size_t *n);

/*
 * The line that serves (op, dtype) on a CPU with the features in features:
 * the first whose needs are all in features and whose table has the
 * kernel; NULL when no table has it (or op or dtype is unknown). Pure: a
 * test passes made-up masks.
 */
const onyx__kernel_line *onyx__kernel_pick(onyx__cpu_mask features, onyx__kop op, onyx_dtype dtype);

/* The level of the first line whose needs are all in features: the best
 * level any kernel runs at on such a CPU. Pure. */
onyx_isa onyx__kernel_best_level(onyx__cpu_mask features);

#endif
