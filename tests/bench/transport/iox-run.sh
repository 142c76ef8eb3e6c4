#!/bin/bash
# Runs iox-ping under a RouDi of its own: starts iox-roudi with CONFIG,
# runs `iox-ping ARGS` once per line of stdin (printing each JSON line, or
# {"error": ...}), stops RouDi. Called by bench.py once per round.
#
#   iox-run.sh TOOLS_DIR CONFIG.toml < lines-of-iox-ping-arguments
#
# iceoryx 2.0 names its resources at build time (/tmp/roudi,
# /dev/shm/iceoryx_mgmt, a segment named after the user), so a second RouDi
# would meet the system's. Where a mount namespace may be made (root), all
# of this runs in one with its own /tmp and /dev/shm: nothing is shared
# with a system RouDi and nothing is left behind. Elsewhere it runs only if
# no other RouDi is there, and says so otherwise (exit 3).
#
# The RouDi used: TOOLS_DIR/iox/iox-roudi with its libraries beside it
# (run.sh copies them there so the build folder can be carried to a machine
# without iceoryx), else iox-roudi on PATH.
set -uo pipefail
tools=${1:?tools dir}
config=${2:?roudi config}

if [ -z "${IOX_RUN_INSIDE:-}" ] && unshare --mount --propagation private true 2>/dev/null; then
  IOX_RUN_INSIDE=private exec unshare --mount --propagation private \
    bash "$0" "$@"
fi
if [ "${IOX_RUN_INSIDE:-}" = private ]; then
  mount -t tmpfs -o size=2g,mode=1777 doradma-iox-shm /dev/shm || exit 3
  mount -t tmpfs -o mode=1777 doradma-iox-tmp /tmp || exit 3
elif [ -e /tmp/roudi ] || [ -e /dev/shm/iceoryx_mgmt ]; then
  echo "iox-run: another RouDi is running and no private mount namespace" \
    "can be made here: not starting a second one" >&2
  exit 3
fi

roudi=$tools/iox/iox-roudi
if [ -x "$roudi" ]; then
  export LD_LIBRARY_PATH=$tools/iox${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
else
  roudi=$(command -v iox-roudi) || { echo "iox-run: no iox-roudi" >&2; exit 3; }
fi
log=$(mktemp "${TMPDIR:-/tmp}/iox-roudi.XXXXXX")
"$roudi" -c "$config" -l warning -m on >"$log" 2>&1 &
rpid=$!
stop() {
  kill -INT "$rpid" 2>/dev/null
  wait "$rpid" 2>/dev/null
  rm -f "$log"
}
trap stop EXIT
for _ in $(seq 100); do
  grep -q "RouDi is ready" "$log" && break
  if ! kill -0 "$rpid" 2>/dev/null; then
    echo "iox-run: iox-roudi failed: $(tail -c 500 "$log")" >&2
    exit 3
  fi
  sleep 0.05
done

while read -r -a args; do
  [ ${#args[@]} -gt 0 ] || continue
  if ! out=$("$tools/iox-ping" "${args[@]}" 2>&1 | tail -n 1) || [ "${out:0:1}" != "{" ]; then
    out=$(printf '{"error": "%s"}' "$(printf '%s' "$out" | tr -d '"\\' | head -c 300)")
  fi
  printf '%s\n' "$out"
done
