/* SPDX-License-Identifier: MIT */
#include "core/sort.h"

/* Moves items[i] down the max-heap items[0 .. n-1] to where it belongs. */
static void sift_down(const void **items, size_t i, size_t n,
                      int (*cmp)(const void *a, const void *b)) {
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n) return;
    if (child + 1 < n && cmp(items[child], items[child + 1]) < 0) child++;
    if (cmp(items[i], items[child]) >= 0) return;
    const void *t = items[i];
    items[i] = items[child];
    items[child] = t;
    i = child;
  }
}

void onyx__sort_ptrs(const void **items, size_t n, int (*cmp)(const void *a, const void *b)) {
  if (n < 2) return;
  for (size_t i = n / 2; i-- > 0;) sift_down(items, i, n, cmp);
  for (size_t end = n - 1; end > 0; end--) {
    const void *t = items[0];
    items[0] = items[end];
    items[end] = t;
    sift_down(items, 0, end, cmp);
  }
}
