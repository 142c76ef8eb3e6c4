#!/bin/bash
# Description: tests/run-dir.sh, the run directory of a test run: its name
# carries the owner's pid and start time, and a sweep removes the
# directories of runs that are gone (a run killed by SIGKILL cannot remove
# its own) and keeps the live ones, the caller's own, and anything else.
# Works in its own private directory, never in /dev/shm.
set -u
. "$(dirname "$0")/run-dir.sh"
base=${DORADMA_SHM_DIR:?not run through tests/isolate.sh}
fail () { echo "FAIL: $*"; exit 1; }
# isolate.sh counts any doradma* left in the directory as a leak
trap 'rm -rf "$base"/doradma-test-*' EXIT

# the expected start time, read by awk: field 22 counted after the ")"
start=$(awk '{ sub(/.*\) /, ""); print $20 }' /proc/$$/stat)
[ -n "$start" ] || fail "cannot read this shell's start time"
[ "$(run_dir_name $$ "$base")" = "$base/doradma-test-run-$$-$start" ] ||
  fail "run_dir_name $$ gave '$(run_dir_name $$ "$base")'"
[ "$(run_dir_name $$)" = "/dev/shm/doradma-test-run-$$-$start" ] ||
  fail "run_dir_name's default base is not /dev/shm: '$(run_dir_name $$)'"

# no process has a pid above pid_max: certainly gone
gone=$(( $(cat /proc/sys/kernel/pid_max) + 1 ))
live=$base/doradma-test-run-$$-$start
reused=$base/doradma-test-run-$$-1           # this pid, another start
dead=$base/doradma-test-run-$gone-7
own=$base/doradma-test-run-$gone-8           # the caller's: kept
other=$base/doradma-test-XXab12              # the old mktemp name
odd=$base/doradma-test-run-x-1               # not a pid
file=$base/doradma-test-run-$gone-9          # a file, not a directory
mkdir "$live" "$reused" "$dead" "$own" "$other" "$odd" || fail "mkdir"
touch "$dead/left" "$file"
ln -s "$other" "$base/doradma-test-run-$gone-10"

run_dir_sweep "$own" "$base" || fail "run_dir_sweep returned $?"

for d in "$reused" "$dead"; do
  [ ! -e "$d" ] || fail "$d (no live process of that pid and start) was not removed"
done
for d in "$live" "$own" "$other" "$odd" "$file" "$base/doradma-test-run-$gone-10"; do
  [ -e "$d" ] || [ -L "$d" ] || fail "$d was removed"
done
[ -d "$other" ] || fail "the symlink's target $other was removed"
echo "ok - removed the run directories of gone processes, kept the rest"
