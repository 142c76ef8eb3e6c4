#!/bin/bash
# The flake hunt: repeats the multi-process, element and dora tests N times
# under load, in the gcc build and the ASan+UBSan build, and prints each
# test's failure rate (README.md, "Flake hunt").
#
#   scripts/flake-hunt.sh [-n N] [-b BUILDS] [-s SUITES] [-t TESTS]
#                         [-o DIR] [-j JOBS] [--no-load] [--no-build]
#                         [--gcc-dir DIR] [--asan-dir DIR]
#
#   -n N        repetitions of every test (default 20)
#   -b BUILDS   comma-separated, of gcc and asan (default gcc,asan)
#   -s SUITES   comma-separated meson suites (default: multiproc, elements,
#               dora, conformance, cli, reliability, allocator: every suite
#               whose tests run several processes or GStreamer elements).
#               Left out by default: lib (one library behaviour per test,
#               its fork tests are crash/litmus tests with their own
#               repetitions; add it with -s ...,lib), net and net-soak
#               (network namespaces, root, their own soak), cuda (needs a
#               GPU), sdk (installs the build), fuzz, relacy
#   -t TESTS    comma-separated test names, instead of whole suites (within
#               the suites given)
#   -o DIR      where builds, logs and the table go (default
#               build-flake-hunt; ignored by git)
#   -j JOBS     meson test --num-processes (default: the number of cores,
#               as the README's test command)
#   --no-load   no hogs, no parallel build (to compare with the loaded rate)
#   --gcc-dir, --asan-dir DIR
#               reuse these build directories (set up here when missing;
#               ninja brings an existing one up to date)
#   --no-build  run the builds as they are (no setup, no ninja)
#
# Load, for the whole hunt: one CPU hog (yes > /dev/null) per core and a
# parallel build (a scratch build of the lib, plugin and tools, cleaned and
# rebuilt with ninja -j1 over and over). Each runs under `timeout` (the
# hunt's bound, FLAKE_HUNT_LOAD_LIMIT seconds, default 43200) and all are
# killed when the hunt ends, however it ends.
#
# The ASan build is scripts/sanitize.sh's: clang, -shared-libasan, its
# ASAN_OPTIONS/UBSAN_OPTIONS; GStreamer suites with the runtime preloaded
# and leak checking off, the others (reliability) with leak checking, both
# with DORADMA_TEST_TIME_SCALE=3 and --timeout-multiplier 3.
#
# Results are counted from meson's JSON test logs (one per repetition and
# build: DIR/logs/BUILD-REP.json), never from its text output. The table
# (DIR/table.txt): test, build, runs, failures (FAIL, TIMEOUT, ERROR,
# UNEXPECTEDPASS), skips, failure rate. The output of every failed run is
# kept in DIR/failed/BUILD/TEST.REP.log. Exit status: 0 when nothing failed,
# 1 otherwise, 2 on bad usage.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
N=20
BUILDS=gcc,asan
SUITES=multiproc,elements,dora,conformance,cli,reliability,allocator
TESTS=
OUT=$SRC/build-flake-hunt
JOBS=$(nproc 2>/dev/null || echo 2)
LOAD=1
BUILD=1
GCC_DIR=
ASAN_DIR=

usage () {
  sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case $1 in
    -n) N=$2; shift 2 ;;
    -b) BUILDS=$2; shift 2 ;;
    -s) SUITES=$2; shift 2 ;;
    -t) TESTS=$2; shift 2 ;;
    -o) OUT=$2; shift 2 ;;
    -j) JOBS=$2; shift 2 ;;
    --no-load) LOAD=0; shift ;;
    --no-build) BUILD=0; shift ;;
    --gcc-dir) GCC_DIR=$2; shift 2 ;;
    --asan-dir) ASAN_DIR=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "flake-hunt: unknown argument $1" >&2; usage ;;
  esac
done
case $N in ''|*[!0-9]*|0) echo "flake-hunt: -n wants a positive number" >&2; exit 2 ;; esac
for b in ${BUILDS//,/ }; do
  case $b in gcc|asan) ;; *) echo "flake-hunt: unknown build $b" >&2; exit 2 ;; esac
done

mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
GCC_DIR=${GCC_DIR:-$OUT/gcc}
ASAN_DIR=${ASAN_DIR:-$OUT/asan}
LOGS=$OUT/logs
rm -rf "$LOGS" "$OUT/failed"
mkdir -p "$LOGS" "$OUT/failed"

# ---- clean-up: the load and the run's shm directory, however we end ----
load_pids=()
stop_load () {
  local p
  for p in "${load_pids[@]}"; do
    # each load job is a process group of its own (setsid)
    kill -TERM -- "-$p" 2>/dev/null
  done
  for p in "${load_pids[@]}"; do
    wait "$p" 2>/dev/null
  done
  load_pids=()
}
on_exit () {
  stop_load
  [ -n "${DORADMA_TEST_RUN_DIR:-}" ] && rm -rf "$DORADMA_TEST_RUN_DIR"
}
trap on_exit EXIT
trap 'exit 130' INT TERM HUP

# ---- builds ----
setup_build () {   # name, dir, CC, meson args...
  local name=$1 dir=$2 cc=$3
  shift 3
  if [ "$BUILD" = 0 ]; then
    [ -f "$dir/build.ninja" ] && return 0
    echo "flake-hunt: --no-build, but $dir is no build directory"
    return 1
  fi
  if [ ! -f "$dir/build.ninja" ]; then
    echo "== $name: meson setup $dir"
    CC=$cc meson setup "$dir" "$SRC" "$@" >"$OUT/setup-$name.log" 2>&1 || {
      tail -20 "$OUT/setup-$name.log"
      echo "flake-hunt: meson setup of $dir failed"
      return 1
    }
  fi
  echo "== $name: ninja -C $dir"
  ninja -C "$dir" -j "$JOBS" >"$OUT/build-$name.log" 2>&1 || {
    grep -E "^FAILED|error:" "$OUT/build-$name.log" | head -20
    echo "flake-hunt: build of $dir failed (log: $OUT/build-$name.log)"
    return 1
  }
}

for b in ${BUILDS//,/ }; do
  case $b in
    gcc)
      setup_build gcc "$GCC_DIR" "${FLAKE_HUNT_GCC:-gcc}" -Dtests=enabled \
          -Dbench=disabled || exit 1 ;;
    asan)
      # as scripts/sanitize.sh (b_lundef=false, -shared-libasan: the
      # plugin, loaded by an uninstrumented gst-launch, and the tests share
      # one preloaded runtime; no GIR: its dumper cannot run sanitized)
      setup_build asan "$ASAN_DIR" clang -Dtests=enabled \
          -Dintrospection=disabled -Db_sanitize=address,undefined \
          -Db_lundef=false -Dbuildtype=debugoptimized \
          "-Dc_args=['-fno-sanitize-recover=undefined','-shared-libasan']" \
          -Dc_link_args=-shared-libasan -Dbench=disabled -Dfuzz=disabled \
          -Dcuda=disabled || exit 1 ;;
  esac
done

# ---- the run's shm directory (as scripts/test.sh) ----
. "$SRC/tests/run-dir.sh"
DORADMA_TEST_RUN_DIR=$(run_dir_new $$) || exit 1
export DORADMA_TEST_RUN_DIR

# ---- load ----
if [ "$LOAD" = 1 ]; then
  limit=${FLAKE_HUNT_LOAD_LIMIT:-43200}
  scratch=$OUT/load-build
  if [ ! -f "$scratch/build.ninja" ]; then
    meson setup "$scratch" "$SRC" -Dtests=disabled -Dintrospection=disabled \
        -Dbench=disabled -Dfuzz=disabled -Dcuda=disabled \
        >"$OUT/setup-load.log" 2>&1 || {
      tail -20 "$OUT/setup-load.log"
      echo "flake-hunt: the load's scratch build cannot be set up"
      exit 1
    }
  fi
  for _ in $(seq "$(nproc 2>/dev/null || echo 2)"); do
    setsid timeout "$limit" yes >/dev/null &
    load_pids+=($!)
  done
  setsid timeout "$limit" sh -c 'while :; do ninja -C "$1" -t clean \
      >/dev/null 2>&1; ninja -C "$1" -j1 >/dev/null 2>&1; done' sh \
      "$scratch" &
  load_pids+=($!)
  echo "== load: $(($(nproc 2>/dev/null || echo 2))) CPU hogs and a" \
      "parallel build (pids ${load_pids[*]})"
fi

# ---- tests ----
# Names of the tests of `dir` in the suites given (and in TESTS, if any),
# one per line; split by the ASan mode they need: "gst" (the runtime
# preloaded, no leak checking) or "plain".
select_tests () {   # dir, kind (all|gst|plain)
  meson introspect --tests "$1" | python3 -c '
import json, sys
suites = set(sys.argv[1].split(","))
names = set(filter(None, sys.argv[2].split(",")))
kind = sys.argv[3]
# scripts/sanitize.sh: these go through gst-launch or GStreamer, whose
# process-lifetime allocations LSan cannot attribute
gst = {"elements", "multiproc", "allocator", "conformance", "dora", "cli",
       "net", "net-soak"}
for t in json.load(sys.stdin):
    ts = {s.split(":")[-1] for s in t["suite"]}
    if not ts & suites or (names and t["name"] not in names):
        continue
    if kind == "all" or (kind == "gst") == bool(ts & gst):
        print(t["name"])
' "$SUITES" "$TESTS" "$2"
}

status=0
run_rep () {   # build, dir, rep, kind, extra meson args...
  local b=$1 dir=$2 rep=$3 kind=$4 tests
  shift 4
  tests=$(select_tests "$dir" "$kind")
  [ -n "$tests" ] || return 0
  # a run that wrote no log must not count the previous one's again; the
  # name is this hunt's own: two hunts may share a build directory
  rm -f "$dir/meson-logs/flake-hunt-$$-$kind.json"
  # shellcheck disable=SC2086
  meson test -C "$dir" --no-rebuild --num-processes "$JOBS" \
      --logbase "flake-hunt-$$-$kind" "$@" $tests \
      >"$LOGS/$b-$rep-$kind.txt" 2>&1 || status=1
  mv "$dir/meson-logs/flake-hunt-$$-$kind.json" "$LOGS/$b-$rep-$kind.json" || {
    echo "flake-hunt: meson wrote no JSON log ($LOGS/$b-$rep-$kind.txt)"
    status=1
  }
}

t0=$(date +%s)
for rep in $(seq "$N"); do
  for b in ${BUILDS//,/ }; do
    echo "== repetition $rep/$N, $b ($(($(date +%s) - t0)) s so far)"
    case $b in
      gcc)
        run_rep gcc "$GCC_DIR" "$rep" all ;;
      asan)
        (
          export DORADMA_SOAK_ROUNDS=${DORADMA_SOAK_ROUNDS:-60}
          export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}
          export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
          export G_SLICE=always-malloc
          export DORADMA_TEST_TIME_SCALE=3
          rt=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
          LD_LIBRARY_PATH="$(dirname "$rt")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
          export LD_LIBRARY_PATH
          run_rep asan "$ASAN_DIR" "$rep" plain --timeout-multiplier 3
          export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0:verify_asan_link_order=0"
          export LD_PRELOAD="$rt"
          run_rep asan "$ASAN_DIR" "$rep" gst --timeout-multiplier 3
          exit $status
        ) || status=1 ;;
    esac
  done
done
stop_load

# ---- the table, from the JSON logs ----
python3 - "$LOGS" "$OUT/failed" >"$OUT/table.txt" <<'EOF'
import collections, glob, json, os, re, sys

logs, failed_dir = sys.argv[1], sys.argv[2]
BAD = {"FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"}
runs = collections.Counter()
fails = collections.Counter()
skips = collections.Counter()
for path in sorted(glob.glob(os.path.join(logs, "*.json"))):
    build, rep = re.match(r"(\w+)-(\d+)-", os.path.basename(path)).groups()
    for line in open(path):
        if not line.strip():
            continue
        t = json.loads(line)
        name = t["name"].split(":", 1)[-1].strip()
        key = (name, build)
        runs[key] += 1
        if t["result"] == "SKIP":
            skips[key] += 1
        elif t["result"] in BAD:
            fails[key] += 1
            d = os.path.join(failed_dir, build)
            os.makedirs(d, exist_ok=True)
            safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
            with open(os.path.join(d, "%s.%s.log" % (safe, rep)), "w") as f:
                f.write("result %s, exit %s, %.1f s\n$ %s\n\n" % (
                    t["result"], t.get("returncode"), t.get("duration", 0),
                    " ".join(t.get("command", []))))
                f.write(t.get("stdout") or "")
                f.write(t.get("stderr") or "")
w = max([len(n) for n, _ in runs] + [4])
print("%-*s  %-5s %5s %8s %6s %7s" % (w, "test", "build", "runs", "failures",
                                      "skips", "rate"))
for key in sorted(runs, key=lambda k: (-fails[k], k[1], k[0])):
    n, f = runs[key], fails[key]
    print("%-*s  %-5s %5d %8d %6d %6.1f%%" % (w, key[0], key[1], n, f,
                                              skips[key], 100.0 * f / n))
total = sum(runs.values())
print("\n%d runs, %d failed, %d skipped, %d tests x builds" % (
    total, sum(fails.values()), sum(skips.values()), len(runs)))
EOF
cat "$OUT/table.txt"
echo "== $(($(date +%s) - t0)) s; table: $OUT/table.txt; failed runs'" \
    "output: $OUT/failed/"
if grep -q ' 0 failed,' "$OUT/table.txt"; then
  exit $status
fi
exit 1
