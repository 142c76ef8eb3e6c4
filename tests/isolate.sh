#!/bin/bash
# The wrapper of every test (tests/meson.build: the default test setup, so
# a plain `meson test -C build` uses it too): runs one test in a private
# shared-memory directory of its own, so that no test sees another run's
# objects, a live user's channels or another clone's tests in /dev/shm.
#
#   DORADMA_TEST_RUN_DIR   the run's directory (scripts/test.sh makes one
#                          and removes it at the end). Unset (a `meson
#                          test` started by hand): one per meson process
#                          (tests/run-dir.sh names it), removed by the
#                          last test that leaves it empty, by the
#                          no-leftovers test at the end of the run, or by
#                          the next run once that meson process is gone.
#   DORADMA_SHM_DIR        set here for the test: <run dir>/t-XXXXXX, mode
#                          1777 as /dev/shm (tests run writers and readers
#                          as other uids), removed when the test ends. A doradma* object still in it
#                          fails a test that passed: the leak is named where
#                          it happened.
#
# The test runs in a process group of its own: when meson's timeout
# terminates this wrapper, it prints the test's processes that are still
# alive (pid, state, command), so a hang names what it was waiting for, and
# then kills them.
set -u

if [ -z "${DORADMA_TEST_RUN_DIR:-}" ]; then
  . "$(dirname "$0")/run-dir.sh"
  DORADMA_TEST_RUN_DIR=$(run_dir_name "$PPID")
  export DORADMA_TEST_RUN_DIR_AUTO=1
  run_dir_sweep "$DORADMA_TEST_RUN_DIR"
fi
export DORADMA_TEST_RUN_DIR
# a few tries: a test of the same hand-started run that ends now removes
# the run directory if it finds it empty (below)
for try in 1 2 3; do
  mkdir -p "$DORADMA_TEST_RUN_DIR" && chmod 0755 "$DORADMA_TEST_RUN_DIR" 2>/dev/null
  dir=$(mktemp -d "$DORADMA_TEST_RUN_DIR/t-XXXXXX" 2>/dev/null) && break
done
[ -n "$dir" ] || {
  echo "isolate.sh: cannot make a private directory in $DORADMA_TEST_RUN_DIR" >&2
  exit 1
}
chmod 1777 "$dir"
export DORADMA_SHM_DIR=$dir

child=0
on_term () {
  if [ "$child" -gt 0 ]; then
    echo "isolate.sh: terminated (meson's timeout?) while the test ran; its processes still alive:" >&2
    ps -eo pgid,pid,ppid,stat,etimes,wchan:20,args 2>/dev/null |
      awk -v g="$child" 'NR == 1 || $1 == g' >&2
    kill -KILL -- "-$child" 2>/dev/null
  fi
  rm -rf "$dir"
  exit 143
}
trap on_term TERM INT HUP

set -m                          # the test: a process group of its own
"$@" &
child=$!
set +m
while :; do
  wait "$child"
  rc=$?
  # wait returns > 128 when a trapped signal interrupted it: the trap exits
  kill -0 "$child" 2>/dev/null || break
done
# children the test left behind are not the next test's business
kill -KILL -- "-$child" 2>/dev/null

left=$(find "$dir" -name 'doradma*' 2>/dev/null)
rm -rf "$dir"
# a hand-started run leaves no empty run directory behind (rmdir fails
# while another of its tests still has a directory in it)
[ -n "${DORADMA_TEST_RUN_DIR_AUTO:-}" ] && rmdir "$DORADMA_TEST_RUN_DIR" 2>/dev/null
if [ -n "$left" ]; then
  echo "isolate.sh: the test left doradma objects behind (removed):" >&2
  echo "$left" | sed 's/^/  /' >&2
  [ "$rc" -eq 0 ] && rc=1
fi
exit "$rc"
