#!/usr/bin/env bash
# Run skillgate for the action (action.yml): turn the INPUT_* variables into one command line and
# run it, keeping its exit code. The binary writes `tier`, `decision` and `results` to
# GITHUB_OUTPUT itself (check and publish).
#
# No input is ever evaluated: each becomes one argument as it is, newlines included, and `args`
# is split into words by split_words below, which reads quotes like a shell does and expands
# nothing. The token reaches the binary only as GITHUB_TOKEN, never on its command line.
# Written for bash 3.2 (macOS) as well.
set -euo pipefail

fail() {
  printf 'skillgate action: %s\n' "$1" >&2
  exit 2
}

# Split $1 into shell-like words, appended to the array `words`: blanks (space, tab) separate
# words; '…' keeps everything literally; "…" too, except that \" and \\ stand for " and \;
# outside quotes a backslash keeps the next character. Nothing is expanded or run: `$(…)`,
# backticks, `;`, `|`, `*`, `~` and `#` are characters of a word. A newline is a character of
# its word, not a separator; newlines at the very end of the input (a YAML block's) are dropped.
split_words() {
  local LC_ALL=C
  local text="$1" word="" in_word=0 quote="" i=0 c next
  while [ "${text%$'\n'}" != "$text" ]; do
    text="${text%$'\n'}"
    text="${text%$'\r'}"
  done
  local n=${#text}
  while [ "$i" -lt "$n" ]; do
    c="${text:i:1}"
    i=$((i + 1))
    if [ "$quote" = "'" ]; then
      if [ "$c" = "'" ]; then quote=""; else word+="$c"; fi
    elif [ "$quote" = '"' ]; then
      if [ "$c" = '"' ]; then
        quote=""
      elif [ "$c" = "\\" ] && [ "$i" -lt "$n" ]; then
        next="${text:i:1}"
        if [ "$next" = '"' ] || [ "$next" = "\\" ]; then
          word+="$next"
          i=$((i + 1))
        else
          word+="$c"
        fi
      else
        word+="$c"
      fi
    else
      case "$c" in
        ' ' | $'\t')
          if [ "$in_word" = 1 ]; then
            words+=("$word")
            word=""
            in_word=0
          fi
          ;;
        "'" | '"')
          quote="$c"
          in_word=1
          ;;
        "\\")
          [ "$i" -lt "$n" ] || fail "args: a backslash ends the input (quote it: '\\')"
          word+="${text:i:1}"
          i=$((i + 1))
          in_word=1
          ;;
        *)
          word+="$c"
          in_word=1
          ;;
      esac
    fi
  done
  [ -z "$quote" ] || fail "args: unterminated $quote quote"
  if [ "$in_word" = 1 ]; then words+=("$word"); fi
}

# Add `--flag value` when the input is set and the subcommand has the flag; an input the
# subcommand does not take is refused rather than dropped.
add_flag() {
  local input="$1" flag="$2" value="$3" allowed="$4"
  [ -n "$value" ] || return 0
  case " $allowed " in
    *" $input "*) argv+=("$flag" "$value") ;;
    *) fail "input '$input' does not apply to command '$command'" ;;
  esac
}

main() {
  local command="${INPUT_COMMAND:-check}" token="${INPUT_TOKEN:-}" allowed needs_token=1 line
  # The token leaves the environment here, and comes back only as GITHUB_TOKEN when needed.
  unset INPUT_TOKEN
  argv=()
  case "$command" in
    check) argv=(check) allowed="config base head publish fail-on results" ;;
    publish) argv=(publish) allowed="config publish fail-on results" ;;
    review) argv=(review) allowed="config publish" ;;
    report) argv=(report) allowed="config" ;;
    audit-compact) argv=(audit compact) allowed="config" needs_token=0 ;;
    *) fail "unknown command '$command' (check, publish, review, report or audit-compact)" ;;
  esac
  add_flag config --config "${INPUT_CONFIG:-}" "$allowed"
  add_flag base --base "${INPUT_BASE:-}" "$allowed"
  add_flag head --head "${INPUT_HEAD:-}" "$allowed"
  add_flag publish --publish "${INPUT_PUBLISH:-}" "$allowed"
  add_flag fail-on --fail-on "${INPUT_FAIL_ON:-}" "$allowed"
  if [ -n "${INPUT_RESULTS:-}" ]; then
    case "$command" in
      # check writes the results document, publish reads them (one file per line: shards).
      check) argv+=(--out "$INPUT_RESULTS") ;;
      publish)
        argv+=(--results)
        while IFS= read -r line || [ -n "$line" ]; do
          # A line's surrounding blanks and a CRLF's CR are no part of its path.
          line="${line%$'\r'}"
          line="${line#"${line%%[![:space:]]*}"}"
          line="${line%"${line##*[![:space:]]}"}"
          [ -z "$line" ] || argv+=("$line")
        done <<<"$INPUT_RESULTS"
        ;;
      *) fail "input 'results' does not apply to command '$command'" ;;
    esac
  fi
  words=()
  split_words "${INPUT_ARGS:-}"
  local previous=""
  for line in ${words[@]+"${words[@]}"}; do
    case "$line" in
      --token | --token=*) fail "args: pass the token in the token input, never on the command line" ;;
      # `--publish none` writes nothing to GitHub: the binary gets no token at all then, whether
      # the input or `args` says it.
      --publish=none) needs_token=0 ;;
      none) [ "$previous" = --publish ] && needs_token=0 ;;
    esac
    previous="$line"
  done
  argv+=(${words[@]+"${words[@]}"})
  [ "${INPUT_PUBLISH:-}" = none ] && needs_token=0
  if [ "$needs_token" = 1 ] && [ -n "$token" ]; then
    export GITHUB_TOKEN="$token"
  else
    unset GITHUB_TOKEN GH_TOKEN
  fi
  token=""

  printf 'running: skillgate'
  printf ' %q' "${argv[@]}"
  printf '\n'
  exec skillgate "${argv[@]}"
}

main "$@"
