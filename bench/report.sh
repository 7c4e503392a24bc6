#!/usr/bin/env bash
# Speed of `skillgate report` and `skillgate query` on synthetic audit histories (issue #19,
# point 7): generates trails of 10k, 100k and 1M decisions (as many usage rows) with
# `skillgate-bench report-history`, then times each command $RUNS times (default 5) and prints
# the median with the range, one line per rows × command. Targets at 1M: the whole report
# ≤ 3 s, each seed query ≤ 500 ms. Figures go to BENCHMARKS.md ("Reports (#19)").
#   SIZES="10000 100000"   the decision counts to run (default 10000 100000 1000000)
#   SKILLS=400             skills in each history
#   PLANS=1                also print the EXPLAIN QUERY PLAN of every statement (needs python3)
# Histories are kept in $BENCH_DIR (default /tmp/skillgate-bench) and reused: ~1 GB for all
# three. They are dated from the UTC day they were made: remove them to move their window.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${BENCH_DIR:-/tmp/skillgate-bench}
runs=${RUNS:-5}
sizes=${SIZES:-10000 100000 1000000}
skills=${SKILLS:-400}
mkdir -p "$dir"

# Both built the way the caller builds: a CARGO_TARGET_DIR applies to both workspaces.
(cd "$here/.." && cargo build --release --quiet)
(cd "$here" && cargo build --release --quiet)
skillgate=${CARGO_TARGET_DIR:-$here/../target}/release/skillgate
bench=${CARGO_TARGET_DIR:-$here/target}/release/skillgate-bench

now_ms() { date +%s%3N; }

# time_it LABEL ROWS CMD…: runs CMD $runs times (output discarded; a failure stops the script)
# and prints "rows  label  median  min–max".
time_it() {
  local label=$1 rows=$2 times=() start end
  shift 2
  for _ in $(seq "$runs"); do
    start=$(now_ms)
    if ! "$@" >/dev/null 2>"$dir/last-error"; then
      echo "FAILED: $label at $rows rows: $*" >&2
      cat "$dir/last-error" >&2
      return 1
    fi
    end=$(now_ms)
    times+=($((end - start)))
  done
  local sorted median
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  median=$(sed -n "$(((runs + 1) / 2))p" <<<"$sorted")
  printf '%-9s %-40s %8s ms  %s–%s ms\n' "$rows" "$label" "$median" \
    "$(head -1 <<<"$sorted")" "$(tail -1 <<<"$sorted")"
}

printf '%-9s %-40s %11s  %s\n' rows command median range
for rows in $sizes; do
  db="$dir/report-$rows.db"
  if [ ! -f "$db" ] || [ "$(cat "$db.day" 2>/dev/null)" != "$(date -u +%F)" ]; then
    rm -f "$db" "$db.day" "$db.made"
    "$bench" report-history "$db" "$skills" "$rows" "$rows" 1 >"$db.made"
    date -u +%F >"$db.day"
  fi
  sed 's/^/# /' "$db.made"
  busiest=$(sed -E 's/.*busiest skill id=([0-9]+) name=([^ ]+) .*/\1 \2/' "$db.made")
  busiest_id=${busiest% *}
  busiest_name=${busiest#* }

  time_it "report --format json" "$rows" \
    "$skillgate" report --db "$db" --format json --out /dev/null
  time_it "report --format markdown" "$rows" \
    "$skillgate" report --db "$db" --format markdown --out /dev/null
  # `query --list`: one query a line, its name first; a query that takes a skill says so.
  while read -r name rest; do
    [ -n "$name" ] || continue
    params=()
    case "$rest" in
      *SKILL_ID*) params=(--param "SKILL_ID=$busiest_id") ;;
      *SKILL*|*skill=*) params=(--param "skill=$busiest_name") ;;
    esac
    time_it "query $name" "$rows" \
      "$skillgate" query "$name" --db "$db" --format json "${params[@]}"
  done < <("$skillgate" query --list --db "$db" | grep -E '^[a-z0-9][a-z0-9_-]*( |$)')
done

# EXPLAIN QUERY PLAN of each named query (src/store/named.rs) and every SQL literal of
# src/store/analytics.rs on the largest history, through `skillgate query --sql`: SCAN (the
# whole table) or SEARCH … USING INDEX (a range). The window is the last 30 days, as `report`'s.
if [ "${PLANS:-0}" = 1 ]; then
  last=${sizes##* }
  echo "== EXPLAIN QUERY PLAN on report-$last.db"
  python3 - "$skillgate" "$dir/report-$last.db" "$here/.." <<'PY'
import re, subprocess, sys

skillgate, db, root = sys.argv[1:4]
# A 30-day window ending now, as `report` binds it.
window = {"?1": "datetime('now', '-30 days')", "?2": "datetime('now')", "?3": "20"}
named = open(f"{root}/src/store/named.rs").read()
analytics = open(f"{root}/src/store/analytics.rs").read()
statements = [(f"query {n}", sql) for n, sql in
              re.findall(r'name: "([^"]+)",.*?sql: r#"(.*?)"#', named, re.S)]
# Every SQL literal of the report: its const's name, or the line it is on.
for m in re.finditer(r'(?:const ([A-Z0-9_]+): &str =\s*)?"((?:SELECT|WITH)\s(?:[^"\\]|\\.)*)"', analytics):
    line = analytics.count("\n", 0, m.start()) + 1
    label = f"report {m.group(1) or 'analytics.rs:%d' % line}"
    statements.append((label, m.group(2).replace('\\"', '"')))
for label, sql in statements:
    sql = sql.strip().rstrip(";").replace("$SKILL_ID", "1")
    sql = re.sub(r"\?[123]\b", lambda m: window[m.group(0)], sql)
    out = subprocess.run([skillgate, "query", "--db", db, "--format", "csv", "--sql",
                          "EXPLAIN QUERY PLAN " + sql], capture_output=True, text=True)
    print(f"-- {label}")
    if out.returncode != 0:
        print("   (failed: " + out.stderr.strip().splitlines()[0] + ")")
        continue
    for line in out.stdout.strip().splitlines()[1:]:
        _id, parent, _, detail = line.split(",", 3)
        print("   " + detail.strip('"'))
PY
fi
