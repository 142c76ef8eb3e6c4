#!/usr/bin/env python3
"""Mutation harness: applies each mutant of tests/mutation/mutants.txt to a
scratch copy of the tree (never the working tree), rebuilds it incrementally
and runs the tests the mutant names. Prints killed / survived / equivalent /
stale and the score (killed / (killed + survived)).

Run through tests/mutation/run.sh; see docs/reliability.md, "Mutation
testing". Python 3 standard library only.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))

# Scratch builds: 'default' runs every mutant unless the mutant says
# `build: tsan` (ThreadSanitizer, for the memory-ordering mutants).
# name: (meson options, environment of set-up and tests)
BUILDS = {
    'default': (['-Dtests=enabled', '-Dbench=disabled'], {}),
    'tsan': (['-Dtests=enabled', '-Dbench=disabled', '-Db_sanitize=thread',
              '-Db_lundef=false'],
             {'CC': 'clang', 'CXX': 'clang++',
              'TSAN_OPTIONS': 'suppressions=%s/tests/tsan.supp' % SRC}),
}
KEYS = ('id', 'file', 'find', 'replace', 'tests', 'suites', 'build', 'env',
        'equivalent', 'why')


def parse_catalogue(path):
    """Blocks of `key: value` lines separated by blank lines; '#' starts a
    comment line. `find`/`replace` keep their text exactly after ': '."""
    mutants, cur = [], {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if line.startswith('#'):
                continue
            if not line.strip():
                if cur:
                    mutants.append(cur)
                    cur = {}
                continue
            key, sep, val = line.partition(': ')
            if not sep and line.endswith(':'):
                key, val = line[:-1], ''
            elif not sep:
                sys.exit('%s:%d: not "key: value": %r' % (path, n, line))
            if key not in KEYS:
                sys.exit('%s:%d: unknown key %r' % (path, n, key))
            if key in cur:
                sys.exit('%s:%d: %s given twice' % (path, n, key))
            cur[key] = val
            cur.setdefault('line', n)
    if cur:
        mutants.append(cur)
    seen = set()
    for m in mutants:
        for k in ('id', 'file', 'find'):
            if k not in m:
                sys.exit('%s:%d: mutant without %s' % (path, m['line'], k))
        if 'replace' not in m:
            sys.exit('%s:%d: %s has no replace' % (path, m['line'], m['id']))
        if m['id'] in seen:
            sys.exit('%s: id %s used twice' % (path, m['id']))
        seen.add(m['id'])
        if not m.get('tests') and not m.get('suites') and 'equivalent' not in m:
            sys.exit('%s: %s names no tests' % (path, m['id']))
        # \n in find/replace stands for a newline (multi-line patterns).
        m['find'] = m['find'].replace('\\n', '\n')
        m['replace'] = m['replace'].replace('\\n', '\n')
        m.setdefault('build', 'default')
        if m['build'] not in BUILDS:
            sys.exit('%s: %s: unknown build %s' % (path, m['id'], m['build']))
    return mutants


def sh(cmd, timeout=None, env=None, log=None):
    """Runs cmd; returns (rc, output). rc 124 on timeout."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout, env=env)
        out = p.stdout.decode(errors='replace')
        rc = p.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b'').decode(errors='replace') + '\n[timeout]\n'
        rc = 124
    if log:
        with open(log, 'a') as f:
            f.write('$ %s\n%s\n' % (' '.join(cmd), out))
    return rc, out


def sync_tree(scratch_src):
    """Copies the working tree's tracked and untracked-not-ignored files to
    scratch_src; unchanged files are left alone (no rebuild)."""
    files = subprocess.run(['git', '-C', SRC, 'ls-files', '-co',
                            '--exclude-standard', '-z'],
                           stdout=subprocess.PIPE, check=True).stdout
    names = [n for n in files.decode().split('\0') if n]
    for n in names:
        src, dst = os.path.join(SRC, n), os.path.join(scratch_src, n)
        if not os.path.isfile(src) or os.path.islink(src):
            continue
        # Compared by content, copied with a fresh mtime: an older mtime
        # would hide a change from ninja (a mutant's object is newer).
        if os.path.exists(dst):
            with open(src, 'rb') as f1, open(dst, 'rb') as f2:
                if f1.read() == f2.read():
                    continue
        else:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
        shutil.copymode(src, dst)
    keep = set(names)
    os.makedirs(scratch_src, exist_ok=True)
    for root, dirs, fs in os.walk(scratch_src):
        rel = os.path.relpath(root, scratch_src)
        for fn in fs:
            p = os.path.normpath(os.path.join(rel, fn))
            if p not in keep:
                os.unlink(os.path.join(root, fn))


def test_args(m):
    names = (m.get('tests') or '').split()
    suites = (m.get('suites') or '').split()
    return names, suites


def run_tests(build_dir, names, suites, timeout, env, log):
    """Returns 'pass', 'fail', 'skip' (every test skipped) or 'timeout'."""
    cmd = ['meson', 'test', '-C', build_dir, '--no-rebuild',
           '--num-processes', '2', '--print-errorlogs']
    for s in suites:
        cmd += ['--suite', s]
    cmd += names
    rc, out = sh(cmd, timeout=timeout, env=env, log=log)
    if rc == 124:
        return 'timeout'
    ok = re.search(r'^Ok:\s+(\d+)', out, re.M)
    skipped = re.search(r'^Skipped:\s+(\d+)', out, re.M)
    if rc == 0 and ok and int(ok.group(1)) == 0 and skipped and \
            int(skipped.group(1)) > 0:
        return 'skip'
    if rc == 0 and ok:
        return 'pass'
    return 'fail'


def ensure_build(scratch, kind, log):
    bdir = os.path.join(scratch, 'build' if kind == 'default' else 'build-' + kind)
    if not os.path.exists(os.path.join(bdir, 'build.ninja')):
        env = dict(os.environ, **BUILDS[kind][1])
        rc, out = sh(['meson', 'setup', bdir, os.path.join(scratch, 'src')] +
                     BUILDS[kind][0], log=log, env=env)
        if rc != 0:
            sys.exit('meson setup of %s failed; see %s' % (bdir, log))
    return bdir


def build(bdir, jobs, log, targets=()):
    rc, _ = sh(['ninja', '-C', bdir, '-j', str(jobs)] + list(targets),
               timeout=1800, log=log)
    return rc == 0


def test_targets(bdir, names):
    """The ninja targets the named tests need: each test's executable and
    the targets meson records it depends on. None when a named test lies
    outside the suites whose needs meson records fully (lib, relacy, fuzz,
    dora's pool tests): then everything is built."""
    import json

    def introspect(what):
        return json.loads(subprocess.run(
            ['meson', 'introspect', bdir, what], stdout=subprocess.PIPE,
            check=True).stdout)
    files = {t['id']: t['filename'] for t in introspect('--targets')}
    targets = []
    for t in introspect('--tests'):
        if t['name'] not in names:
            continue
        suites = {x.split(':')[-1] for x in t['suite']}
        if not suites & {'lib', 'relacy', 'fuzz'} and \
                not t['name'].startswith('pool-'):
            return None
        exe = t['cmd'][0]
        if exe.startswith(bdir + '/'):
            targets.append(os.path.relpath(exe, bdir))
        for dep in t['depends']:
            for f in files.get(dep, []):
                targets.append(os.path.relpath(f, bdir))
    return targets


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--catalogue', default=os.path.join(HERE, 'mutants.txt'))
    ap.add_argument('--scratch', default=os.environ.get(
        'DORADMA_MUTATION_DIR', os.path.join(SRC, 'build-mutation')))
    ap.add_argument('--only', help='comma-separated mutant ids')
    ap.add_argument('--match', help='regex on id or file')
    ap.add_argument('--build', help='only mutants of this build (default, tsan)')
    ap.add_argument('--timeout', type=int, default=600,
                    help='seconds per mutant for its tests (default 600)')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--check-stale', action='store_true',
                    help='only check that every pattern matches once')
    ap.add_argument('--check-equivalents', action='store_true',
                    help='run the declared equivalents too')
    a = ap.parse_args()
    # SIGTERM unwinds like ^C: the mutated scratch file is put back.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))

    mutants = parse_catalogue(a.catalogue)
    if a.only:
        ids = set(a.only.split(','))
        unknown = ids - {m['id'] for m in mutants}
        if unknown:
            sys.exit('unknown mutant id(s): %s' % ', '.join(sorted(unknown)))
        mutants = [m for m in mutants if m['id'] in ids]
    if a.match:
        mutants = [m for m in mutants
                   if re.search(a.match, m['id']) or re.search(a.match, m['file'])]
    if a.build:
        mutants = [m for m in mutants if m['build'] == a.build]
    if a.list:
        for m in mutants:
            print('%-34s %-40s %s%s' % (m['id'], m['file'],
                  m.get('tests', '') + ' ' + m.get('suites', ''),
                  ' [equivalent]' if 'equivalent' in m else ''))
        print('%d mutants' % len(mutants))
        return 0

    os.makedirs(a.scratch, exist_ok=True)
    log = os.path.join(a.scratch, 'mutation.log')
    open(log, 'w').close()
    ssrc = os.path.join(a.scratch, 'src')
    sync_tree(ssrc)

    results = []
    # Stale and ambiguous patterns first: they need no build.
    runnable = []
    for m in mutants:
        path = os.path.join(ssrc, m['file'])
        text = open(path).read() if os.path.exists(path) else None
        n = text.count(m['find']) if text is not None else 0
        if n == 0:
            results.append((m, 'stale', 'pattern not found in ' + m['file']))
        elif n > 1:
            results.append((m, 'stale', 'pattern found %d times' % n))
        elif 'equivalent' in m and not a.check_equivalents:
            results.append((m, 'equivalent', m['equivalent']))
        else:
            runnable.append(m)
    if a.check_stale:
        for m in runnable:
            results.append((m, 'pattern-ok', 'matches once (not run)'))
        runnable = []

    env = dict(os.environ)
    shm = os.path.join('/dev/shm', 'dd-mutation-%d' % os.getpid())
    os.makedirs(shm, exist_ok=True)
    env['DORADMA_SHM_DIR'] = shm

    # Baseline: the unmutated tree must pass every test a mutant names.
    baseline = {}
    targets = {}
    for kind in sorted({m['build'] for m in runnable}):
        bdir = ensure_build(a.scratch, kind, log)
        print('building %s (scratch %s) ...' % (kind, bdir), flush=True)
        targets[kind] = [] if kind == 'default' else test_targets(
            bdir, {t for m in runnable if m['build'] == kind
                   for t in test_args(m)[0]}) or []
        if not build(bdir, a.jobs, log, targets[kind]):
            sys.exit('the unmutated tree does not build (%s); see %s' % (kind, log))
        todo = {}
        for m in runnable:
            if m['build'] == kind:
                names, suites = test_args(m)
                for t in names:
                    todo[('t', t)] = None
                for s in suites:
                    todo[('s', s)] = None
        for key in todo:
            names = [key[1]] if key[0] == 't' else []
            suites = [key[1]] if key[0] == 's' else []
            baseline[(kind,) + key] = run_tests(bdir, names, suites,
                                                a.timeout,
                                                dict(env, **BUILDS[kind][1]),
                                                log)
            print('  baseline %-28s %s' % (key[1], baseline[(kind,) + key]),
                  flush=True)

    # Cheapest rebuilds first, one file's mutants together: sources, then
    # the headers many files include (lib/atomic.h rebuilds all of lib/).
    # A run cut short has then covered the most mutants.
    def cost(m):
        f = m['file']
        return (f.endswith('.h'), f == 'lib/atomic.h', f, m['line'])
    runnable.sort(key=cost)
    t0 = time.time()
    for i, m in enumerate(runnable, 1):
        kind = m['build']
        bdir = ensure_build(a.scratch, kind, log)
        names, suites = test_args(m)
        bad = [k for k in [('t', t) for t in names] + [('s', s) for s in suites]
               if baseline.get((kind,) + k) != 'pass']
        if bad:
            results.append((m, 'no-verdict', 'baseline not passing: ' +
                            ', '.join('%s=%s' % (k[1], baseline.get((kind,) + k))
                                      for k in bad)))
            continue
        path = os.path.join(ssrc, m['file'])
        orig = open(path).read()
        with open(path, 'w') as f:
            f.write(orig.replace(m['find'], m['replace'], 1))
        try:
            with open(log, 'a') as f:
                f.write('\n===== mutant %s (%s) =====\n' % (m['id'], m['file']))
            # Only what the named tests need (a whole rebuild relinks ~60
            # targets per lib/ change); whole suites need everything.
            need = None if suites else test_targets(bdir, set(names))
            if not build(bdir, a.jobs, log, need or targets[kind]):
                results.append((m, 'build-error', 'the mutant does not compile'))
            else:
                menv = dict(env, **BUILDS[m['build']][1])
                for kv in (m.get('env') or '').split():
                    k, _, v = kv.partition('=')
                    menv[k] = v
                verdict = run_tests(bdir, names, suites, a.timeout, menv, log)
                status = {'pass': 'survived', 'fail': 'killed',
                          'timeout': 'killed', 'skip': 'no-verdict'}[verdict]
                results.append((m, status, verdict))
        finally:
            with open(path, 'w') as f:
                f.write(orig)
        print('[%d/%d] %-34s %s' % (i, len(runnable), m['id'], results[-1][1]),
              flush=True)
    # The scratch build holds the last mutant's objects until the next run
    # rebuilds (the restored file is newer than them).
    shutil.rmtree(shm, ignore_errors=True)

    order = ['killed', 'survived', 'equivalent', 'no-verdict', 'build-error',
             'stale', 'pattern-ok']
    counts = {s: 0 for s in order}
    lines = []
    for m, status, detail in results:
        counts[status] += 1
        lines.append('%-11s %-34s %-36s %s' % (status, m['id'], m['file'], detail))
    lines.sort(key=lambda l: order.index(l.split()[0]))
    report = '\n'.join(lines)
    decided = counts['killed'] + counts['survived']
    score = 100.0 * counts['killed'] / decided if decided else 0.0
    summary = ('%d mutants: %d killed, %d survived, %d equivalent, '
               '%d no-verdict, %d build-error, %d stale; score %.1f %% '
               '(killed / (killed + survived)); %d s'
               % (len(results), counts['killed'], counts['survived'],
                  counts['equivalent'], counts['no-verdict'],
                  counts['build-error'], counts['stale'], score,
                  time.time() - t0))
    print('\n' + report + '\n\n' + summary)
    with open(os.path.join(a.scratch, 'report.txt'), 'w') as f:
        f.write(report + '\n\n' + summary + '\n')
    if counts['survived']:
        print('survivors: each needs a test that kills it, or an '
              '`equivalent:` line with the reason')
    return 1 if counts['survived'] or counts['stale'] else 0


if __name__ == '__main__':
    sys.exit(main())
