/* SPDX-License-Identifier: MIT */
/*
 * Writes the op registry to FILE for the case generator (gen_cases.py), so
 * that the version tables live only in src/ops/:
 *
 *   list_ops FILE
 *
 *   max_opset N
 *   OP SINCE TYPE,TYPE,...      one line per op version, types as
 *                               onyx_dtype_name() spells them
 *
 * A program rather than a library function loaded through ctypes, so that
 * it works in sanitizer builds too, whose library cannot be loaded into an
 * uninstrumented Python.
 */
#include <stdio.h>

#include "ops/op.h"

int main(int argc, char **argv) {
  FILE *f = argc == 2 ? fopen(argv[1], "w") : NULL;
  if (f == NULL) {
    fprintf(stderr, "usage: list_ops FILE (a file it can write)\n");
    return 2;
  }
  fprintf(f, "max_opset %d\n", ONYX__MAX_OPSET);
  for (size_t i = 0; i < onyx__op_count(); i++) {
    const char *name = NULL;
    const onyx__op *op = onyx__op_at(i, &name);
    for (size_t v = 0; v < op->n_versions; v++) {
      const onyx__op_version *ver = &op->versions[v];
      fprintf(f, "%s %d ", name, ver->since);
      for (int t = 0, first = 1; t < ONYX__DTYPE_COUNT; t++) {
        if (!((ver->types >> t) & 1u)) continue;
        fprintf(f, "%s%s", first ? "" : ",", onyx_dtype_name(onyx__dtype_at(t)));
        first = 0;
      }
      fprintf(f, "\n");
    }
  }
  return fclose(f) == 0 ? 0 : 1;
}
