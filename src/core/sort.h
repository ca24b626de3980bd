/* SPDX-License-Identifier: MIT */
/* Sorting without the C library's qsort, which costs a microcontroller
 * image 1.5 KB (docs/embedded.md). */
#ifndef ONYX_CORE_SORT_H
#define ONYX_CORE_SORT_H

#include <stddef.h>

/*
 * Sorts the n pointers at items so that cmp(items[i], items[i + 1]) <= 0,
 * as a heap sort: n log n comparisons at most, whatever the order, and no
 * memory beyond items. Not stable.
 */
void onyx__sort_ptrs(const void **items, size_t n, int (*cmp)(const void *a, const void *b));

#endif
