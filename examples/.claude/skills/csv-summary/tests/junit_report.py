"""A unittest result class that also keeps every outcome, and a JUnit XML writer for them."""
import re
import time
import traceback
import unittest
import xml.etree.ElementTree as ET
from collections import Counter

# Characters XML 1.0 cannot carry at all, even escaped.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def clean(text):
    return _INVALID_XML.sub("?", str(text))


class JUnitResult(unittest.TextTestResult):
    """TextTestResult that records (test id, outcome, message, detail, seconds) per test."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cases = []
        self._started = 0.0

    def startTest(self, test):
        self._started = time.perf_counter()
        super().startTest(test)

    def _record(self, test, outcome, message="", detail=""):
        seconds = time.perf_counter() - self._started
        self.cases.append((test.id(), outcome, message, detail, seconds))

    def _record_error(self, test, outcome, err):
        exc_type, exc_value, _ = err
        detail = "".join(traceback.format_exception(*err))
        self._record(test, outcome, f"{exc_type.__name__}: {exc_value}", detail)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record_error(test, "failure", err)

    def addError(self, test, err):
        super().addError(test, err)
        self._record_error(test, "error", err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, "skipped", reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record(test, "passed")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._record(test, "failure", "unexpected success")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self._record_error(subtest, "failure" if failed else "error", err)


def testcase_element(case):
    """<testcase> for one recorded case, with a <failure>, <error> or <skipped> child."""
    test_id, outcome, message, detail, seconds = case
    classname, _, name = test_id.rpartition(".")
    element = ET.Element("testcase", classname=clean(classname), name=clean(name), time=f"{seconds:.6f}")
    if outcome != "passed":
        child = ET.SubElement(element, outcome, message=clean(message))
        child.text = clean(detail) or None
    return element


def write_junit(cases, path, suite_name):
    """Write cases as one <testsuite> inside <testsuites> (UTF-8, with XML declaration)."""
    counts = Counter(case[1] for case in cases)
    suite = ET.Element(
        "testsuite",
        name=suite_name,
        tests=str(len(cases)),
        failures=str(counts["failure"]),
        errors=str(counts["error"]),
        skipped=str(counts["skipped"]),
        time=f"{sum(case[4] for case in cases):.6f}",
    )
    suite.extend(testcase_element(case) for case in cases)
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
