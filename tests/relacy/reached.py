#!/usr/bin/env python3
"""Which atomic sites of lib/ relacy-real reaches through lib's real
functions: runs it with RELACY_SITES (the call sites of every modelled
access), maps them to lines with addr2line (every frame of the inlined
chain: the dr_* call itself and the calls of lib's helpers around it), and
sets them against the sites the ordering harness
finds in lib (tests/mutation/orderings.py --sites).

  python3 tests/relacy/reached.py BUILD_DIR [--unreached]
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))


def harness_sites():
    out = subprocess.run([sys.executable, os.path.join(SRC, 'tests', 'mutation', 'orderings.py'),
                          '--sites'], check=True, capture_output=True, text=True).stdout
    sites = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 6 and f[0].startswith('lib/'):
            # __atomic_* and g_atomic_* act on a process's own memory (a
            # stop flag, a counter), not on a shared object: not modelled
            shared = not f[5].startswith(('__atomic', 'g_atomic'))
            sites.append((f[0], int(f[1]), f[2], f[3], shared))
    return sites


def reached_lines(build):
    exe = os.path.join(build, 'tests', 'relacy', 'relacy-real')
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'sites')
        env = dict(os.environ, RELACY_SITES=path)
        env.setdefault('DORADMA_SHM_DIR', tmp)
        r = subprocess.run([exe], env=env, capture_output=True, text=True, cwd=tmp)
        if r.returncode != 0:
            sys.exit('relacy-real failed:\n' + r.stdout[-2000:])
        addrs = open(path).read().split()
    out = subprocess.run(['addr2line', '-a', '-i', '-e', exe] + addrs,
                         check=True, capture_output=True, text=True).stdout
    # every frame of the inlined chain: a site that calls a seqlock.h
    # helper is reached with it
    lines = set()
    for line in out.splitlines():
        m = re.match(r'(.*?):(\d+)', line)
        if m and not line.startswith('0x'):
            p = os.path.normpath(os.path.join(build, m.group(1)))
            lines.add((os.path.relpath(p, SRC), int(m.group(2))))
    return lines


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    reached = reached_lines(sys.argv[1])
    sites = harness_sites()
    per_file = {}
    missed = []
    local = 0
    for f, line, func, kind, shared in sites:
        if not shared:
            local += 1
            continue
        n = per_file.setdefault(f, [0, 0])
        n[1] += 1
        if (f, line) in reached:
            n[0] += 1
        else:
            missed.append('%s:%d %s (%s)' % (f, line, func, kind))
    for f in sorted(per_file):
        print('%-26s %3d of %3d sites reached' % (f, per_file[f][0], per_file[f][1]))
    total = sum(n[0] for n in per_file.values())
    print('total: %d of %d shared-memory sites of lib reached through its real functions'
          ' (%d more act on process-local memory: not modelled)'
          % (total, len(sites) - local, local))
    if '--unreached' in sys.argv:
        print('\n'.join(missed))
    return total, len(sites) - local


if __name__ == '__main__':
    main()
