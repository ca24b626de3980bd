#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""onyx.custom.one_engine.py: tests/custom/test_one_engine.c's check
through Python. The registered ops of tests/custom/one_engine.py's model
(BroadcastAdd, MinMax, Sum) are numpy functions given to onyx.register_op;
the model's batches, a small one first, run at 1 and 3 threads and must
match the numpy results bit for bit.

    one_engine_py.py DIR   (DIR as one_engine.py wrote it)
"""

import os
import sys

import numpy as np
from onnx import numpy_helper, TensorProto

import onyx


def load(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def main(d):
    ex = "com.example"
    onyx.register_op("BroadcastAdd", lambda a, b: a + b, domain=ex, inputs=2)
    onyx.register_op("MinMax", lambda a, b: (np.where(a < b, a, b), np.where(a > b, a, b)),
                     domain=ex, inputs=2, outputs=2)

    def total(*xs):
        t = xs[0].copy()
        for x in xs[1:]:
            t = t + x
        return t
    onyx.register_op("Sum", total, domain=ex)  # any number of inputs
    with open(os.path.join(d, "batches.txt")) as f:
        batches = int(f.read())
    with open(os.path.join(d, "model.onnx"), "rb") as f:
        model = f.read()
    failed = 0
    for threads in (1, 3):
        s = onyx.InferenceSession(model, threads=threads)
        for b in range(batches):
            bd = os.path.join(d, "batch_%d" % b)
            x, y = (load(os.path.join(bd, "input_%d.pb" % k)) for k in range(2))
            got = s.run(None, {"x": x, "y": y})
            for k, g in enumerate(got):
                want = load(os.path.join(bd, "output_%d.pb" % k))
                if g.dtype != want.dtype or g.shape != want.shape or g.tobytes() != want.tobytes():
                    print("FAIL batch %d (N=%d), %d threads, output %d: %s %s, numpy %s %s"
                          % (b, x.shape[0], threads, k, g.dtype, g.shape, want.dtype, want.shape))
                    failed += 1
    print("%d batches at 1 and 3 threads, %d outputs differ" % (batches, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
