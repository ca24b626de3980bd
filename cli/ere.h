/* SPDX-License-Identifier: MIT */
/*
 * POSIX extended regular expressions (regcomp with REG_EXTENDED |
 * REG_NOSUB, C locale, bytes), matched without backtracking, for a C
 * library without regcomp: cli/sys_win32.c puts sys.h's cli_regex_* on
 * them, and tests/unit/test_regex.c checks them against the C library's
 * regexec where there is one.
 */
#ifndef ONYX_CLI_ERE_H
#define ONYX_CLI_ERE_H

#include <stddef.h>

typedef struct cli_ere cli_ere;
/* 0 and *re, or non-zero with why (a message) filled and *re NULL. */
int cli_ere_compile(cli_ere **re, const char *expr, char *why, size_t why_size);
/* Whether re matches somewhere in text. */
int cli_ere_matches(const cli_ere *re, const char *text);
void cli_ere_free(cli_ere *re);

#endif
