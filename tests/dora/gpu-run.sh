#!/bin/bash
# GPU run of the dora interop suite, for the project's GPU test machine
# (shared/device/README.md): no GLib or GStreamer there, so the plugin is
# built here and carried with the Debian GStreamer kit (.device).
#
# Here:   meson setup build-dora -Dcuda=enabled && ninja -C build-dora
#         ../shared/device/prepare.sh          # fills .device/ once
# There:  run tool, carry [".device", "build-dora"], command:
#         bash tests/dora/gpu-run.sh build-dora
#
# Runs gpu-pools.py (unified through the registered device alias, ipc
# through a CUDA IPC handle of a header-only pool; must PASS, not skip, on an
# H200) and, as a check that nothing differs there, the CPU dora tests.
# The log goes to $OUT/dora-gpu.log (and stdout).
set -u
build=${1:-build-dora}
root=$(pwd)
log=${OUT:-/tmp}/dora-gpu.log

# shellcheck disable=SC1091
source .device/gstenv.sh
export GST_PLUGIN_PATH_1_0=$root/$build/gst
export GST_REGISTRY_1_0=/tmp/dora-gpu-registry.bin
export DORADMA_DORA_IPC_WRITER=$root/$build/tests/dora/dora-ipc-pool-writer
export PYTHONDONTWRITEBYTECODE=1
unset DORADMA_SHM_DIR

fails=0
{
  date -u
  uname -r
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  gst-launch-1.0 --version | head -1
  /usr/bin/python3 --version
  for t in gpu-pools src-reads-pool sink-writes-pool hostile-pools \
           torn-abandoned sink-liveness; do
    echo "=== $t"
    SECONDS=0
    timeout 170 /usr/bin/python3 "tests/dora/$t.py"
    rc=$?
    echo "=== $t rc=$rc (${SECONDS} s)"
    # 77 is a skip; gpu-pools must not skip on the GPU machine
    if [ $rc -ne 0 ]; then fails=$((fails + 1)); fi
  done
  echo "failures: $fails"
} 2>&1 | tee "$log"
grep -q "^failures: 0$" "$log"
