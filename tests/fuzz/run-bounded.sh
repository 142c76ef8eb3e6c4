#!/bin/sh
# Bounded fuzzing for CI: replays every regression input, then runs
# fuzz-validate for SECONDS (default 30) from the seed corpus. Exits 1 on a
# crash and prints where the reproducer is (copy it to tests/fuzz/regressions/
# and fix the bug); 77 (skip) when the fuzz target was not built.
#   tests/fuzz/run-bounded.sh BUILD_DIR [SECONDS]
set -eu
build=${1:?usage: run-bounded.sh BUILD_DIR [SECONDS]}
secs=${2:-30}
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/tests/fuzz/fuzz-validate

if [ ! -x "$bin" ]; then
  echo "no $bin: configure with CC=clang meson setup -Dfuzz=enabled" >&2
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/doradma-fuzz.XXXXXX")
mkdir "$work/corpus"

regressions=$(find "$here/regressions" -type f ! -name README | sort)
if [ -n "$regressions" ]; then
  # shellcheck disable=SC2086 # one argument per file
  if ! "$bin" -artifact_prefix="$work/" $regressions; then
    echo "a regression input crashes again; see $work" >&2
    exit 1
  fi
fi

# New inputs go to the first directory ($work), never into the source tree.
set +e
"$bin" -max_total_time="$secs" -max_len=131072 -timeout=10 \
  -dict="$here/json.dict" -len_control=0 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/" \
  "$work/corpus" "$here/corpus"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
  echo "fuzz-validate failed (exit $rc); reproducer(s):" >&2
  ls -l "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null >&2
  echo "add them to $here/regressions/ once fixed" >&2
  exit 1
fi
rm -rf "$work"
