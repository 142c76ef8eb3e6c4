# The run directory of a test run, sourced by tests/isolate.sh (a hand-started
# `meson test`), scripts/test.sh and scripts/flake-hunt.sh: one name for the
# owner process, BASE/doradma-test-run-<pid>-<start>, so that whatever run
# comes next can tell a live run's directory from the one of a run that was
# killed (SIGKILL runs no trap) and remove it.
#
#   run_dir_name PID [BASE]   prints the name of PID's run directory
#   run_dir_sweep KEEP [BASE] removes the run directories of processes that
#                             are gone, except KEEP
#
# BASE defaults to /dev/shm. <start> is the process's start time (field 22
# of /proc/<pid>/stat): a pid reused by another process is another run.

run_dir_start () {   # pid: its start time, empty when it is gone
  # the fields after the command's ")" (a command may contain spaces)
  sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20
}

run_dir_name () {   # pid [base]
  local start
  start=$(run_dir_start "$1")
  echo "${2:-/dev/shm}/doradma-test-run-$1-${start:-0}"
}

run_dir_sweep () {   # keep [base]
  local d b pid
  for d in "${2:-/dev/shm}"/doradma-test-run-*-*; do
    [ -d "$d" ] && [ ! -L "$d" ] && [ "$d" != "$1" ] || continue
    b=${d##*/doradma-test-run-}
    pid=${b%-*}
    case $pid in '' | *[!0-9]*) continue ;; esac
    # another user's may not be ours to remove
    [ "$(run_dir_start "$pid")" = "${b##*-}" ] || rm -rf "$d" 2>/dev/null
  done
  return 0
}
