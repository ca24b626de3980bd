/* SPDX-License-Identifier: MIT */
/*
 * The table form of the portable Ceil and Floor (src/kernels/scalar.c),
 * whatever form the library's build runs, under its own names for
 * check_rnd_forms.c: a vectorizing build rounds float and double by
 * arithmetic, and its tables would otherwise go unchecked here.
 */
#define ONYX_RND_TABLES      1
#define ONYX_RND_ARITH       0
#define onyx__kernels_scalar onyx__kernels_scalar_tables
#define onyx__clip_params    onyx__clip_params_tables
#include "kernels/scalar.c"
