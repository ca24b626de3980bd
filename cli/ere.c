/* SPDX-License-Identifier: MIT */
/*
 * POSIX extended regular expressions for onyx test's --include and
 * --exclude where the C library has no regcomp (Windows): the syntax of
 * regcomp(REG_EXTENDED | REG_NOSUB) in the C locale, on bytes, answering
 * only "does it match somewhere". See ere.h.
 *
 * The expression is parsed into a tree, the tree compiled into a program
 * for a Thompson machine, and the machine runs every thread in step, so a
 * match costs O(text length x program length) whatever the expression:
 * no backtracking, no exponential case. {m,n} copies its operand, so the
 * program's size is capped (CLI_REGEX_MAX_PROGRAM), and so is the tree's.
 */
#include "ere.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLI_REGEX_MAX_PROGRAM 20000
/* Compiling recurses once per tree level, and a concatenation is as deep
 * as it is long: the cap keeps that within a thread's stack. */
#define CLI_REGEX_MAX_NODES 4000
#define CLI_REGEX_DUP_MAX   32767 /* glibc's RE_DUP_MAX */

/* ---- The tree ------------------------------------------------------------- */

typedef enum { N_CHAR, N_ANY, N_SET, N_BOL, N_EOL, N_EMPTY, N_CAT, N_ALT, N_REP } node_kind;

typedef struct node {
  node_kind kind;
  int a, b;     /* N_CAT, N_ALT: children; N_REP: child in a */
  int min, max; /* N_REP: max -1 is unbounded */
  unsigned char c;
  uint8_t set[32]; /* N_SET: one bit per byte */
} node;

typedef struct parser {
  const char *p;
  node *nodes;
  int n, cap, depth;
  const char *error;
} parser;

static int add_node(parser *ps, node_kind kind) {
  if (ps->n == ps->cap) {
    int cap = ps->cap ? ps->cap * 2 : 32;
    node *grown =
        ps->cap >= CLI_REGEX_MAX_NODES ? NULL : realloc(ps->nodes, (size_t)cap * sizeof *grown);
    if (!grown) {
      ps->error = "the expression is too large";
      return -1;
    }
    ps->nodes = grown;
    ps->cap = cap;
  }
  memset(&ps->nodes[ps->n], 0, sizeof(node));
  ps->nodes[ps->n].kind = kind;
  return ps->n++;
}

static int pair(parser *ps, node_kind kind, int a, int b) {
  int n = a < 0 || b < 0 ? -1 : add_node(ps, kind);
  if (n >= 0) ps->nodes[n].a = a, ps->nodes[n].b = b;
  return n;
}

/* The bytes of a [:name:] class. */
static int in_class(const char *name, size_t len, int c) {
  static const char *const names[] = {"alpha", "digit",  "alnum", "upper", "lower", "space",
                                      "punct", "xdigit", "blank", "cntrl", "print", "graph"};
  int alpha = (c | 0x20) >= 'a' && (c | 0x20) <= 'z', digit = c >= '0' && c <= '9';
  int graph = c > 0x20 && c < 0x7f;
  int is[] = {alpha,
              digit,
              alpha || digit,
              c >= 'A' && c <= 'Z',
              c >= 'a' && c <= 'z',
              c == ' ' || (c >= '\t' && c <= '\r'),
              graph && !alpha && !digit,
              digit || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'),
              c == ' ' || c == '\t',
              c < 0x20 || c == 0x7f,
              c >= 0x20 && c < 0x7f,
              graph};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0) return is[i];
  return -1;
}

static void set_bit(uint8_t *set, int c) { set[c >> 3] |= (uint8_t)(1u << (c & 7)); }

/* [...] after the '['. */
static int parse_set(parser *ps) {
  int n = add_node(ps, N_SET);
  if (n < 0) return -1;
  uint8_t set[32] = {0};
  int negate = *ps->p == '^';
  if (negate) ps->p++;
  for (int first = 1; first || *ps->p != ']'; first = 0) {
    if (*ps->p == '\0') return ps->error = "'[' without its ']'", -1;
    if (ps->p[0] == '[' && ps->p[1] == ':') {
      const char *end = strstr(ps->p + 2, ":]");
      if (!end || in_class(ps->p + 2, (size_t)(end - ps->p - 2), 'a') < 0)
        return ps->error = "an unknown character class", -1;
      for (int c = 1; c < 256; c++)
        if (in_class(ps->p + 2, (size_t)(end - ps->p - 2), c)) set_bit(set, c);
      ps->p = end + 2;
      continue;
    }
    unsigned char lo = (unsigned char)*ps->p++, hi = lo;
    if (ps->p[0] == '-' && ps->p[1] != ']' && ps->p[1] != '\0') {
      hi = (unsigned char)ps->p[1];
      ps->p += 2;
      if (hi < lo) return ps->error = "an invalid range end", -1;
    }
    for (int c = lo; c <= hi; c++) set_bit(set, c);
  }
  ps->p++;
  for (int i = 0; i < 32; i++) ps->nodes[n].set[i] = negate ? (uint8_t)~set[i] : set[i];
  ps->nodes[n].set[0] &= (uint8_t)~1u; /* never the NUL byte */
  return n;
}

static int parse_alt(parser *ps);

static int parse_atom(parser *ps) {
  char c = *ps->p++;
  int n;
  switch (c) {
    case '(':
      if (++ps->depth > 100) return ps->error = "parentheses nested too deeply", -1;
      n = *ps->p == ')' ? add_node(ps, N_EMPTY) : parse_alt(ps);
      ps->depth--;
      if (n >= 0 && *ps->p++ != ')') return ps->error = "'(' without its ')'", -1;
      return n;
    case '[':
      return parse_set(ps);
    case '.':
      return add_node(ps, N_ANY);
    case '^':
      return add_node(ps, N_BOL);
    case '$':
      return add_node(ps, N_EOL);
    case '\\':
      if (*ps->p == '\0') return ps->error = "a trailing backslash", -1;
      c = *ps->p++;
      break;
    case '*':
    case '+':
    case '?':
    case '{':
      return ps->error = "a repetition of nothing", -1;
    default:
      break;
  }
  n = add_node(ps, N_CHAR);
  if (n >= 0) ps->nodes[n].c = (unsigned char)c;
  return n;
}

/* "{m}", "{m,}" or "{m,n}" after the '{'. */
static int parse_bounds(parser *ps, int *min, int *max) {
  char *end;
  long lo = strtol(ps->p, &end, 10), hi = lo;
  if (end == ps->p || *ps->p == '-' || *ps->p == '+') return 0;
  ps->p = end;
  if (*ps->p == ',') {
    ps->p++;
    hi = *ps->p == '}' ? -1 : strtol(ps->p, &end, 10);
    if (hi >= 0 && (end == ps->p || *ps->p == '-' || *ps->p == '+')) return 0;
    if (hi >= 0) ps->p = end;
  }
  if (*ps->p++ != '}' || lo > CLI_REGEX_DUP_MAX || hi > CLI_REGEX_DUP_MAX || (hi >= 0 && hi < lo))
    return 0;
  *min = (int)lo, *max = (int)hi;
  return 1;
}

static int parse_repeat(parser *ps) {
  int n = parse_atom(ps);
  while (n >= 0 && (*ps->p == '*' || *ps->p == '+' || *ps->p == '?' || *ps->p == '{')) {
    int min = *ps->p == '+', max = *ps->p == '?' ? 1 : -1;
    if (*ps->p++ == '{' && !parse_bounds(ps, &min, &max))
      return ps->error = "an invalid repetition count", -1;
    int r = add_node(ps, N_REP);
    if (r < 0) return -1;
    ps->nodes[r].a = n, ps->nodes[r].min = min, ps->nodes[r].max = max;
    n = r;
  }
  return n;
}

/* Whether a concatenation ends here: at the end, a '|', or a ')' that
 * closes a group (outside one, glibc takes ')' as itself). */
static int cat_ends(const parser *ps) {
  return *ps->p == '\0' || *ps->p == '|' || (*ps->p == ')' && ps->depth > 0);
}

static int parse_cat(parser *ps) {
  if (cat_ends(ps)) return add_node(ps, N_EMPTY);
  int n = parse_repeat(ps);
  while (n >= 0 && !cat_ends(ps)) n = pair(ps, N_CAT, n, parse_repeat(ps));
  return n;
}

static int parse_alt(parser *ps) {
  int n = parse_cat(ps);
  while (n >= 0 && *ps->p == '|') {
    ps->p++;
    n = pair(ps, N_ALT, n, parse_cat(ps));
  }
  return n;
}

/* ---- The program ------------------------------------------------------------ */

typedef enum { I_CHAR, I_ANY, I_SET, I_BOL, I_EOL, I_SPLIT, I_JMP, I_MATCH } op_kind;

typedef struct inst {
  op_kind op;
  int x, y; /* I_SPLIT: both; I_JMP: x; I_CHAR: x the byte; I_SET: x the node */
} inst;

struct cli_ere {
  node *nodes;
  inst *prog;
  int n, cap;
};

static int emit(cli_ere *re, op_kind op, int x, int y) {
  if (re->n == re->cap) {
    int cap = re->cap ? re->cap * 2 : 64;
    inst *grown =
        re->cap >= CLI_REGEX_MAX_PROGRAM ? NULL : realloc(re->prog, (size_t)cap * sizeof *grown);
    if (!grown) return -1;
    re->prog = grown;
    re->cap = cap;
  }
  re->prog[re->n] = (inst){op, x, y};
  return re->n++;
}

static int compile_node(cli_ere *re, int i);

/* x{min,max}: min copies, then max - min optional ones (or a loop). */
static int compile_rep(cli_ere *re, const node *nd) {
  for (int k = 0; k < nd->min; k++)
    if (compile_node(re, nd->a) < 0) return -1;
  if (nd->max < 0) { /* L: split body, out; body; jmp L */
    int split = emit(re, I_SPLIT, 0, 0);
    if (split < 0 || compile_node(re, nd->a) < 0 || emit(re, I_JMP, split, 0) < 0) return -1;
    re->prog[split].x = split + 1, re->prog[split].y = re->n;
    return 0;
  }
  for (int k = nd->min; k < nd->max; k++) {
    int split = emit(re, I_SPLIT, 0, 0);
    if (split < 0 || compile_node(re, nd->a) < 0) return -1;
    re->prog[split].x = split + 1, re->prog[split].y = re->n;
  }
  return 0;
}

static int compile_node(cli_ere *re, int i) {
  const node *nd = &re->nodes[i];
  switch (nd->kind) {
    case N_CHAR:
      return emit(re, I_CHAR, nd->c, 0);
    case N_ANY:
      return emit(re, I_ANY, 0, 0);
    case N_SET:
      return emit(re, I_SET, i, 0);
    case N_BOL:
      return emit(re, I_BOL, 0, 0);
    case N_EOL:
      return emit(re, I_EOL, 0, 0);
    case N_EMPTY:
      return 0;
    case N_CAT:
      return compile_node(re, nd->a) < 0 ? -1 : compile_node(re, nd->b);
    case N_ALT: { /* split L1, L2; L1: a; jmp end; L2: b; end: */
      int split = emit(re, I_SPLIT, 0, 0);
      if (split < 0 || compile_node(re, nd->a) < 0) return -1;
      int jmp = emit(re, I_JMP, 0, 0);
      if (jmp < 0) return -1;
      re->prog[split].x = split + 1, re->prog[split].y = re->n;
      if (compile_node(re, re->nodes[i].b) < 0) return -1;
      re->prog[jmp].x = re->n;
      return 0;
    }
    case N_REP:
      return compile_rep(re, nd);
  }
  return -1;
}

int cli_ere_compile(cli_ere **out, const char *expr, char *why, size_t why_size) {
  *out = NULL;
  parser ps = {expr, NULL, 0, 0, 0, NULL};
  int root = parse_alt(&ps);
  if (root >= 0 && *ps.p != '\0') ps.error = "an unexpected character";
  cli_ere *re = ps.error ? NULL : calloc(1, sizeof *re);
  if (re) {
    re->nodes = ps.nodes;
    if (compile_node(re, root) < 0 || emit(re, I_MATCH, 0, 0) < 0)
      ps.error = "the expression is too large";
  } else if (!ps.error) {
    ps.error = "out of memory";
  }
  if (ps.error) {
    snprintf(why, why_size, "%s", ps.error);
    if (re)
      cli_ere_free(re);
    else
      free(ps.nodes);
    return 1;
  }
  *out = re;
  return 0;
}

/* ---- The machine ------------------------------------------------------------ */

/* The machine's state: the threads of this step and the next, as program
 * counters; marks say which pcs a step has added (mark: the step's
 * number); stack: the epsilon closure's work list (each pc, once marked,
 * pushes at most two others, so 2n + 1 entries do). */
typedef struct machine {
  int *now, *next, *stack;
  unsigned *marks;
} machine;

/* Adds pc and what it reaches without reading a byte to list; 1 when that
 * reaches the match. at: the position, for ^ and $. */
static int add_thread(const cli_ere *re, machine *m, int *list, int *n, unsigned mark, int pc,
                      size_t at, size_t len) {
  int top = 0;
  m->stack[top++] = pc;
  while (top > 0) {
    pc = m->stack[--top];
    if (m->marks[pc] == mark) continue;
    m->marks[pc] = mark;
    const inst *in = &re->prog[pc];
    if (in->op == I_MATCH) return 1;
    if (in->op == I_JMP) {
      m->stack[top++] = in->x;
    } else if (in->op == I_SPLIT) {
      m->stack[top++] = in->y;
      m->stack[top++] = in->x;
    } else if ((in->op == I_BOL && at == 0) || (in->op == I_EOL && at == len)) {
      m->stack[top++] = pc + 1;
    } else if (in->op != I_BOL && in->op != I_EOL) {
      list[(*n)++] = pc;
    }
  }
  return 0;
}

static int reads(const cli_ere *re, const inst *in, unsigned char c) {
  switch (in->op) {
    case I_CHAR:
      return c == (unsigned char)in->x;
    case I_ANY:
      return 1;
    case I_SET:
      return (re->nodes[in->x].set[c >> 3] >> (c & 7)) & 1;
    default:
      return 0;
  }
}

int cli_ere_matches(const cli_ere *re, const char *text) {
  size_t len = strlen(text), n = (size_t)re->n;
  machine m = {malloc(n * sizeof(int)), malloc(n * sizeof(int)), malloc((2 * n + 2) * sizeof(int)),
               calloc(n, sizeof(unsigned))};
  int found = 0, n_now = 0;
  unsigned mark = 1; /* the step's mark: the threads in m.now were added under it */
  if (!m.now || !m.next || !m.stack || !m.marks) len = 0, found = -1;
  for (size_t at = 0; found == 0; at++) {
    /* A thread starts at every position: the match may begin anywhere. */
    found = add_thread(re, &m, m.now, &n_now, mark, 0, at, len);
    if (found || at == len) break;
    int n_next = 0;
    mark++;
    unsigned char c = (unsigned char)text[at];
    for (int t = 0; t < n_now && !found; t++)
      if (reads(re, &re->prog[m.now[t]], c))
        found = add_thread(re, &m, m.next, &n_next, mark, m.now[t] + 1, at + 1, len);
    int *swap = m.now;
    m.now = m.next, m.next = swap;
    n_now = n_next;
  }
  free(m.now), free(m.next), free(m.stack), free(m.marks);
  return found == 1;
}

void cli_ere_free(cli_ere *re) {
  if (!re) return;
  free(re->nodes);
  free(re->prog);
  free(re);
}
