# The run directory of a test run, sourced by tests/isolate.sh (a hand-started
# `meson test`), scripts/test.sh and scripts/flake-hunt.sh: one name for the
# owner process, BASE/doradma-test-run-<pidns>-<pid>-<start>, so that whatever
# run comes next can tell a live run's directory from the one of a run that
# was killed (SIGKILL runs no trap) and remove it.
#
#   run_dir_name PID [BASE]   prints the name of PID's run directory
#   run_dir_sweep KEEP [BASE] removes the run directories of processes that
#                             are gone, except KEEP
#   run_dir_new PID [BASE]    sweeps, makes PID's run directory (a name
#                             taken fails) and prints it
#
# BASE defaults to /dev/shm. <start> is the process's start time (field 22
# of /proc/<pid>/stat): a pid reused by another process is another run.
# <pidns> is our pid namespace's inode: a run in another namespace sharing
# the directory (a container) is not ours to judge, nor is anything when
# /proc cannot tell us our own start time.

run_dir_start () {   # pid: its start time, empty when it is gone
  # the fields after the command's ")" (a command may contain spaces)
  sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20
}

run_dir_pidns () {   # "pid:[4026531836]" -> 4026531836, empty if unknown
  local ns
  ns=$(readlink /proc/self/ns/pid 2>/dev/null) || return 0
  ns=${ns#*[}
  echo "${ns%]}"
}

run_dir_name () {   # pid [base]
  local start ns
  start=$(run_dir_start "$1")
  ns=$(run_dir_pidns)
  echo "${2:-/dev/shm}/doradma-test-run-${ns:-0}-$1-${start:-0}"
}

run_dir_sweep () {   # keep [base]
  local d b ns pid start
  ns=$(run_dir_pidns)
  # no namespace or no start time of our own: /proc cannot tell us who lives
  case $ns in '' | *[!0-9]*) return 0 ;; esac
  [ -n "$(run_dir_start $$)" ] || return 0
  for d in "${2:-/dev/shm}"/doradma-test-run-"$ns"-*-*; do
    [ -d "$d" ] && [ ! -L "$d" ] && [ "$d" != "$1" ] || continue
    b=${d##*/doradma-test-run-"$ns"-}
    pid=${b%-*}
    start=${b##*-}
    case $pid in '' | *[!0-9]*) continue ;; esac
    case $start in '' | *[!0-9]*) continue ;; esac
    # another user's may not be ours to remove
    [ "$(run_dir_start "$pid")" = "$start" ] || rm -rf "$d" 2>/dev/null
  done
  return 0
}

run_dir_new () {   # pid [base]
  local d
  d=$(run_dir_name "$1" "${2:-}")
  run_dir_sweep "$d" "${2:-}"
  # 0755: tests run consumers as another uid
  mkdir -m 0755 "$d" || return 1
  echo "$d"
}
