/* SPDX-License-Identifier: MIT */
/*
 * What the onyx test command (test_cmd.c) needs of its cases (test.c): the
 * case folders to run and the outcome of running one.
 */
#ifndef ONYX_CLI_TEST_H
#define ONYX_CLI_TEST_H

#include <stddef.h>

#include "cli.h"

/* A growable list of strings it owns. */
typedef struct str_list {
  char **items;
  size_t len, cap;
} str_list;

/* Appends s, taking ownership. Returns 0 (and frees s) when out of memory. */
int cli_list_push(str_list *l, char *s);
void cli_list_free(str_list *l);

/* strcmp for qsort on an array of char *. */
int cli_cmp_str(const void *a, const void *b);

/* What a case came to. */
typedef enum { CASE_PASSED, CASE_FAILED, CASE_SKIPPED } case_outcome;

typedef struct case_result {
  case_outcome outcome;
  cli_strbuf why; /* failed or skipped: the reason */
  char *skip;     /* skipped: what onyx lacks, such as "op Abs" or "type bool" */
  int error;      /* failed before any output was compared: a file did not load */
  double seconds; /* how long the case took */
} case_result;

/*
 * The case folders the PATH arguments of a name or hold, each folder once,
 * into cases (in name order within each PATH). Sets *read_error when a
 * PATH or folder could not be read (after reporting it). Returns CLI_OK,
 * or CLI_ERROR when out of memory.
 */
int cli_collect_cases(const cli_args *a, str_list *cases, int *read_error);

/*
 * Runs the case folder dir into *res (zeroed by the caller; release
 * res->why and res->skip). A model with a node whose op or domain onyx
 * does not implement (and no --ops library serves) is skipped for that op,
 * whatever else is wrong with it; one onyx refuses for an element type it
 * lacks is skipped too; both are failures when strict. Prints nothing,
 * so that cases can run on several threads.
 */
void cli_run_case(const char *dir, const onyx_session_options *opts, int strict, case_result *res);

#endif /* ONYX_CLI_TEST_H */
