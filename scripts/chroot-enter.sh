# Sourced by scripts/chroot-test.sh and tests/bench/transport/run-trixie.sh:
# enters the Debian chroot of one leg, ready for in_chroot. The caller sets
# leg (trixie|bullseye|arm64) and suite (its Debian release), and may set
# chroot_say (the prefix of its messages, default chroot-test). This makes
# or reuses the chroot, takes the leg's lock (runs of the same leg are
# serialised), mounts proc, sys, a private tmpfs /dev/shm, pseudo-terminals,
# the source tree at the same path and (DORADMA_CHROOT_CUDA=1, the default)
# the host's CUDA toolkit read-only, removes every mount on exit (trap), and
# brings the chroot's packages up to the leg's list (install-deps.sh).
# It defines SRC, ROOT, chroot_dir, JOBS, LOG, cuda_real, say, die, mnt,
# in_chroot, and the cleanup state (mounts, binfmt_name, binfmt_mounted).
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=${DORADMA_CHROOTS:-/var/cache/doradma/chroots}
chroot_dir=$ROOT/$leg
JOBS=$(nproc 2>/dev/null || echo 2)

say () { echo "${chroot_say:-chroot-test}[$leg]: $*"; }
die () { say "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mount, chroot)"
command -v debootstrap >/dev/null || die "debootstrap not found: bash scripts/install-deps.sh"

# The Debian archive apt uses here (the entry of this release's main
# component), unless DORADMA_DEBIAN_MIRROR names one.
mirror=${DORADMA_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
           awk -v c="$codename" '$2 == c && $3 == "main" { print $1; exit }')
  if [ -z "$mirror" ]; then   # no lists fetched yet: read the sources themselves
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
             awk -v c="$codename" '$1 == "deb" && $3 == c { print $2; exit }')
  fi
  if [ -z "$mirror" ]; then   # deb822 .sources: the URIs of the stanza whose Suites has it
    mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
             awk -v c="$codename" '/^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == c) { print u; exit } }')
  fi
  [ -n "$mirror" ] || die "no Debian archive found in apt's sources for '$codename': set DORADMA_DEBIAN_MIRROR"
fi

mkdir -p "$ROOT"
exec 9>"$ROOT/$leg.lock"
flock 9

# ---------------------------------------------------------------- mounts ----
mounts=()
binfmt_name=""
binfmt_mounted=0

cleanup () {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" ||
      say "could not unmount ${mounts[i]}"
  done
  mounts=()
  if [ -n "$binfmt_name" ] && [ -e "/proc/sys/fs/binfmt_misc/$binfmt_name" ]; then
    echo -1 > "/proc/sys/fs/binfmt_misc/$binfmt_name"
  fi
  if [ "$binfmt_mounted" = 1 ]; then umount /proc/sys/fs/binfmt_misc; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# mnt SOURCE TARGET [mount options...]: a private mount, undone by cleanup.
mnt () {
  local src=$1 dst=$2; shift 2
  mount "$@" "$src" "$dst" || die "mount $* $src $dst failed"
  mounts+=("$dst")
  mount --make-private "$dst" 2>/dev/null || true
}

# Mounts left behind by a run that was killed with SIGKILL.
unmount_stale () {
  local m
  findmnt -rn -o TARGET | awk -v p="$chroot_dir/" 'index($0, p) == 1' | sort -r |
    while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
}

# ---------------------------------------------------------- the chroot ----
if [ ! -e "$chroot_dir/.doradma-base" ]; then
  unmount_stale
  [ -z "$(findmnt -rn -o TARGET | grep -F "$chroot_dir")" ] ||
    die "$chroot_dir still has mounts: not removing it"
  rm -rf "$chroot_dir"
  say "creating $chroot_dir: debootstrap --variant=minbase $suite ($mirror)"
  t0=$(date +%s)
  debootstrap --variant=minbase "$suite" "$chroot_dir" "$mirror" \
      > "$ROOT/$leg.debootstrap.log" 2>&1 ||
    { tail -20 "$ROOT/$leg.debootstrap.log"; die "debootstrap failed (log: $ROOT/$leg.debootstrap.log)"; }
  if [ "$leg" = bullseye ]; then
    # Debian 11's meson (0.56) is older than doradma's minimum (0.61): take
    # Debian 12's, which is pure Python, and nothing else from Debian 12.
    echo "deb $mirror bookworm main" > "$chroot_dir/etc/apt/sources.list.d/bookworm.list"
    printf 'Package: *\nPin: release n=bookworm\nPin-Priority: 100\n' \
      > "$chroot_dir/etc/apt/preferences.d/bookworm-low"
  fi
  touch "$chroot_dir/.doradma-base"
  say "created in $(($(date +%s) - t0)) s"
else
  unmount_stale
fi

cp -L /etc/resolv.conf "$chroot_dir/etc/resolv.conf" 2>/dev/null || true
mnt proc "$chroot_dir/proc" -t proc
mnt sysfs "$chroot_dir/sys" -t sysfs
mnt tmpfs "$chroot_dir/dev/shm" -t tmpfs -o size=2g,mode=1777
# pseudo-terminals of our own (tests/cli drives `doradma watch` in one)
mkdir -p "$chroot_dir/dev/pts"
mnt devpts "$chroot_dir/dev/pts" -t devpts -o newinstance,ptmxmode=0666,mode=0620
if [ ! -c "$chroot_dir/dev/ptmx" ]; then
  rm -f "$chroot_dir/dev/ptmx"; ln -s pts/ptmx "$chroot_dir/dev/ptmx"
fi
for node in null zero full random urandom tty; do
  if [ ! -c "$chroot_dir/dev/$node" ]; then
    rm -f "$chroot_dir/dev/$node"; touch "$chroot_dir/dev/$node"
    mnt "/dev/$node" "$chroot_dir/dev/$node" --bind
  fi
done
mkdir -p "$chroot_dir$SRC"
mnt "$SRC" "$chroot_dir$SRC" --bind

# The host's CUDA toolkit (headers, nvcc), read-only, at the same path.
cuda_real=""
if [ -e /usr/local/cuda/include/cuda.h ] && [ "${DORADMA_CHROOT_CUDA:-1}" = 1 ]; then
  cuda_real=$(readlink -f /usr/local/cuda)
  mkdir -p "$chroot_dir$cuda_real"
  mnt "$cuda_real" "$chroot_dir$cuda_real" --bind -o ro
  [ "$cuda_real" = /usr/local/cuda ] || ln -sfn "$cuda_real" "$chroot_dir/usr/local/cuda"
else
  rm -f "$chroot_dir/usr/local/cuda"
fi

# in_chroot COMMAND...: runs bash -c COMMAND in the chroot, in the source
# tree, with a clean environment.
in_chroot () {
  chroot "$chroot_dir" /usr/bin/env -i \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb CI="${CI:-}" DEBIAN_FRONTEND=noninteractive \
    DORADMA_SOAK_ROUNDS="${DORADMA_SOAK_ROUNDS:-}" \
    bash -c "cd '$SRC' && $1"
}

# ---------------------------------------------------------- packages ----
LOG=${DORADMA_TEST_LOGDIR:-$SRC/build-logs}
mkdir -p "$LOG"
deps_log=$LOG/chroot-$leg-deps.log
t0=$(date +%s)
case $leg in
  trixie)
    # The project's own script, as a user on Debian 13 runs it.
    in_chroot "DORADMA_DEPS=native bash scripts/install-deps.sh" > "$deps_log" 2>&1 ;;
  bullseye)
    in_chroot "DORADMA_DEPS=cpu bash scripts/install-deps.sh" > "$deps_log" 2>&1 ;;
  arm64)
    in_chroot "DORADMA_DEPS=cross-arm64 bash scripts/install-deps.sh" > "$deps_log" 2>&1 ;;
esac || { tail -30 "$deps_log"; die "installing packages failed (log: $deps_log)"; }
say "packages: $(tail -1 "$deps_log") ($(($(date +%s) - t0)) s)"
