#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Batch inference with onyx on a Dask cluster.

Two chunked dask arrays run through onyx by ``map_blocks``: a float32
vector through Ceil -> Clip(-2, 2) -> Sign, and a uint8 image stack (2-D
chunks) through Clip(16, 235). The sessions are made once, here, and sent
to the cluster in a worker plugin: each worker restores them once from the
pickle (model bytes, options, threads) and every task on that worker uses
them. The outputs are checked against numpy over the whole arrays, and the
throughput and the number of workers are printed.

    examples/dask_batch.py                    # a LocalCluster of 2 worker processes
    examples/dask_batch.py --workers 1
    examples/dask_batch.py --single           # the same chunks in this process, no Dask
    examples/dask_batch.py --scheduler tcp://10.0.0.5:8786   # an existing cluster

Needs numpy, onnx (to build the two models), dask and distributed
(Debian: python3-dask python3-distributed), and onyx importable on the
workers (PYTHONPATH=python, with ONYX_LIBRARY where libonyx.so is not
found by itself). See docs/scaling.md.
"""

import argparse
import os
import sys
import time

import numpy as np
from onnx import TensorProto, helper

import onyx

PLUGIN = "onyx-sessions"


# ---- The models and their numpy references ---------------------------------

def _model(nodes, elem_type, shape, initializers):
    graph = helper.make_graph(nodes, "batch", [helper.make_tensor_value_info("x", elem_type, shape)],
                              [helper.make_tensor_value_info("y", elem_type, shape)],
                              initializer=initializers)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m.SerializeToString()


def models():
    """name -> serialized model: 'float32' over a vector of any length,
    'uint8' over a matrix of any shape."""
    f, u = TensorProto.FLOAT, TensorProto.UINT8
    return {
        "float32": _model([helper.make_node("Ceil", ["x"], ["c"]),
                           helper.make_node("Clip", ["c", "lo", "hi"], ["d"]),
                           helper.make_node("Sign", ["d"], ["y"])], f, ["N"],
                          [helper.make_tensor("lo", f, [], [-2.0]),
                           helper.make_tensor("hi", f, [], [2.0])]),
        "uint8": _model([helper.make_node("Clip", ["x", "lo", "hi"], ["y"])], u, ["N", "M"],
                        [helper.make_tensor("lo", u, [], [16]),
                         helper.make_tensor("hi", u, [], [235])]),
    }


REFERENCE = {
    "float32": lambda x: np.sign(np.clip(np.ceil(x), np.float32(-2), np.float32(2))),
    "uint8": lambda x: np.clip(x, np.uint8(16), np.uint8(235)),
}


def sessions(threads):
    return {name: onyx.InferenceSession(m, threads=threads) for name, m in models().items()}


# ---- On the workers ------------------------------------------------------------

try:
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # --single runs without Dask
    WorkerPlugin = object


class SessionPlugin(WorkerPlugin):
    """Carries the sessions to every worker, the ones that join later and
    those the cluster restarts included: unpickling the plugin on a worker
    restores each session once, from the model bytes it carries."""

    name = PLUGIN

    def __init__(self, sessions):
        self.sessions = sessions
        self.tasks = 0

    def setup(self, worker):
        self.pid = os.getpid()


def infer(block, name):
    """One chunk through the worker's session for model `name`."""
    from distributed import get_worker
    plugin = get_worker().plugins[PLUGIN]
    plugin.tasks += 1
    sess = plugin.sessions[name]
    return sess.run(None, {"x": block})[0]


def worker_report(dask_worker):
    """(pid, tasks run, id of each session): one session per model and worker."""
    plugin = dask_worker.plugins[PLUGIN]
    return plugin.pid, plugin.tasks, sorted(id(s) for s in plugin.sessions.values())


# ---- The client ----------------------------------------------------------------

def arrays(elements, chunk, seed=0):
    """The two input arrays, made on the workers, chunk by chunk (so that
    they are reproducible: a lost chunk is remade the same)."""
    import dask.array as da
    rs = da.random.RandomState(seed)
    x = (rs.standard_normal(elements, chunks=chunk) * 3).astype(np.float32)
    cols = 1024
    rows = max(elements // cols, 1)
    images = rs.randint(0, 256, size=(rows, cols), chunks=(max(chunk // cols, 1), cols))
    return {"float32": x, "uint8": images.astype(np.uint8)}


def run(client, elements, chunk, threads=1, seed=0, check=True, block=None):
    """Runs both arrays through onyx on the client's cluster. Returns
    {name: (input, output, seconds)}, the arrays as numpy; raises
    AssertionError if an output differs from numpy's in any bit. block:
    the function applied to each chunk (default infer)."""
    from distributed import wait
    client.register_worker_plugin(SessionPlugin(sessions(threads)), name=PLUGIN)
    out = {}
    for name, x in arrays(elements, chunk, seed).items():
        x = client.persist(x)
        wait(x)  # the inputs are on the workers before the clock starts
        start = time.perf_counter()
        y = client.persist(x.map_blocks(block or infer, name, dtype=x.dtype))
        wait(y)
        seconds = time.perf_counter() - start
        xs, ys = client.compute([x, y], sync=True)
        if check:
            check_same(name, ys, REFERENCE[name](xs))
        out[name] = (xs, ys, seconds)
    return out


def check_same(name, got, want):
    if got.dtype != want.dtype or got.shape != want.shape or got.tobytes() != want.tobytes():
        raise AssertionError("%s: onyx's output differs from numpy's" % name)


def run_single(elements, chunk, threads=1, seed=0):
    """The same chunks in this process, one after another, without Dask."""
    rng = np.random.default_rng(seed)
    xs = {"float32": (rng.standard_normal(elements) * 3).astype(np.float32),
          "uint8": rng.integers(0, 256, size=(max(elements // 1024, 1), 1024), dtype=np.uint8)}
    out = {}
    for name, sess in sessions(threads).items():
        x = xs[name]
        step = chunk if x.ndim == 1 else max(chunk // 1024, 1)
        start = time.perf_counter()
        ys = [sess.run(None, {"x": x[k:k + step]})[0] for k in range(0, len(x), step)]
        seconds = time.perf_counter() - start
        y = np.concatenate(ys)
        check_same(name, y, REFERENCE[name](x))
        out[name] = (x, y, seconds)
    return out


def report(results, where):
    for name, (x, _, seconds) in results.items():
        print("%-7s %d elements in %.3f s: %.1f M elements/s (%.0f MB/s in), %s; equal to numpy"
              % (name, x.size, seconds, x.size / seconds / 1e6, x.nbytes / seconds / 1e6, where))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (2)")
    p.add_argument("--elements", type=int, default=1 << 24, help="elements per array (2^24)")
    p.add_argument("--chunk", type=int, default=1 << 20, help="elements per chunk (2^20)")
    p.add_argument("--threads", type=int, default=1,
                   help="onyx threads per session (1: one per worker process; 0: onyx chooses)")
    p.add_argument("--single", action="store_true", help="run in this process, without Dask")
    p.add_argument("--scheduler", help="address of a running scheduler, instead of a LocalCluster")
    args = p.parse_args(argv)
    if args.single:
        report(run_single(args.elements, args.chunk, args.threads),
               "1 process, no Dask, %d onyx thread(s)" % args.threads)
        return 0
    from distributed import Client, LocalCluster
    if args.scheduler:
        cluster, client = None, Client(args.scheduler, timeout=60)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client = Client(cluster, timeout=60)
    try:
        client.wait_for_workers(1, timeout=120)
        workers = len(client.scheduler_info()["workers"])
        results = run(client, args.elements, args.chunk, args.threads)
        report(results, "%d Dask worker(s), %d onyx thread(s) each" % (workers, args.threads))
        for addr, (pid, tasks, ids) in sorted(client.run(worker_report).items()):
            print("worker %s (pid %d): %d tasks, %d sessions" % (addr, pid, tasks, len(ids)))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
