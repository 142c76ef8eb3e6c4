#!/usr/bin/env python3
"""Ordering mutation harness: finds every atomic operation and fence of
lib/ by itself (lib/*.c and lib/*.h: lib/atomic.h's dr_* wrappers, their
definitions, and any direct __atomic_* or g_atomic_int_* use), makes the
ordering mutants, runs each against a short list of fast deterministic
killers, and prints killed / survived / equivalent with a reason each.

Mutants (one change each):
  weaken  a release / acquire / seq_cst / acq_rel site made relaxed
          (dr_store_release -> dr_store_relaxed, __ATOMIC_ACQUIRE ->
          __ATOMIC_RELAXED, g_atomic_int_get -> a relaxed __atomic load...)
  fence   a fence removed (dr_fence_*, __atomic_thread_fence)
  swap    two adjacent atomic stores of one block swapped (a store being a
          dr_store_*, dr_fetch_*, __atomic_store_n, g_atomic_int_set, or one
          of seqlock.h's release-store helpers: seqlock_publish,
          lease_release)
Relaxed sites are listed too ("site" lines of --sites): nothing to weaken.

A mutant is killed when one killer fails (or times out) on it; killers run
cheapest first and stop at the first kill: the Relacy model
(relacy-protocol: weak memory), then the forced interleavings
(interleave-*), then, for swaps only, a few deterministic lib tests, and
last relacy-real (the model through lib's real functions; the costliest).
Mutants named in equivalent.txt are not run: the file gives each one's
argument (reviewed like code). Each mutant is applied to a scratch copy of
the tree (never the working tree; tests/mutation/mutate.py's machinery),
and only the killer being run is rebuilt.

  python3 tests/mutation/orderings.py --sites      # the sites, no build
  python3 tests/mutation/orderings.py --list       # the mutants, no build
  python3 tests/mutation/orderings.py [--match RE] [--report FILE]
Exit 0 when the score (killed / (killed + survived)) is >= --min-score.
"""
import argparse
import os
import re
import signal
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mutate  # noqa: E402  (scratch tree, builds, meson test runs)

SRC = mutate.SRC

# Killers, cheapest and most telling first. (name, kinds it runs for)
KILLERS = [
    ('relacy-protocol', {'weaken', 'fence', 'swap'}),
    ('interleave-abandon', {'weaken', 'fence', 'swap'}),
    ('interleave-stores', {'swap'}),
    ('interleave-entries', {'swap'}),
    ('lease-refs', {'swap'}),
    ('publish-eos', {'swap'}),
    ('caps-epochs', {'swap'}),
    ('consume-monotonic', {'swap'}),
    ('supersede', {'swap'}),
    ('eventcount', {'swap'}),
    ('seqlock', {'swap'}),
    # lib's real functions under the model: the most expensive (each
    # mutant rebuilds lib into it, ~1 min), so last
    ('relacy-real', {'weaken', 'fence', 'swap'}),
]

PRIMS = {
    # wrapper: (weakened form, kind, is a store for swaps)
    'dr_load_acquire': ('dr_load_relaxed', 'weaken', False),
    'dr_store_release': ('dr_store_relaxed', 'weaken', True),
    'dr_fetch_and_release': ('dr_fetch_and_relaxed', 'weaken', True),
    'dr_fetch_or_release': ('dr_fetch_or_relaxed', 'weaken', True),
    'dr_cas_release': ('dr_cas_relaxed', 'weaken', True),
    'dr_fence_full': (None, 'fence', False),
    'dr_fence_acquire': (None, 'fence', False),
    'dr_fence_release': (None, 'fence', False),
    'dr_load_relaxed': (None, 'relaxed', False),
    'dr_store_relaxed': (None, 'relaxed', True),
    'dr_fetch_or_relaxed': (None, 'relaxed', True),
    'dr_fetch_and_relaxed': (None, 'relaxed', True),
    'dr_cas_relaxed': (None, 'relaxed', True),
}
# seqlock.h's helpers that end in a release store (swap partners only; their
# bodies are sites of lib/seqlock.h themselves).
STORE_HELPERS = {'seqlock_publish', 'lease_release'}
STRONG = ('__ATOMIC_ACQUIRE', '__ATOMIC_RELEASE', '__ATOMIC_SEQ_CST',
          '__ATOMIC_ACQ_REL', '__ATOMIC_CONSUME')
CALL = re.compile(r'\b(dr_(?:load|store|fetch_or|fetch_and|cas|fence)_\w+|'
                  r'__atomic_\w+|g_atomic_int_(?:get|set)|'
                  r'seqlock_publish|lease_release)\s*\(')
FUNC = re.compile(r'^([A-Za-z_]\w*) \(', re.M)
DEFINE_PRIM = re.compile(r'^#define (dr_\w+)\([^)]*\)((?:[^\n]*\\\n)*[^\n]*)',
                         re.M)


def match_paren(text, i):
    """Index just past the ')' matching the '(' at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == '(':
            depth += 1
        elif c == ')':
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError('unbalanced parenthesis at %d' % i)


def strip_comments(text):
    """Same length, comments blanked (so positions stay valid)."""
    def blank(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*', blank, text, flags=re.S)


def function_at(code, pos):
    name = 'file-scope'
    for m in FUNC.finditer(code, 0, pos):
        name = m.group(1)
    return name


def norm(s):
    return re.sub(r'\s+', ' ', s).strip()


class Site:
    def __init__(self, path, text, code, m):
        self.path = path
        self.name = m.group(1)
        self.start = m.start()
        self.open = m.end() - 1
        self.end = match_paren(code, self.open)
        self.call = text[self.start:self.end]
        self.args = text[self.open + 1:self.end - 1]
        self.line = text.count('\n', 0, self.start) + 1
        self.func = function_at(code, self.start)
        first = norm(self.args.split(',')[0]) if self.args.strip() else ''
        self.target = first or '-'
        line_start = text.rfind('\n', 0, self.start) + 1
        # A statement of its own: nothing but blanks before it on its line
        # (or `x = ` for a load), and `;` right after.
        self.statement = (code[line_start:self.start].strip() == '' and
                          code[self.end:self.end + 1] == ';')
        if self.name in PRIMS:
            self.weak, self.kind, self.store = PRIMS[self.name]
        elif self.name in STORE_HELPERS:
            self.weak, self.kind, self.store = None, 'helper', True
        elif self.name == '__atomic_thread_fence':
            self.weak, self.kind, self.store = None, 'fence', False
        elif self.name.startswith('__atomic_'):
            strong = [s for s in STRONG if s in self.args]
            self.kind = 'weaken' if strong else 'relaxed'
            self.weak = None
            self.store = self.name.startswith(('__atomic_store',
                                               '__atomic_fetch',
                                               '__atomic_exchange'))
        elif self.name == 'g_atomic_int_get':
            self.weak, self.kind, self.store = None, 'weaken', False
        elif self.name == 'g_atomic_int_set':
            self.weak, self.kind, self.store = None, 'weaken', True
        else:
            self.weak, self.kind, self.store = None, 'other', False

    def order(self):
        for s in STRONG + ('__ATOMIC_RELAXED',):
            if s in self.args:
                return s[len('__ATOMIC_'):].lower()
        return {'dr_load_acquire': 'acquire', 'dr_store_release': 'release',
                'dr_fetch_and_release': 'release',
                'dr_fetch_or_release': 'release',
                'dr_cas_release': 'release', 'dr_fence_full': 'seq_cst',
                'dr_fence_acquire': 'acquire', 'dr_fence_release': 'release',
                'g_atomic_int_get': 'seq_cst', 'g_atomic_int_set': 'seq_cst',
                'seqlock_publish': 'release', 'lease_release': 'release',
                }.get(self.name, 'relaxed')

    def weakened(self):
        """The call with its order made relaxed (None: a fence, removed)."""
        if self.kind == 'fence':
            return '((void) 0)'
        if self.weak:
            return self.weak + self.call[len(self.name):]
        if self.name.startswith('__atomic_'):
            out = self.call
            for s in STRONG:
                out = out.replace(s, '__ATOMIC_RELAXED')
            return out
        if self.name == 'g_atomic_int_get':
            return '__atomic_load_n (%s, __ATOMIC_RELAXED)' % norm(self.args)
        if self.name == 'g_atomic_int_set':
            return '__atomic_store_n (%s, __ATOMIC_RELAXED)' % norm(self.args)
        raise ValueError(self.name)


def find_sites(lib):
    """Every atomic call of lib/*.c and lib/*.h, plus atomic.h's
    definitions of the ordered wrappers (as pseudo-sites)."""
    sites, defs = [], []
    for fn in sorted(os.listdir(lib)):
        if not fn.endswith(('.c', '.h')):
            continue
        path = 'lib/' + fn
        text = open(os.path.join(lib, fn)).read()
        code = strip_comments(text)
        if fn == 'atomic.h':
            for m in DEFINE_PRIM.finditer(code):
                if any(x in m.group(2) for x in STRONG):
                    defs.append((path, text, m))
            continue                    # the rest are the definitions
        for m in CALL.finditer(code):
            # skip macro definitions' own names (#define X(...) uses)
            ls = code.rfind('\n', 0, m.start()) + 1
            if code[ls:m.start()].lstrip().startswith('#define'):
                continue
            if m.start() == ls:
                continue                # a definition (GNU style), not a call
            sites.append(Site(path, text, code, m))
    return sites, defs


def make_mutants(lib):
    sites, defs = find_sites(lib)
    mutants, seen = [], {}

    texts = {}

    def add(kind, path, func, what, find, replace, line, why, at):
        base = '%s:%s:%s:%s' % (os.path.basename(path), func, kind, what)
        seen[base] = seen.get(base, 0) + 1
        mid = base if seen[base] == 1 else '%s#%d' % (base, seen[base])
        # which occurrence of `find` in the file is this site's (a line
        # may occur twice: two identical fences, loads in two functions)
        text = open(os.path.join(lib, os.path.basename(path))).read()
        nth, pos = 0, text.find(find)
        while 0 <= pos < at:
            nth += 1
            pos = text.find(find, pos + 1)
        assert pos == at, (mid, pos, at)
        mutants.append({'id': mid, 'kind': kind, 'file': path, 'find': find,
                        'replace': replace, 'line': line, 'why': why,
                        'nth': nth})

    for path, text, m in defs:
        line = text[m.start():m.end()]
        strong = [x for x in STRONG if x in line][0]
        add('weaken', path, 'definition', m.group(1), line,
            line.replace(strong, '__ATOMIC_RELAXED'),
            text.count('\n', 0, m.start()) + 1,
            '%s defined %s' % (m.group(1), '__ATOMIC_RELAXED'), m.start())
    by_file = {}
    for s in sites:
        by_file.setdefault(s.path, []).append(s)
    for path, fs in by_file.items():
        text = open(os.path.join(lib, os.path.basename(path))).read()
        code = strip_comments(text)
        for s in fs:
            if s.kind in ('weaken', 'fence'):
                # the find text: the whole line(s) of the call, for context
                ls = text.rfind('\n', 0, s.start) + 1
                le = text.find('\n', s.end)
                find = text[ls:le]
                repl = text[ls:s.start] + s.weakened() + text[s.end:le]
                add(s.kind, path, s.func, '%s(%s)' % (s.name, s.target), find,
                    repl, s.line, '%s -> %s' % (s.order(), 'removed'
                                                if s.kind == 'fence'
                                                else 'relaxed'), ls)
        # swaps: consecutive statement stores of one block
        stmts = [s for s in fs if s.store and s.statement]
        for a, b in zip(stmts, stmts[1:]):
            gap = code[a.end + 1:b.start]
            if gap.strip() != '':
                continue                # something else between them
            if a.func != b.func:
                continue
            # both whole statements of one block: not the body of an
            # unbraced for/if/while (its own line after a ')')
            before = code[:a.start].rstrip()
            if not before.endswith((';', '{', '}')):
                continue
            stmt_a = text[a.start:a.end + 1]
            stmt_b = text[b.start:b.end + 1]
            sep = text[a.end + 1:b.start]
            add('swap', path, a.func, '%s(%s)<->%s(%s)' % (
                a.name, a.target, b.name, b.target),
                stmt_a + sep + stmt_b, stmt_b + sep + stmt_a, a.line,
                'lines %d and %d swapped' % (a.line, b.line), a.start)
    return sites, mutants


def load_equivalents(path):
    """`ID: argument` entries; an argument may continue on indented lines."""
    eq, cur = {}, None
    if not os.path.exists(path):
        return eq
    for line in open(path):
        if line.startswith('#') or not line.strip():
            cur = None
            continue
        if line[0] in ' \t' and cur:
            eq[cur] += ' ' + line.strip()
            continue
        mid, sep, why = line.rstrip('\n').partition(': ')
        if not sep:
            sys.exit('%s: not "ID: argument": %r' % (path, line))
        cur = mid.strip()
        eq[cur] = why.strip()
    return eq


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--scratch', default=os.environ.get(
        'DORADMA_MUTATION_DIR', os.path.join(SRC, 'build-mutation')))
    ap.add_argument('--equivalents', default=os.path.join(
        HERE, 'equivalent.txt'))
    ap.add_argument('--match', help='regex on mutant ids')
    ap.add_argument('--sites', action='store_true',
                    help='print every atomic site of lib/ and exit')
    ap.add_argument('--list', action='store_true',
                    help='print the mutants and exit')
    ap.add_argument('--timeout', type=int, default=300,
                    help='seconds per killer run (default 300)')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--min-score', type=float, default=95.0)
    ap.add_argument('--report', help='also write the report to this file')
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))

    lib = os.path.join(SRC, 'lib')
    sites, mutants = make_mutants(lib)
    if a.sites:
        for s in sites:
            print('%-16s %5d  %-28s %-8s %-9s %s' % (
                s.path, s.line, s.func, s.kind, s.order(), norm(s.call)))
        print('%d sites' % len(sites))
        return 0
    eq = load_equivalents(a.equivalents)
    unknown = set(eq) - {m['id'] for m in mutants}
    if unknown:
        sys.exit('%s names mutants that no longer exist (update it): %s'
                 % (a.equivalents, ', '.join(sorted(unknown))))
    if a.match:
        mutants = [m for m in mutants if re.search(a.match, m['id'])]
    if a.list:
        for m in mutants:
            print('%-7s %-70s %s%s' % (m['kind'], m['id'], m['why'],
                  ' [equivalent]' if m['id'] in eq else ''))
        print('%d mutants' % len(mutants))
        return 0

    os.makedirs(a.scratch, exist_ok=True)
    log = os.path.join(a.scratch, 'orderings.log')
    open(log, 'w').close()
    ssrc = os.path.join(a.scratch, 'src')
    mutate.sync_tree(ssrc)
    bdir = mutate.ensure_build(a.scratch, 'default', log)
    env = dict(os.environ)
    shm = os.path.join('/dev/shm', 'dd-orderings-%d' % os.getpid())
    os.makedirs(shm, exist_ok=True)
    env['DORADMA_SHM_DIR'] = shm

    names = [k for k, _ in KILLERS]
    # meson's introspection is read from the build folder: regenerate it
    # first (a changed meson.build would otherwise hide new tests, and an
    # empty target list builds everything)
    mutate.build(bdir, a.jobs, log, ['build.ninja'])
    need = {k: mutate.test_targets(bdir, {k}) for k in names}
    for k in names:
        if not need[k]:
            sys.exit('killer %s: no such test in %s' % (k, bdir))
    print('baseline: building and running the killers ...', flush=True)
    for k in names:
        if not mutate.build(bdir, a.jobs, log, need[k]) or \
                mutate.run_tests(bdir, [k], [], a.timeout, env, log) != 'pass':
            sys.exit('killer %s does not pass on the unmutated tree; see %s'
                     % (k, log))

    results = []
    t0 = time.time()
    runnable = []
    for m in mutants:
        path = os.path.join(ssrc, m['file'])
        n = open(path).read().count(m['find'])
        if m['id'] in eq:
            results.append((m, 'equivalent', eq[m['id']]))
        elif n <= m['nth']:
            results.append((m, 'stale', 'pattern found %d times' % n))
        else:
            runnable.append(m)
    # Cheapest rebuilds first (a header rebuilds more), one file together.
    runnable.sort(key=lambda m: (m['file'].endswith('.h'),
                                 m['file'] == 'lib/atomic.h', m['file'],
                                 m['line']))
    for i, m in enumerate(runnable, 1):
        path = os.path.join(ssrc, m['file'])
        orig = open(path).read()
        pos = -1
        for _ in range(m['nth'] + 1):
            pos = orig.find(m['find'], pos + 1)
        with open(path, 'w') as f:
            f.write(orig[:pos] + m['replace'] + orig[pos + len(m['find']):])
        status, detail = 'survived', []
        try:
            with open(log, 'a') as f:
                f.write('\n===== mutant %s =====\n' % m['id'])
            for k, kinds in KILLERS:
                if m['kind'] not in kinds:
                    continue
                if not mutate.build(bdir, a.jobs, log, need[k]):
                    status, detail = 'build-error', ['%s does not build' % k]
                    break
                v = mutate.run_tests(bdir, [k], [], a.timeout, env, log)
                if v in ('fail', 'timeout'):
                    status, detail = 'killed', ['by %s (%s)' % (k, v)]
                    break
                detail.append(k)
            if status == 'survived':
                detail = ['passed: ' + ' '.join(detail)]
        finally:
            with open(path, 'w') as f:
                f.write(orig)
        results.append((m, status, ' '.join(detail)))
        print('[%d/%d] %-9s %s  %s' % (i, len(runnable), status, m['id'],
                                       detail[0] if detail else ''),
              flush=True)
    shutil.rmtree(shm, ignore_errors=True)

    order = ['killed', 'survived', 'equivalent', 'build-error', 'stale']
    counts = {s: 0 for s in order}
    lines = []
    for m, status, why in sorted(results, key=lambda r: (
            order.index(r[1]), r[0]['id'])):
        counts[status] += 1
        lines.append('%-10s %-72s %s; %s' % (status, m['id'], m['why'], why))
    decided = counts['killed'] + counts['survived']
    score = 100.0 * counts['killed'] / decided if decided else 0.0
    strong = sum(1 for s in sites if s.kind in ('weaken', 'fence'))
    summary = ('%d sites in lib/ (%d ordered or fences, %d relaxed, %d '
               'seqlock.h helper calls); %d mutants: %d killed, %d survived, '
               '%d equivalent, %d build-error, %d stale; score %.1f %% '
               '(killed / (killed + survived)); %d s'
               % (len(sites), strong,
                  sum(1 for s in sites if s.kind == 'relaxed'),
                  sum(1 for s in sites if s.kind == 'helper'),
                  len(results), counts['killed'], counts['survived'],
                  counts['equivalent'], counts['build-error'], counts['stale'],
                  score, time.time() - t0))
    report = '\n'.join(lines) + '\n\n' + summary + '\n'
    print('\n' + report)
    for p in [os.path.join(a.scratch, 'orderings-report.txt')] + \
            ([a.report] if a.report else []):
        with open(p, 'w') as f:
            f.write(report)
    return 0 if score >= a.min_score and not counts['stale'] and \
        not counts['build-error'] else 1


if __name__ == '__main__':
    sys.exit(main())
