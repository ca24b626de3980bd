# SPDX-License-Identifier: MIT
"""A program written against onyx's type hints, as a user's typed code
would be: the test ecosystem.mypy runs mypy --strict over it and the
package, then runs it.

    PYTHONPATH=python python3 tests/python/typed_api.py MODEL

It also checks that the fields SessionOptions and RunOptions declare for
type checkers are the ones they have at run time.
"""

import sys
from typing import List

import numpy as np
import numpy.typing as npt

import onyx


def run(model: str) -> None:
    opts = onyx.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.graph_optimization_level = onyx.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = onyx.InferenceSession(model, opts)
    x: npt.NDArray[np.float32] = np.linspace(-4, 4, 8, dtype=np.float32)
    name: str = sess.get_inputs()[0].name
    outputs: List[npt.NDArray[np.float32]] = sess.run(None, {name: x})
    ceiled: npt.NDArray[np.float32] = onyx.ceil(x)
    clipped = onyx.clip(ceiled, -2, 2)
    if not np.array_equal(outputs[0], clipped):
        raise SystemExit("run and the kernels disagree: %s, %s" % (outputs[0], clipped))

    value = onyx.OrtValue.ortvalue_from_numpy(x)
    binding = sess.io_binding()
    binding.bind_ortvalue_input(name, value)
    binding.bind_output("floor")
    run_options = onyx.RunOptions()
    run_options.terminate = False
    sess.run_with_iobinding(binding, run_options)
    floor: npt.NDArray[np.float32] = binding.copy_outputs_to_cpu()[0]
    if not np.array_equal(floor, np.floor(x)):
        raise SystemExit("floor through IOBinding: %s" % floor)

    try:
        sess.run(None, {})
    except onyx.OnyxError as e:
        status: "int | None" = e.status
        if status is None or not e.message:
            raise SystemExit("an OnyxError without status or message: %r" % e)
    else:
        raise SystemExit("a run without inputs did not raise")

    for cls in (onyx.SessionOptions, onyx.RunOptions):
        declared = {n for n in cls.__annotations__ if not n.startswith("_")}
        if declared != set(cls._FIELDS):
            raise SystemExit("%s declares %s, has %s" % (cls.__name__, sorted(declared),
                                                         sorted(cls._FIELDS)))
    print("typed_api: onyx %s (%s), opsets up to %d" % (onyx.get_version_string(),
                                                        onyx.isa_detected(), onyx.max_opset()))


if __name__ == "__main__":
    run(sys.argv[1])
