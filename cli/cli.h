/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the onyx command share: exit codes, the parsed command
 * line, the helpers that report errors in the command's one-line form
 * "onyx: FILE: message", and the commands themselves. onyx.c lists the
 * files and what each holds; npy.h declares the .npy reader and writer.
 */
#ifndef ONYX_CLI_H
#define ONYX_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "onyx.h"

/* The printf format checked below: on mingw, GCC's "printf" is msvcrt's,
 * without %zu; onyx builds with mingw's C99 printf (CMakeLists.txt). */
#if defined(__MINGW32__)
#define CLI_PRINTF_FORMAT gnu_printf
#else
#define CLI_PRINTF_FORMAT printf
#endif

enum {
  CLI_OK = 0,
  CLI_TEST_FAILED = 1,
  CLI_USAGE = 2,
  CLI_ERROR = 3,
};

/* Which options each command accepts. */
enum {
  CLI_OPT_THREADS = 1 << 0,
  CLI_OPT_ISA = 1 << 1,
  CLI_OPT_INPUT = 1 << 2,
  CLI_OPT_OUTPUT_DIR = 1 << 3,
  CLI_OPT_VERBOSE = 1 << 4,
  CLI_OPT_FORMAT = 1 << 5,
  CLI_OPT_SHAPE = 1 << 6,
  CLI_OPT_WARMUP = 1 << 7,
  CLI_OPT_RUNS = 1 << 8,
  CLI_OPT_DURATION = 1 << 9,
  CLI_OPT_PER_NODE = 1 << 10,
  CLI_OPT_PROGRESS = 1 << 11,
  CLI_OPT_STRICT = 1 << 12,
  CLI_OPT_FILTER = 1 << 13, /* --include, --exclude */
  CLI_OPT_REPORT = 1 << 14, /* --junit */
  CLI_OPT_JOBS = 1 << 15,
  CLI_OPT_JSON = 1 << 16,         /* test, info, bench: JSON on stdout */
  CLI_OPT_OPS = 1 << 17,          /* --ops LIB: every command that makes a session */
  CLI_OPT_PROFILE = 1 << 18,      /* run: --profile FILE */
  CLI_OPT_BUILD_CONFIG = 1 << 19, /* info: --build-config (buildcfg.c) */
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
  /* test */
  int strict;                        /* skips (ops, types, domains onyx lacks) count as failures */
  const char **includes, **excludes; /* regular expressions (regcomp, extended) */
  size_t n_includes, n_excludes;
  int json;            /* JSON on stdout (test: one record per case) */
  int build_config;    /* info: write the models' build configuration */
  const char *junit;   /* JUnit XML report file */
  uint32_t jobs;       /* cases run at once; 0: not given */
  const char *profile; /* run: the Chrome-trace JSON file of --profile */
  const char **ops;    /* --ops: op libraries, in order */
  size_t n_ops;
} cli_args;

/*
 * Text as the command prints it: bytes outside printable ASCII (0x20 to
 * 0x7e) as \xNN, so that no name from a model or a folder can move the
 * cursor, clear a terminal or start a line of its own. A backslash stays
 * as typed, so that a Windows path (examples\chain.onnx) reads as the
 * user wrote it.
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
    __attribute__((format(CLI_PRINTF_FORMAT, 2, 3)))
#endif
    ;

/* Loads the model at path and creates a session. On failure prints the
 * error, frees what it made and returns CLI_ERROR. */
int cli_open_model(const char *path, const onyx_session_options *opts, onyx_model **model,
                   onyx_session **session);

/* A model opened for a command: the model, its session, and the session's
 * input and output descriptions (which point into the model). */
typedef struct cli_model {
  const char *path;
  onyx_model *model;
  onyx_session *session;
  size_t n_in, n_out;
  onyx_value_info *in_info, *out_info;
} cli_model;

/* Opens the model at path with its session (cli_open_model) and reads the
 * value descriptions. On failure prints the error, releases everything and
 * returns CLI_ERROR; on success release m with cli_model_close. */
int cli_model_open(const char *path, const onyx_session_options *opts, cli_model *m);
/* Reads the value descriptions of m's session (m->session set); on failure
 * prints the error, releases m and returns CLI_ERROR. */
int cli_model_read_infos(cli_model *m);
void cli_model_close(cli_model *m);

/* ---- The command line (args.c) ---- */

/* Writes the help text of command (NULL: the main help) to out; 0 if
 * there is no such command. */
int cli_put_help(FILE *out, const char *command);

/* Whether argv[first..] asks for help (before any "--"). */
int cli_wants_help(int argc, char **argv, int first);

/*
 * Parses argv[first..argc-1] for a command that accepts the options in
 * `allowed` (CLI_OPT_ flags) into a, whose command and defaults the caller
 * sets. Returns CLI_OK, CLI_USAGE after printing the problem, or CLI_ERROR
 * when out of memory. Release a with cli_free_args either way.
 */
int cli_parse_args(int argc, char **argv, int first, unsigned allowed, cli_args *a);
void cli_free_args(cli_args *a);

/* Checks that a holds exactly one positional argument, MODEL; otherwise
 * prints the usage error and returns CLI_USAGE. */
int cli_one_model(const cli_args *a);

/* ---- Shared helpers (common.c) ---- */

/* Whether cli_esc prints byte c as an escape. */
int cli_needs_escape(unsigned char c);

/* The message of a failed call, without a leading "FILE: " when it already
 * names file (so that lines do not repeat the path). */
const char *cli_error_text(const char *file, onyx_status st, const onyx_error *err);

/* Writes s as a JSON string: cli_esc's printable ASCII, with '"' and the
 * backslash escaped once more (so "\x1b" reads back as the text cli_esc
 * prints). */
void cli_put_json(FILE *out, const char *s);

/* Writes the JSON array [d0, d1, ...] of rank dims. */
void cli_put_json_dims(FILE *out, uint32_t rank, const int64_t *dims);

/* Returns a new string "a/b" (no doubled '/'), or NULL when out of memory. */
char *cli_path_join(const char *a, const char *b);

/* Returns a new string formatted like printf, or NULL when out of memory. */
char *cli_str_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(CLI_PRINTF_FORMAT, 1, 2)))
#endif
    ;

/* A growable string. Once an allocation fails, oom is set and later appends
 * do nothing; the text stays NUL-terminated whenever data is not NULL. */
typedef struct cli_strbuf {
  char *data;
  size_t len, cap;
  int oom;
} cli_strbuf;

/* Appends to sb like printf. */
void cli_sb_printf(cli_strbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(CLI_PRINTF_FORMAT, 2, 3)))
#endif
    ;

/* The text of sb: "" when empty, "out of memory" after a failed append. */
const char *cli_sb_str(const cli_strbuf *sb);
void cli_sb_free(cli_strbuf *sb);

/* Number of elements of t, or 0 with *ok = 0 on overflow or a negative dim. */
size_t cli_element_count(const onyx_tensor *t, int *ok);

/* ---- Values (print.c) ---- */

/* Enough for any single formatted element ("%.17g" of a double, an int64,
 * or a hexadecimal bit pattern). Only ever written with snprintf. */
#define CLI_VALUE_CHARS 64

/* The size-byte element at p (1, 2, 4 or 8 bytes, any alignment) as an
 * unsigned integer of the same bits. */
uint64_t cli_load_bits(const unsigned char *p, size_t size);

/* Formats the element at p (little-endian, any alignment) of type dt. */
void cli_format_value(char *buf, size_t cap, onyx_dtype dt, const unsigned char *p);

/* Formats the element's bit pattern as hexadecimal (little-endian read). */
void cli_format_bits(char *buf, size_t cap, const unsigned char *p, size_t esize);

/* Appends "[d0, d1, ...]" to sb. */
void cli_sb_dims(cli_strbuf *sb, uint32_t rank, const int64_t *dims);

/* Prints the values of t (header excluded) like numpy, then a newline. */
void cli_print_values(FILE *out, const onyx_tensor *t);

/* ---- Node attributes (attrs.c) ---- */

/* Prints the attributes of the node-th node of model: a line "      NAME =
 * VALUE" each, or with json ", \"attributes\": [...]" (docs/cli.md).
 * Returns the status of a failed call. */
onyx_status cli_put_attributes(const onyx_model *model, size_t node, int json, onyx_error *err);

/* ---- The commands ---- */

/* Loads the --ops libraries of a into a new registry *reg (NULL without
 * any) and points a->opts.ops at it; on failure prints the error and
 * returns CLI_ERROR. Free *reg with onyx_op_registry_free after the
 * command (ops.c). */
int cli_load_ops(cli_args *a, onyx_op_registry **reg);

int cli_run(cli_args *a);          /* onyx run (run.c) */
int cli_info(cli_args *a);         /* onyx info (info.c) */
int cli_build_config(cli_args *a); /* onyx info --build-config (buildcfg.c) */
int cli_test(cli_args *a);         /* onyx test (test.c) */
int cli_bench(cli_args *a);        /* onyx bench: times runs on random inputs (bench.c) */

/* ---- Profiles (profile.c) ---- */

/* A profile with room for every node of model; 0 when out of memory (said). */
int cli_profile_alloc(const onyx_model *model, onyx_profile *p);
/* Writes p as the Chrome-trace JSON that ONNX Runtime's profiler writes
 * (docs/cli.md) to path; CLI_OK, or CLI_ERROR after reporting. */
int cli_profile_write(const char *path, const char *model, const onyx_profile *p);

/* onyx selftest (cli/selftest.c): parses its own options from argv[2]. */
int cli_selftest(int argc, char **argv);
extern const char CLI_HELP_SELFTEST[];

#endif /* ONYX_CLI_H */
