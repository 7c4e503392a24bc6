"""Run the csv-summary unit tests while tracing line coverage of scripts/csv_summary.py.

Writes two reports into $SKILLGATE_REPORT_DIR (default: ./.reports next to SKILL.md):
junit.xml (one <testcase> per test) and lcov.info (line coverage of the module under test).
Exit code 0 when every test passed, 1 otherwise.
"""
import os
import sys
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SKILL_DIR = os.path.dirname(HERE)
MODULE = os.path.join(SKILL_DIR, "scripts", "csv_summary.py")
sys.path[:0] = [HERE, os.path.dirname(MODULE)]

from junit_report import JUnitResult, write_junit  # noqa: E402
from lcov_trace import LineTracer  # noqa: E402


def report_dir():
    path = os.environ.get("SKILLGATE_REPORT_DIR") or os.path.join(SKILL_DIR, ".reports")
    os.makedirs(path, exist_ok=True)
    return path


def main():
    reports = report_dir()
    tracer = LineTracer(MODULE)
    tracer.start()  # before the tests import the module, so its top level is traced too
    suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = unittest.TextTestRunner(resultclass=JUnitResult, verbosity=2, stream=sys.stdout).run(suite)
    tracer.stop()
    write_junit(result.cases, os.path.join(reports, "junit.xml"), "csv-summary")
    tracer.write_lcov(os.path.join(reports, "lcov.info"), relative_to=SKILL_DIR)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
