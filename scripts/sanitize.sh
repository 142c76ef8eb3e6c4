#!/bin/sh
# Builds and runs the tests under the sanitizers, each in its own build dir:
#   BUILD_ROOT/asan  ASan + UBSan (clang): every suite fast enough (not the
#                    benchmarks, not cuda when there is no GPU: they skip)
#   BUILD_ROOT/tsan  TSan (clang): suites lib and reliability only (no
#                    GStreamer suite, net included: gst-launch-1.0 is not
#                    instrumented and TSan's runtime is not preloaded into
#                    it as ASan's is; docs/reliability.md)
# Usage: scripts/sanitize.sh BUILD_ROOT [asan|tsan|all]
# Exit status: 0 when every test passed or skipped, 1 otherwise. A summary
# per build is printed at the end; full logs are in each build's
# meson-logs/testlog.txt.
#
# Time: about 6-8 minutes on 2 cores from scratch. The soak runs
# DORADMA_SOAK_ROUNDS rounds under the sanitizers (default here 60).
set -u

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_ROOT [asan|tsan|all]" >&2
  exit 2
fi
root=$1
which=${2:-all}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root"
root=$(cd "$root" && pwd)
supp="$src/tests/tsan.supp"
status=0
summary=""

export CC=${CC:-clang}
export DORADMA_SOAK_ROUNDS=${DORADMA_SOAK_ROUNDS:-60}
# Sanitizer reports must fail the test that produced them.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-suppressions=$supp:halt_on_error=1:second_deadlock_stack=1:report_signal_unsafe=0}
# GLib's slice allocator and type system hold memory for the process life.
export G_SLICE=always-malloc
export G_DEBUG=${G_DEBUG:-gc-friendly}

setup () {   # dir, meson args... (no GIR: its dumper cannot run sanitized)
  d=$1; shift
  if [ -f "$d/build.ninja" ]; then
    meson setup --reconfigure "$d" "$src" -Dintrospection=disabled "$@" \
        >"$d.setup.log" 2>&1
  else
    meson setup "$d" "$src" -Dintrospection=disabled "$@" >"$d.setup.log" 2>&1
  fi || { echo "== meson setup $d failed:"; tail -20 "$d.setup.log"; return 1; }
  # -k 0: one broken target (a tree in flux) must not hide every other
  # result; its test then fails on its own, and the status is 1.
  ninja -C "$d" -k 0 >"$d.build.log" 2>&1 || {
    echo "== build $d: some targets failed (their tests will fail):"
    grep -E "^FAILED|error:" "$d.build.log" | head -20
    status=1; }
  return 0
}

# Names of the tests of the given suites ("-" before a suite: excluded)
# whose executables were built; missing ones are listed as failures.
select_tests () {   # dir, suites...
  d=$1; shift
  meson introspect --tests "$d" | python3 -c '
import json, os, sys
want = [a for a in sys.argv[1:] if not a.startswith("-")]
skip = [a[1:] for a in sys.argv[1:] if a.startswith("-")]
for t in json.load(sys.stdin):
    suites = [s.split(":")[-1] for s in t["suite"]]
    if want and not set(suites) & set(want): continue
    if set(suites) & set(skip): continue
    if os.path.exists(t["cmd"][0]): print(t["name"])
    else: print("NOT BUILT: " + t["name"], file=sys.stderr)
' "$@"
}

run () {     # name, dir, suites (see select_tests), -- meson test args...
  name=$1; d=$2; shift 2
  suites=""
  while [ $# -gt 0 ] && [ "$1" != -- ]; do suites="$suites $1"; shift; done
  [ $# -gt 0 ] && shift
  t0=$(date +%s)
  tests=$(select_tests "$d" $suites 2>"$d.missing.log")
  if [ -s "$d.missing.log" ]; then sed 's/^/   /' "$d.missing.log"; status=1; fi
  echo "== $name: meson test (suites:$suites) $*"
  if [ -z "$tests" ]; then   # meson test without names would run them all
    echo "   no test built in these suites"
    summary="$summary
$name: no tests"
    return 0
  fi
  # shellcheck disable=SC2086
  meson test -C "$d" --no-rebuild --print-errorlogs --num-processes 2 "$@" \
      $tests >"$d.$name.log" 2>&1
  rc=$?
  grep -E "^ *[0-9]+/[0-9]+ " "$d.$name.log" | sed 's/^/   /'
  sed -n '/^Ok:/,/^Timeout:/p' "$d.$name.log" | sed 's/^/   /'
  # Sanitizer reports, whoever printed them.
  grep -hE "ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer|runtime error:" \
      "$d/meson-logs/testlog.txt" 2>/dev/null | sort | uniq -c | head -20
  t1=$(date +%s)
  summary="$summary
$name: $(grep -E '^(Ok|Fail|Skipped|Timeout):' "$d.$name.log" | tr -s ' \n' ' ') ($((t1 - t0)) s)"
  [ $rc -eq 0 ] || status=1
}

if [ "$which" = all ] || [ "$which" = asan ]; then
  # b_lundef=false: the sanitizer runtime is linked into executables only.
  # -shared-libasan: the plugin (a .so loaded by gst-launch, which is not
  # instrumented) and the tests share one ASan runtime, preloaded below.
  if setup "$root/asan" -Db_sanitize=address,undefined -Db_lundef=false \
      -Dbuildtype=debugoptimized \
      "-Dc_args=['-fno-sanitize-recover=undefined','-shared-libasan']" \
      -Dc_link_args=-shared-libasan \
      -Dbench=disabled -Dfuzz=disabled -Dcuda=disabled; then
    asan_rt=$($CC -print-file-name=libclang_rt.asan-x86_64.so)
    export LD_LIBRARY_PATH="$(dirname "$asan_rt")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # Every suite but the benchmarks; the soak is scaled down above.
    # Leak checking where every allocation is ours to free: lib, fuzz,
    # reliability, cuda (the allocator suite goes through GStreamer).
    # (sdk is left out: it installs the build and links applications
    # against the installed library, which says nothing about memory safety
    # and cannot run without the sanitizer runtime preloaded everywhere.)
    # the tests' own deadlines stretch as meson's timeouts do
    export DORADMA_TEST_TIME_SCALE=3
    run asan+ubsan "$root/asan" -bench -elements -multiproc -allocator \
        -conformance -dora -cli -sdk -net -net-soak -- \
        --timeout-multiplier 3
    # GStreamer and GLib keep process-lifetime allocations that LSan cannot
    # attribute (libglib has no frame pointers: stacks end at g_malloc), so
    # the element suites run with ASan+UBSan but without leak checking.
    saved=$ASAN_OPTIONS
    export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0:verify_asan_link_order=0"
    export LD_PRELOAD="$asan_rt"
    # net, net-soak too: the namespace scripts run pgrep without the
    # preload (procps-ng's pgrep deadlocks in textdomain() with this runtime
    # preloaded: that, not UCX, was the hang these suites were left out for)
    run asan+ubsan-gst "$root/asan" elements multiproc allocator \
        conformance dora cli net net-soak -- \
        --timeout-multiplier 3
    unset LD_PRELOAD
    export ASAN_OPTIONS="$saved"
  else
    status=1; summary="$summary
asan+ubsan: BUILD FAILED"
  fi
fi

if [ "$which" = all ] || [ "$which" = tsan ]; then
  if setup "$root/tsan" -Db_sanitize=thread -Db_lundef=false \
      -Dbuildtype=debugoptimized -Dbench=disabled -Dfuzz=disabled \
      -Dcuda=disabled; then
    DORADMA_TEST_TIME_SCALE=4 run tsan "$root/tsan" lib reliability -- \
        --timeout-multiplier 4
  else
    status=1; summary="$summary
tsan: BUILD FAILED"
  fi
fi

echo "== summary$summary"
exit $status
