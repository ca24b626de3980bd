# SPDX-License-Identifier: MIT
"""Writes seed .npy files for fuzz_npy into OUTDIR: every element type the
reader takes, ranks 0 to 3, an empty array, and format versions 1.0, 2.0
and 3.0, as numpy writes them. Deterministic.

    python3 fuzz/make_npy_seeds.py OUTDIR
"""
import io
import os
import sys

import numpy as np

TYPES = ["<f4", "<f8", "<f2", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8"]
SHAPES = [(), (0,), (3,), (2, 3), (1, 2, 2)]


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: make_npy_seeds.py OUTDIR\n")
        return 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    n = 0
    for t in TYPES:
        for s in SHAPES:
            a = (rng.standard_normal(s) * 50).astype(np.dtype(t))
            for version in [(1, 0), (2, 0), (3, 0)]:
                if version != (1, 0) and s not in [(3,), ()]:
                    continue
                buf = io.BytesIO()
                np.lib.format.write_array(buf, a, version=version)
                name = "%s_%s_v%d.npy" % (t[1:], "x".join(map(str, s)) or "scalar", version[0])
                with open(os.path.join(out, name), "wb") as f:
                    f.write(buf.getvalue())
                n += 1
    print("%d seeds in %s" % (n, out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
