#!/bin/bash
# Description: tests/run-dir.sh, the run directory of a test run: its name
# carries the owner's pid namespace, pid and start time, and a sweep
# removes the directories of runs that are gone (a run killed by SIGKILL
# cannot remove its own) and keeps the live ones, the caller's own, those
# of another pid namespace, and anything else.
# Works in its own private directory, never in /dev/shm.
set -u
. "$(dirname "$0")/run-dir.sh"
base=${DORADMA_SHM_DIR:?not run through tests/isolate.sh}
fail () { echo "FAIL: $*"; exit 1; }
# isolate.sh counts any doradma* left in the directory as a leak
trap 'rm -rf "$base"/doradma-test-*' EXIT

# the expected start time and pid namespace, read here by awk and stat:
# field 22 counted after the ")"; the inode of /proc/self/ns/pid
start=$(awk '{ sub(/.*\) /, ""); print $20 }' /proc/$$/stat)
ns=$(stat -L -c %i /proc/self/ns/pid)
[ -n "$start" ] && [ -n "$ns" ] || fail "cannot read this shell's start time or pid namespace"
[ "$(run_dir_name $$ "$base")" = "$base/doradma-test-run-$ns-$$-$start" ] ||
  fail "run_dir_name $$ gave '$(run_dir_name $$ "$base")'"
[ "$(run_dir_name $$)" = "/dev/shm/doradma-test-run-$ns-$$-$start" ] ||
  fail "run_dir_name's default base is not /dev/shm: '$(run_dir_name $$)'"

# no process has a pid above pid_max: certainly gone
gone=$(( $(cat /proc/sys/kernel/pid_max) + 1 ))
run=$base/doradma-test-run-$ns
live=$run-$$-$start
reused=$run-$$-1                     # this pid, another start
dead=$run-$gone-7
own=$run-$gone-8                     # the caller's: kept
foreign=$base/doradma-test-run-$((ns + 1))-$gone-7   # another namespace's
other=$base/doradma-test-XXab12      # the old mktemp name
odd=$run-x-1                         # not a pid
nostart=$run-$$-                     # no start time: not a name of ours
file=$run-$gone-9                    # a file, not a directory
mkdir "$live" "$reused" "$dead" "$own" "$foreign" "$other" "$odd" \
  "$nostart" || fail "mkdir"
touch "$dead/left" "$file"
ln -s "$other" "$run-$gone-10"

run_dir_sweep "$own" "$base" || fail "run_dir_sweep returned $?"

for d in "$reused" "$dead"; do
  [ ! -e "$d" ] || fail "$d (no live process of that pid and start) was not removed"
done
for d in "$live" "$own" "$foreign" "$other" "$odd" "$nostart" "$file" \
    "$run-$gone-10"; do
  [ -e "$d" ] || [ -L "$d" ] || fail "$d was removed"
done
[ -d "$other" ] || fail "the symlink's target $other was removed"

# run_dir_new: sweeps, makes the directory 0755, refuses a name taken
mkdir "$dead" || fail "mkdir"
rmdir "$live" || fail "rmdir"
made=$(run_dir_new $$ "$base") || fail "run_dir_new failed"
[ "$made" = "$live" ] || fail "run_dir_new made '$made', not '$live'"
[ "$(stat -c %a "$made")" = 755 ] || fail "$made has mode $(stat -c %a "$made")"
[ ! -e "$dead" ] || fail "run_dir_new did not sweep $dead"
! run_dir_new $$ "$base" >/dev/null 2>&1 || fail "run_dir_new took a name taken"

# /proc unreadable (no start time for anyone, ourselves included): every
# run would look gone, so nothing may go
mkdir "$dead" || fail "mkdir"
( run_dir_start () { :; }; run_dir_sweep "$own" "$base" )
[ -d "$dead" ] || fail "the sweep removed $dead without a start time of its own"
echo "ok - removed the run directories of gone processes, kept the rest"
