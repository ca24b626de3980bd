#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A session made in the parent, used by worker processes: multiprocessing
pools with the fork and spawn start methods and ProcessPoolExecutor, with
the session inherited (fork) or pickled to the workers (an argument, or an
initializer that keeps it for every task). The parent runs its session on
several threads before forking, and keeps running it on another thread
while the children start, so that the children inherit a busy thread pool:
they must not deadlock. Every wait is bounded; outputs are bit for bit."""

import concurrent.futures
import multiprocessing
import os
import sys
import threading
import unittest

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modelgen  # noqa: E402

import onyx  # noqa: E402

F = TensorProto.FLOAT
TIMEOUT = int(os.environ.get("ONYX_TEST_TIMEOUT", "120"))  # seconds for any one wait on the children
N = 1 << 20  # elements per chunk: large enough for onyx's worker threads
CHUNKS = 6


def model():
    """Ceil -> Clip(-2, 2) -> Sign over a float vector of any length."""
    return modelgen.model_bytes(
        [helper.make_node("Ceil", ["x"], ["c"]), helper.make_node("Clip", ["c", "lo", "hi"], ["d"]),
         helper.make_node("Sign", ["d"], ["y"])],
        [("x", F, ["N"])], [("y", F, ["N"])],
        initializers=[helper.make_tensor("lo", F, [], [-2.0]),
                      helper.make_tensor("hi", F, [], [2.0])])


def chunk(k):
    return (np.random.default_rng(k).standard_normal(N) * 3).astype(np.float32)


def want(k):
    return np.sign(np.clip(np.ceil(chunk(k)), -2, 2))


# ---- Worker functions (top level, so spawn's children find them) ----------

_inherited = None  # the parent's session, in a forked child
_worker_session = None  # a session the initializer restored, in any child


def run_inherited(k):
    return _inherited.run(None, {"x": chunk(k)})[0], os.getpid()


def run_given(sess, k):
    return sess.run(None, {"x": chunk(k)})[0], os.getpid()


def keep_session(sess):
    global _worker_session
    _worker_session = sess


def run_kept(k):
    return _worker_session.run(None, {"x": chunk(k)})[0], os.getpid()


class Busy:
    """Runs a session on another thread until stopped, so that a fork
    happens while onyx's worker threads are working."""

    def __init__(self, sess):
        self.sess, self.stop, self.runs = sess, threading.Event(), 0
        self.x = chunk(99)
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        while not self.stop.is_set():
            self.sess.run(None, {"x": self.x})
            self.runs += 1

    def __enter__(self):
        self.thread.start()
        while self.runs == 0:
            self.stop.wait(0.01)
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(TIMEOUT)


class Processes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sess = onyx.InferenceSession(model(), threads=2)
        # Several Python threads on the session before any fork.
        threads = [threading.Thread(target=cls.sess.run, args=(None, {"x": chunk(k)}))
                   for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(TIMEOUT)

    def check(self, results):
        self.assertEqual(len(results), CHUNKS)
        for k, (y, pid) in enumerate(results):
            self.assertNotEqual(pid, os.getpid())
            self.assertTrue(np.array_equal(y, want(k)) and y.dtype == np.float32,
                            "chunk %d differs" % k)

    def pool_map(self, method, fn, args, **pool_kwargs):
        ctx = multiprocessing.get_context(method)
        pool = ctx.Pool(2, **pool_kwargs)
        try:
            results = pool.starmap_async(fn, args).get(TIMEOUT)
            pool.close()
        finally:
            pool.terminate()
            pool.join()
        return results

    def test_fork_inherits_a_busy_session(self):
        global _inherited
        _inherited = self.sess
        with Busy(self.sess):
            results = self.pool_map("fork", run_inherited, [(k,) for k in range(CHUNKS)])
        self.check(results)

    def test_fork_and_spawn_pickled(self):
        for method in ("fork", "spawn"):
            with self.subTest(method=method), Busy(self.sess):
                self.check(self.pool_map(method, run_given,
                                         [(self.sess, k) for k in range(CHUNKS)]))
                # One session per worker, restored once by the initializer.
                self.check(self.pool_map(method, run_kept, [(k,) for k in range(CHUNKS)],
                                         initializer=keep_session, initargs=(self.sess,)))

    def test_process_pool_executor(self):
        for method in ("fork", "spawn"):
            with self.subTest(method=method), Busy(self.sess):
                ctx = multiprocessing.get_context(method)
                with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx) as ex:
                    futures = [ex.submit(run_given, self.sess, k) for k in range(CHUNKS)]
                    done, pending = concurrent.futures.wait(futures, TIMEOUT)
                    for f in pending:
                        f.cancel()
                    self.assertEqual(pending, set(), "a worker hung")
                    self.check([f.result() for f in futures])

    def test_error_in_worker(self):
        """onyx's exception, with its status and message, pickles back."""
        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as ex:
            f = ex.submit(run_given, self.sess, 0)
            f.result(TIMEOUT)
            bad = ex.submit(self.sess.run, None, {"x": np.zeros(4, np.float64)})
            with self.assertRaises(onyx.OnyxInputTypeError) as cm:
                bad.result(TIMEOUT)
        self.assertEqual(cm.exception.status_name, "ONYX_INPUT_TYPE")
        self.assertEqual(cm.exception.message, "input 0 ('x'): type double given, float expected")
        self.assertEqual(str(cm.exception), cm.exception.message + " (ONYX_INPUT_TYPE)")


if __name__ == "__main__":
    unittest.main()
