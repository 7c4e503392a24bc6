#!/usr/bin/env bash
# Do two builds of skillgate decide the same on the bundled example? Runs `check --repo examples
# --all` and a pull-request-shaped run (`--base HEAD~1` on a git copy with one SKILL.md changed)
# with each binary, then diffs the results documents, the text/Markdown/JSON output, `lint`, the
# exit codes and the database dumps with timestamps, durations and hashes masked.
# Usage: bench/compare-example.sh OLD/skillgate NEW/skillgate   (needs sqlite3)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { # binary outdir
  local bin=$1 out=$2
  mkdir -p "$out" && cp -r "$root/examples" "$out/examples"
  (cd "$out" && {
    "$bin" check --repo examples --all --db skills.db --out results.json --format json >stdout.json 2>/dev/null
    echo "all: $?" >rc
    "$bin" check --repo examples --all --db skills.db --format text >stdout.txt 2>/dev/null
    "$bin" check --repo examples --all --db skills.db --format markdown >stdout.md 2>/dev/null
    "$bin" lint --repo examples >lint.txt 2>&1
    sqlite3 skills.db .dump >dump.sql
  })
  cp -r "$root/examples" "$out/pr"
  (cd "$out/pr" && {
    export GIT_COMMITTER_DATE=2026-01-01T00:00:00Z GIT_AUTHOR_DATE=2026-01-01T00:00:00Z
    git init -q -b main . && git add -A && git -c user.name=t -c user.email=t@t commit -qm base
    echo "More words." >>"$(find . -name SKILL.md | sort | head -1)"
    git -c user.name=t -c user.email=t@t commit -qam change
    "$bin" check --base HEAD~1 --db ../pr.db --out ../pr.json --format text >../pr.txt 2>/dev/null
    echo "pr: $?" >>../rc
    sqlite3 ../pr.db .dump >../pr-dump.sql
  })
}
run "$1" "$work/a"
run "$2" "$work/b"
mask() {
  sed -E 's/"(started_at|finished_at|timestamp)": "[^"]*"/"\1": "T"/g
    s/"(duration_ms)": [0-9]+/"\1": 0/g
    s/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9:]{8}(\.[0-9]+)?Z?/T/g
    s/[0-9a-f]{64}/H/g; s/[0-9]+(\.[0-9]+)?m?s\b/Ns/g' "$1" | grep -v duration
}
status=0
for f in results.json stdout.json stdout.txt stdout.md lint.txt rc dump.sql pr.json pr.txt pr-dump.sql; do
  if diff <(mask "$work/a/$f") <(mask "$work/b/$f") >/dev/null; then
    echo "same: $f"
  else
    echo "DIFFERENT: $f"; diff <(mask "$work/a/$f") <(mask "$work/b/$f") | head -20; status=1
  fi
done
exit $status
