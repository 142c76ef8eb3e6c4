#!/bin/bash
# doradmanetsink whose start fails at the UCX open (a transport UCX does
# not have) frees what start had made: basesink calls no stop after a
# failed start. Under valgrind: no block definitely lost from this plugin
# (allowed-peers' list was, every failed start).
set -u
command -v valgrind > /dev/null || { echo "SKIP: no valgrind"; exit 77; }
# valgrind cannot run the sanitizer legs' ASan build (its runtime is
# preloaded there); the gcc build runs this test
[[ "${LD_PRELOAD:-}" != *san* ]] ||
  { echo "SKIP: a sanitizer runtime is preloaded (valgrind cannot run it)"; exit 77; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
timeout $(( 240 * ${DORADMA_TEST_TIME_SCALE:-1} )) valgrind --leak-check=full \
  --num-callers=30 gst-launch-1.0 videotestsrc num-buffers=1 ! \
  doradmanetsink host=127.0.0.1 port=1 allowed-peers=127.0.0.1 \
  transports=no-such-transport > "$log" 2>&1
grep -q "Failed to set pipeline to PAUSED" "$log" ||
  { echo "FAIL: the start did not fail: $(tail -5 "$log")"; exit 1; }
grep -q "ERROR SUMMARY" "$log" || { echo "FAIL: valgrind did not finish"; exit 1; }
leaks=$(awk '/definitely lost in/ { b = 1; s = "" } b { s = s $0 "\n" }
  b && /^==[0-9]+== *$/ { if (s ~ /gst_doradma_net/) { printf "%s", s; n++ } b = 0 }
  END { exit n > 0 }' "$log") && { echo "ok: a failed start leaks nothing of doradmanetsink's"; exit 0; }
echo "FAIL: blocks lost from doradmanetsink's failed start:"
echo "$leaks"
exit 1
