# SPDX-License-Identifier: MIT
"""The expected digests of `onyx selftest`, computed with numpy, the ONNX
reference (the semantics of tests/gen/casegen.py, which the conformance
cases use too).

Writes src/verify/selftest_digests.h: one line per case, X(op, type, Clip's
low bound, high bound, input set, SHA-256 of the outputs). The cases:
  - int8, uint8, int16, uint16: Sign, and Clip over a grid of bounds;
  - float16, bfloat16: Ceil, Floor, Sign, and Clip over a grid of bounds;
    every one on all patterns of the type;
  - float32 on all 2^32 patterns: Ceil, Floor, Sign, Clip(-1, 1);
  - float32 on the subset (src/verify/selftest.c describes it): Ceil,
    Floor, Sign, and Clip over the grid of bounds.
The grid is every (low, high) pair of the bound kinds the type has: absent,
-inf, the lowest finite value, -1, -0, +0, 1, the largest finite value,
+inf and NaN for the float types; absent, the minimum, -1, 0, 1 and the
maximum for the signed integers; absent, 0, 1 and the maximum for the
unsigned ones. min > max and ties between the zeros are in it.

Inputs are every pattern in increasing order of the unsigned bits; outputs
are hashed as little-endian bytes. All 2^32 float32 patterns are hashed as
256 leaves of 2^24 patterns: the digest is the SHA-256 of the 256 leaf
digests, concatenated in order.

Usage: selftest_digests.py OUT.h           write the header
       selftest_digests.py --check FILE.h  exit 1 unless FILE.h is what
                                           numpy gives now
Needs numpy 1.24 (Debian 12's /usr/bin/python3); the float32 leaves run
on one process per CPU and take about a minute.
"""

import hashlib
import multiprocessing
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from casegen import Tens, bf16_to_f32, f32_to_bf16, ref_ceil, ref_clip, ref_floor, ref_sign  # noqa: E402

FLOAT_KINDS = ["NONE", "NINF", "LOWEST", "M1", "NZERO", "PZERO", "ONE", "MAX", "PINF", "NAN"]
SIGNED_KINDS = ["NONE", "LOWEST", "M1", "PZERO", "ONE", "MAX"]
UNSIGNED_KINDS = ["NONE", "PZERO", "ONE", "MAX"]

# The bits of each float bound kind, as in src/verify/selftest.c.
FLOAT_BITS = {
    "float16": [0xfc00, 0xfbff, 0xbc00, 0x8000, 0, 0x3c00, 0x7bff, 0x7c00, 0x7e00],
    "bfloat16": [0xff80, 0xff7f, 0xbf80, 0x8000, 0, 0x3f80, 0x7f7f, 0x7f80, 0x7fc0],
    "float": [0xff800000, 0xff7fffff, 0xbf800000, 0x80000000, 0,
              0x3f800000, 0x7f7fffff, 0x7f800000, 0x7fc00000],
}

C_TYPES = {"int8": "INT8", "uint8": "UINT8", "int16": "INT16", "uint16": "UINT16",
           "float16": "FLOAT16", "bfloat16": "BFLOAT16", "float": "FLOAT"}
BITS = {"int8": np.uint8, "uint8": np.uint8, "int16": np.uint16, "uint16": np.uint16,
        "float16": np.uint16, "bfloat16": np.uint16, "float": np.uint32}
SUBSET_LOW = [0x0000, 0x0001, 0x7fff, 0x8000, 0xffff]
LEAF = 1 << 24


def kinds(dtype):
    if dtype in FLOAT_BITS:
        return FLOAT_KINDS
    return SIGNED_KINDS if dtype.startswith("int") else UNSIGNED_KINDS


def bound(dtype, kind):
    """The bound as a numpy scalar of dtype's compute type, or None."""
    if kind == "NONE":
        return None
    if dtype in FLOAT_BITS:
        bits = FLOAT_BITS[dtype][FLOAT_KINDS.index(kind) - 1]
        if dtype == "float16":
            return np.array([bits], dtype=np.uint16).view(np.float16)[0]
        if dtype == "bfloat16":
            return bf16_to_f32(np.array([bits], dtype=np.uint16))[0]
        return np.array([bits], dtype=np.uint32).view(np.float32)[0]
    info = np.iinfo(dtype)
    value = {"LOWEST": info.min, "M1": -1, "PZERO": 0, "ONE": 1, "MAX": info.max}[kind]
    return np.dtype(dtype).type(value)


def cases():
    """(op, dtype, lo kind, hi kind, set) in the order of the header."""
    out = []
    for dtype in ["int8", "uint8", "int16", "uint16", "float16", "bfloat16", "float"]:
        sets = ["SUBSET"] if dtype == "float" else ["ALL"]
        if dtype == "float":
            out += [("CEIL", dtype, "NONE", "NONE", "ALL"), ("FLOOR", dtype, "NONE", "NONE", "ALL"),
                    ("SIGN", dtype, "NONE", "NONE", "ALL"), ("CLIP", dtype, "M1", "ONE", "ALL")]
        for s in sets:
            if dtype in FLOAT_BITS:
                out += [("CEIL", dtype, "NONE", "NONE", s), ("FLOOR", dtype, "NONE", "NONE", s)]
            out.append(("SIGN", dtype, "NONE", "NONE", s))
            for lo in kinds(dtype):
                for hi in kinds(dtype):
                    out.append(("CLIP", dtype, lo, hi, s))
    return out


def patterns(dtype, s, first=0, count=None):
    """The input patterns as bits (unsigned storage of dtype's width)."""
    u = BITS[dtype]
    if s == "SUBSET":
        h = np.repeat(np.arange(65536, dtype=np.uint32), len(SUBSET_LOW)) << np.uint32(16)
        return h | np.tile(np.array(SUBSET_LOW, dtype=np.uint32), 65536)
    n = 1 << (8 * np.dtype(u).itemsize)
    count = n if count is None else count
    return np.arange(count, dtype=u) + u(first)


def reference(op, x, lo, hi):
    if op == "CEIL":
        return ref_ceil(x)
    if op == "FLOOR":
        return ref_floor(x)
    if op == "SIGN":
        return ref_sign(x)
    return ref_clip(x, lo, hi)


def outputs(case, bits):
    """The reference's output bytes (little-endian) for the input bits."""
    op, dtype, lo, hi, _ = case
    lo, hi = bound(dtype, lo), bound(dtype, hi)
    if dtype != "bfloat16":
        x = Tens(dtype, bits.view(np.dtype(dtype) if dtype != "float" else np.float32))
        a = reference(op, x, lo, hi).arr
    else:
        # numpy has no bfloat16: the reference computes in float32 and
        # rounds back. The one deliberate difference (README.md, "Self-test"):
        # where the float32 result is the widened input itself, bit for bit,
        # the result is the bfloat16 input as it was, as numpy's float16 and
        # float32 Sign and Clip return a signalling NaN; rounding would set
        # its quiet bit. Only the 126 signalling NaN patterns change.
        c = bf16_to_f32(bits)
        r = reference(op, Tens("float", c), lo, hi).arr
        a = np.where(r.view(np.uint32) == c.view(np.uint32), bits, f32_to_bf16(r))
    return np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).data


def leaf_digest(args):
    case, first = args
    return hashlib.sha256(outputs(case, patterns(case[1], "ALL", first, LEAF))).digest()


def digest(case, pool):
    op, dtype, lo, hi, s = case
    if dtype == "float" and s == "ALL":
        leaves = pool.map(leaf_digest, [(case, i * LEAF) for i in range(1 << 8)])
        return hashlib.sha256(b"".join(leaves)).hexdigest()
    return hashlib.sha256(outputs(case, patterns(dtype, s))).hexdigest()


def header():
    np.seterr(all="ignore")
    lines = [
        "/* SPDX-License-Identifier: MIT */",
        "/*",
        " * The cases of onyx_selftest and numpy's SHA-256 of each output, written",
        " * by tests/gen/selftest_digests.py (numpy %s); do not edit. A test runs" % np.__version__,
        " * the generator again and compares. X(op, type, Clip low bound, high",
        " * bound, input set, digest); src/verify/selftest.c says what they mean.",
        " */",
        "#ifndef ONYX_VERIFY_SELFTEST_DIGESTS_H",
        "#define ONYX_VERIFY_SELFTEST_DIGESTS_H",
        "",
        "/* One case a line, as the generator writes them. */",
        "/* clang-format off */",
        "#define ONYX__SELFTEST_DIGESTS(X) \\",
    ]
    with multiprocessing.Pool(os.cpu_count() or 1) as pool:
        for case in cases():
            op, dtype, lo, hi, s = case
            lines.append('  X(%s, %s, %s, %s, %s, "%s") \\'
                         % (op, C_TYPES[dtype], lo, hi, s, digest(case, pool)))
    lines[-1] = lines[-1][:-2]
    lines += ["/* clang-format on */", "", "#endif", ""]
    return "\n".join(lines)


def main(argv):
    if len(argv) == 3 and argv[1] == "--check":
        want = header()
        with open(argv[2]) as f:
            have = f.read()
        if have != want:
            for a, b in zip(have.splitlines(), want.splitlines()):
                if a != b:
                    print("differs:\n  file:  %s\n  numpy: %s" % (a, b))
            print("FAIL %s is not what numpy gives; regenerate it with %s %s"
                  % (argv[2], argv[0], argv[2]))
            return 1
        print("%s matches numpy (%d cases)" % (argv[2], len(cases())))
        return 0
    if len(argv) == 2:
        text = header()
        with open(argv[1], "w") as f:
            f.write(text)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
