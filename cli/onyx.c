/* SPDX-License-Identifier: MIT */
/*
 * The onyx command: runs a model once (on .pb or .npy inputs), runs ONNX
 * backend-test folders, describes a model, or times it. It is a client of
 * the public API in include/onyx.h alone: it builds with no path into src/
 * (the test cli.public_api builds it so). One file per concern:
 *
 *   onyx.c    this dispatch: a command's name to its options and function
 *   args.c    help texts and the command line
 *   common.c  error lines, escaping, strings, opening a model
 *   print.c   values printed as numpy prints them
 *   run.c     onyx run
 *   info.c    onyx info
 *   buildcfg.c onyx info --build-config
 *   test.c    onyx test
 *   bench.c   onyx bench
 *   profile.c per-node profiles as Chrome-trace JSON (run --profile)
 *   selftest.c onyx selftest (its own options: it makes no session)
 *   npy.c     numpy's .npy files
 *   sys_*.c   the operating system's calls, per platform (sys.h)
 *
 * Exit codes: 0 success, 1 a test case failed (or none was found), 2 a usage
 * error, 3 an onyx or I/O error. Every error is one line on stderr of the form
 * "onyx: FILE: message".
 *
 * Memory: nothing is kept in fixed-size buffers that a long name or path could
 * overflow; paths and messages are built on the heap, and every allocation is
 * freed on success and error paths alike.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "onyx.h"
#include "sys.h"

/* The commands, with the options each accepts besides --threads and --isa. */
static const struct {
  const char *name;
  int (*run)(cli_args *);
  unsigned options;
} COMMANDS[] = {
    {"run", cli_run, CLI_OPT_INPUT | CLI_OPT_OUTPUT_DIR | CLI_OPT_FORMAT | CLI_OPT_PROFILE},
    {"test", cli_test,
     CLI_OPT_VERBOSE | CLI_OPT_STRICT | CLI_OPT_FILTER | CLI_OPT_REPORT | CLI_OPT_JOBS |
         CLI_OPT_PROGRESS | CLI_OPT_JSON},
    {"info", cli_info, CLI_OPT_JSON | CLI_OPT_BUILD_CONFIG},
    {"bench", cli_bench,
     CLI_OPT_SHAPE | CLI_OPT_WARMUP | CLI_OPT_RUNS | CLI_OPT_DURATION | CLI_OPT_PER_NODE |
         CLI_OPT_PROGRESS | CLI_OPT_JSON},
};

/* Flushes stdout; a write error (a full disk, a closed pipe) turns a
 * successful exit code into CLI_ERROR. */
static int finish_stdout(int rc) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "onyx: stdout: write error\n");
    if (rc == CLI_OK || rc == CLI_TEST_FAILED) rc = CLI_ERROR;
  }
  return rc;
}

/* "onyx help [COMMAND]", "onyx --help", "onyx --version". Returns -1 when
 * argv asks for none of them. */
static int run_help_or_version(int argc, char **argv) {
  const char *command = argv[1];
  if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 ||
      strcmp(command, "help") == 0) {
    const char *topic = argc > 2 && argv[2][0] != '-' ? argv[2] : NULL;
    if (!cli_put_help(stdout, topic)) {
      cli_usage_error(NULL, "help: unknown command '%s'", topic);
      return CLI_USAGE;
    }
    return finish_stdout(CLI_OK);
  }
  if (strcmp(command, "--version") == 0) {
    int json = argc > 2 && strcmp(argv[2], "--json") == 0;
    if (argc > 2 + json) {
      cli_usage_error(NULL, "--version: unknown option '%s'", argv[2 + json]);
      return CLI_USAGE;
    }
    const char *isa = onyx_isa_name(onyx_isa_detected());
    if (json)
      printf("{\"version\": \"%s\", \"opsets\": {\"ai.onnx\": [1, %" PRId64
             "]}, \"isa\": \"%s\"}\n",
             onyx_version(), onyx_max_opset(), isa);
    else
      printf("onyx %s (ai.onnx opset up to %" PRId64 ", isa %s)\n", onyx_version(),
             onyx_max_opset(), isa);
    return finish_stdout(CLI_OK);
  }
  return -1;
}

static int run_command(int argc, char **argv) {
  if (argc < 2) {
    (void)cli_put_help(stderr, NULL);
    return CLI_USAGE;
  }
  int rc = run_help_or_version(argc, argv);
  if (rc >= 0) return rc;
  const char *command = argv[1];
  if (strcmp(command, "selftest") == 0) return finish_stdout(cli_selftest(argc, argv));
  size_t c = 0, n = sizeof COMMANDS / sizeof COMMANDS[0];
  while (c < n && strcmp(command, COMMANDS[c].name) != 0) c++;
  if (c == n) {
    cli_usage_error(NULL, command[0] == '-' ? "unknown option '%s'" : "unknown command '%s'",
                    command);
    return CLI_USAGE;
  }
  if (cli_wants_help(argc, argv, 2)) {
    (void)cli_put_help(stdout, command);
    return finish_stdout(CLI_OK);
  }

  cli_args a;
  memset(&a, 0, sizeof a);
  a.command = command;
  a.warmup = -1;
  a.runs = -1;
  a.duration = -1;
  onyx_session_options_init(&a.opts);
  rc = cli_parse_args(argc, argv, 2,
                      CLI_OPT_THREADS | CLI_OPT_ISA | CLI_OPT_OPS | COMMANDS[c].options, &a);
  onyx_op_registry *ops = NULL;
  if (rc == CLI_OK) rc = cli_load_ops(&a, &ops);
  if (rc == CLI_OK) rc = COMMANDS[c].run(&a);
  onyx_op_registry_free(ops);
  cli_free_args(&a);
  return finish_stdout(rc);
}

int main(int argc, char **argv) {
  if (cli_sys_init(&argc, &argv) != 0) {
    cli_error_oom();
    return CLI_ERROR;
  }
  int rc = run_command(argc, argv);
  cli_esc_release();
  return rc;
}
