#!/usr/bin/env python3
"""Run PyTables test modules (their suite(), as tables.tests.test_all does) and print one
line per module: tests run, failures, errors, skips, seconds; then each failing test.
usage: pytables_modules.py MODULE[:WORD] ...   (WORD: only tests whose id contains it)
With PT_PROGRESS=FILE, each test's id, outcome and seconds are appended to FILE as it ends
(the long modules run for hours: a run cut short still tells what passed)."""
import importlib
import os
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


class ProgressResult(unittest.TextTestResult):
    """Appends one line per finished test to the PT_PROGRESS file."""

    log = open(os.environ["PT_PROGRESS"], "a") if os.environ.get("PT_PROGRESS") else None

    def startTest(self, test):
        self._t0 = time.time()
        super().startTest(test)

    def _note(self, test, outcome):
        if self.log:
            print(f"{test.id()} {outcome} {time.time() - self._t0:.1f}", file=self.log, flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._note(test, "ok")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._note(test, "FAIL")

    def addError(self, test, err):
        super().addError(test, err)
        self._note(test, "ERROR")

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._note(test, "skipped")


for arg in sys.argv[1:]:
    name, _, word = arg.partition(":")
    t0 = time.time()
    m = importlib.import_module("tables.tests." + name)
    suite = m.suite()
    if word:
        suite = unittest.TestSuite(t for t in flatten(suite) if word in t.id())
    r = unittest.TextTestRunner(verbosity=0, stream=open("/dev/null", "w"),
                                resultclass=ProgressResult).run(suite)
    print(f"{arg}: {r.testsRun} run, {len(r.failures)} failures, {len(r.errors)} errors, "
          f"{len(r.skipped)} skipped ({time.time() - t0:.0f} s)", flush=True)
    for t, tb in r.failures + r.errors:
        print("  FAIL", t.id(), tb.strip().splitlines()[-1][:200], flush=True)
