#!/bin/bash
# doradmanetsink and doradmanetsrc whose start fails at the UCX open (a
# transport UCX does not have) free what start had made: basesink and
# basesrc call no stop after a failed start. Under valgrind: no block
# definitely lost from this plugin (allowed-peers' list was, every failed
# start of the sink; the key, the producer and the lists, of the src).
set -u
command -v valgrind > /dev/null || { echo "SKIP: no valgrind"; exit 77; }
# valgrind cannot run the sanitizer legs' ASan build (its runtime is
# preloaded there); the gcc build runs this test
[[ "${LD_PRELOAD:-}" != *san* ]] ||
  { echo "SKIP: a sanitizer runtime is preloaded (valgrind cannot run it)"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
key=$dir/key
head -c 32 /dev/urandom > "$key" && chmod 600 "$key"

# $1: the element's name; the rest: the pipeline. Returns 1 on a failure.
failed_start() {
  local element=$1 log=$dir/$1.log leaks
  shift
  timeout $(( 240 * ${DORADMA_TEST_TIME_SCALE:-1} )) valgrind \
    --leak-check=full --num-callers=30 gst-launch-1.0 "$@" > "$log" 2>&1
  grep -q "Failed to set pipeline to PAUSED" "$log" ||
    { echo "FAIL: $element: the start did not fail: $(tail -5 "$log")"; return 1; }
  grep -q "ERROR SUMMARY" "$log" ||
    { echo "FAIL: $element: valgrind did not finish"; return 1; }
  leaks=$(awk '/definitely lost in/ { b = 1; s = "" } b { s = s $0 "\n" }
    b && /^==[0-9]+== *$/ { if (s ~ /gst_doradma_net/) { printf "%s", s; n++ } b = 0 }
    END { exit n > 0 }' "$log") &&
    { echo "ok: a failed start leaks nothing of $element's"; return 0; }
  echo "FAIL: blocks lost from $element's failed start:"
  echo "$leaks"
  return 1
}

rc=0
failed_start doradmanetsink videotestsrc num-buffers=1 ! doradmanetsink \
  host=127.0.0.1 port=1 allowed-peers=127.0.0.1 \
  transports=no-such-transport || rc=1
failed_start doradmanetsrc doradmanetsrc address=127.0.0.1 port=1 \
  channel="net-failed-start-$$" key-file="$key" allowed-peers=127.0.0.1 \
  transports=no-such-transport ! fakesink || rc=1
exit $rc
