#!/usr/bin/env bash
# Print the next semantic version.
#   bump-version.sh major|minor|patch VERSION      e.g.  bump-version.sh minor v1.2.3  ->  v1.3.0
# A leading "v" is kept. Exit 2 with a usage message on bad arguments.
set -euo pipefail

usage() {
  echo "usage: bump-version.sh major|minor|patch VERSION" >&2
  exit 2
}

# parse_version VERSION: sets PREFIX ("v" or ""), MAJOR, MINOR and PATCH.
parse_version() {
  local version=$1
  PREFIX=""
  if [[ $version == v* ]]; then
    PREFIX=v
    version=${version#v}
  fi
  [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || usage
  IFS=. read -r MAJOR MINOR PATCH <<<"$version"
}

# bump PART: prints the version parsed by parse_version with PART incremented.
bump() {
  case $1 in
    major) echo "${PREFIX}$((MAJOR + 1)).0.0" ;;
    minor) echo "${PREFIX}${MAJOR}.$((MINOR + 1)).${PATCH}" ;;
    patch) echo "${PREFIX}${MAJOR}.${MINOR}.$((PATCH + 1))" ;;
    *) usage ;;
  esac
}

[[ $# -eq 2 ]] || usage
parse_version "$2"
bump "$1"
