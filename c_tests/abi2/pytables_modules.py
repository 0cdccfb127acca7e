#!/usr/bin/env python3
"""Run PyTables test modules (their suite(), as tables.tests.test_all does) and print one
line per module: tests run, failures, errors, skips, seconds; then each failing test.
usage: pytables_modules.py MODULE[:WORD] ...   (WORD: only tests whose id contains it)"""
import importlib
import sys
import time
import unittest
import warnings

warnings.simplefilter("ignore")


def flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


for arg in sys.argv[1:]:
    name, _, word = arg.partition(":")
    t0 = time.time()
    m = importlib.import_module("tables.tests." + name)
    suite = m.suite()
    if word:
        suite = unittest.TestSuite(t for t in flatten(suite) if word in t.id())
    r = unittest.TextTestRunner(verbosity=0, stream=open("/dev/null", "w")).run(suite)
    print(f"{arg}: {r.testsRun} run, {len(r.failures)} failures, {len(r.errors)} errors, "
          f"{len(r.skipped)} skipped ({time.time() - t0:.0f} s)", flush=True)
    for t, tb in r.failures + r.errors:
        print("  FAIL", t.id(), tb.strip().splitlines()[-1][:200], flush=True)
