#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""examples/custom_op.c in Python: onyx has no LeakyRelu, so a numpy
function serves it, and onyx's own kernels serve Clip and Floor in
examples/custom_op.onnx. Run from the repository root with the package
on the path (PYTHONPATH=python) and numpy installed."""

import numpy as np

import onyx

onyx.register_op("LeakyRelu", lambda x, alpha=0.01: np.where(x >= 0, x, x * np.float32(alpha)),
                 since=6, inputs=1, attributes=("alpha",))
sess = onyx.InferenceSession("examples/custom_op.onnx")
x = np.array([-8, -3, -1, -0.5, 0, 0.5, 3.5, 7], dtype=np.float32)
y, z = sess.run(None, {"x": x})
print(" ".join("%g" % v for v in y))
print(" ".join("%g" % v for v in z))
