#!/usr/bin/env python3
"""Summarise the columns of a CSV file: inferred type, filled and missing cells,
min/max/mean for numeric columns and the number of distinct values for text columns.

    python3 scripts/csv_summary.py data.csv            # aligned table
    python3 scripts/csv_summary.py --json data.csv     # JSON list, one object per column
    python3 scripts/csv_summary.py -d ';' data.csv     # force the delimiter
"""
import argparse
import csv
import io
import json
import sys

SNIFF_BYTES = 4096
NUMERIC = ("int", "float")
TABLE_HEADER = ("column", "type", "filled", "missing", "details")


def parses_as(convert, value):
    """True if convert(value) succeeds (convert is int or float)."""
    try:
        convert(value)
    except ValueError:
        return False
    return True


def widen(kind, value):
    """The narrowest type, no narrower than kind, that can hold value."""
    if kind == "int" and parses_as(int, value):
        return "int"
    if kind in NUMERIC and parses_as(float, value):
        return "float"
    return "text"


def infer_type(values):
    """'int', 'float' or 'text' for a list of non-empty cells; 'empty' if there are none."""
    if not values:
        return "empty"
    kind = "int"
    for value in values:
        kind = widen(kind, value)
    return kind


def numeric_stats(kind, filled):
    """min, max and mean of the filled cells of an 'int' or 'float' column."""
    convert = int if kind == "int" else float
    numbers = [convert(value) for value in filled]
    return {"min": min(numbers), "max": max(numbers), "mean": round(sum(numbers) / len(numbers), 4)}


def summarize_column(name, cells):
    """Summary dict for one column given all of its cells (missing cells are '')."""
    filled = [cell.strip() for cell in cells if cell.strip()]
    kind = infer_type(filled)
    summary = {"column": name, "type": kind, "filled": len(filled), "missing": len(cells) - len(filled)}
    if kind in NUMERIC:
        summary.update(numeric_stats(kind, filled))
    else:
        summary["distinct"] = len(set(filled))
    return summary


def detect_delimiter(sample):
    """Guess the delimiter from a sample of the file; fall back to a comma."""
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def check_header(rows):
    """The header row; ValueError if there is none or a column name repeats."""
    if not rows:
        raise ValueError("the CSV has no header row")
    repeated = sorted(name for name in set(rows[0]) if rows[0].count(name) > 1)
    if repeated:
        raise ValueError("duplicate column names: " + ", ".join(repeated))
    return rows[0]


def read_rows(stream, delimiter=None):
    """Header and data rows; short rows are padded with '' to the header's width."""
    text = stream.read()
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter or detect_delimiter(text[:SNIFF_BYTES])))
    header = check_header(rows)
    return header, [row + [""] * (len(header) - len(row)) for row in rows[1:]]


def summarize(stream, delimiter=None):
    """One summary per header column, in header order."""
    header, body = read_rows(stream, delimiter)
    return [summarize_column(name, [row[i] for row in body]) for i, name in enumerate(header)]


def describe(item):
    """The type-specific part of a summary, as text."""
    if "distinct" in item:
        return f"distinct={item['distinct']}"
    return f"min={item['min']} max={item['max']} mean={item['mean']}"


def format_row(row, widths):
    """Pad every cell but the last to its column width."""
    padded = [cell.ljust(width) for cell, width in zip(row, widths)]
    return "  ".join(padded + [row[-1]]).rstrip()


def format_table(summaries):
    """Aligned plain-text table: column, type, filled, missing, details."""
    rows = [TABLE_HEADER] + [
        (item["column"], item["type"], str(item["filled"]), str(item["missing"]), describe(item))
        for item in summaries
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(TABLE_HEADER) - 1)]
    return "\n".join(format_row(row, widths) for row in rows)


def main(argv=None, out=sys.stdout, err=sys.stderr):
    """Command-line entry point; returns the exit code."""
    parser = argparse.ArgumentParser(description="Summarise the columns of a CSV file.")
    parser.add_argument("path", help="CSV file to read")
    parser.add_argument("-d", "--delimiter", help="field delimiter (default: detected)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    try:
        with open(args.path, newline="", encoding="utf-8") as stream:
            summaries = summarize(stream, args.delimiter)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"csv_summary: {args.path}: {exc}", file=err)
        return 2
    print(json.dumps(summaries, indent=2) if args.json else format_table(summaries), file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
