#!/bin/bash
# The transport benchmark on Debian 13 (GStreamer 1.26), so that unixfd
# (unixfdsink/unixfdsrc, GStreamer >= 1.24) is measured next to shm and
# doradma in the same run:
#
#   sudo bash tests/bench/transport/run-trixie.sh [ROUNDS]   (default 2)
#
# Enters the Debian 13 chroot of scripts/chroot-test.sh (the same helper,
# scripts/chroot-enter.sh: made when absent, the source tree bind-mounted at
# the same path, a private tmpfs /dev/shm, every mount removed on exit, a
# lock shared with `chroot-test.sh trixie`), builds the project and the
# bench tools there in build-bench-deb13 (through run.sh, BUILD_ONLY), runs
# bench.py with the chroot's /usr/bin/python3 and every transport, stores
# the run as tests/bench/transport/runs/trixie-<date>.json and writes
# docs/bench/results-trixie.md from the newest RUNS (default 2) of those
# (report.py; its plots go to build-bench-deb13/plots, not to docs).
#
# The CUDA toolkit is not mounted (DORADMA_CHROOT_CUDA=0 unless set): the
# transports measured are the CPU ones. Environment: BENCH_ARGS (extra
# bench.py arguments), RUNS (runs in the report), NO_REPORT=1 (only
# measure), BENCH_MAX_LOAD and
# BENCH_LOAD_WAIT_S (below).
set -uo pipefail

rounds=${1:-2}
case $rounds in ''|*[!0-9]*) echo "usage: $0 [ROUNDS]" >&2; exit 2 ;; esac

leg=trixie
suite=trixie
chroot_say=run-trixie
export DORADMA_CHROOT_CUDA=${DORADMA_CHROOT_CUDA:-0}
# shellcheck source=../../../scripts/chroot-enter.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/chroot-enter.sh"

b=$SRC/build-bench-deb13
bench=$SRC/tests/bench/transport
t0=$(date +%s)
if [ ! -f "$b/build.ninja" ]; then
  in_chroot "meson setup $b -Dcuda=disabled -Dtests=disabled -Dbench=disabled" \
    > "$LOG/run-trixie-setup.log" 2>&1 ||
    { tail -30 "$LOG/run-trixie-setup.log"; die "meson setup failed (log: $LOG/run-trixie-setup.log)"; }
fi
in_chroot "BUILD_ONLY=1 bash $bench/run.sh $b" ||
  die "building the plugin or the bench tools failed"
say "built in $(($(date +%s) - t0)) s: $(in_chroot "pkg-config --modversion gstreamer-1.0" | sed 's/^/GStreamer /')"

# The machine may be shared: measure once the 1-minute load average is
# below BENCH_MAX_LOAD (default 1.0), waiting at most BENCH_LOAD_WAIT_S
# (default 900 s; the run records the load it had either way).
max_load=${BENCH_MAX_LOAD:-1.0}
t0=$(date +%s)
until awk -v m="$max_load" '{ exit !($1 < m) }' /proc/loadavg; do
  if [ $(($(date +%s) - t0)) -ge "${BENCH_LOAD_WAIT_S:-900}" ]; then
    say "load $(cut -d' ' -f1 /proc/loadavg) still >= $max_load: measuring anyway"
    break
  fi
  sleep 10
done
say "measuring at load $(cut -d' ' -f1-3 /proc/loadavg) (waited $(($(date +%s) - t0)) s)"

out=$bench/runs/trixie-$(date +%Y%m%d-%H%M%S).json
in_chroot "/usr/bin/python3 $bench/bench.py --tools $b/bench-transport --gst $b/gst \
  --out $out --rounds $rounds ${BENCH_ARGS:-}" || die "bench.py failed"

if [ -z "${NO_REPORT:-}" ]; then
  # shellcheck disable=SC2012
  last=$(ls -1 "$bench"/runs/trixie-*.json | sort | tail -n "${RUNS:-2}" | tr '\n' ' ')
  in_chroot "mkdir -p $b/plots && /usr/bin/python3 $bench/report.py \
    --md $SRC/docs/bench/results-trixie.md --png-dir $b/plots \
    --cmd 'sudo bash tests/bench/transport/run-trixie.sh' $last" || die "report.py failed"
fi
