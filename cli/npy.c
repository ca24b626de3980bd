/*
 * The .npy reader and writer of the onyx command; see npy.h for the subset
 * of the format it accepts.
 *
 * The reader takes the whole file image and checks it completely before
 * allocating anything for the data: the magic string and version, the
 * header length, the header dictionary (parsed here with a small grammar
 * for exactly the Python literals numpy writes: quoted strings, True and
 * False, and tuples of non-negative decimal integers), the element type,
 * and that the data that follows is exactly as long as the shape needs.
 */
#include "npy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char NPY_MAGIC[NPY_MAGIC_LEN] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* numpy aligns the start of the data to this many bytes. */
#define NPY_ALIGN 64
/* numpy leaves room for the first dimension to grow to this many digits. */
#define NPY_GROWTH_DIGITS 21

/* The element types onyx reads and writes, with their .npy codes. */
static const struct {
  const char *descr;
  onyx_dtype dtype;
} NPY_TYPES[] = {
    {"<f4", ONYX_DTYPE_FLOAT},  {"<f8", ONYX_DTYPE_DOUBLE}, {"<f2", ONYX_DTYPE_FLOAT16},
    {"|i1", ONYX_DTYPE_INT8},   {"|u1", ONYX_DTYPE_UINT8},  {"<i2", ONYX_DTYPE_INT16},
    {"<u2", ONYX_DTYPE_UINT16}, {"<i4", ONYX_DTYPE_INT32},  {"<u4", ONYX_DTYPE_UINT32},
    {"<i8", ONYX_DTYPE_INT64},  {"<u8", ONYX_DTYPE_UINT64},
};
#define NPY_N_TYPES (sizeof NPY_TYPES / sizeof NPY_TYPES[0])

static npy_status fail(char *why, size_t why_size, npy_status st, const char *fmt, ...) {
  if (why && why_size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_size, fmt, ap);
    va_end(ap);
  }
  return st;
}

int npy_has_magic(const void *bytes, size_t size) {
  return bytes && size >= NPY_MAGIC_LEN && memcmp(bytes, NPY_MAGIC, NPY_MAGIC_LEN) == 0;
}

const char *npy_descr(onyx_dtype dtype) {
  if (dtype == ONYX_DTYPE_BFLOAT16) return "<u2";
  for (size_t i = 0; i < NPY_N_TYPES; i++)
    if (NPY_TYPES[i].dtype == dtype) return NPY_TYPES[i].descr;
  return NULL;
}

/*
 * Whether a shape is within NPY_MAX_ELEMENTS, counting the non-zero
 * dimensions even when a zero one makes the array empty (as numpy does with
 * its own, larger limit). Sets *count to the number of elements.
 */
static int shape_fits(uint32_t rank, const int64_t *dims, size_t esize, size_t *count) {
  uint64_t nonzero = 1, n = 1;
  for (uint32_t i = 0; i < rank; i++) {
    if (dims[i] < 0) return 0;
    uint64_t d = (uint64_t)dims[i];
    if (d == 0) {
      n = 0;
      continue;
    }
    if (nonzero > NPY_MAX_ELEMENTS / d) return 0;
    nonzero *= d;
    n *= d;
  }
  if (nonzero > SIZE_MAX / esize) return 0;
  *count = (size_t)n;
  return 1;
}

/* Writes "[d0, d1, ...]" into buf (always NUL-terminated). */
static void format_dims(char *buf, size_t cap, uint32_t rank, const int64_t *dims) {
  size_t len = 0;
  buf[0] = '\0';
  len += (size_t)snprintf(buf, cap, "[");
  for (uint32_t i = 0; i < rank && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%" PRId64, i ? ", " : "", dims[i]);
  if (len < cap) snprintf(buf + len, cap - len, "]");
}

/* ---- The header dictionary ---------------------------------------------- */

typedef struct hparser {
  const char *s;
  size_t len, pos;
  char *why;
  size_t why_size;
} hparser;

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void skip_space(hparser *p) {
  while (p->pos < p->len && is_space(p->s[p->pos])) p->pos++;
}

/* The next character, or '\0' at the end of the header. */
static char peek(const hparser *p) { return p->pos < p->len ? p->s[p->pos] : '\0'; }

static npy_status bad(hparser *p, const char *fmt, const char *arg) {
  char msg[160];
  snprintf(msg, sizeof msg, fmt, arg);
  return fail(p->why, p->why_size, NPY_BAD_HEADER, ".npy header: %s (at header byte %zu)", msg,
              p->pos);
}

/* A quoted string of printable ASCII without backslashes, into out[cap]. */
static npy_status parse_string(hparser *p, char *out, size_t cap) {
  char q = peek(p);
  if (q != '\'' && q != '"') return bad(p, "expected a quoted string%s", "");
  p->pos++;
  size_t n = 0;
  for (;;) {
    if (p->pos >= p->len) return bad(p, "unterminated string%s", "");
    char c = p->s[p->pos++];
    if (c == q) break;
    if (c == '\\' || (unsigned char)c < 0x20 || (unsigned char)c > 0x7e)
      return bad(p, "unsupported character in a string%s", "");
    if (n + 1 >= cap) return bad(p, "string too long%s", "");
    out[n++] = c;
  }
  out[n] = '\0';
  return NPY_OK;
}

static int is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* True or False. */
static npy_status parse_bool(hparser *p, int *out) {
  static const char *const words[2] = {"False", "True"};
  for (int v = 0; v < 2; v++) {
    size_t n = strlen(words[v]);
    if (p->len - p->pos >= n && memcmp(p->s + p->pos, words[v], n) == 0 &&
        !(p->pos + n < p->len && is_ident(p->s[p->pos + n]))) {
      p->pos += n;
      *out = v;
      return NPY_OK;
    }
  }
  return bad(p, "'fortran_order' must be True or False%s", "");
}

/* A tuple of non-negative decimal integers as Python writes it: "()",
 * "(3,)", "(2, 3)" (a trailing comma is allowed; "(3)" is not a tuple). */
static npy_status parse_shape(hparser *p, uint32_t *rank, int64_t *dims) {
  if (peek(p) != '(') return bad(p, "'shape' must be a tuple such as (2, 3)%s", "");
  p->pos++;
  uint32_t n = 0;
  int trailing_comma = 0;
  for (;;) {
    skip_space(p);
    char c = peek(p);
    if (c == ')') {
      p->pos++;
      break;
    }
    if (n > 0 && !trailing_comma) return bad(p, "expected ',' or ')' in 'shape'%s", "");
    if (c == '-') return bad(p, "negative dimension in 'shape'%s", "");
    if (c < '0' || c > '9') return bad(p, "expected a dimension in 'shape'%s", "");
    if (c == '0' && p->pos + 1 < p->len && p->s[p->pos + 1] >= '0' && p->s[p->pos + 1] <= '9')
      return bad(p, "a dimension has a leading zero%s", "");
    uint64_t v = 0;
    while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
      v = v * 10 + (uint64_t)(p->s[p->pos++] - '0');
      if (v > (uint64_t)INT64_MAX) return bad(p, "a dimension is too large%s", "");
    }
    if (is_ident(peek(p))) return bad(p, "a dimension is not a decimal integer%s", "");
    if (n == ONYX_MAX_RANK) {
      p->pos = p->len; /* the message does not need a position */
      return fail(p->why, p->why_size, NPY_UNSUPPORTED,
                  ".npy header: 'shape' has more than %d dimensions, onyx's limit",
                  ONYX_MAX_RANK);
    }
    dims[n++] = (int64_t)v;
    skip_space(p);
    trailing_comma = 0;
    if (peek(p) == ',') {
      p->pos++;
      trailing_comma = 1;
    }
  }
  if (n == 1 && !trailing_comma) return bad(p, "'shape' (N) must be written (N,)%s", "");
  *rank = n;
  return NPY_OK;
}

typedef struct npy_header {
  char descr[32];
  int descr_is_list;
  int fortran;
  uint32_t rank;
  int64_t dims[ONYX_MAX_RANK];
} npy_header;

static npy_status parse_header(hparser *p, npy_header *h) {
  int have_descr = 0, have_fortran = 0, have_shape = 0;
  npy_status st;
  if (p->len == 0 || p->s[p->len - 1] != '\n')
    return fail(p->why, p->why_size, NPY_BAD_HEADER,
                ".npy header: does not end with a newline");
  skip_space(p);
  if (peek(p) != '{') return bad(p, "expected '{'%s", "");
  p->pos++;
  for (;;) {
    skip_space(p);
    if (peek(p) == '}') {
      p->pos++;
      break;
    }
    char key[32];
    if ((st = parse_string(p, key, sizeof key)) != NPY_OK) return st;
    skip_space(p);
    if (peek(p) != ':') return bad(p, "expected ':' after '%s'", key);
    p->pos++;
    skip_space(p);
    if (strcmp(key, "descr") == 0) {
      if (have_descr) return bad(p, "key '%s' appears twice", key);
      have_descr = 1;
      if (peek(p) == '[') {
        /* A structured dtype: valid .npy, but not a tensor onyx takes.
         * Nothing after it is needed. */
        h->descr_is_list = 1;
        return fail(p->why, p->why_size, NPY_UNSUPPORTED,
                    ".npy: structured arrays (a list 'descr') are not supported");
      }
      if ((st = parse_string(p, h->descr, sizeof h->descr)) != NPY_OK) return st;
    } else if (strcmp(key, "fortran_order") == 0) {
      if (have_fortran) return bad(p, "key '%s' appears twice", key);
      have_fortran = 1;
      if ((st = parse_bool(p, &h->fortran)) != NPY_OK) return st;
    } else if (strcmp(key, "shape") == 0) {
      if (have_shape) return bad(p, "key '%s' appears twice", key);
      have_shape = 1;
      if ((st = parse_shape(p, &h->rank, h->dims)) != NPY_OK) return st;
    } else {
      return bad(p, "unknown key '%s'", key);
    }
    skip_space(p);
    if (peek(p) == ',') {
      p->pos++;
    } else if (peek(p) != '}') {
      return bad(p, "expected ',' or '}'%s", "");
    }
  }
  skip_space(p);
  if (p->pos != p->len) return bad(p, "text after the dictionary%s", "");
  if (!have_descr) return bad(p, "missing key '%s'", "descr");
  if (!have_fortran) return bad(p, "missing key '%s'", "fortran_order");
  if (!have_shape) return bad(p, "missing key '%s'", "shape");
  return NPY_OK;
}

/* Maps a descr to an onyx type, or explains why it cannot. */
static npy_status check_descr(const char *descr, onyx_dtype *dtype, char *why, size_t why_size) {
  for (size_t i = 0; i < NPY_N_TYPES; i++) {
    if (strcmp(descr, NPY_TYPES[i].descr) == 0) {
      *dtype = NPY_TYPES[i].dtype;
      return NPY_OK;
    }
  }
  if (descr[0] == '>')
    return fail(why, why_size, NPY_UNSUPPORTED,
                ".npy: big-endian data ('%s') is not supported; save it little-endian "
                "(numpy: a.astype(a.dtype.newbyteorder('<')))",
                descr);
  if (strcmp(descr, "|O") == 0 || strcmp(descr, "O") == 0 || strcmp(descr, "<O") == 0)
    return fail(why, why_size, NPY_UNSUPPORTED, ".npy: object arrays ('%s') are not supported",
                descr);
  return fail(why, why_size, NPY_UNSUPPORTED,
              ".npy: element type '%s' is not supported (onyx reads <f4, <f8, <f2, |i1, |u1, "
              "<i2, <u2, <i4, <u4, <i8, <u8; bfloat16 as <u2)",
              descr);
}

npy_status npy_decode(const void *bytes, size_t size, onyx_tensor *out, char *why,
                      size_t why_size) {
  if (!out) return fail(why, why_size, NPY_BAD_MAGIC, "no output tensor");
  memset(out, 0, sizeof *out);
  const unsigned char *b = bytes;
  if (!npy_has_magic(bytes, size))
    return fail(why, why_size, NPY_BAD_MAGIC, "not a .npy file (it does not start with "
                                              "\"\\x93NUMPY\")");
  if (size < NPY_MAGIC_LEN + 2)
    return fail(why, why_size, NPY_TRUNCATED, ".npy: the file ends inside the version");
  unsigned major = b[6], minor = b[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return fail(why, why_size, NPY_BAD_MAGIC,
                ".npy: format version %u.%u is not supported (1.0, 2.0 and 3.0 are)", major,
                minor);
  size_t len_bytes = major == 1 ? 2 : 4;
  size_t prefix = NPY_MAGIC_LEN + 2 + len_bytes;
  if (size < prefix)
    return fail(why, why_size, NPY_TRUNCATED, ".npy: the file ends inside the header length");
  size_t hlen = (size_t)b[8] | (size_t)b[9] << 8;
  if (len_bytes == 4) hlen |= (size_t)b[10] << 16 | (size_t)b[11] << 24;
  if (size - prefix < hlen)
    return fail(why, why_size, NPY_TRUNCATED,
                ".npy: the file ends inside the header (%zu of %zu header bytes)", size - prefix,
                hlen);

  npy_header h;
  memset(&h, 0, sizeof h);
  hparser p = {(const char *)b + prefix, hlen, 0, why, why_size};
  npy_status st = parse_header(&p, &h);
  if (st != NPY_OK) return st;

  onyx_dtype dtype = ONYX_DTYPE_UNDEFINED;
  if ((st = check_descr(h.descr, &dtype, why, why_size)) != NPY_OK) return st;
  if (h.fortran)
    return fail(why, why_size, NPY_UNSUPPORTED,
                ".npy: Fortran-order data is not supported; save a C-order array "
                "(numpy: np.ascontiguousarray(a))");

  size_t esize = onyx_dtype_size(dtype);
  size_t count;
  char shape[ONYX_MAX_RANK * 22 + 8];
  format_dims(shape, sizeof shape, h.rank, h.dims);
  if (!shape_fits(h.rank, h.dims, esize, &count))
    return fail(why, why_size, NPY_SIZE,
                ".npy: shape %s has too many elements: onyx takes at most 2^40 per tensor, "
                "counting every non-zero dimension",
                shape);
  size_t need = count * esize, have = size - prefix - hlen;
  if (have < need)
    return fail(why, why_size, NPY_TRUNCATED,
                ".npy: the data is truncated: %zu bytes, shape %s of '%s' needs %zu", have,
                shape, h.descr, need);
  if (have > need)
    return fail(why, why_size, NPY_SIZE,
                ".npy: %zu bytes after the data (shape %s of '%s' needs %zu, the file has %zu)",
                have - need, shape, h.descr, need, have);

  void *data = NULL;
  if (need > 0) {
    data = malloc(need);
    if (!data) return fail(why, why_size, NPY_OUT_OF_MEMORY, "out of memory");
    memcpy(data, b + prefix + hlen, need);
  }
  out->dtype = dtype;
  out->rank = h.rank;
  memcpy(out->dims, h.dims, sizeof h.dims);
  out->data = data;
  out->size = need;
  return NPY_OK;
}

/* Reads the whole file at path into a new buffer. */
static npy_status read_file(const char *path, unsigned char **data, size_t *size, char *why,
                            size_t why_size) {
  *data = NULL;
  *size = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return fail(why, why_size, NPY_IO, "cannot open: %s", strerror(errno));
  size_t cap = 4096, len = 0;
  unsigned char *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    return fail(why, why_size, NPY_OUT_OF_MEMORY, "out of memory");
  }
  for (;;) {
    if (len == cap) {
      if (cap > SIZE_MAX / 2) {
        free(buf);
        fclose(f);
        return fail(why, why_size, NPY_OUT_OF_MEMORY, "file too large");
      }
      unsigned char *grown = realloc(buf, cap * 2);
      if (!grown) {
        free(buf);
        fclose(f);
        return fail(why, why_size, NPY_OUT_OF_MEMORY, "out of memory");
      }
      buf = grown;
      cap *= 2;
    }
    size_t n = fread(buf + len, 1, cap - len, f);
    len += n;
    if (n == 0) break;
  }
  int error = ferror(f);
  fclose(f);
  if (error) {
    free(buf);
    return fail(why, why_size, NPY_IO, "read error");
  }
  *data = buf;
  *size = len;
  return NPY_OK;
}

npy_status npy_load_file(const char *path, onyx_tensor *out, char *why, size_t why_size) {
  if (out) memset(out, 0, sizeof *out);
  unsigned char *bytes;
  size_t size;
  npy_status st = read_file(path, &bytes, &size, why, why_size);
  if (st != NPY_OK) return st;
  st = npy_decode(bytes, size, out, why, why_size);
  free(bytes);
  return st;
}

/* ---- Writing ------------------------------------------------------------ */

npy_status npy_encode(const onyx_tensor *t, void **bytes, size_t *size, char *why,
                      size_t why_size) {
  *bytes = NULL;
  *size = 0;
  const char *descr = npy_descr(t->dtype);
  if (!descr)
    return fail(why, why_size, NPY_UNSUPPORTED, ".npy: element type %s has no .npy code",
                onyx_dtype_name(t->dtype));
  if (t->rank > ONYX_MAX_RANK)
    return fail(why, why_size, NPY_UNSUPPORTED, ".npy: rank %" PRIu32 " is more than %d",
                t->rank, ONYX_MAX_RANK);
  size_t esize = onyx_dtype_size(t->dtype), count;
  for (uint32_t i = 0; i < t->rank; i++)
    if (t->dims[i] < 0)
      return fail(why, why_size, NPY_SIZE, ".npy: negative dimension %" PRId64, t->dims[i]);
  if (!shape_fits(t->rank, t->dims, esize, &count))
    return fail(why, why_size, NPY_SIZE,
                ".npy: the shape has too many elements: at most 2^40, counting every non-zero "
                "dimension");
  size_t need = count * esize;
  if (t->size < need || (need > 0 && !t->data))
    return fail(why, why_size, NPY_SIZE, ".npy: the tensor holds %zu bytes, its shape needs %zu",
                t->data ? t->size : 0, need);

  /* The dictionary exactly as numpy writes it (keys sorted, repr values). */
  char header[64 + ONYX_MAX_RANK * 22 + NPY_GROWTH_DIGITS + NPY_ALIGN];
  size_t n = (size_t)snprintf(header, sizeof header,
                              "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (uint32_t i = 0; i < t->rank; i++)
    n += (size_t)snprintf(header + n, sizeof header - n, "%s%" PRId64, i ? ", " : "",
                          t->dims[i]);
  n += (size_t)snprintf(header + n, sizeof header - n, "%s), }", t->rank == 1 ? "," : "");
  if (t->rank > 0) {
    char first[24];
    size_t digits = (size_t)snprintf(first, sizeof first, "%" PRId64, t->dims[0]);
    for (size_t i = digits; i < NPY_GROWTH_DIGITS; i++) header[n++] = ' ';
  }
  /* Version 1.0 (a 2-byte header length) always suffices for these headers. */
  size_t hlen = n + 1;
  size_t pad = NPY_ALIGN - ((NPY_MAGIC_LEN + 2 + 2 + hlen) % NPY_ALIGN);
  size_t total_header = hlen + pad;
  size_t prefix = NPY_MAGIC_LEN + 2 + 2;
  if (need > SIZE_MAX - prefix - total_header)
    return fail(why, why_size, NPY_SIZE, ".npy: too large");
  size_t total = prefix + total_header + need;
  unsigned char *out = malloc(total);
  if (!out) return fail(why, why_size, NPY_OUT_OF_MEMORY, "out of memory");
  memcpy(out, NPY_MAGIC, NPY_MAGIC_LEN);
  out[6] = 1;
  out[7] = 0;
  out[8] = (unsigned char)(total_header & 0xff);
  out[9] = (unsigned char)(total_header >> 8);
  memcpy(out + prefix, header, n);
  memset(out + prefix + n, ' ', pad);
  out[prefix + n + pad] = '\n';
  if (need) memcpy(out + prefix + total_header, t->data, need);
  *bytes = out;
  *size = total;
  return NPY_OK;
}

npy_status npy_save_file(const char *path, const onyx_tensor *t, char *why, size_t why_size) {
  void *bytes;
  size_t size;
  npy_status st = npy_encode(t, &bytes, &size, why, why_size);
  if (st != NPY_OK) return st;
  FILE *f = fopen(path, "wb");
  if (!f) {
    int e = errno;
    free(bytes);
    return fail(why, why_size, NPY_IO, "cannot create: %s", strerror(e));
  }
  size_t written = fwrite(bytes, 1, size, f);
  int error = written != size || ferror(f);
  if (fclose(f) != 0) error = 1;
  free(bytes);
  if (error) return fail(why, why_size, NPY_IO, "write error");
  return NPY_OK;
}
