#!/bin/sh
# Bounded fuzzing for CI: replays every regression input, then runs
# fuzz-validate for SECONDS (default 30) from the seed corpus. Exits 1 on a
# crash and prints where the reproducer is (copy it to tests/fuzz/regressions/
# and fix the bug); 77 (skip) when the fuzz target was not built.
#   tests/fuzz/run-bounded.sh BUILD_DIR [SECONDS [TARGET]]
# TARGET fuzz-netwire (the network wire header) uses corpus-net/ and
# regressions-net/, no dictionary and no leak detection (see below).
set -eu
build=${1:?usage: run-bounded.sh BUILD_DIR [SECONDS [TARGET]]}
secs=${2:-30}
target=${3:-fuzz-validate}
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/tests/fuzz/$target
corpus=$here/corpus
regressions_dir=$here/regressions
dict="-dict=$here/json.dict"
leaks=
if [ "$target" = fuzz-netwire ]; then
  corpus=$here/corpus-net
  regressions_dir=$here/regressions-net
  dict=
  # its caps check parses caps with GStreamer, whose per-type caches are
  # allocated on first use inside an input: LeakSanitizer counts them
  leaks=-detect_leaks=0
  # and GLib's own at start: not at exit either
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
  export ASAN_OPTIONS
fi

if [ ! -x "$bin" ]; then
  echo "no $bin: configure with CC=clang meson setup -Dfuzz=enabled" >&2
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/doradma-fuzz.XXXXXX")
mkdir "$work/corpus"

regressions=$(find "$regressions_dir" -type f ! -name README | sort)
if [ -n "$regressions" ]; then
  # shellcheck disable=SC2086 # one argument per file
  if ! "$bin" $leaks -artifact_prefix="$work/" $regressions; then
    echo "a regression input crashes again; see $work" >&2
    exit 1
  fi
fi

# New inputs go to the first directory ($work), never into the source tree.
set +e
"$bin" -max_total_time="$secs" -max_len=131072 -timeout=10 \
  $dict $leaks -len_control=0 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/" \
  "$work/corpus" "$corpus"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
  echo "$target failed (exit $rc); reproducer(s):" >&2
  # ls fails on the kinds not found: it must not end the script (set -e)
  ls -l "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null >&2 || true
  echo "add them to $regressions_dir/ once fixed" >&2
  exit 1
fi
rm -rf "$work"
