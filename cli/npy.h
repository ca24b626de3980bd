/* SPDX-License-Identifier: MIT */
/*
 * A small, strict reader and writer for numpy's .npy files, for the onyx
 * command. Debian packages no C library for the format, and the subset onyx
 * needs is small:
 *
 *   - format versions 1.0, 2.0 and 3.0;
 *   - C order only ('fortran_order': False);
 *   - element types '<f4', '<f8', '<f2', '|i1', '|u1', '<i2', '<u2', '<i4',
 *     '<u4', '<i8', '<u8', and the big-endian ('>') forms of the multi-byte
 *     ones: the reader gives host-order elements, the writer writes '<';
 *   - rank 0 to ONYX_MAX_RANK, and at most NPY_MAX_ELEMENTS (2^40) elements.
 *
 * Anything else (Fortran order, object, bool, complex or
 * structured arrays, a malformed header, truncated data, bytes after the
 * data) is an error with a message that says which. numpy has no bfloat16:
 * the writer stores a bfloat16 tensor as '<u2' bit patterns, and a caller
 * that expects bfloat16 accepts '<u2' (npy_read gives ONYX_DTYPE_UINT16).
 *
 * The writer produces the same bytes as numpy 1.24's np.save for the same
 * array: the oldest version the header fits in, the header dictionary in
 * sorted key order, padded with spaces so that the data starts at a multiple
 * of 64 bytes, and the spare room numpy leaves for growing the first axis.
 */
#ifndef ONYX_CLI_NPY_H
#define ONYX_CLI_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "onyx.h"

/* What went wrong, for callers (and tests) that need more than the text. */
typedef enum npy_status {
  NPY_OK = 0,
  NPY_IO, /* the file could not be opened, read or written */
  NPY_OUT_OF_MEMORY,
  NPY_BAD_MAGIC,   /* not a .npy file, or a format version other than 1, 2, 3 */
  NPY_BAD_HEADER,  /* the header is not a valid dictionary of the three keys */
  NPY_UNSUPPORTED, /* valid .npy, but a byte order, order or type onyx does not take */
  NPY_TRUNCATED,   /* the file ends inside the header or the data */
  NPY_SIZE,        /* the data size does not match the shape (extra bytes, overflow) */
} npy_status;

/* The most elements an array may have, counting every non-zero dimension
 * (so that a zero elsewhere cannot hide a huge one): onyx's own limit per
 * tensor (ONYX_LIMIT in docs/errors.md). numpy's limit, 2^63 bytes, is
 * larger; no array between the two fits in memory. */
#define NPY_MAX_ELEMENTS ((uint64_t)1 << 40)

/* The longest header text onyx reads. numpy writes a few hundred bytes
 * (and its own reader refuses more than 10,000 by default). */
#define NPY_MAX_HEADER 65536

/* The length of the magic string "\x93NUMPY". */
#define NPY_MAGIC_LEN 6

/* Whether the size bytes at bytes start with the .npy magic string. */
int npy_has_magic(const void *bytes, size_t size);

/*
 * Decodes the .npy file image of size bytes at bytes into *out: dtype, rank,
 * dims, and data, a new malloc'ed copy of the elements (NULL for an empty
 * array; release with free) of out->size bytes. On failure, *out is zeroed
 * and a one-line message (no file name) is written into why[why_size].
 */
npy_status npy_decode(const void *bytes, size_t size, onyx_tensor *out, char *why, size_t why_size);

/* Like npy_decode, on the contents of the file at path, which must be a
 * regular file (anything else is NPY_IO "not a regular file", at once).
 * The header is read with a bounded read, the data straight into the new
 * buffer: a file costs its data's size in memory, once. */
npy_status npy_load_file(const char *path, onyx_tensor *out, char *why, size_t why_size);

/*
 * Encodes tensor t as a .npy file image: *bytes receives a new malloc'ed
 * buffer of *size bytes. bfloat16 is written as '<u2'. Fails with
 * NPY_UNSUPPORTED for a type without a .npy code and NPY_SIZE when the
 * tensor's size is smaller than its shape needs.
 */
npy_status npy_encode(const onyx_tensor *t, void **bytes, size_t *size, char *why, size_t why_size);

/* Like npy_encode, writing the bytes to the file at path. */
npy_status npy_save_file(const char *path, const onyx_tensor *t, char *why, size_t why_size);

/* The .npy type code onyx uses for dtype ("<f4"), or NULL if there is none.
 * bfloat16 gives "<u2". */
const char *npy_descr(onyx_dtype dtype);

#endif /* ONYX_CLI_NPY_H */
