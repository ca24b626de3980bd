/* SPDX-License-Identifier: MIT */
/*
 * What the onyx command needs from the operating system beyond ISO C, with
 * one file per platform: sys_posix.c, sys_win32.c. Paths are UTF-8 bytes;
 * on Windows they go to the wide-character calls, and both '/' and '\'
 * separate components. The command is a client of include/onyx.h only, so
 * its threads and clock are its own too, here.
 *
 * Calls that can fail return 0 or an errno value, for strerror.
 */
#ifndef ONYX_CLI_SYS_H
#define ONYX_CLI_SYS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Makes argv UTF-8 (Windows passes it in the ANSI code page; the wide
 * command line is converted) and sets stdout to binary, so that output
 * ends lines in "\n" as on Linux. Returns 0, or ENOMEM. */
int cli_sys_init(int *argc, char ***argv);

/* Whether c separates path components ('/'; on Windows '\' too). */
int cli_sys_is_sep(char c);
/* The length of path's root, which cannot be created as a folder: 1 for
 * "/x"; on Windows also 2 for "C:x", 3 for "C:\x", and "\\srv\share\". */
size_t cli_sys_root_len(const char *path);

/* Whether name can be one file's name in a folder as it is: no '/' (on
 * Windows none of \ : * ? " < > |, no trailing dot or space, and no
 * device name such as CON or NUL.txt). */
int cli_sys_file_name_ok(const char *name);

typedef enum cli_kind { CLI_KIND_FILE, CLI_KIND_FOLDER, CLI_KIND_OTHER } cli_kind;
/* What stat says about a path (following links). dev and ino identify a
 * folder, as the walk of onyx test needs to visit each once. */
typedef struct cli_stat {
  cli_kind kind;
  uint64_t dev, ino, size;
} cli_stat;
int cli_sys_stat(const char *path, cli_stat *st);

/* Creates the folder path (0777 less the umask on POSIX); EEXIST if
 * something is there. */
int cli_sys_mkdir(const char *path);

/* Calls each(ctx, name) for every entry of folder dir but "." and "..", in
 * the platform's order; stops early when each returns 0. Returns 0 (also
 * when each stopped it), or an errno value. */
int cli_sys_list_dir(const char *dir, int (*each)(void *ctx, const char *name), void *ctx);

/* fopen with a UTF-8 path. */
FILE *cli_sys_fopen(const char *path, const char *mode);
/* Opens path for binary reading if it is a regular file, without waiting
 * on a FIFO or device. NULL with *e an errno value when it cannot be opened
 * or stat'ed, or with *e = 0 and st->kind saying what it is instead. */
FILE *cli_sys_open_regular(const char *path, cli_stat *st, int *e);

/* Whether stderr is a terminal (for the progress line). */
int cli_sys_stderr_is_terminal(void);
/* Sets the environment variable name to value for this process. */
int cli_sys_setenv(const char *name, const char *value);

/* size bytes aligned to align (a power of two, a multiple of
 * sizeof(void *)); freed by cli_sys_aligned_free. NULL when out of memory. */
void *cli_sys_aligned_alloc(size_t align, size_t size);
void cli_sys_aligned_free(void *p);

/* A monotonic clock in nanoseconds, for timings. */
uint64_t cli_sys_clock_ns(void);

/* Threads for onyx test -j. In a build without threads (ONYX_NO_THREADS)
 * no thread starts and the lock does nothing. */
typedef struct cli_thread cli_thread;
/* Starts fn(arg) on a new thread; NULL when none could be started. */
cli_thread *cli_sys_thread_start(void *(*fn)(void *arg), void *arg);
/* Waits for the thread to finish, and frees it. */
void cli_sys_thread_join(cli_thread *t);
/* A mutex with one condition variable; NULL when out of memory. */
typedef struct cli_lock cli_lock;
cli_lock *cli_sys_lock_new(void);
void cli_sys_lock_free(cli_lock *l); /* NULL: a no-op */
void cli_sys_lock(cli_lock *l);
void cli_sys_unlock(cli_lock *l);
/* Waits (locked) until another thread broadcasts, unlocking meanwhile. */
void cli_sys_wait(cli_lock *l);
void cli_sys_broadcast(cli_lock *l);

/* Extended regular expressions (POSIX regcomp) for --include and
 * --exclude; where the C library has none (Windows), cli/ere.c's. */
typedef struct cli_regex cli_regex;
/* 0 and *re, or non-zero with why (a message) filled. */
int cli_regex_compile(cli_regex **re, const char *expr, char *why, size_t why_size);
int cli_regex_matches(const cli_regex *re, const char *text);
void cli_regex_free(cli_regex *re);

#endif
