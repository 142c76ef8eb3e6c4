#!/bin/bash
# Where the transport's CPU per frame goes (issue 14, "transport CPU"):
# `perf record -e cpu-clock` over an unthrottled pair of one transport
# (default dm-lossless: doradmasink mode=lossless -> doradmasrc
# read-mode=next) and over the floor process (the same source and sink in
# one pipeline), same size; prints for each process the CPU per frame split
# by library (perf's DSO), and the difference, producer + consumer − floor,
# which is the benchmark's "transport CPU" split the same way.
#
#   bash tests/bench/transport/profile-cpu.sh [builddir] [WxH] [transport] [seconds]
#
# builddir defaults to build-bench (built by run.sh; BUILD_ONLY=1 run.sh
# builds it). Samples of the first second (start-up: registry, plugin
# loading, negotiation) are left out (perf -D). Needs perf (linux-perf) and
# root or perf_event_paranoid <= 1; software events only, so it works in VMs.
# Also prints the top symbols of each doradma process. One run: shares move
# by a few percent between runs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
b=${1:-build-bench}; case $b in /*) ;; *) b=$top/$b ;; esac
size=${2:-640x480}; transport=${3:-dm-lossless}; secs=${4:-4}
w=${size%x*}; h=${size#*x}
tools=$b/bench-transport
command -v perf >/dev/null || { echo "profile-cpu: perf not found" >&2; exit 77; }
[ -x "$tools/bench-run" ] || { echo "profile-cpu: $tools/bench-run missing (BUILD_ONLY=1 bash tests/bench/transport/run.sh $b)" >&2; exit 1; }
case $transport in
  dm-lossless) smode=lossless rmode=next ;;
  dm-latest) smode=latest rmode=latest ;;
  *) echo "profile-cpu: transport dm-lossless or dm-latest" >&2; exit 1 ;;
esac

export GST_PLUGIN_PATH=$b/gst:$tools GST_REGISTRY_1_0=$tools/registry.bin
export DORADMA_SHM_DIR=/dev/shm
unset GST_PLUGIN_PATH_1_0
tmp=$(mktemp -d /tmp/profile-cpu-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
freq=10000                     # samples per CPU second: 100 µs each
ms=$((secs * 1000))
src="benchstampsrc name=src width=$w height=$h warmup=30 duration-ms=$ms"
sink="benchstampsink name=sink warmup=30"
rec () {  # rec NAME bench-run args...: perf record of one process
  local name=$1; shift
  perf record -q -e cpu-clock -F $freq -D 1000 -o "$tmp/$name.data" -- \
    "$tools/bench-run" --timeout $((secs + 30)) "$@" > "$tmp/$name.json" 2> "$tmp/$name.err"
}

rec floor $src ! $sink
chan=prof$$
rec cons doradmasrc name=rx channel=$chan read-mode=$rmode ! $sink &
cpid=$!
sleep 0.5
rec prod $src ! doradmasink name=tx channel=$chan mode=$smode wait-for-readers=1 sync=false
wait $cpid || true
rm -f /dev/shm/doradma.$chan /dev/shm/doradma.$chan~ctl

/usr/bin/python3 - "$tmp" "$freq" "$transport" "$size" <<'EOF'
import json, subprocess, sys
tmp, freq, transport, size = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

def frames(name, role):
    d = json.loads(open("%s/%s.json" % (tmp, name)).read().strip().splitlines()[-1])
    s = d[role]
    return s.get("produced") or s.get("received"), s

def by_dso(name):
    out = subprocess.run(["perf", "report", "-i", "%s/%s.data" % (tmp, name),
                          "--stdio", "--sort", "dso", "-F", "sample,dso",
                          "--no-children"], capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].isdigit():
            res[" ".join(parts[1:])] = int(parts[0])
    return res

def top_syms(name, n=12):
    out = subprocess.run(["perf", "report", "-i", "%s/%s.data" % (tmp, name),
                          "--stdio", "--sort", "dso,sym", "--no-children",
                          "--percent-limit", "1"], capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if l.strip() and not l.startswith("#")][:n]

us_per_sample = 1e6 / freq
procs = {}
for name, role in (("floor", "src"), ("prod", "src"), ("cons", "sink")):
    n, _ = frames(name, role)
    procs[name] = ({k: v * us_per_sample / n for k, v in by_dso(name).items()}, n)

dsos = sorted(set().union(*[p[0] for p in procs.values()]),
              key=lambda k: -(procs["prod"][0].get(k, 0) + procs["cons"][0].get(k, 0)))
print("%s %s, CPU µs per frame by library (perf cpu-clock, %d Hz, first second left out)"
      % (transport, size, freq))
print("frames: floor %d, producer %d, consumer %d" % tuple(procs[k][1] for k in ("floor", "prod", "cons")))
print()
print("| library | producer | consumer | floor | producer + consumer − floor |")
print("|---|---|---|---|---|")
tot = {"prod": 0, "cons": 0, "floor": 0}
for k in dsos:
    v = {p: procs[p][0].get(k, 0.0) for p in tot}
    for p in tot:
        tot[p] += v[p]
    if max(v.values()) < 0.05:
        continue
    print("| %s | %.2f | %.2f | %.2f | %.2f |" % (k, v["prod"], v["cons"], v["floor"],
                                                v["prod"] + v["cons"] - v["floor"]))
print("| **all** | %.2f | %.2f | %.2f | %.2f |" % (tot["prod"], tot["cons"], tot["floor"],
                                                  tot["prod"] + tot["cons"] - tot["floor"]))
for name in ("prod", "cons"):
    print()
    print("top symbols, %s (≥ 1 %% of its samples):" % name)
    for l in top_syms(name):
        print("   " + l.strip())
EOF
