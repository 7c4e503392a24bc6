#!/usr/bin/env bash
# List TODO, FIXME, XXX and HACK markers in text files as "FILE:LINE: TAG: note".
#   todo-scan.sh [--count] PATH...
# Directories are searched recursively (hidden files and directories are skipped).
# --count prints "TAG N" for each tag instead of the list. Exit 2 on a missing path.
set -euo pipefail
shopt -s globstar nullglob
export LC_ALL=C # byte order for directory listings, ASCII character classes

TAGS=(TODO FIXME XXX HACK)
MARKER='(^|[^[:alnum:]_])(TODO|FIXME|XXX|HACK)([^[:alnum:]_].*)?$'
NOTE='^(\([^)]*\))?[:[:space:]-]*(.*[^[:space:]])?'

die() {
  echo "todo-scan.sh: $*" >&2
  exit 2
}

# scan_file FILE: one output line per marker in FILE.
scan_file() {
  local line number=0
  while IFS= read -r line || [[ -n $line ]]; do
    number=$((number + 1))
    [[ $line =~ $MARKER ]] || continue
    local tag=${BASH_REMATCH[2]} rest=${BASH_REMATCH[3]}
    [[ $rest =~ $NOTE ]]
    local note=${BASH_REMATCH[2]}
    printf '%s:%d: %s%s\n' "$1" "$number" "$tag" "${note:+: $note}"
  done <"$1"
}

# scan_path PATH: scan a file, or every non-hidden file below a directory.
scan_path() {
  local file
  [[ -e $1 ]] || die "no such file or directory: $1"
  for file in "$1" "$1"/**; do
    if [[ -f $file ]]; then scan_file "$file"; fi
  done
}

# list PATH...: the markers in every PATH, in argument order.
list() {
  local path
  for path in "$@"; do scan_path "$path"; done
}

# count_tags: read list output on stdin, print "TAG N" for every tag.
count_tags() {
  local -A seen=()
  local location tag rest
  while IFS=' ' read -r location tag rest; do
    tag=${tag%:}
    seen[$tag]=$((${seen[$tag]:-0} + 1))
  done
  for tag in "${TAGS[@]}"; do
    echo "$tag ${seen[$tag]:-0}"
  done
}

main() {
  local mode=list
  if [[ ${1:-} == --count ]]; then mode=count && shift; fi
  [[ $# -gt 0 ]] || die "usage: todo-scan.sh [--count] PATH..."
  if [[ $mode == count ]]; then list "$@" | count_tags; else list "$@"; fi
}

main "$@"
