# Sourced: two network namespaces joined by a veth pair, for tests/net and
# tests/bench/net. Sets nsa/nsb, addr_a/addr_b (10.250.N.1/.2 /30: only
# inside the namespaces, no default route), port, work (a temporary
# directory), DORADMA_SHM_DIR (private), UCX_TLS=tcp; removes all of it on
# exit. Provides skip/fail (exit 77/1), in_a/in_b, start_in, wait_for,
# stat_of, set_mtu. Needs $scenario (for messages). Skips (77) where namespaces
# cannot be made.
skip () { echo "SKIP: $*"; exit 77; }
fail () { echo "FAIL ($scenario): $*"; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root to make network namespaces"
command -v ip >/dev/null || skip "no ip (iproute2)"
gst-inspect-1.0 doradmanetsink >/dev/null 2>&1 || skip "doradmanetsink not built (no UCX)"

id=$$
nsa=dd-net-a-$id
nsb=dd-net-b-$id
# one /30 per run; the third octet from the pid keeps parallel runs apart
octet=$(( id % 250 + 1 ))
addr_a=10.250.$octet.1
addr_b=10.250.$octet.2
port=$(( 20000 + id % 20000 ))
work=$(mktemp -d /tmp/dd-net-XXXXXX)
export DORADMA_SHM_DIR=$(mktemp -d /dev/shm/dd-net-XXXXXX)
export UCX_TLS=tcp
# keepalive finds a peer that vanished without closing
export UCX_KEEPALIVE_INTERVAL=${UCX_KEEPALIVE_INTERVAL:-1s}
pids=()

cleanup () {
  # the commands and their timeouts, by pid
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  ip netns del "$nsa" 2>/dev/null
  ip netns del "$nsb" 2>/dev/null
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
  rm -rf "$DORADMA_SHM_DIR"
}
trap cleanup EXIT
# a deadline's SIGTERM still removes the namespaces and the commands
trap 'exit 143' TERM INT

ip netns add "$nsa" 2>/dev/null || skip "cannot make a network namespace (ip netns add)"
ip netns add "$nsb" || skip "cannot make a second network namespace"
# `ip netns exec` makes / a slave mount: in a chroot whose / is not a
# mount point (scripts/chroot-test.sh's legs) it cannot run anything
if ! err=$(ip netns exec "$nsa" true 2>&1); then
  skip "ip netns exec cannot run a command here: $err"
fi
ip link add "dda$id" type veth peer name "ddb$id" 2>/dev/null ||
  skip "cannot make a veth pair"
ip link set "dda$id" netns "$nsa"
ip link set "ddb$id" netns "$nsb"
ip -n "$nsa" addr add "$addr_a/30" dev "dda$id"
ip -n "$nsb" addr add "$addr_b/30" dev "ddb$id"
for ns in "$nsa" "$nsb"; do ip -n "$ns" link set lo up; done
ip -n "$nsa" link set "dda$id" up
ip -n "$nsb" link set "ddb$id" up

set_mtu () {    # set_mtu BYTES: both ends of the veth pair
  ip -n "$nsa" link set "dda$id" mtu "$1" &&
    ip -n "$nsb" link set "ddb$id" mtu "$1"
}

in_a () { ip netns exec "$nsa" "$@"; }
in_b () { ip netns exec "$nsb" "$@"; }
# start_in NS LOG CMD...: CMD in the background in namespace NS, bounded by
# a deadline ($deadline s, default 120 x DORADMA_TEST_TIME_SCALE); $started is the pid of the command itself (timeout's child:
# `ip netns exec` execs it), the one kill -9 must hit
start_in () {
  local ns=$1 log=$2 t; shift 2
  ( exec timeout "${deadline:-$(( 120 * ${DORADMA_TEST_TIME_SCALE:-1} ))}" \
      ip netns exec "$ns" "$@" ) > "$log" 2>&1 &
  t=$!
  pids+=($t)
  started=
  for _ in $(seq 50); do
    # not under the sanitizer legs' preloaded ASan runtime: procps-ng's
    # pgrep deadlocks in textdomain() (glibc's _nl_state_lock) with clang's
    # libclang_rt.asan preloaded, and that hung every scenario there
    started=$(LD_PRELOAD= timeout 10 pgrep -P "$t" | head -1)
    [ -n "$started" ] && break
    sleep 0.1
  done
  [ -n "$started" ] || fail "could not start $1"
  # killing timeout alone would leave the command running without its
  # deadline: cleanup kills both
  pids+=($started)
  started_timeout=$t
}

wait_for () {   # wait_for SECONDS FILE PATTERN
  local end=$(( SECONDS + $1 ))
  while [ $SECONDS -lt "$end" ]; do
    grep -q "$3" "$2" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}

stat_of () {    # stat_of FILE STRUCT FIELD: a counter of the last stats message
  grep -o "$2, .*" "$1" | tail -1 | grep -o ", $3=(guint64)[0-9]*" | cut -d')' -f2
}
