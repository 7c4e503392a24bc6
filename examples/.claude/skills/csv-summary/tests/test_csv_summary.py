"""Unit tests for scripts/csv_summary.py (standard library unittest only)."""
import io
import json
import os
import tempfile
import unittest

import csv_summary

PEOPLE = "name,age,score,city\nada,36,9.5,London\nalan,41,,Wilmslow\ngrace,,8,\n"


class InferTypeTests(unittest.TestCase):
    def test_all_integers(self):
        self.assertEqual(csv_summary.infer_type(["1", "-20", "300"]), "int")

    def test_one_decimal_widens_to_float(self):
        self.assertEqual(csv_summary.infer_type(["1", "2.5", "3"]), "float")

    def test_any_word_makes_text(self):
        self.assertEqual(csv_summary.infer_type(["1", "2.5", "n/a"]), "text")

    def test_text_stays_text(self):
        self.assertEqual(csv_summary.infer_type(["x", "1"]), "text")

    def test_no_values_is_empty(self):
        self.assertEqual(csv_summary.infer_type([]), "empty")


class SummarizeColumnTests(unittest.TestCase):
    def test_int_column_has_min_max_mean(self):
        summary = csv_summary.summarize_column("age", ["36", " 41 ", ""])
        self.assertEqual(
            summary, {"column": "age", "type": "int", "filled": 2, "missing": 1, "min": 36, "max": 41, "mean": 38.5}
        )

    def test_float_column_keeps_floats(self):
        summary = csv_summary.summarize_column("score", ["9.5", "8"])
        self.assertEqual((summary["type"], summary["min"], summary["max"]), ("float", 8.0, 9.5))

    def test_text_column_counts_distinct_values(self):
        summary = csv_summary.summarize_column("city", ["Oslo", "Oslo", "Rome", "  "])
        self.assertEqual(summary, {"column": "city", "type": "text", "filled": 3, "missing": 1, "distinct": 2})


class SummarizeTests(unittest.TestCase):
    def test_detects_comma_delimiter(self):
        summaries = csv_summary.summarize(io.StringIO(PEOPLE))
        self.assertEqual([s["column"] for s in summaries], ["name", "age", "score", "city"])
        self.assertEqual([s["type"] for s in summaries], ["text", "int", "float", "text"])

    def test_detects_semicolon_delimiter(self):
        summaries = csv_summary.summarize(io.StringIO("a;b\n1;x\n2;y\n"))
        self.assertEqual([(s["column"], s["type"]) for s in summaries], [("a", "int"), ("b", "text")])

    def test_explicit_delimiter_wins(self):
        summaries = csv_summary.summarize(io.StringIO("a|b\n1|2\n"), delimiter="|")
        self.assertEqual(len(summaries), 2)

    def test_short_rows_count_as_missing(self):
        summaries = csv_summary.summarize(io.StringIO("a,b,c\n1,2,3\n4\n"), delimiter=",")
        self.assertEqual([s["missing"] for s in summaries], [0, 1, 1])

    def test_quoted_fields_keep_their_commas(self):
        summaries = csv_summary.summarize(io.StringIO('city,note\nParis,"big, old"\nLyon,"small, new"\n'))
        self.assertEqual(summaries[1]["distinct"], 2)


class FormatTableTests(unittest.TestCase):
    def test_columns_are_aligned(self):
        table = csv_summary.format_table(csv_summary.summarize(io.StringIO(PEOPLE)))
        self.assertEqual(
            table.splitlines(),
            [
                "column  type   filled  missing  details",
                "name    text   3       0        distinct=3",
                "age     int    2       1        min=36 max=41 mean=38.5",
                "score   float  2       1        min=8.0 max=9.5 mean=8.75",
                "city    text   2       1        distinct=2",
            ],
        )


class MainTests(unittest.TestCase):
    def setUp(self):
        handle, self.path = tempfile.mkstemp(suffix=".csv")
        with os.fdopen(handle, "w", newline="", encoding="utf-8") as stream:
            stream.write(PEOPLE)
        self.addCleanup(os.remove, self.path)

    def run_main(self, *args):
        out, err = io.StringIO(), io.StringIO()
        code = csv_summary.main([*args, self.path], out=out, err=err)
        return code, out.getvalue(), err.getvalue()

    def test_prints_table(self):
        code, out, err = self.run_main()
        self.assertEqual((code, err), (0, ""))
        self.assertTrue(out.startswith("column  type"))

    def test_prints_json(self):
        code, out, _ = self.run_main("--json")
        self.assertEqual(code, 0)
        self.assertEqual(json.loads(out)[1]["mean"], 38.5)


if __name__ == "__main__":
    unittest.main()
