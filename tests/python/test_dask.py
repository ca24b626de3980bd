#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""examples/dask_batch.py on a real cluster: a LocalCluster of 2 worker
processes on 127.0.0.1, started and closed here, every wait bounded. The
outputs equal numpy's bit for bit; each worker restores its sessions once;
an input error inside one task reaches the client as onyx's exception with
its status and message; a worker killed while the tasks run is restarted,
its tasks rescheduled, and the result is still complete and correct.
Without dask and distributed (Debian: python3-dask python3-distributed)
this prints SKIP and the reason."""

import faulthandler
import logging
import os
import signal
import sys
import tempfile
import time
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import modelgen  # noqa: E402

EXAMPLES = os.path.join(modelgen.SOURCE_DIR, "examples")
# The workers import onyx and the example by name.
os.environ["PYTHONPATH"] = os.pathsep.join(
    [os.path.join(modelgen.SOURCE_DIR, "python"), EXAMPLES, os.environ.get("PYTHONPATH", "")])
sys.path.insert(0, EXAMPLES)

try:
    import dask  # noqa: F401
    import distributed
    from distributed import Client, LocalCluster, wait
    MISSING = None
except ImportError as e:
    MISSING = "dask or distributed is not importable (%s); Debian: python3-dask " \
              "python3-distributed" % e

import onyx  # noqa: E402

TIMEOUT = 120  # seconds for any one wait on the cluster
ELEMENTS, CHUNK = 1 << 22, 1 << 18  # 16 chunks per array


def slow_infer(block, name):
    """The example's task, slowed down, so that a worker dies mid-run."""
    import dask_batch
    time.sleep(0.15)
    return dask_batch.infer(block, name)


def bad_block_infer(block, name, block_info=None):
    """The example's task, given a float64 block where the model takes
    float32: onyx refuses it, in that one task."""
    import dask_batch
    if block_info is not None and block_info[0]["chunk-location"] == (5,):
        block = block.astype(np.float64)
    return dask_batch.infer(block, name)


@unittest.skipIf(MISSING, MISSING)
class Cluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import dask_batch
        cls.example = dask_batch
        # A hang prints every thread's stack and ends the test.
        faulthandler.dump_traceback_later(540, exit=True)
        cls.tmp = tempfile.TemporaryDirectory(prefix="onyx_dask_")
        start = time.perf_counter()
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None,
                                   local_directory=cls.tmp.name, silence_logs=logging.CRITICAL)
        cls.client = Client(cls.cluster, timeout=TIMEOUT)
        cls.client.wait_for_workers(2, timeout=TIMEOUT)
        print("cluster of 2 workers up in %.1f s" % (time.perf_counter() - start))

    @classmethod
    def tearDownClass(cls):
        start = time.perf_counter()
        cls.client.close(timeout=TIMEOUT)
        cls.cluster.close(timeout=TIMEOUT)
        cls.tmp.cleanup()
        print("cluster closed in %.1f s" % (time.perf_counter() - start))
        faulthandler.cancel_dump_traceback_later()

    def workers(self):
        return self.client.run(os.getpid)  # address -> pid

    def test_a_example_bit_exact(self):
        """The example's run: both arrays, checked against numpy by the
        example and again here; one session per model on each worker."""
        results = self.example.run(self.client, ELEMENTS, CHUNK)
        for name, (x, y, _) in results.items():
            want = self.example.REFERENCE[name](x)
            self.assertEqual((y.dtype, y.shape), (want.dtype, want.shape))
            self.assertEqual(y.tobytes(), want.tobytes(), name)
        self.assertEqual(results["float32"][0].dtype, np.float32)
        self.assertEqual(results["uint8"][0].ndim, 2)
        report = self.client.run(self.example.worker_report)
        self.assertEqual(len(report), 2)
        tasks = 0
        for pid, n, ids in report.values():
            self.assertEqual(len(set(ids)), 2)  # restored once, used by every task
            tasks += n
        self.assertEqual(tasks, 2 * ELEMENTS // CHUNK)

    def test_b_input_error(self):
        """One task's OnyxInputTypeError reaches the client, in bounded
        time, with onyx's status and message."""
        import dask.array as da
        self.client.register_worker_plugin(
            self.example.SessionPlugin(self.example.sessions(1)), name=self.example.PLUGIN)
        x = da.zeros(ELEMENTS, chunks=CHUNK, dtype=np.float32)
        y = x.map_blocks(bad_block_infer, "float32", dtype=np.float32)
        start = time.perf_counter()
        with self.assertRaises(onyx.OnyxInputTypeError) as cm:
            self.client.compute(y).result(timeout=TIMEOUT)
        self.assertLess(time.perf_counter() - start, TIMEOUT)
        e = cm.exception
        self.assertEqual((e.status, e.status_name), (19, "ONYX_INPUT_TYPE"))
        self.assertEqual(e.message, "input 0 ('x'): type double given, float expected")
        self.assertEqual(str(e), e.message + " (ONYX_INPUT_TYPE)")

    def test_c_worker_killed(self):
        """SIGKILL to one worker while the tasks run: the nanny starts a
        new worker, the plugin gives it the sessions, the scheduler runs
        the lost tasks again, and the result is complete and bit-exact."""
        before = self.workers()
        self.client.register_worker_plugin(
            self.example.SessionPlugin(self.example.sessions(1)), name=self.example.PLUGIN)
        x = self.client.persist(self.example.arrays(ELEMENTS, CHUNK, seed=11)["float32"])
        wait(x, timeout=TIMEOUT)
        y = self.client.persist(x.map_blocks(slow_infer, "float32", dtype=np.float32))
        futures = distributed.futures_of(y)
        self.assertEqual(len(futures), ELEMENTS // CHUNK)
        deadline = time.monotonic() + TIMEOUT
        while sum(f.done() for f in futures) < 3:
            self.assertLess(time.monotonic(), deadline, "no task finished")
            time.sleep(0.02)
        victim_addr, victim = sorted(before.items())[0]
        os.kill(victim, signal.SIGKILL)
        done_before_kill = sum(f.done() for f in futures)
        self.assertLess(done_before_kill, len(futures), "the kill came after the run")
        wait(y, timeout=TIMEOUT)
        xs, ys = self.client.compute([x, y], sync=True)
        self.assertEqual(ys.shape, (ELEMENTS,))
        self.assertEqual(ys.tobytes(), self.example.REFERENCE["float32"](xs).tobytes())
        self.client.wait_for_workers(2, timeout=TIMEOUT)
        after = self.workers()
        self.assertNotIn(victim, after.values())
        self.assertEqual(len(after), 2)
        print("killed worker %s (pid %d) after %d of %d tasks; result complete and exact; "
              "workers now %s" % (victim_addr, victim, done_before_kill, len(futures),
                                  sorted(after.values())))


if __name__ == "__main__":
    if MISSING:
        print("SKIP", MISSING)
    unittest.main()
