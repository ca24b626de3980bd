/* SPDX-License-Identifier: MIT */
/*
 * The self-test (onyx_selftest in onyx.h): every bit pattern of the 8- and
 * 16-bit types, and all 2^32 float32 patterns or a fixed subset, through
 * every element-wise op and the kernel of every ISA level the CPU has,
 * each output hashed with SHA-256 and compared with numpy's digest.
 *
 * The cases are the lines of selftest_digests.h, which
 * tests/gen/selftest_digests.py writes from numpy and which a test checks
 * against a fresh run of the generator: the list of cases and the expected
 * digests exist once, there. Each line names an op, a type, Clip's two
 * bounds (as kinds: -inf, the type's lowest, -1, -0, ...), the input set
 * and the digest.
 *
 * Inputs: "all" is every pattern of the type in increasing order of its
 * unsigned bits (0x0000, 0x0001, ... 0xffff). For float32 that is 2^32
 * patterns, hashed as 256 leaves of 2^24 patterns each: the digest is the
 * SHA-256 of the 256 leaf digests, concatenated in order, so that leaves
 * can be hashed on several threads. "subset" (float32 only) is the
 * 327,680 patterns (h << 16) | l for h = 0 .. 65535 and, for each h, l in
 * 0x0000, 0x0001, 0x7fff, 0x8000, 0xffff: every sign, exponent and high
 * mantissa, each with its lowest, highest and middle low bits, which
 * covers the integers, the halves between them, the subnormals, the
 * infinities and quiet and signalling NaNs of both signs. Outputs are
 * hashed as little-endian bytes on every host.
 *
 * Cost: the kernels of the levels below the best are not hashed; their
 * outputs are compared with the best level's, byte for byte, and hashed
 * only if they differ. Work is split into jobs of one case's leaf and
 * run on a pool of threads; memory is a few chunks per thread.
 */
#include <assert.h>
#include <string.h>

#include "core/alloc.h"
#include "core/byteorder.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/format.h"
#include "kernels/kernels.h"
#include "onyx.h"
#include "thread/pool.h"
#include "verify/selftest_digests.h"
#include "verify/sha256.h"

/* The bound kinds of the digest lines: X(NAME, label). */
#define ONYX__ST_BOUND_MAP(X) \
  X(NONE, "none")             \
  X(NINF, "-inf")             \
  X(LOWEST, "lowest")         \
  X(M1, "-1")                 \
  X(NZERO, "-0")              \
  X(PZERO, "+0")              \
  X(ONE, "1")                 \
  X(MAX, "max")               \
  X(PINF, "+inf")             \
  X(NAN, "nan")

typedef enum st_bound {
#define ONYX_X_(name, label) ST_B_##name,
  ONYX__ST_BOUND_MAP(ONYX_X_)
#undef ONYX_X_
      ST_B_COUNT
} st_bound;

static const char *const BOUND_LABELS[ST_B_COUNT] = {
#define ONYX_X_(name, label) label,
    ONYX__ST_BOUND_MAP(ONYX_X_)
#undef ONYX_X_
};

typedef enum st_set { ST_SET_ALL, ST_SET_SUBSET } st_set;

/* One line of selftest_digests.h. */
typedef struct st_line {
  onyx__kop op;
  onyx_dtype dtype;
  st_bound lo, hi;
  st_set set;
  const char *digest;
} st_line;

static const st_line LINES[] = {
#define ONYX_X_(op, dtype, lo, hi, set, digest) \
  {ONYX__KOP_##op, ONYX_DTYPE_##dtype, ST_B_##lo, ST_B_##hi, ST_SET_##set, digest},
    ONYX__SELFTEST_DIGESTS(ONYX_X_)
#undef ONYX_X_
};
#define N_LINES (sizeof LINES / sizeof LINES[0])

/* The ONNX names of the ops, and "lo=.. hi=.." labels, both static. */
static const char *op_name(onyx__kop op) {
  static const char *const names[ONYX__KOP_COUNT] = {"Ceil", "Floor", "Clip", "Sign"};
  return names[op];
}
static_assert(ONYX__KOP_COUNT == 4, "op names above");

#define ONYX_X_(name, label) "lo=" label " hi=",
static const char *const LO_LABELS[ST_B_COUNT] = {ONYX__ST_BOUND_MAP(ONYX_X_)};
#undef ONYX_X_

/* The subset's low halves (see the top of the file). */
static const uint32_t SUBSET_LOW[] = {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0xffffu};
#define SUBSET_N_LOW (sizeof SUBSET_LOW / sizeof SUBSET_LOW[0])

#define LEAF_LOG2 24    /* patterns per leaf of a 2^32 set */
#define CHUNK     4096u /* patterns per kernel call */

/* The most kernels one (op, type) can have: one per ISA level. */
#define ONYX_X_(name, value, lname, arch, desc) +1
enum { ST_MAX_LEVELS = 0 ONYX_ISA_MAP(ONYX_X_) };
#undef ONYX_X_

/*
 * The bits of bound kind b for type t, in t's host representation, into
 * out. Returns false where the kind is not one of t's values (-0 or NaN of
 * an integer, -1 of an unsigned type).
 */
static bool bound_value(onyx_dtype t, st_bound b, void *out) {
  /* -inf, lowest, -1, -0, +0, 1, max, +inf, NaN: the bits per float type. */
  static const uint16_t F16[] = {0xfc00, 0xfbff, 0xbc00, 0x8000, 0, 0x3c00, 0x7bff, 0x7c00, 0x7e00};
  static const uint16_t BF16[] = {0xff80, 0xff7f, 0xbf80, 0x8000, 0,
                                  0x3f80, 0x7f7f, 0x7f80, 0x7fc0};
  static const uint32_t F32[] = {0xff800000u, 0xff7fffffu, 0xbf800000u, 0x80000000u, 0,
                                 0x3f800000u, 0x7f7fffffu, 0x7f800000u, 0x7fc00000u};
  static_assert(ST_B_NAN - ST_B_NINF + 1 == 9, "one entry per kind above");
  if (b == ST_B_NONE) return false;
  size_t k = (size_t)(b - ST_B_NINF);
  switch (t) {
    case ONYX_DTYPE_FLOAT16:
      memcpy(out, &F16[k], 2);
      return true;
    case ONYX_DTYPE_BFLOAT16:
      memcpy(out, &BF16[k], 2);
      return true;
    case ONYX_DTYPE_FLOAT:
      memcpy(out, &F32[k], 4);
      return true;
    default:
      break;
  }
  /* Integers: lowest, -1, 0, 1 and max. */
  int64_t v;
  bool is_signed = t == ONYX_DTYPE_INT8 || t == ONYX_DTYPE_INT16;
  size_t size = onyx__dtype_size(t);
  int64_t max = is_signed ? (INT64_C(1) << (8 * size - 1)) - 1 : (INT64_C(1) << (8 * size)) - 1;
  switch (b) {
    case ST_B_LOWEST:
      v = is_signed ? -max - 1 : 0;
      break;
    case ST_B_M1:
      if (!is_signed) return false;
      v = -1;
      break;
    case ST_B_PZERO:
      v = 0;
      break;
    case ST_B_ONE:
      v = 1;
      break;
    case ST_B_MAX:
      v = max;
      break;
    default:
      return false;
  }
  if (size == 1) {
    uint8_t u = (uint8_t)(v & 0xff);
    memcpy(out, &u, 1);
  } else {
    uint16_t u = (uint16_t)(v & 0xffff);
    memcpy(out, &u, 2);
  }
  return true;
}

/* A line made ready to run: its kernels, best level first, and params. */
typedef struct st_case {
  const st_line *line;
  size_t size;        /* bytes per element */
  uint64_t count;     /* patterns */
  size_t leaves;      /* jobs: 256 for 2^32 patterns, else 1 */
  size_t first_job;   /* index of its first job */
  unsigned n_kernels; /* 0: onyx has no kernel for (op, type) */
  onyx__ukernel kernels[ST_MAX_LEVELS];
  onyx_isa isas[ST_MAX_LEVELS];
  onyx__kparams params;
  unsigned differs; /* levels whose output differed from level 0's */
  bool run;         /* false: left out (float32 "all" in a quick run) */
} st_case;

/* One job: one leaf of one case. */
typedef struct st_job {
  st_case *c;
  uint64_t first; /* index of its first pattern */
  uint64_t count;
  unsigned hash;    /* levels to hash (bit 0 always) */
  unsigned differs; /* levels not hashed whose output differed */
  unsigned char digest[ST_MAX_LEVELS][ONYX__SHA256_BYTES];
} st_job;

typedef struct st_run {
  st_job *jobs;
  size_t n_jobs;
  unsigned char *scratch; /* per worker: an input chunk and one output chunk per level */
  size_t scratch_per_worker;
  bool phase2; /* rehashing jobs of cases that differed */
} st_run;

/*
 * The distinct kernels of (op, t) at the levels this CPU has, best first:
 * for each level, the kernel dispatch chooses with that level as the cap,
 * kept where it is of that level itself (else it is a lower level's,
 * found there).
 */
static unsigned case_kernels(onyx__kop op, onyx_dtype t, onyx__ukernel *k, onyx_isa *isa) {
  static const onyx_isa LEVELS[] = {
#define ONYX_X_(name, value, lname, arch, desc) ONYX_ISA_##name,
      ONYX_ISA_MAP(ONYX_X_)
#undef ONYX_X_
  };
  unsigned n = 0;
  for (size_t i = sizeof LEVELS / sizeof LEVELS[0]; i-- > 0;) {
    onyx__ukernel kernel = onyx__kernel_get(op, t, LEVELS[i]);
    if (kernel == NULL || onyx__kernel_isa(op, t, LEVELS[i]) != LEVELS[i]) continue;
    bool seen = false;
    for (unsigned j = 0; j < n; j++) seen = seen || k[j] == kernel;
    if (seen || n == ST_MAX_LEVELS) continue;
    k[n] = kernel;
    isa[n] = LEVELS[i];
    n++;
  }
  return n;
}

/* Writes patterns first .. first + n - 1 of case c into in, host order. */
static void fill_inputs(const st_case *c, uint64_t first, size_t n, void *in) {
  if (c->size == 1) {
    uint8_t *p = in;
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(first + i);
  } else if (c->size == 2) {
    uint16_t *p = in;
    for (size_t i = 0; i < n; i++) p[i] = (uint16_t)(first + i);
  } else if (c->line->set == ST_SET_ALL) {
    uint32_t *p = in;
    for (size_t i = 0; i < n; i++) p[i] = (uint32_t)(first + i);
  } else {
    uint32_t *p = in;
    for (size_t i = 0; i < n; i++) {
      uint64_t j = first + i;
      p[i] = (uint32_t)(j / SUBSET_N_LOW) << 16 | SUBSET_LOW[j % SUBSET_N_LOW];
    }
  }
}

static void run_job(void *ctx, size_t task, unsigned worker) {
  st_run *run = ctx;
  st_job *job = &run->jobs[task];
  const st_case *c = job->c;
  if (run->phase2 && job->hash == 1u) return;
  unsigned char *in = run->scratch + (size_t)worker * run->scratch_per_worker;
  unsigned char *out = in + CHUNK * c->size;
  onyx__sha256 sha[ST_MAX_LEVELS];
  for (unsigned j = 0; j < c->n_kernels; j++) onyx__sha256_init(&sha[j]);
  job->differs = 0;
  for (uint64_t done = 0; done < job->count; done += CHUNK) {
    size_t n = job->count - done < CHUNK ? (size_t)(job->count - done) : CHUNK;
    size_t bytes = n * c->size;
    fill_inputs(c, job->first + done, n, in);
    for (unsigned j = 0; j < c->n_kernels; j++) {
      unsigned char *y = out + (size_t)j * CHUNK * c->size;
      c->kernels[j](n, in, y, &c->params);
      if (j > 0 && !(job->hash >> j & 1u) && memcmp(y, out, bytes) != 0) job->differs |= 1u << j;
    }
    for (unsigned j = 0; j < c->n_kernels; j++) {
      if (!(job->hash >> j & 1u)) continue;
      unsigned char *y = out + (size_t)j * CHUNK * c->size;
      onyx__le_to_host(y, bytes, c->size); /* host to little-endian */
      onyx__sha256_update(&sha[j], y, bytes);
    }
  }
  for (unsigned j = 0; j < c->n_kernels; j++) {
    if (job->hash >> j & 1u) onyx__sha256_final(&sha[j], job->digest[j]);
  }
}

/* The digest of level j of case c from its jobs' leaf digests. */
static void case_digest(const st_run *run, const st_case *c, unsigned j, char hex[65]) {
  unsigned char d[ONYX__SHA256_BYTES];
  const st_job *jobs = &run->jobs[c->first_job];
  /* A level that matched level 0 everywhere has level 0's outputs. */
  unsigned src = (c->differs >> j & 1u) ? j : 0;
  if (c->leaves == 1) {
    memcpy(d, jobs[0].digest[src], sizeof d);
  } else {
    onyx__sha256 sha;
    onyx__sha256_init(&sha);
    for (size_t i = 0; i < c->leaves; i++) onyx__sha256_update(&sha, jobs[i].digest[src], sizeof d);
    onyx__sha256_final(&sha, d);
  }
  onyx__sha256_hex(d, hex);
}

static bool fill_case(st_case *c, const st_line *line, bool quick) {
  memset(c, 0, sizeof *c);
  c->line = line;
  c->size = onyx__dtype_size(line->dtype);
  c->run = !(quick && c->size == 4 && line->set == ST_SET_ALL);
  if (line->set == ST_SET_SUBSET) {
    c->count = (uint64_t)65536 * SUBSET_N_LOW;
  } else {
    c->count = (uint64_t)1 << (8 * c->size);
  }
  c->leaves = c->count > ((uint64_t)1 << LEAF_LOG2) ? (size_t)(c->count >> LEAF_LOG2) : 1;
  c->n_kernels = case_kernels(line->op, line->dtype, c->kernels, c->isas);
  unsigned char lo[8], hi[8];
  bool has_lo = bound_value(line->dtype, line->lo, lo);
  bool has_hi = bound_value(line->dtype, line->hi, hi);
  if (line->op == ONYX__KOP_CLIP) {
    onyx__clip_params(line->dtype, has_lo ? lo : NULL, has_hi ? hi : NULL, &c->params);
  }
  c->params.stream = false;
  return c->run;
}

/* Reports every level of case c to fn; returns fn's non-zero to stop. */
static int report_case(const st_run *run, const st_case *c, onyx_selftest_fn fn, void *arg,
                       size_t *failed) {
  const st_line *line = c->line;
  char bounds[32] = "";
  if (line->op == ONYX__KOP_CLIP) {
    onyx__format(bounds, sizeof bounds, "%s%s", LO_LABELS[line->lo], BOUND_LABELS[line->hi]);
  }
  onyx_selftest_case r;
  memset(&r, 0, sizeof r);
  r.op = op_name(line->op);
  r.dtype = line->dtype;
  r.bounds = bounds;
  r.patterns = line->set == ST_SET_ALL ? "all" : "subset";
  r.count = c->count;
  r.expected = line->digest;
  if (c->n_kernels == 0) {
    /* The line names an (op, type) onyx has no kernel for. */
    r.isa = ONYX_ISA_SCALAR;
    (*failed)++;
    return fn ? fn(arg, &r) : 0;
  }
  for (unsigned j = 0; j < c->n_kernels; j++) {
    r.isa = c->isas[j];
    case_digest(run, c, j, r.digest);
    r.pass = strcmp(r.digest, line->digest) == 0;
    if (!r.pass) (*failed)++;
    if (fn) {
      int stop = fn(arg, &r);
      if (stop) return stop;
    }
  }
  return 0;
}

onyx_status onyx_selftest(const onyx_selftest_options *opts, onyx_selftest_fn fn, void *arg,
                          size_t *failed, onyx_error *err) {
  onyx_selftest_options o;
  memset(&o, 0, sizeof o);
  if (opts) o = *opts;
  if (o.flags & ~ONYX_SELFTEST_QUICK) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "selftest: unknown flags 0x%x",
                      o.flags & ~ONYX_SELFTEST_QUICK);
  }
  bool quick = (o.flags & ONYX_SELFTEST_QUICK) != 0;
  size_t n_failed = 0;
  st_case *cases = onyx__calloc(N_LINES, sizeof *cases);
  if (!cases) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "selftest: out of memory");
  st_run run;
  memset(&run, 0, sizeof run);
  for (size_t i = 0; i < N_LINES; i++) {
    if (fill_case(&cases[i], &LINES[i], quick) && cases[i].n_kernels > 0) {
      cases[i].first_job = run.n_jobs;
      run.n_jobs += cases[i].leaves;
    }
  }
  unsigned threads = o.threads ? o.threads : onyx__cpu_count();
  if (threads > onyx__pool_max_workers()) threads = onyx__pool_max_workers();
  if (threads > run.n_jobs) threads = run.n_jobs > 0 ? (unsigned)run.n_jobs : 1;
  run.scratch_per_worker = (size_t)(1 + ST_MAX_LEVELS) * CHUNK * 4;
  run.jobs = onyx__calloc(run.n_jobs ? run.n_jobs : 1, sizeof *run.jobs);
  run.scratch = onyx__calloc(threads, run.scratch_per_worker);
  onyx__pool *pool = NULL;
  onyx_status st = ONYX_OK;
  if (!run.jobs || !run.scratch) {
    st = onyx__fail(err, ONYX_OUT_OF_MEMORY, "selftest: out of memory");
  } else if (threads > 1) {
    st = onyx__pool_create(threads, &pool, err);
  }
  if (st == ONYX_OK) {
    for (size_t i = 0; i < N_LINES; i++) {
      st_case *c = &cases[i];
      if (!c->run || c->n_kernels == 0) continue;
      for (size_t l = 0; l < c->leaves; l++) {
        st_job *job = &run.jobs[c->first_job + l];
        job->c = c;
        job->count = c->count / c->leaves;
        job->first = job->count * l;
        job->hash = 1u;
      }
    }
    onyx__pool_run(pool, run.n_jobs, run_job, &run);
    /* The levels that differed from level 0 somewhere are hashed in full. */
    bool again = false;
    for (size_t i = 0; i < run.n_jobs; i++) run.jobs[i].c->differs |= run.jobs[i].differs;
    for (size_t i = 0; i < run.n_jobs; i++) {
      run.jobs[i].hash = 1u | run.jobs[i].c->differs;
      again = again || run.jobs[i].hash != 1u;
    }
    if (again) {
      run.phase2 = true;
      onyx__pool_run(pool, run.n_jobs, run_job, &run);
    }
    for (size_t i = 0; i < N_LINES; i++) {
      if (!cases[i].run) continue;
      if (report_case(&run, &cases[i], fn, arg, &n_failed) != 0) break;
    }
  }
  onyx__pool_free(pool);
  onyx__free(run.scratch);
  onyx__free(run.jobs);
  onyx__free(cases);
  if (failed) *failed = n_failed;
  return st;
}
