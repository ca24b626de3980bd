/* SPDX-License-Identifier: MIT */
/*
 * --ops LIB: op libraries loaded into one registry that every session of
 * the command uses (onyx_op_registry_load_library).
 */
#include <stdio.h>

#include "cli.h"
#include "onyx.h"

int cli_load_ops(cli_args *a, onyx_op_registry **reg) {
  *reg = NULL;
  if (a->n_ops == 0) return CLI_OK;
#if defined(_WIN32)
  /* A Windows op library imports onyx_* from onyx.dll, which this command
   * (linked statically) is not: its calls would reach another copy of
   * onyx. Refused rather than half working; docs/custom-ops.md. */
  fprintf(stderr,
          "onyx: %s: --ops needs a program linked with onyx.dll on Windows; this onyx.exe "
          "links onyx statically\n",
          a->ops[0]);
  return CLI_USAGE;
#else
  onyx_error err;
  cli_reset_error(&err);
  onyx_status st = onyx_op_registry_create(reg, &err);
  if (st != ONYX_OK) {
    cli_report(a->ops[0], st, &err);
    return CLI_ERROR;
  }
  for (size_t i = 0; i < a->n_ops; i++) {
    cli_reset_error(&err);
    st = onyx_op_registry_load_library(*reg, a->ops[i], &err);
    if (st != ONYX_OK) {
      cli_report(a->ops[i], st, &err);
      onyx_op_registry_free(*reg);
      *reg = NULL;
      return CLI_ERROR;
    }
  }
  a->opts.ops = *reg;
  return CLI_OK;
#endif
}
