/* SPDX-License-Identifier: MIT */
/*
 * The .npy reader and writer of the onyx command; see npy.h for the subset
 * of the format it accepts.
 *
 * The reader checks everything before allocating anything for the data:
 * the magic string and version, the header length (at most NPY_MAX_HEADER),
 * the header dictionary (parsed here with a small grammar for exactly the
 * Python literals numpy writes: quoted strings, True and False, and tuples
 * of non-negative decimal integers), the element type, and that the data
 * that follows is exactly as long as the shape needs. From a file it reads
 * the header with a bounded read and the data straight into the tensor, so
 * a file costs its data's size once.
 */
#include "npy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys.h"

/* The host's byte order: numpy files say theirs in the header. */
static int host_big_endian(void) {
  const unsigned probe = 1;
  unsigned char low;
  memcpy(&low, &probe, 1);
  return low == 0;
}

/* Reverses each width-byte element of the nbytes at p (width 1: none). */
static void reverse_elements(void *p, size_t nbytes, size_t width) {
  unsigned char *e = p;
  for (size_t left = nbytes; width > 1 && left >= width; left -= width, e += width) {
    unsigned char *lo = e, *hi = e + width - 1;
    while (lo < hi) {
      unsigned char t = *lo;
      *lo++ = *hi;
      *hi-- = t;
    }
  }
}

/* Little-endian bytes to the host's order, in place (and back). */
static void le_to_host(void *p, size_t nbytes, size_t width) {
  if (host_big_endian()) reverse_elements(p, nbytes, width);
}

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
  if (n > SIZE_MAX / esize) return 0; /* the bytes themselves must fit in memory */
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
                  ".npy header: 'shape' has more than %d dimensions, onyx's limit", ONYX_MAX_RANK);
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
    return fail(p->why, p->why_size, NPY_BAD_HEADER, ".npy header: does not end with a newline");
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

/* Maps a descr to an onyx type, or explains why it cannot; *big is whether
 * the data is big-endian ('>', which numpy writes for such arrays). */
static npy_status check_descr(const char *descr, onyx_dtype *dtype, int *big, char *why,
                              size_t why_size) {
  *big = descr[0] == '>';
  for (size_t i = 0; i < NPY_N_TYPES; i++) {
    const char *d = NPY_TYPES[i].descr;
    if (strcmp(descr, d) == 0 || (*big && d[0] == '<' && strcmp(descr + 1, d + 1) == 0)) {
      *dtype = NPY_TYPES[i].dtype;
      return NPY_OK;
    }
  }
  if (strcmp(descr, "|O") == 0 || strcmp(descr, "O") == 0 || strcmp(descr, "<O") == 0)
    return fail(why, why_size, NPY_UNSUPPORTED, ".npy: object arrays ('%s') are not supported",
                descr);
  return fail(why, why_size, NPY_UNSUPPORTED,
              ".npy: element type '%s' is not supported (onyx reads <f4, <f8, <f2, |i1, |u1, "
              "<i2, <u2, <i4, <u4, <i8, <u8, each also with '>'; bfloat16 as <u2)",
              descr);
}

/* The most bytes before the header text: magic, version, 4-byte length. */
#define NPY_PREFIX_MAX (NPY_MAGIC_LEN + 2 + 4)

/*
 * Checks the magic string, the version and the header length of a file of
 * total bytes, whose first avail bytes (at least min(total,
 * NPY_PREFIX_MAX)) are at b. Sets *prefix to the bytes before the header
 * text and *hlen to the header text's length, which is within the file and
 * at most NPY_MAX_HEADER.
 */
static npy_status decode_prefix(const unsigned char *b, size_t avail, size_t total, size_t *prefix,
                                size_t *hlen, char *why, size_t why_size) {
  if (!npy_has_magic(b, avail))
    return fail(why, why_size, NPY_BAD_MAGIC,
                "not a .npy file (it does not start with "
                "\"\\x93NUMPY\")");
  if (total < NPY_MAGIC_LEN + 2)
    return fail(why, why_size, NPY_TRUNCATED, ".npy: the file ends inside the version");
  unsigned major = b[6], minor = b[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return fail(why, why_size, NPY_BAD_MAGIC,
                ".npy: format version %u.%u is not supported (1.0, 2.0 and 3.0 are)", major, minor);
  size_t len_bytes = major == 1 ? 2 : 4;
  *prefix = NPY_MAGIC_LEN + 2 + len_bytes;
  if (total < *prefix)
    return fail(why, why_size, NPY_TRUNCATED, ".npy: the file ends inside the header length");
  *hlen = (size_t)b[8] | (size_t)b[9] << 8;
  if (len_bytes == 4) *hlen |= (size_t)b[10] << 16 | (size_t)b[11] << 24;
  if (total - *prefix < *hlen)
    return fail(why, why_size, NPY_TRUNCATED,
                ".npy: the file ends inside the header (%zu of %zu header bytes)", total - *prefix,
                *hlen);
  if (*hlen > NPY_MAX_HEADER)
    return fail(why, why_size, NPY_BAD_HEADER,
                ".npy: a header of %zu bytes: onyx reads at most %d (numpy writes a few "
                "hundred)",
                *hlen, NPY_MAX_HEADER);
  return NPY_OK;
}

/*
 * Parses the header text (hlen bytes) and checks it against the have bytes
 * of data that follow it: sets out's dtype, rank, dims and size (the data
 * bytes, which equal have), leaving out->data NULL.
 */
static npy_status decode_header(const char *text, size_t hlen, size_t have, onyx_tensor *out,
                                int *big, char *why, size_t why_size) {
  npy_header h;
  memset(&h, 0, sizeof h);
  hparser p = {text, hlen, 0, why, why_size};
  npy_status st = parse_header(&p, &h);
  if (st != NPY_OK) return st;

  onyx_dtype dtype = ONYX_DTYPE_UNDEFINED;
  if ((st = check_descr(h.descr, &dtype, big, why, why_size)) != NPY_OK) return st;
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
  size_t need = count * esize;
  if (have < need)
    return fail(why, why_size, NPY_TRUNCATED,
                ".npy: the data is truncated: %zu bytes, shape %s of '%s' needs %zu", have, shape,
                h.descr, need);
  if (have > need)
    return fail(why, why_size, NPY_SIZE,
                ".npy: %zu bytes after the data (shape %s of '%s' needs %zu, the file has %zu)",
                have - need, shape, h.descr, need, have);
  out->dtype = dtype;
  out->rank = h.rank;
  memcpy(out->dims, h.dims, sizeof h.dims);
  out->size = need;
  return NPY_OK;
}

/* Puts t's data, big-endian or not as the file said, in host order. */
static void to_host(onyx_tensor *t, int big) {
  if (big != host_big_endian()) reverse_elements(t->data, t->size, onyx_dtype_size(t->dtype));
}

npy_status npy_decode(const void *bytes, size_t size, onyx_tensor *out, char *why,
                      size_t why_size) {
  if (!out) return fail(why, why_size, NPY_BAD_MAGIC, "no output tensor");
  memset(out, 0, sizeof *out);
  const unsigned char *b = bytes;
  size_t prefix = 0, hlen = 0;
  int big = 0;
  npy_status st = decode_prefix(b, size, size, &prefix, &hlen, why, why_size);
  if (st == NPY_OK)
    st = decode_header((const char *)b + prefix, hlen, size - prefix - hlen, out, &big, why,
                       why_size);
  if (st != NPY_OK) {
    memset(out, 0, sizeof *out);
    return st;
  }
  if (out->size > 0) {
    out->data = malloc(out->size);
    if (!out->data) {
      memset(out, 0, sizeof *out);
      return fail(why, why_size, NPY_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(out->data, b + prefix + hlen, out->size);
    to_host(out, big);
  }
  return NPY_OK;
}

/* Reads exactly n bytes; a short read means the file changed under us. */
static npy_status read_exact(FILE *f, void *buf, size_t n, char *why, size_t why_size) {
  if (n == 0 || fread(buf, 1, n, f) == n) return NPY_OK;
  if (ferror(f)) return fail(why, why_size, NPY_IO, "read error");
  return fail(why, why_size, NPY_TRUNCATED, ".npy: the file shrank while it was read");
}

/* Reads the header of the file f of total bytes, then its data straight
 * into out's new buffer. */
static npy_status read_npy(FILE *f, size_t total, onyx_tensor *out, char *why, size_t why_size) {
  unsigned char head[NPY_PREFIX_MAX];
  size_t avail = total < sizeof head ? total : sizeof head;
  size_t prefix = 0, hlen = 0;
  int big = 0;
  npy_status st = read_exact(f, head, avail, why, why_size);
  if (st == NPY_OK) st = decode_prefix(head, avail, total, &prefix, &hlen, why, why_size);
  if (st != NPY_OK) return st;
  /* head may hold the first bytes of the header text (version 1.0). */
  char *text = malloc(hlen ? hlen : 1);
  if (!text) return fail(why, why_size, NPY_OUT_OF_MEMORY, "out of memory");
  size_t early = avail - prefix < hlen ? avail - prefix : hlen;
  memcpy(text, head + prefix, early);
  st = read_exact(f, text + early, hlen - early, why, why_size);
  if (st == NPY_OK) st = decode_header(text, hlen, total - prefix - hlen, out, &big, why, why_size);
  free(text);
  if (st != NPY_OK) return st;
  if (out->size > 0 && (out->data = malloc(out->size)) == NULL)
    return fail(why, why_size, NPY_OUT_OF_MEMORY, "out of memory");
  /* Whatever head holds past the header is data (decode_header checked
   * that the data is out->size bytes, so this fits). */
  size_t spill = avail - prefix - early;
  if (spill) memcpy(out->data, head + prefix + early, spill);
  /* An empty array has no buffer: no pointer arithmetic on NULL. */
  if (out->size > spill)
    st = read_exact(f, (unsigned char *)out->data + spill, out->size - spill, why, why_size);
  if (st == NPY_OK && fgetc(f) != EOF)
    st = fail(why, why_size, NPY_SIZE, ".npy: the file grew while it was read");
  if (st == NPY_OK && out->size > 0) to_host(out, big);
  return st;
}

npy_status npy_load_file(const char *path, onyx_tensor *out, char *why, size_t why_size) {
  if (!out) return fail(why, why_size, NPY_BAD_MAGIC, "no output tensor");
  memset(out, 0, sizeof *out);
  /* Like the .pb reader, anything but a regular file (a FIFO, /dev/zero)
   * is refused at once. */
  cli_stat sb;
  int e;
  FILE *f = cli_sys_open_regular(path, &sb, &e);
  npy_status st = NPY_OK;
  if (e != 0)
    st = fail(why, why_size, NPY_IO, "cannot open: %s", strerror(e));
  else if (sb.kind == CLI_KIND_FOLDER)
    st = fail(why, why_size, NPY_IO, "is a folder, not a file");
  else if (sb.kind != CLI_KIND_FILE)
    st = fail(why, why_size, NPY_IO, "not a regular file");
  else if (sb.size > SIZE_MAX)
    st = fail(why, why_size, NPY_SIZE, ".npy: the file is too large for this machine");
  if (st != NPY_OK) {
    if (f) fclose(f);
    return st;
  }
  st = read_npy(f, (size_t)sb.size, out, why, why_size);
  fclose(f);
  if (st != NPY_OK) {
    free(out->data);
    memset(out, 0, sizeof *out);
  }
  return st;
}

/* ---- Writing ------------------------------------------------------------ */

/* The bytes before the data: magic, version, length and padded header. */
#define NPY_HEADER_MAX \
  (NPY_MAGIC_LEN + 4 + 64 + ONYX_MAX_RANK * 22 + NPY_GROWTH_DIGITS + 2 * NPY_ALIGN)

/*
 * Writes the .npy header of tensor t into out (NPY_HEADER_MAX bytes) as
 * numpy writes it: *out_len receives its length and *need the data's.
 */
static npy_status encode_header(const onyx_tensor *t, unsigned char *out, size_t *out_len,
                                size_t *need, char *why, size_t why_size) {
  const char *descr = npy_descr(t->dtype);
  if (!descr)
    return fail(why, why_size, NPY_UNSUPPORTED, ".npy: element type %s has no .npy code",
                onyx_dtype_name(t->dtype));
  if (t->rank > ONYX_MAX_RANK)
    return fail(why, why_size, NPY_UNSUPPORTED, ".npy: rank %" PRIu32 " is more than %d", t->rank,
                ONYX_MAX_RANK);
  size_t esize = onyx_dtype_size(t->dtype), count;
  for (uint32_t i = 0; i < t->rank; i++)
    if (t->dims[i] < 0)
      return fail(why, why_size, NPY_SIZE, ".npy: negative dimension %" PRId64, t->dims[i]);
  if (!shape_fits(t->rank, t->dims, esize, &count))
    return fail(why, why_size, NPY_SIZE,
                ".npy: the shape has too many elements: at most 2^40, counting every non-zero "
                "dimension");
  *need = count * esize;
  if (t->size < *need || (*need > 0 && !t->data))
    return fail(why, why_size, NPY_SIZE, ".npy: the tensor holds %zu bytes, its shape needs %zu",
                t->data ? t->size : 0, *need);

  /* The dictionary exactly as numpy writes it (keys sorted, repr values). */
  char header[64 + ONYX_MAX_RANK * 22 + NPY_GROWTH_DIGITS + NPY_ALIGN];
  size_t n = (size_t)snprintf(header, sizeof header,
                              "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (uint32_t i = 0; i < t->rank; i++)
    n += (size_t)snprintf(header + n, sizeof header - n, "%s%" PRId64, i ? ", " : "", t->dims[i]);
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
  memcpy(out, NPY_MAGIC, NPY_MAGIC_LEN);
  out[6] = 1;
  out[7] = 0;
  out[8] = (unsigned char)(total_header & 0xff);
  out[9] = (unsigned char)(total_header >> 8);
  memcpy(out + prefix, header, n);
  memset(out + prefix + n, ' ', pad);
  out[prefix + n + pad] = '\n';
  *out_len = prefix + total_header;
  return NPY_OK;
}

npy_status npy_encode(const onyx_tensor *t, void **bytes, size_t *size, char *why,
                      size_t why_size) {
  *bytes = NULL;
  *size = 0;
  unsigned char header[NPY_HEADER_MAX];
  size_t hlen, need;
  npy_status st = encode_header(t, header, &hlen, &need, why, why_size);
  if (st != NPY_OK) return st;
  if (need > SIZE_MAX - hlen) return fail(why, why_size, NPY_SIZE, ".npy: too large");
  unsigned char *out = malloc(hlen + need);
  if (!out) return fail(why, why_size, NPY_OUT_OF_MEMORY, "out of memory");
  memcpy(out, header, hlen);
  if (need) memcpy(out + hlen, t->data, need);
  le_to_host(out + hlen, need, onyx_dtype_size(t->dtype)); /* the header says '<' */
  *bytes = out;
  *size = hlen + need;
  return NPY_OK;
}

/* Writes the n bytes of host-order elements width wide at p to f,
 * little-endian as the header says: on a big-endian host converted a block
 * at a time. 1 on a write error. */
static int write_le(FILE *f, const void *p, size_t n, size_t width) {
  if (!host_big_endian()) return n && fwrite(p, 1, n, f) != n;
  unsigned char block[4096]; /* a multiple of every element size */
  for (const unsigned char *b = p; n > 0;) {
    size_t k = n < sizeof block ? n : sizeof block;
    memcpy(block, b, k);
    le_to_host(block, k, width);
    if (fwrite(block, 1, k, f) != k) return 1;
    b += k;
    n -= k;
  }
  return 0;
}

/* Writes the header, then the tensor's data from where it is: no copy. */
npy_status npy_save_file(const char *path, const onyx_tensor *t, char *why, size_t why_size) {
  unsigned char header[NPY_HEADER_MAX];
  size_t hlen, need;
  npy_status st = encode_header(t, header, &hlen, &need, why, why_size);
  if (st != NPY_OK) return st;
  FILE *f = cli_sys_fopen(path, "wb");
  if (!f) return fail(why, why_size, NPY_IO, "cannot create: %s", strerror(errno));
  int error =
      fwrite(header, 1, hlen, f) != hlen || write_le(f, t->data, need, onyx_dtype_size(t->dtype));
  if (fclose(f) != 0) error = 1;
  if (error) return fail(why, why_size, NPY_IO, "write error");
  return NPY_OK;
}
