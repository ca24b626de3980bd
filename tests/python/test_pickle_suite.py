#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Every session the other Python tests create, pickled and restored: the
tests of test_session, test_ort_api, test_custom_ops, test_numpy_compare,
test_kernels and test_backend run here again with InferenceSession.__init__
wrapped so that each new session makes a round trip through pickle, and the
restored session must describe the same inputs, outputs, options and
metadata. A session whose model uses a Python op that pickle cannot carry
(the tests register lambdas) must raise TypeError naming that op."""

import os
import pickle
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onyx  # noqa: E402
from onyx import _session  # noqa: E402

MODULES = ["test_session", "test_ort_api", "test_custom_ops", "test_numpy_compare",
           "test_kernels", "test_backend"]
counts = {"restored": 0, "unpicklable op": 0}
failures = []


def describe(sess):
    meta = sess.get_modelmeta()
    return ([(i.name, i.type, i.shape) for i in sess.get_inputs()],
            [(o.name, o.type, o.shape) for o in sess.get_outputs()],
            repr(sess.get_session_options()), sess._isa, meta.ir_version, meta.opset_import,
            meta.producer_name, meta.custom_metadata_map)


def round_trip(sess):
    try:
        blob = pickle.dumps(sess)
    except TypeError as e:
        if "cannot pickle this InferenceSession: its Python op '" not in str(e):
            failures.append("TypeError without the op's name: %s" % e)
        counts["unpicklable op"] += 1
        return
    again = pickle.loads(blob)
    if describe(again) != describe(sess):
        failures.append("restored session differs: %r != %r" % (describe(again), describe(sess)))
    counts["restored"] += 1


original_init = _session.InferenceSession.__init__


def init_and_round_trip(self, *args, **kwargs):
    original_init(self, *args, **kwargs)
    round_trip(self)


class Suite(unittest.TestCase):
    def test_every_session_round_trips(self):
        _session.InferenceSession.__init__ = init_and_round_trip
        try:
            suite = unittest.TestSuite()
            for name in MODULES:
                suite.addTests(unittest.defaultTestLoader.loadTestsFromName(name))
            result = unittest.TextTestRunner(stream=sys.stderr, verbosity=0).run(suite)
        finally:
            _session.InferenceSession.__init__ = original_init
        print("sessions restored: %(restored)d; refused for an unpicklable op: "
              "%(unpicklable op)d" % counts)
        self.assertTrue(result.wasSuccessful(), "the wrapped tests failed")
        self.assertEqual(failures, [])
        self.assertGreater(counts["restored"], 100)
        self.assertGreater(counts["unpicklable op"], 0)
        self.assertIs(onyx.InferenceSession.__init__, original_init)


if __name__ == "__main__":
    unittest.main()
