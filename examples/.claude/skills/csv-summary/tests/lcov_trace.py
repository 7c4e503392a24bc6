"""Line coverage of one Python source file, standard library only, written as lcov.

Executable lines come from the line table (co_lines) of every code object compiled from the
file; executed lines are recorded with sys.settrace while the tests run. Start the tracer
before the module under test is imported, so that its top-level lines are seen too.
"""
import os
import sys
import types
from collections import Counter


def code_objects(code):
    """code and every code object nested in it (functions, classes, comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


def executable_lines(source, filename):
    """Line numbers that carry bytecode in any code object compiled from source."""
    module = compile(source, filename, "exec")
    return {line for code in code_objects(module) for _, _, line in code.co_lines() if line}


class LineTracer:
    """Counts line events in frames whose code comes from one file."""

    def __init__(self, path):
        self.path = os.path.realpath(path)
        self.hits = Counter()
        self._is_target = {}

    def _matches(self, filename):
        if filename not in self._is_target:
            self._is_target[filename] = os.path.realpath(filename) == self.path
        return self._is_target[filename]

    def _global(self, frame, event, arg):
        return self._local if self._matches(frame.f_code.co_filename) else None

    def _local(self, frame, event, arg):
        if event == "line":
            self.hits[frame.f_lineno] += 1
        return self._local

    def start(self):
        sys.settrace(self._global)

    def stop(self):
        sys.settrace(None)

    def lcov(self, relative_to):
        """The lcov record (TN/SF/DA/LF/LH/end_of_record) for the traced file."""
        with open(self.path, encoding="utf-8") as handle:
            lines = sorted(executable_lines(handle.read(), self.path))
        records = ["TN:", "SF:" + os.path.relpath(self.path, relative_to)]
        records += [f"DA:{line},{self.hits[line]}" for line in lines]
        covered = sum(1 for line in lines if self.hits[line])
        records += [f"LF:{len(lines)}", f"LH:{covered}", "end_of_record"]
        return "\n".join(records) + "\n"

    def write_lcov(self, path, relative_to):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(self.lcov(relative_to))
