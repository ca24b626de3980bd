# SPDX-License-Identifier: MIT
"""Uses an installed onyx package as a program would, and checks it.

    python3 installed_use.py MODEL LIBDIR

imports onyx (from wherever the interpreter finds it: a venv after pip
install, /usr/lib/python3/dist-packages after the Debian package), checks
that the library it loaded lies in LIBDIR, runs examples/chain.onnx (MODEL)
and compares its three outputs with numpy's. Used by the tests
ecosystem.pip and ecosystem.debian; it is also the program that
ecosystem.mypy type-checks against the package's hints, so it is written
the way a user's typed code would be.
"""

import os
import sys

import numpy as np
import numpy.typing as npt

import onyx


def check(model: str, libdir: str) -> None:
    lib = os.path.realpath(onyx.library_path)
    if not lib.startswith(os.path.realpath(libdir) + os.sep):
        raise SystemExit("onyx loaded %s, not a library in %s" % (lib, libdir))
    sess = onyx.InferenceSession(model)
    x_arg: onyx.NodeArg = sess.get_inputs()[0]
    x: npt.NDArray[np.float32] = np.linspace(-4, 4, 8, dtype=np.float32)
    outputs = sess.run(None, {x_arg.name: x})
    names = [o.name for o in sess.get_outputs()]
    want = {"clipped": np.clip(np.ceil(x), -2, 2), "floor": np.floor(x)}
    want["sign"] = np.sign(want["clipped"])
    if sorted(names) != sorted(want):
        raise SystemExit("outputs %s, expected %s" % (names, sorted(want)))
    for name, got in zip(names, outputs):
        if not np.array_equal(np.asarray(got), want[name]):
            raise SystemExit("output %s: %s, numpy says %s" % (name, got, want[name]))
    print("onyx %s from %s: %s outputs as numpy's" % (onyx.__version__, lib, len(names)))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: installed_use.py MODEL LIBDIR")
    check(sys.argv[1], sys.argv[2])
