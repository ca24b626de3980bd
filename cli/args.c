/* SPDX-License-Identifier: MIT */
/*
 * The command line: help texts, option values and the parse into cli_args.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "onyx.h"

void cli_usage_error(const char *command, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *msg = n < 0 ? NULL : malloc((size_t)n + 1);
  if (msg) {
    va_start(ap, fmt);
    vsnprintf(msg, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  /* The arguments quote the command line, which may hold any bytes. */
  fprintf(stderr, "onyx: %s\n", msg ? cli_esc(msg) : "out of memory");
  free(msg);
  if (command)
    fprintf(stderr, "Try 'onyx %s --help'.\n", cli_esc(command));
  else
    fputs("Try 'onyx --help'.\n", stderr);
}

/* The main help: HELP_MAIN_HEAD, the operators onyx runs (from the
 * library), then HELP_MAIN. */
static const char HELP_MAIN_HEAD[] =
    "Usage: onyx COMMAND [ARGS...]\n"
    "\n"
    "A runtime for ONNX models.\n";

static const char HELP_MAIN[] =
    "\n"
    "Commands:\n"
    "  run MODEL [--input NAME=FILE]... [--output-dir DIR] [--format FORMAT]\n"
    "                   run a model once on TensorProto (.pb) or numpy (.npy)\n"
    "                   inputs and print or save its outputs\n"
    "  test PATH...     run ONNX backend-test case folders and compare outputs\n"
    "  info MODEL       describe a model: opsets, inputs, outputs, nodes, and\n"
    "                   whether onyx runs it\n"
    "  bench MODEL [--shape NAME=DIMS]... [--runs N | --duration S]\n"
    "                   time runs of a model on random inputs\n"
    "  selftest [--quick] check that every kernel is bit-exact on this machine\n"
    "  help [COMMAND]   show this help, or a command's help\n"
    "\n"
    "Options:\n"
    "  --threads N      worker threads for large tensors (0: the default)\n"
    "  --isa LEVEL      highest instruction set kernels may use: scalar, sse41,\n"
    "                   avx2, avx512, neon, wasm-simd128, or best (the default:\n"
    "                   no cap); another architecture's level means scalar\n"
    "  --ops LIB        load the operators of an op library (a shared library\n"
    "                   exporting onyx_register_ops; repeatable), so that models\n"
    "                   using them run: see docs/custom-ops.md\n"
    "  -h, --help       show help\n"
    "  --version        show the version (--version --json: as JSON)\n"
    "\n"
    "Exit codes:\n"
    "  0  success\n"
    "  1  a test case failed, or 'test' found no case\n"
    "  2  usage error (bad option or argument, unknown command, input names\n"
    "     that do not match the model)\n"
    "  3  onyx error: a model or tensor could not be loaded, a session could\n"
    "     not be created, a run failed, or an output could not be written\n";

static const char HELP_RUN[] =
    "Usage: onyx run MODEL [--input NAME=FILE]... [--output-dir DIR]\n"
    "                [--format FORMAT] [--profile FILE] [--threads N] [--isa LEVEL]\n"
    "\n"
    "Runs MODEL once. Each --input binds FILE to the model input called NAME;\n"
    "every input of the model must be given once. FILE is a serialized\n"
    "TensorProto (.pb) or a numpy array (.npy: recognized by its extension or\n"
    "its first bytes; C order, little-endian; a bfloat16 input takes '<u2'\n"
    "bit patterns).\n"
    "\n"
    "Without --output-dir, each output is printed as a line 'NAME: TYPE [DIMS]'\n"
    "followed by its values in nested brackets (tensors of more than 1000\n"
    "elements are summarized with '...'). With --output-dir, each output is\n"
    "written to DIR/NAME.pb as a TensorProto named NAME, or with --format npy\n"
    "to DIR/NAME.npy (bfloat16 as '<u2' bit patterns, since numpy has no\n"
    "bfloat16). DIR is created if missing.\n"
    "\n"
    "Options:\n"
    "  --input NAME=FILE  bind an input (repeatable)\n"
    "  --output-dir DIR   write outputs as files instead of printing them\n"
    "  --format FORMAT    file format for --output-dir: pb (the default) or npy\n"
    "  --profile FILE     write the run's per-node times to FILE as Chrome-trace\n"
    "                     JSON, as ONNX Runtime's profiler writes them\n"
    "  --threads N        worker threads for large tensors (0: the default)\n"
    "  --isa LEVEL        scalar, sse41, avx2, avx512 or best\n"
    "  --ops LIB          load an op library's operators (repeatable)\n"
    "\n"
    "Exit codes: 0 success, 2 usage error (including an unknown, repeated or\n"
    "missing input name), 3 onyx or I/O error.\n";

static const char HELP_TEST[] =
    "Usage: onyx test [-v] [--strict] [--include RE]... [--exclude RE]...\n"
    "                 [--json] [--junit FILE] [-j N] [--progress] [--threads N]\n"
    "                 [--isa LEVEL] PATH...\n"
    "\n"
    "Runs ONNX backend-test cases. A case folder holds model.onnx and\n"
    "test_data_set_N/ folders with input_K.pb and output_K.pb files. A PATH\n"
    "without model.onnx is searched recursively (in name order, skipping names\n"
    "that start with '.', following links but visiting each folder once) for\n"
    "case folders. Every output must match output_K.pb bit for bit (same\n"
    "type, shape and bytes), except that any NaN matches any NaN.\n"
    "\n"
    "A case whose model uses an op, domain or element type onyx does not\n"
    "implement is skipped. Prints 'FAIL CASE: REASON' for each failing case\n"
    "('ok CASE' and 'SKIP CASE: REASON' too with -v), then 'N passed, N failed,\n"
    "N skipped' and, after skips, 'skipped by reason:' with a count per reason.\n"
    "On a terminal, a progress line on stderr counts the cases run.\n"
    "\n"
    "Options:\n"
    "  -v, --verbose    also print passing and skipped cases\n"
    "  --strict         count skipped cases as failures (not excluded ones)\n"
    "  --include RE     run only cases whose folder name RE matches (POSIX\n"
    "                   extended regular expression; repeatable: any matches)\n"
    "  --exclude RE     skip cases whose folder name RE matches (repeatable)\n"
    "  --json           print one JSON record per case, then one of the counts\n"
    "  --junit FILE     also write a JUnit XML report to FILE\n"
    "  -j N             run N cases at once (1 to 256); the output order stays\n"
    "                   the same\n"
    "  --progress       show the progress line even when stderr is not a\n"
    "                   terminal\n"
    "  --threads N      worker threads for large tensors (0: the default)\n"
    "  --isa LEVEL      scalar, sse41, avx2, avx512 or best\n"
    "  --ops LIB        load an op library's operators (repeatable)\n"
    "\n"
    "Exit codes: 0 no case failed, 1 a case failed or no case was found,\n"
    "2 usage error, 3 a PATH could not be read.\n";

static const char HELP_INFO[] =
    "Usage: onyx info [--json] [--threads N] [--isa LEVEL] MODEL\n"
    "       onyx info --build-config MODEL...\n"
    "\n"
    "Loads MODEL and prints its IR version, opset imports and nodes (each\n"
    "with its attributes), then tries to create a session from it, so that\n"
    "every check runs: when onyx runs the model, its inputs and outputs (with\n"
    "symbolic dimensions by name), every node output's shape as far as it is\n"
    "known before a run (? for a dimension only a run knows) and 'runnable:\n"
    "yes'; otherwise 'runnable: no' and the reason.\n"
    "\n"
    "Options:\n"
    "  --json      print one JSON object instead (fields in docs/cli.md)\n"
    "  --build-config  write the build configuration the MODELs need\n"
    "              (docs/build-config.md), for cmake -DONYX_BUILD_CONFIG=FILE\n"
    "  --ops LIB   load an op library's operators (repeatable): nodes they\n"
    "              serve say so, and count as runnable\n"
    "\n"
    "Exit codes: 0 the model loaded (whether or not onyx runs it), 2 usage\n"
    "error, 3 the file is not a valid ONNX model or could not be read.\n";

static const char HELP_BENCH[] =
    "Usage: onyx bench MODEL [--shape NAME=DIMS]... [--warmup N] [--runs N]\n"
    "                  [--duration S] [--per-node | --json] [--progress]\n"
    "                  [--threads N] [--isa LEVEL]\n"
    "\n"
    "Times runs of MODEL on random inputs of its declared types, and prints the\n"
    "median, 90th and 99th percentile latency and the throughput (runs per\n"
    "second, and gigabytes per second of inputs plus outputs).\n"
    "\n"
    "A symbolic or unknown input dimension needs a size: --shape NAME=DIMS\n"
    "gives the whole shape of the input NAME (DIMS such as 2x3x4; empty for a\n"
    "scalar), or --shape DIM=SIZE the size of the symbolic dimension DIM\n"
    "wherever it appears.\n"
    "\n"
    "Options:\n"
    "  --shape NAME=DIMS  an input's shape, or a symbolic dimension's size\n"
    "                     (repeatable)\n"
    "  --warmup N         untimed runs before timing (default 5)\n"
    "  --runs N           number of timed runs\n"
    "  --duration S       time runs for S seconds (default 1 without --runs);\n"
    "                     with --runs too, stop at whichever comes first\n"
    "  --per-node         also time each node alone (see below)\n"
    "  --json             print the report as one JSON object (docs/cli.md)\n"
    "  --progress         show the progress line even when stderr is not a\n"
    "                     terminal\n"
    "  --threads N        worker threads for large tensors (0: the default)\n"
    "  --isa LEVEL        scalar, sse41, avx2, avx512 or best\n"
    "  --ops LIB          load an op library's operators (repeatable)\n"
    "\n"
    "--per-node times each node in isolation: its kernel through the kernel\n"
    "API (onyx_ceil, onyx_floor, onyx_clip, onyx_sign) on one thread, on\n"
    "random buffers of the node's input shape and type. A session run may fuse\n"
    "nodes and use threads, so these times need not add up to a run's latency.\n"
    "Constant nodes are folded when the session is created and are not timed.\n"
    "\n"
    "Runs that take longer than a second show a progress line on stderr when\n"
    "it is a terminal (or with --progress).\n"
    "\n"
    "Exit codes: 0 success, 2 usage error (including a symbolic dimension\n"
    "without --shape), 3 onyx error.\n";

/* HELP_MAIN_HEAD, then the built-in operators' names and ".", wrapped
 * at 79 columns. */
static void put_main_head(FILE *out) {
  static const char lead[] = "The ai.onnx operators onyx runs itself:";
  fputs(HELP_MAIN_HEAD, out);
  fputs(lead, out);
  size_t column = sizeof lead - 1, n = onyx_op_builtin_count();
  for (size_t i = 0; i < n; i++) {
    const char *sep = i == 0 ? "" : i + 1 == n ? " and" : ",";
    const char *name = onyx_op_builtin_name(i), *end = i + 1 == n ? "." : "";
    size_t width = strlen(sep) + 1 + strlen(name) + strlen(end);
    int wrap = column + width > 79;
    fprintf(out, "%s%c%s%s", sep, wrap ? '\n' : ' ', name, end);
    column = wrap ? width - strlen(sep) - 1 : column + width;
  }
  fputc('\n', out);
}

int cli_put_help(FILE *out, const char *command) {
  const char *text = NULL;
  if (!command) {
    put_main_head(out);
    text = HELP_MAIN;
  } else if (strcmp(command, "run") == 0) {
    text = HELP_RUN;
  } else if (strcmp(command, "test") == 0) {
    text = HELP_TEST;
  } else if (strcmp(command, "info") == 0) {
    text = HELP_INFO;
  } else if (strcmp(command, "bench") == 0) {
    text = HELP_BENCH;
  } else if (strcmp(command, "selftest") == 0) {
    text = CLI_HELP_SELFTEST;
  }
  if (text) fputs(text, out);
  return text != NULL;
}

static int parse_threads(const char *command, const char *s, uint32_t *out) {
  if (*s < '0' || *s > '9') goto bad;
  uint64_t v = 0;
  for (const char *c = s; *c; c++) {
    if (*c < '0' || *c > '9') goto bad;
    v = v * 10 + (uint64_t)(*c - '0');
    if (v > UINT32_MAX) goto bad;
  }
  *out = (uint32_t)v;
  return 1;
bad:
  cli_usage_error(command, "--threads: '%s' is not a number from 0 to %" PRIu32, s, UINT32_MAX);
  return 0;
}

/* --isa: a level by the library's name for it (onyx_isa_name), or "best". */
static int parse_isa(const char *command, const char *s, onyx_isa *out) {
  static const onyx_isa levels[] = {
#define X(name, value, lname, arch, desc) ONYX_ISA_##name,
      ONYX_ISA_MAP(X)
#undef X
          ONYX_ISA_BEST};
  cli_strbuf known = {0};
  for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
    onyx_isa isa = levels[i];
    if (strcmp(s, onyx_isa_name(isa)) == 0) {
      *out = isa;
      cli_sb_free(&known);
      return 1;
    }
    cli_sb_printf(&known, "%s%s", i ? ", " : "", onyx_isa_name(isa));
  }
  cli_usage_error(command, "--isa: '%s' is not one of %s", s, cli_sb_str(&known));
  cli_sb_free(&known);
  return 0;
}

/* A count option (--warmup, --runs): a decimal number from min to 10^12. */
static int parse_count(const char *command, const char *option, const char *s, long long min,
                       long long *out) {
  long long v = 0;
  if (*s < '0' || *s > '9') goto bad;
  for (const char *c = s; *c; c++) {
    if (*c < '0' || *c > '9') goto bad;
    v = v * 10 + (*c - '0');
    if (v > 1000000000000LL) goto bad;
  }
  if (v < min) goto bad;
  *out = v;
  return 1;
bad:
  cli_usage_error(command, "%s: '%s' is not a whole number from %lld to 10^12", option, s, min);
  return 0;
}

/* --duration: seconds, a positive decimal number of at most 10^6. */
static int parse_seconds(const char *command, const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (*s == '\0' || *end != '\0' || errno != 0 || !(v > 0) || v > 1e6 || (*s < '0' || *s > '9')) {
    cli_usage_error(command, "--duration: '%s' is not a number of seconds above 0", s);
    return 0;
  }
  *out = v;
  return 1;
}

/* Sets a flag option (one without a value). Returns 0 if arg is none that
 * the command accepts. */
static int set_flag(const char *arg, unsigned allowed, cli_args *a) {
  if ((allowed & CLI_OPT_VERBOSE) && (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0))
    a->verbose = 1;
  else if ((allowed & CLI_OPT_PER_NODE) && strcmp(arg, "--per-node") == 0)
    a->per_node = 1;
  else if ((allowed & CLI_OPT_PROGRESS) && strcmp(arg, "--progress") == 0)
    a->progress = 1;
  else if ((allowed & CLI_OPT_STRICT) && strcmp(arg, "--strict") == 0)
    a->strict = 1;
  else if ((allowed & CLI_OPT_JSON) && strcmp(arg, "--json") == 0)
    a->json = 1;
  else if ((allowed & CLI_OPT_BUILD_CONFIG) && strcmp(arg, "--build-config") == 0)
    a->build_config = 1;
  else
    return 0;
  return 1;
}

/* The options that take a value. */
static const struct {
  const char *name;
  unsigned flag;
} VALUED[] = {{"--threads", CLI_OPT_THREADS}, {"--isa", CLI_OPT_ISA},
              {"--input", CLI_OPT_INPUT},     {"--output-dir", CLI_OPT_OUTPUT_DIR},
              {"--format", CLI_OPT_FORMAT},   {"--profile", CLI_OPT_PROFILE},
              {"--shape", CLI_OPT_SHAPE},     {"--warmup", CLI_OPT_WARMUP},
              {"--runs", CLI_OPT_RUNS},       {"--duration", CLI_OPT_DURATION},
              {"--include", CLI_OPT_FILTER},  {"--exclude", CLI_OPT_FILTER},
              {"--junit", CLI_OPT_REPORT},    {"-j", CLI_OPT_JOBS},
              {"--ops", CLI_OPT_OPS}};

/* Finds the valued option arg names ("--opt" or "--opt=VALUE"): returns
 * its index in VALUED and sets *value after an '=', or returns -1. */
static int find_valued(const char *arg, const char **value) {
  for (size_t k = 0; k < sizeof VALUED / sizeof VALUED[0]; k++) {
    size_t len = strlen(VALUED[k].name);
    if (strncmp(arg, VALUED[k].name, len) == 0 && (arg[len] == '\0' || arg[len] == '=')) {
      *value = arg[len] == '=' ? arg + len + 1 : NULL;
      return (int)k;
    }
  }
  return -1;
}

/* A NAME=VALUE option (--input, --shape): appended to list. */
static int add_pair(cli_args *a, const char *option, const char *what, const char *value,
                    const char **list, size_t *n) {
  if (!strchr(value, '=')) {
    cli_usage_error(a->command, "%s: '%s' is not %s", option, value, what);
    return CLI_USAGE;
  }
  list[(*n)++] = value;
  return CLI_OK;
}

/* --include, --exclude, --junit: stored as given (test_cmd.c checks the
 * expressions, and the file is written at the end). */
static int set_test_option(cli_args *a, const char *name, const char *value) {
  if (strcmp(name, "--include") == 0)
    a->includes[a->n_includes++] = value;
  else if (strcmp(name, "--exclude") == 0)
    a->excludes[a->n_excludes++] = value;
  else if (value[0] == '\0') {
    cli_usage_error(a->command, "--junit needs a file name");
    return CLI_USAGE;
  } else
    a->junit = value;
  return CLI_OK;
}

/* Checks and stores the value of the option name (its flag is flag). */
static int set_valued(cli_args *a, unsigned flag, const char *name, const char *value) {
  switch (flag) {
    case CLI_OPT_FILTER:
    case CLI_OPT_REPORT:
      return set_test_option(a, name, value);
    case CLI_OPT_JOBS: {
      long long jobs;
      if (!parse_count(a->command, "-j", value, 1, &jobs)) return CLI_USAGE;
      if (jobs > 256) {
        cli_usage_error(a->command, "-j: '%s' is more than 256", value);
        return CLI_USAGE;
      }
      a->jobs = (uint32_t)jobs;
      return CLI_OK;
    }
    case CLI_OPT_THREADS:
      return parse_threads(a->command, value, &a->opts.threads) ? CLI_OK : CLI_USAGE;
    case CLI_OPT_ISA:
      return parse_isa(a->command, value, &a->opts.isa_cap) ? CLI_OK : CLI_USAGE;
    case CLI_OPT_OPS:
      a->ops[a->n_ops++] = value;
      return CLI_OK;
    case CLI_OPT_INPUT:
      return add_pair(a, "--input", "NAME=FILE", value, a->inputs, &a->n_inputs);
    case CLI_OPT_SHAPE:
      return add_pair(a, "--shape", "NAME=DIMS", value, a->shapes, &a->n_shapes);
    case CLI_OPT_PROFILE:
      if (value[0] == '\0') {
        cli_usage_error(a->command, "--profile needs a file name");
        return CLI_USAGE;
      }
      a->profile = value;
      return CLI_OK;
    case CLI_OPT_OUTPUT_DIR:
      if (value[0] == '\0') {
        cli_usage_error(a->command, "--output-dir needs a folder name");
        return CLI_USAGE;
      }
      a->output_dir = value;
      return CLI_OK;
    case CLI_OPT_FORMAT:
      if (strcmp(value, "pb") != 0 && strcmp(value, "npy") != 0) {
        cli_usage_error(a->command, "--format: '%s' is not pb or npy", value);
        return CLI_USAGE;
      }
      a->format = value;
      return CLI_OK;
    case CLI_OPT_WARMUP:
      return parse_count(a->command, "--warmup", value, 0, &a->warmup) ? CLI_OK : CLI_USAGE;
    case CLI_OPT_RUNS:
      return parse_count(a->command, "--runs", value, 1, &a->runs) ? CLI_OK : CLI_USAGE;
    case CLI_OPT_DURATION:
      return parse_seconds(a->command, value, &a->duration) ? CLI_OK : CLI_USAGE;
    default:
      return CLI_OK;
  }
}

/* Parses the option argv[*i], taking its value from argv[*i + 1] (and
 * advancing *i) when it is not given as --opt=VALUE. */
static int parse_option(int argc, char **argv, int *i, unsigned allowed, cli_args *a) {
  const char *arg = argv[*i];
  if (set_flag(arg, allowed, a)) return CLI_OK;
  const char *value;
  int k = find_valued(arg, &value);
  if (k < 0 || !(allowed & VALUED[k].flag)) {
    cli_usage_error(a->command, "%s: unknown option '%s'", a->command, arg);
    return CLI_USAGE;
  }
  if (!value) {
    if (*i + 1 >= argc) {
      cli_usage_error(a->command, "%s needs a value", VALUED[k].name);
      return CLI_USAGE;
    }
    value = argv[++*i];
  }
  return set_valued(a, VALUED[k].flag, VALUED[k].name, value);
}

/* Options take "--opt VALUE" or "--opt=VALUE"; "--" ends them, and "-"
 * is an argument. */
int cli_parse_args(int argc, char **argv, int first, unsigned allowed, cli_args *a) {
  size_t cap = (size_t)argc;
  a->inputs = malloc(cap * sizeof *a->inputs);
  a->shapes = malloc(cap * sizeof *a->shapes);
  a->positional = malloc(cap * sizeof *a->positional);
  a->includes = malloc(cap * sizeof *a->includes);
  a->excludes = malloc(cap * sizeof *a->excludes);
  a->ops = malloc(cap * sizeof *a->ops);
  if (!a->inputs || !a->shapes || !a->positional || !a->includes || !a->excludes || !a->ops) {
    cli_error_oom();
    return CLI_ERROR;
  }
  int options_done = 0;
  for (int i = first; i < argc; i++) {
    const char *arg = argv[i];
    if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
      a->positional[a->n_positional++] = arg;
    } else if (strcmp(arg, "--") == 0) {
      options_done = 1;
    } else {
      int rc = parse_option(argc, argv, &i, allowed, a);
      if (rc != CLI_OK) return rc;
    }
  }
  return CLI_OK;
}

void cli_free_args(cli_args *a) {
  free(a->inputs);
  free(a->shapes);
  free(a->positional);
  free(a->includes);
  free(a->excludes);
  free(a->ops);
}

/* Whether argv[first..] asks for help (before any "--"). */
int cli_wants_help(int argc, char **argv, int first) {
  for (int i = first; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 0;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
  }
  return 0;
}

int cli_one_model(const cli_args *a) {
  if (a->n_positional == 1) return CLI_OK;
  if (a->n_positional == 0)
    cli_usage_error(a->command, "%s: missing MODEL", a->command);
  else
    cli_usage_error(a->command, "%s: expected one MODEL, got %zu arguments", a->command,
                    a->n_positional);
  return CLI_USAGE;
}
