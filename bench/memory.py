# SPDX-License-Identifier: MIT
"""Peak memory of onyx and ONNX Runtime on one large initializer.

Writes two models, each a float initializer of COUNT elements feeding Ceil
(the graph has no inputs): one with the data embedded in the model file
(raw_data, which lands at an unaligned offset), one with it in an external
file beside the model. Then it runs, each in a child process of its own, and
reads its peak resident set size with GNU time (Debian's `time`):

  onyx info MODEL
  onyx run MODEL --output-dir DIR      (the output is written, as a user would)
  ONNX Runtime for Node.js: InferenceSession.create + run (when installed)

and prints a Markdown table in MB (10^6 bytes). A run needs the initializer
and the output, 2 x COUNT x 4 bytes; the table shows that figure too.

Usage: memory.py ONYX [--count N] [--node NODE] [--ort-dir DIR] [--keep DIR]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

TIME = "/usr/bin/time"  # Debian package `time`

ORT_SCRIPT = r"""
const ort = require(process.argv[1]);
(async () => {
  const s = await ort.InferenceSession.create(process.argv[2]);
  const out = await s.run({});
  const y = out[s.outputNames[0]];
  if (y.data.length !== Number(process.argv[3])) throw new Error('wrong output size');
})().catch((e) => { console.error(e.message); process.exit(1); });
"""


def write_models(folder, count):
    """The embedded and the external model, as paths."""
    w = numpy_helper.from_array(np.linspace(-8, 8, count, dtype=np.float32), "w")
    node = helper.make_node("Ceil", ["w"], ["y"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [count])
    graph = helper.make_graph([node], "memory", [], [y], initializer=[w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    embedded = os.path.join(folder, "embedded.onnx")
    onnx.save_model(model, embedded)
    ext_dir = os.path.join(folder, "external")
    os.mkdir(ext_dir)
    external = os.path.join(ext_dir, "model.onnx")
    onnx.save_model(model, external, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="w.bin", size_threshold=0)
    return embedded, external


def peak_mb(cmd):
    """Runs cmd under GNU time; its peak RSS in MB, or None (with the reason
    on stderr) when it failed. GNU time, not wait4() here: a child forked
    from this process starts with this process's resident pages (numpy's),
    and the kernel counts them in the child's peak."""
    with tempfile.NamedTemporaryFile("r") as rss:
        proc = subprocess.run([TIME, "-f", "%M", "-o", rss.name] + cmd,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            print("memory.py: %s failed (%d): %s" % (" ".join(cmd[:2]), proc.returncode,
                                                    proc.stderr.decode(errors="replace").strip()),
                  file=sys.stderr)
            return None
        return int(rss.read().split()[-1]) * 1024 / 1e6  # %M is in KiB


def ort_module(ort_dir):
    path = os.path.join(ort_dir, "node_modules", "onnxruntime-node")
    return path if os.path.isdir(path) else None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("onyx")
    ap.add_argument("--count", type=int, default=1 << 26)
    ap.add_argument("--node", default="node")
    ap.add_argument("--ort-dir", default=here)
    ap.add_argument("--keep", help="write the models here and keep them")
    args = ap.parse_args()
    if not os.access(TIME, os.X_OK):
        sys.exit("memory.py: %s is missing (apt-get install time)" % TIME)
    folder = args.keep or tempfile.mkdtemp(prefix="onyx-memory-")
    os.makedirs(folder, exist_ok=True)
    try:
        models = write_models(folder, args.count)
        ort = ort_module(args.ort_dir) if shutil.which(args.node) else None
        if ort is None:
            print("memory.py: ONNX Runtime for Node.js not installed; its column is empty",
                  file=sys.stderr)
        need = 2 * args.count * 4 / 1e6
        print("| model form | onyx info | onyx run --output-dir | ONNX Runtime create + run |"
              " input + output |")
        print("|---|---|---|---|---|")
        failed = False
        for name, model in zip(("embedded (raw_data)", "external data"), models):
            out_dir = os.path.join(folder, "out")
            os.makedirs(out_dir, exist_ok=True)
            cells = [peak_mb([args.onyx, "info", model]),
                     peak_mb([args.onyx, "run", model, "--output-dir", out_dir])]
            if ort is not None:
                cells.append(peak_mb([args.node, "-e", ORT_SCRIPT, ort, model, str(args.count)]))
            else:
                cells.append("")
            failed |= any(c is None for c in cells)
            shown = ["failed" if c is None else c if c == "" else "%.0f MB" % c for c in cells]
            print("| %s | %s | %.0f MB |" % (name, " | ".join(shown), need))
        return 1 if failed else 0
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
