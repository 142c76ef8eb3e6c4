#!/bin/bash
# Description: the test is in a private shm directory of its own
# (tests/isolate.sh): DORADMA_SHM_DIR is set, is not /dev/shm, is an empty
# directory of mode 1777 inside the run's directory, and no other test's
# objects are in it.
d=${DORADMA_SHM_DIR:-}
run=${DORADMA_TEST_RUN_DIR:-}
fail () { echo "FAIL: $*"; exit 1; }
[ -n "$d" ] || fail "DORADMA_SHM_DIR is not set: the test would use /dev/shm"
[ "$(readlink -f "$d")" != /dev/shm ] || fail "DORADMA_SHM_DIR is /dev/shm itself"
[ -d "$d" ] || fail "$d is not a directory"
[ -n "$run" ] && [ "$(dirname "$d")" = "$run" ] || fail "$d is not inside the run's directory '$run'"
[ "$(stat -c %a "$d")" = 1777 ] || fail "$d has mode $(stat -c %a "$d"), not 1777"
[ -z "$(ls -A "$d")" ] || fail "$d is not empty: $(ls -A "$d")"
echo "ok - private directory $d in $run"
