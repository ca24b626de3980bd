/*
 * What the parts of the onyx command share: exit codes, the parsed command
 * line, and the helpers that report errors in the command's one-line form
 * "onyx: FILE: message". onyx.c implements the helpers and the commands run,
 * test and info; bench.c the command bench; npy.c the .npy files.
 */
#ifndef ONYX_CLI_H
#define ONYX_CLI_H

#include <stddef.h>

#include "onyx.h"

enum {
  CLI_OK = 0,
  CLI_TEST_FAILED = 1,
  CLI_USAGE = 2,
  CLI_ERROR = 3,
};

/* The command line after parsing. Option strings point into argv. */
typedef struct cli_args {
  const char *command;
  onyx_session_options opts;
  int verbose;
  const char *output_dir;
  const char *format;  /* run: "pb" (default) or "npy", for --output-dir files */
  const char **inputs; /* run: NAME=FILE strings */
  size_t n_inputs;
  const char **shapes; /* bench: NAME=DIMS strings */
  size_t n_shapes;
  const char **positional;
  size_t n_positional;
  /* bench */
  long long warmup; /* -1: not given */
  long long runs;   /* -1: not given */
  double duration;  /* seconds; < 0: not given */
  int per_node;
  int progress;
} cli_args;

/*
 * Text as the command prints it: bytes outside printable ASCII (0x20 to
 * 0x7e) as \xNN, a backslash as \\, so that no name from a model or a
 * folder can move the cursor, clear a terminal or start a line of its own.
 * Returns s itself when nothing needs escaping, else a copy in one of 8
 * per-thread slots that the 9th call from the same thread reuses: use the
 * result at once (one printf may show up to 8). cli_esc_n escapes the len
 * bytes at s. cli_esc_release frees the calling thread's slots.
 */
const char *cli_esc(const char *s);
const char *cli_esc_n(const char *s, size_t len);
void cli_esc_release(void);

/* Prints "onyx: out of memory" to stderr. */
void cli_error_oom(void);

/* Reports a failed onyx call: "onyx: FILE: message (ONYX_STATUS)". */
void cli_report(const char *file, onyx_status st, const onyx_error *err);

/* Clears an error record before a call. */
void cli_reset_error(onyx_error *err);

/* Prints "onyx: MESSAGE" and "Try 'onyx COMMAND --help'." to stderr. */
void cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Loads the model at path and creates a session. On failure prints the
 * error, frees what it made and returns CLI_ERROR. */
int cli_open_model(const char *path, const onyx_session_options *opts, onyx_model **model,
                   onyx_session **session);

/* onyx bench: times runs of a model on random inputs (bench.c). */
int cli_bench(cli_args *a);

#endif /* ONYX_CLI_H */
