#!/usr/bin/env bash
# Install skillgate for the action (action.yml), on a GitHub runner or a simulated one.
#
#   install.sh resolve   write `version` and `target` to GITHUB_OUTPUT (the cache key)
#   install.sh           install: the release archive (the cached one when actions/cache restored
#                        it, else downloaded), verified against the release's SHA256SUMS every
#                        time; without a release, build from the action's own source; then put
#                        it on GITHUB_PATH, write `from` (cache, release or source) to
#                        GITHUB_OUTPUT, print its version
#
# Reads RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH, GITHUB_ACTION_PATH, INPUT_VERSION,
# SKILLGATE_ACTION_REF / GITHUB_ACTION_REF, SKILLGATE_ACTION_REPOSITORY /
# GITHUB_ACTION_REPOSITORY, and SKILLGATE_RELEASE_URL (a download base that replaces the
# release's, `file://` included). Written for bash 3.2 (macOS) as well.
set -euo pipefail

fail() {
  printf 'skillgate install: %s\n' "$1" >&2
  exit 1
}

# The release target for this runner, from the contract's five.
target_for() {
  case "$1/$2" in
    Linux/X64) echo x86_64-unknown-linux-musl ;;
    Linux/ARM64) echo aarch64-unknown-linux-musl ;;
    macOS/X64) echo x86_64-apple-darwin ;;
    macOS/ARM64) echo aarch64-apple-darwin ;;
    Windows/X64) echo x86_64-pc-windows-msvc ;;
    *) return 1 ;;
  esac
}

# The release to install, or nothing for a build from source. An explicit `version` input wins;
# else the action's ref when it is a release tag (`v1.2.3`); a moving major or minor tag (`v1`,
# `v1.2`) names the release whose version the action's own Cargo.toml carries. A branch, a
# commit or `uses: ./` has no release of its own.
resolve_version() {
  local requested="${INPUT_VERSION:-}" ref cargo_version
  if [ -n "$requested" ]; then
    case "$requested" in
      v*) echo "$requested" ;;
      [0-9]*) echo "v$requested" ;;
      *) fail "version '$requested' is not a release tag (v1.2.3)" ;;
    esac
    return
  fi
  ref="${SKILLGATE_ACTION_REF:-${GITHUB_ACTION_REF:-}}"
  case "$ref" in
    v[0-9]*.[0-9]*.[0-9]*) echo "$ref" ;;
    v[0-9]*)
      cargo_version="$(tr -d '\r' <"$GITHUB_ACTION_PATH/Cargo.toml" | sed -n 's/^version = "\(.*\)"$/\1/p' | head -n 1)"
      case "v$cargo_version" in
        "$ref".*) echo "v$cargo_version" ;;
        *) echo "" ;;
      esac
      ;;
    *) echo "" ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  else
    shasum -a 256 "$1" | cut -d ' ' -f 1
  fi
}

# Fetch $1 into $2. Returns 2 when the asset does not exist (a 404, or a missing `file://`
# file), fails the install on any other error.
fetch() {
  local url="$1" out="$2" code status
  set +e
  code="$(curl --fail --silent --show-error --location --retry 3 --retry-connrefused \
    --output "$out" --write-out '%{http_code}' "$url")"
  status=$?
  set -e
  case "$status/$code" in
    0/*) return 0 ;;
    22/404 | 37/*) return 2 ;;
    *) fail "could not download $url (curl exit $status, HTTP $code)" ;;
  esac
}

extract() {
  local archive="$1" into="$2"
  case "$archive" in
    *.zip)
      if command -v unzip >/dev/null 2>&1; then
        unzip -q "$archive" -d "$into"
      else
        case "$(tar --version 2>/dev/null)" in
          # Windows' own tar is bsdtar, which reads zip archives.
          *bsdtar*) tar -xf "$archive" -C "$into" ;;
          *) python3 -I -m zipfile -e "$archive" "$into" ;;
        esac
      fi
      ;;
    *) tar -xzf "$archive" -C "$into" ;;
  esac
}

# The release's SHA-256 of $1, from the SHA256SUMS in $2 (empty when it has no line for it).
expected_sum() {
  tr -d '\r' <"$2" | awk -v f="$1" '$2 == f || $2 == "*" f { print tolower($1); exit }'
}

# Install the release archive into $dir: from the cache when actions/cache restored it, else
# downloaded (and kept for the cache); either way checked against the release's SHA256SUMS,
# fetched anew each time, before anything is extracted: a cache entry is only as trustworthy as
# the jobs that could write it. Returns 2 when the release has no such asset.
install_release() {
  local version="$1" target="$2" dir="$3" exe="$4" cache="$5" ext archive base work expected actual
  ext=tar.gz
  [ "$RUNNER_OS" = Windows ] && ext=zip
  archive="skillgate-$version-$target.$ext"
  base="${SKILLGATE_RELEASE_URL:-https://github.com/${SKILLGATE_ACTION_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-}}/releases/download/$version}"
  base="${base%/}"
  work="$(mktemp -d "$RUNNER_TEMP/skillgate-download.XXXXXX")" || fail "could not create a directory in $RUNNER_TEMP"
  fetch "$base/SHA256SUMS" "$work/SHA256SUMS" || { rm -rf "$work"; return 2; }
  if [ -f "$cache/$archive" ]; then
    echo "using the cached $archive"
    cp "$cache/$archive" "$work/$archive" || fail "could not read the cached $archive"
    from=cache
  else
    echo "downloading $base/$archive"
    fetch "$base/$archive" "$work/$archive" || { rm -rf "$work"; return 2; }
    from=release
  fi
  expected="$(expected_sum "$archive" "$work/SHA256SUMS")"
  actual="$(sha256_of "$work/$archive")"
  if [ -z "$expected" ] || [ "$expected" != "$actual" ]; then
    rm -rf "$work"
    # A cached archive that no longer matches is dropped, so that a re-run downloads it.
    [ "$from" = cache ] && rm -f "$cache/$archive"
    fail "checksum mismatch for $archive: expected ${expected:-no line in SHA256SUMS}, got $actual"
  fi
  echo "verified $archive: sha256 $actual"
  if [ "$from" = release ]; then
    if ! { mkdir -p "$cache" && cp "$work/$archive" "$cache/$archive"; }; then
      fail "could not keep $archive in $cache"
    fi
  fi
  # Into a staging directory first: a failed extraction leaves nothing that looks installed.
  # (Called as a condition, where `set -e` does not apply: each step is checked.)
  mkdir -p "$work/extract" || fail "could not create $work/extract"
  extract "$work/$archive" "$work/extract" || { rm -rf "$work"; fail "could not extract $archive"; }
  [ -f "$work/extract/$exe" ] || { rm -rf "$work"; fail "$archive holds no $exe at its top"; }
  chmod +x "$work/extract/$exe" || fail "could not make $exe executable"
  if ! { rm -rf "$dir" && mkdir -p "$(dirname "$dir")" && mv "$work/extract" "$dir"; }; then
    fail "could not install into $dir"
  fi
  rm -rf "$work"
}

build_from_source() {
  local dir="$1"
  command -v cargo >/dev/null 2>&1 ||
    fail "no release to download and no cargo to build from source: set the version input to a release, or install Rust first"
  rm -rf "$dir"
  # From the action's own directory: cargo and rustup read their config (`.cargo/config.toml`,
  # `rust-toolchain.toml`) from the working directory, which is the checked-out repository.
  (cd "$GITHUB_ACTION_PATH" && cargo install --locked --path "$GITHUB_ACTION_PATH" --root "$dir")
}

main() {
  local mode="${1:-install}" target version exe dir bindir
  from=""
  : "${RUNNER_OS:?}" "${RUNNER_ARCH:?}" "${RUNNER_TEMP:?}" "${GITHUB_ACTION_PATH:?}"
  target="$(target_for "$RUNNER_OS" "$RUNNER_ARCH")" ||
    fail "no skillgate release for $RUNNER_OS on $RUNNER_ARCH (supported: Linux X64/ARM64, macOS X64/ARM64, Windows X64)"
  version="$(resolve_version)"
  # It names a directory that is replaced, and part of a URL: a tag's characters only.
  case "$version" in
    *[!A-Za-z0-9._+-]* | *..*) fail "version '$version' is not a release tag (v1.2.3)" ;;
  esac
  if [ "$mode" = resolve ]; then
    : "${GITHUB_OUTPUT:?}"
    printf 'version=%s\ntarget=%s\n' "$version" "$target" >>"$GITHUB_OUTPUT"
    return
  fi
  : "${GITHUB_PATH:?}"
  exe=skillgate
  [ "$RUNNER_OS" = Windows ] && exe=skillgate.exe
  if [ -n "$version" ]; then
    dir="$RUNNER_TEMP/skillgate/$version/$target"
    bindir="$dir"
    if install_release "$version" "$target" "$dir" "$exe" "$RUNNER_TEMP/skillgate-cache/$version/$target"; then
      echo "installed skillgate $version ($target)"
    elif [ -n "${INPUT_VERSION:-}" ]; then
      # The version asked for, or none: building the action's own source would be another.
      fail "skillgate $version has no release asset for $target (check the version input)"
    else
      echo "skillgate $version has no release asset for $target: building from the action's source with cargo install"
      version=""
    fi
  else
    echo "no release for this action ref (a branch, a commit or a local action): building from the action's source with cargo install"
  fi
  if [ -z "$version" ]; then
    dir="$RUNNER_TEMP/skillgate/source/$target"
    build_from_source "$dir"
    bindir="$dir/bin"
    from=source
  fi
  # Where it came from, for action.yml: only a fresh download is saved to the cache.
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "from=$from" >>"$GITHUB_OUTPUT"; fi
  echo "$bindir" >>"$GITHUB_PATH"
  "$bindir/$exe" --version
}

main "$@"
