#!/bin/bash
# Installs the dependencies, builds doradma from scratch and runs every test
# suite (lib, elements, multiproc, reliability, cuda, fuzz, ...): the same
# command locally and in CI (.ci/run).
#
#   bash scripts/test.sh
#
# First the C style check (scripts/gst-indent --check: one test). Build
# directories (recreated each run): build-test (gcc, every suite) and,
# when clang is installed, build-fuzz (clang, -Dfuzz=enabled, suite fuzz
# only: libFuzzer needs clang), and the sanitizer builds of
# scripts/sanitize.sh (ASan+UBSan: every suite; TSan: lib and reliability;
# ~8 more minutes; DORADMA_SANITIZE=0 skips them).
#
# Then the other platforms, each in a Debian chroot kept outside the clone
# (scripts/chroot-test.sh; /var/cache/doradma/chroots, made on the first run,
# reused after): trixie (Debian 13, GStreamer 1.26, every suite, the >= 1.24
# CUDA branch compiled when the host has the CUDA toolkit), bullseye (Debian
# 11, GStreamer 1.18, GLib 2.66: the CPU path, every suite) and arm64 (cross
# build, suites lib, reliability and multiproc under qemu-user).
# DORADMA_LEGS="trixie bullseye arm64" (the default) picks them; an empty
# value skips them. The wall time of each step is printed before the summary.
#
# Every test runs in a private shm directory (tests/isolate.sh), inside one
# made for this run (/dev/shm/doradma-test-run-<pidns>-<pid>-<start>,
# removed at the end, or by the next run if this one is killed:
# tests/run-dir.sh): two runs at once, or a run next to live pipelines, do
# not meet.
# DORADMA_STRESS=1 runs everything next to one CPU hog per core (not in CI).
#
# The last line printed is always the summary:
#   N passed, N failed, N skipped
# (meson's Ok and Expected Fail count as passed; Fail, Timeout and Unexpected
# Pass as failed; Skipped as skipped; a failed set-up or build counts as one
# failure). The exit status is non-zero when anything failed.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC"
JOBS=$(nproc 2>/dev/null || echo 2)
LOGDIR=${DORADMA_TEST_LOGDIR:-$SRC/build-logs}
mkdir -p "$LOGDIR"

passed=0
failed=0
skipped=0
failures=""

summary () {
  step_done
  if [ -n "$timings" ]; then
    echo
    echo "wall time per step (total $(($(date +%s) - run_t0)) s):"
    printf '%s' "$timings"
  fi
  if [ -n "$failures" ]; then
    echo
    echo "failed tests (step: meson's line):"
    printf '%s' "$failures"
  fi
  echo
  echo "$passed passed, $failed failed, $skipped skipped"
}

# Adds the counts of the `meson test` outputs in file $1 to the totals
# (every summary in it: a chroot leg may run two builds). A line
# "chroot-test[LEG]: ... failed" (a build of a leg that did not get as far
# as its tests) counts as one failure more; a file with no summary at all
# counts as one failure.
count () {
  local out=$1 sums extra lines
  sums=$(awk '/^Ok:/ { ok += $2; n++ } /^Expected Fail:/ { xf += $3 }
              /^Fail:/ { fail += $2 } /^Unexpected Pass:/ { up += $3 }
              /^Skipped:/ { skip += $2 } /^Timeout:/ { to += $2 }
              END { print n + 0, ok + xf, fail + up + to, skip + 0 }' "$out")
  set -- $sums
  # Each failed test's own line, kept for the end: CI shows only the tail.
  # (meson prints each twice: as it ends and in its closing list)
  lines=$(grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT|UNEXPECTEDPASS) ' "$out" |
      awk '!seen[$0]++')
  [ -n "$lines" ] && failures="$failures$(printf '%s' "$lines" | sed "s|^ *|  $step_name: |")
"
  extra=$(grep -c '^chroot-test\[[a-z0-9]*\]: .*failed' "$out")
  if [ "$1" -eq 0 ]; then
    echo "test.sh: no meson summary in $out: counted as 1 failure"
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + $2))
  failed=$((failed + $3 + extra))
  skipped=$((skipped + $4))
}

# Wall time of each step, printed at the end.
timings=""
step_name=""
step_t0=0
step_done () {
  if [ -n "$step_name" ]; then
    timings="$timings$(printf '%6d s  %s' $(($(date +%s) - step_t0)) "$step_name")
"
  fi
  step_name=""
}
step () {
  step_done
  step_name=$*
  step_t0=$(date +%s)
  echo
  echo "==== $* ===="
}
run_t0=$(date +%s)

# Every test works in a private shm directory inside this run's own
# (tests/isolate.sh): live pipelines, other users' channels and a second
# test run in another clone are never seen, nor touched. Removed at the end.
. "$SRC/tests/run-dir.sh"
# (and removes those of runs that were killed)
DORADMA_TEST_RUN_DIR=$(run_dir_new $$) || {
  echo "test.sh: cannot make the run's directory $(run_dir_name $$)"
  exit 1
}
export DORADMA_TEST_RUN_DIR

# DORADMA_STRESS=1: every suite runs next to one CPU hog per core (a busy
# shared machine), to check that no test counts on an idle scheduler.
hogs=()
stop_hogs () {
  local p
  for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; done
  hogs=()
}
on_exit () {
  stop_hogs
  rm -rf "$DORADMA_TEST_RUN_DIR"
}
trap on_exit EXIT
trap 'exit 130' INT TERM HUP
if [ "${DORADMA_STRESS:-0}" = 1 ]; then
  for _ in $(seq "$JOBS"); do
    yes > /dev/null &
    hogs+=($!)
  done
  echo "test.sh: stress mode: ${#hogs[@]} CPU hogs (yes > /dev/null), pids ${hogs[*]}"
fi

step "dependencies"
if ! bash "$SRC/scripts/install-deps.sh"; then
  echo "test.sh: installing dependencies failed"
  failed=$((failed + 1))
  summary
  exit 1
fi

# ---- the C style: every C file as scripts/gst-indent formats it ----
step "style (scripts/gst-indent --check)"
if bash "$SRC/scripts/gst-indent" --check; then
  passed=$((passed + 1))
else
  echo "test.sh: run scripts/gst-indent on the files above"
  failed=$((failed + 1))
fi

# ---- main build: gcc, every suite ----
step "build-test (gcc)"
rm -rf build-test
if meson setup build-test -Dtests=enabled -Dbench=enabled > "$LOGDIR/setup-test.log" 2>&1 &&
    ninja -C build-test -j "$JOBS" > "$LOGDIR/build-test.log" 2>&1; then
  step "meson test (every suite)"
  meson test -C build-test --num-processes "$JOBS" --print-errorlogs \
      2>&1 | tee "$LOGDIR/test-main.log"
  count "$LOGDIR/test-main.log"
else
  tail -n 40 "$LOGDIR/setup-test.log" "$LOGDIR/build-test.log" 2>/dev/null
  echo "test.sh: set-up or build of build-test failed (logs in $LOGDIR)"
  failed=$((failed + 1))
fi

# ---- fuzz build: clang + libFuzzer, suite fuzz ----
# Only the fuzz suite's programs are built: the sanitizer step compiles the
# whole tree with clang again, and building all of it here took a ninth of
# a run.
FUZZ_PROGRAMS="fuzz-replay fuzz-replay-net fuzz-validate fuzz-netwire"
if command -v clang >/dev/null 2>&1; then
  step "build-fuzz (clang, -Dfuzz=enabled)"
  rm -rf build-fuzz
  if CC=clang meson setup build-fuzz -Dtests=enabled -Dfuzz=enabled -Dbench=disabled \
        > "$LOGDIR/setup-fuzz.log" 2>&1 &&
      ninja -C build-fuzz -j "$JOBS" $(printf 'tests/fuzz/%s ' $FUZZ_PROGRAMS) \
        > "$LOGDIR/build-fuzz.log" 2>&1; then
    step "meson test --suite fuzz"
    meson test -C build-fuzz --no-rebuild --suite fuzz --num-processes "$JOBS" \
        --print-errorlogs 2>&1 | tee "$LOGDIR/test-fuzz.log"
    count "$LOGDIR/test-fuzz.log"
  else
    tail -n 40 "$LOGDIR/setup-fuzz.log" "$LOGDIR/build-fuzz.log" 2>/dev/null
    echo "test.sh: set-up or build of build-fuzz failed (logs in $LOGDIR)"
    failed=$((failed + 1))
  fi
else
  echo "test.sh: clang not found: the libFuzzer run is skipped"
  skipped=$((skipped + 1))
fi

# ---- sanitizers: every suite again under ASan+UBSan, lib + reliability
# under TSan (scripts/sanitize.sh); DORADMA_SANITIZE=0 leaves them out ----
if [ "${DORADMA_SANITIZE:-1}" = 1 ]; then
  step "sanitizers (scripts/sanitize.sh)"
  rm -rf build-sanitize
  sh "$SRC/scripts/sanitize.sh" "$SRC/build-sanitize" all \
      2>&1 | tee "$LOGDIR/sanitize.log"
  # One meson summary per sanitizer run; a build that failed has none.
  for name in asan.asan+ubsan asan.asan+ubsan-gst tsan.tsan; do
    count "$SRC/build-sanitize/$name.log"
  done
fi

# ---- other platforms: Debian 13, Debian 11, arm64 (scripts/chroot-test.sh) ----
for leg in ${DORADMA_LEGS-trixie bullseye arm64}; do
  step "chroot leg: $leg"
  bash "$SRC/scripts/chroot-test.sh" "$leg" 2>&1 | tee "$LOGDIR/chroot-$leg.log"
  count "$LOGDIR/chroot-$leg.log"
done

summary
[ "$failed" -eq 0 ]
