#!/usr/bin/env python3
"""Writes the memory orders of the ring's protocol sites in lib/ as a header
for the Relacy model (tests/relacy/protocol.cpp): each site is found by an
anchored pattern (SITES) or by its function and the word it touches (KEYED,
through the ordering mutation harness's parser, tests/mutation/orderings.py)
and its dr_* macro (lib/atomic.h) copied, so that weakening an ordering in
lib/ changes what the model checks. A site that no longer matches exactly
once fails the build (update the tables); a keyed fence that is gone is
written as no fence (the harness removes fences that way).

  orderings.py LIB_DIR OUTPUT
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'mutation'))
import orderings as harness  # noqa: E402  (the site finder)

# name, file, pattern with one group: the dr_* macro used at the site.
SITES = [
    ('PUBLISH_SLOT_SEQ', 'writer-slots.c',
     r'(dr_\w+) \(&w->rcb->slot_seq\[slot\], seq\);'),
    ('PUBLISH_NEWEST', 'writer-slots.c',
     r'(dr_\w+) \(&w->rcb->newest, DORADMA_NEWEST_PACK \(seq, slot\)\);'),
    ('EOS_FINAL_SEQ', 'writer-stream.c',
     r'(dr_\w+) \(&w->rcb->final_seq, w->last_seq'),
    ('EOS_STATE', 'writer-stream.c',
     r'(dr_\w+) \(&w->rcb->state, DORADMA_STATE_EOS\);'),
    ('WRITER_CONSUMED', 'writer-readers.c',
     r'c = (dr_\w+) \(&e->consumed_seq\);'),
    ('FIND_NEWEST', 'reader-frames.c',
     r'uint64_t newest = (dr_\w+) \(&r->rcb->newest\);'),
    ('FIND_SLOT_SEQ', 'reader-frames.c',
     r'uint64_t q = (dr_\w+) \(&r->rcb->slot_seq\[s\]\);'),
    ('LEASE_GEN', 'reader-frames.c',
     r'uint64_t g = (dr_\w+) \(&shm->gen\);'),
    ('NEXT_STATE', 'reader-frames.c',
     r'uint32_t state = (dr_\w+) \(&r->rcb->state\);'),
    ('CONSUME', 'reader-consume.c',
     r'(dr_\w+) \(c, seq\);'),
]


# name, file, function, word (first argument; '-' for a fence), which of
# the function's sites on that word (1 = first).
KEYED = [
    ('CAPS_ODD_FENCE', 'writer-stream.c', 'write_caps_entry', '-', 1),
    ('CAPS_PUBLISH', 'writer-stream.c', 'write_caps_entry', '&c->gen', 2),
    ('SUPERSEDE_STATE', 'writer.c', 'supersede_old', '&rcb->state', 1),
    ('REPLACE_STATE', 'writer-replace.c', 'doradma_writer_replace',
     '&old->rcb->state', 1),
    ('REPLACE_ACTIVE', 'writer-replace.c', 'doradma_writer_replace',
     '&old->ctl->active', 1),
    ('STOPPED', 'writer.c', 'doradma_writer_close', '&w->rcb->stopped', 1),
    ('SWEEP_FREE', 'writer-readers.c', 'sweep_locked', '&e->state', 2),
    ('MIN_ACTIVE', 'writer-readers.c', 'min_consumed_locked',
     '&w->ctl->active', 1),
    ('EVICT_STATE', 'writer-readers.c', 'evict_locked', '&e->state', 1),
    ('EVICT_ACTIVE', 'writer-readers.c', 'doradma_writer_evict_stalled',
     '&w->ctl->active', 1),
    ('EVICT_CONSUMED', 'writer-readers.c', 'doradma_writer_evict_stalled',
     '&e->consumed_seq', 1),
    ('UNADOPTED_ACTIVE', 'writer-replace.c', 'unadopted_locked',
     '&w->ctl->active', 1),
    ('OLD_ENTRY_STATE', 'writer-readers.c', 'old_entry_state', '&o->state', 1),
    ('ACTIVE_READERS', 'writer-readers.c', 'active_readers',
     '&w->ctl->active', 1),
    ('ABANDON_SLOT_SEQ', 'writer-slots.c', 'doradma_writer_abandon',
     '&w->rcb->slot_seq[slot]', 1),
    ('JOIN_NEWEST', 'reader.c', 'join', '&r->rcb->newest', 1),
    ('JOIN_CONSUMED', 'reader.c', 'join', '&ent->consumed_seq', 1),
    ('JOIN_STATE', 'reader.c', 'join', '&ent->state', 1),
    ('JOIN_ACTIVE', 'reader.c', 'join', '&r->ctl->active', 1),
    ('CLOSE_ACTIVE', 'reader.c', 'doradma_reader_close', '&r->ctl->active', 1),
    ('CLOSE_STATE', 'reader.c', 'doradma_reader_close', '&ent->state', 1),
    ('CLEAR_LEASES', 'reader.c', 'clear_our_bit_everywhere',
     '&r->ctl->lease[s].readers', 1),
    ('EVICTED_STATE', 'reader-consume.c', 'check_evicted', '&ent->state', 1),
    ('EVICTED_NEWEST', 'reader-consume.c', 'check_evicted',
     '&r->rcb->newest', 1),
    ('EVICTED_CONSUMED', 'reader-consume.c', 'check_evicted',
     '&ent->consumed_seq', 1),
    ('EVICTED_ACTIVE', 'reader-consume.c', 'check_evicted', '&ent->state', 2),
    ('STOPPED_LOAD', 'reader-stream.c', 'doradma_reader_writer_stopped',
     '&r->rcb->stopped', 1),
    ('NEXT_STATE_AGAIN', 'reader-frames.c', 'next_common',
     '&r->rcb->state', 2),
    ('NEXT_NEWEST', 'reader-frames.c', 'next_common', '&r->rcb->newest', 1),
    ('SET_LAST_SEQ', 'reader-consume.c', 'doradma_reader_set_last_seq',
     '&r->ctl->readers[r->entry].consumed_seq', 1),
    ('POOL_READ_BEGIN', 'dora-pool.c', 'doradma_pool_read_begin',
     'gen_word (r->base)', 1),
    ('POOL_READ_FENCE', 'dora-pool.c', 'doradma_pool_read_ok', '-', 1),
    ('POOL_CREATE', 'dora-pool.c', 'doradma_pool_writer_create',
     'gen_word (w->base)', 1),
    ('POOL_BEGIN_FENCE', 'dora-pool.c', 'doradma_pool_writer_begin', '-', 1),
    ('POOL_END', 'dora-pool.c', 'doradma_pool_writer_end',
     'gen_word (w->base)', 1),
    ('SPIN_STOP', 'futex.c', 'eventcount_spin', 'stop', 1),
    ('INSPECT_FENCE_1', 'inspect.c', 'inspect_records', '-', 1),
    ('INSPECT_FENCE_2', 'inspect.c', 'inspect_records', '-', 2),
]


def found_sites(lib):
    """(name, file, line, primitive, mo text) of every site of both tables;
    primitive is a dr_* macro, an __atomic_* builtin, or None for a keyed
    fence that is gone."""
    out = []
    for name, fn, pat in SITES:
        text = open('%s/%s' % (lib, fn)).read()
        found = re.findall(pat, text)
        if len(found) != 1:
            sys.exit('orderings.py: %s: pattern for %s found %d times: %s'
                     % (fn, name, len(found), pat))
        out.append((name, fn, None, found[0], None))
    sites, _ = harness.find_sites(lib)
    for name, fn, func, word, nth in KEYED:
        found = [s for s in sites if s.path == 'lib/' + fn and
                 s.func == func and s.target == word and s.kind != 'helper']
        if len(found) < nth:
            if word == '-':
                out.append((name, fn, None, None, None))
                continue
            sys.exit('orderings.py: %s: no site %d of %s in %s (update KEYED)'
                     % (fn, nth, word, func))
        s = found[nth - 1]
        mo = None
        if not s.name.startswith('dr_'):
            mo = [x for x in harness.STRONG + ('__ATOMIC_RELAXED',)
                  if x in s.args][0]
        out.append((name, fn, s.line, s.name, mo))
    return out


ARGS = {'load': '0', 'store': '0, 0', 'fetch_or': '0, 0', 'fetch_and': '0, 0',
        'cas': '0, 0, 0', 'fence': ''}


def kind_of(prim, name):
    """load / store / fetch_or / fetch_and / cas / fence of a primitive."""
    if prim is None or 'fence' in prim or 'FENCE' in name:
        return 'fence'
    for k in ('fetch_or', 'fetch_and', 'load', 'store', 'cas'):
        if k in prim:
            return k
    sys.exit('orderings.py: %s: unknown primitive %s' % (name, prim))


def values(lib):
    """orderings.cpp: each site's memory order as lib/atomic.h's own macro
    gives it (site-mo.h makes every primitive evaluate to its order), -1
    for a fence that is gone. Compiled without Relacy: a mutant of a .c
    file of lib/ rebuilds this file only, not the model."""
    lines = ['/* Generated by tests/relacy/orderings.py from lib/: do not edit. */',
             '#define _Static_assert static_assert',
             '#undef DORADMA_ATOMIC_MODEL',
             '#define DORADMA_ATOMIC_MODEL "site-mo.h"',
             '#include "atomic.h"']
    for name, fn, line, prim, mo in found_sites(lib):
        if prim is None:
            val = '-1'
        elif mo is not None:
            val = mo
        else:
            val = '%s (%s)' % (prim, ARGS[kind_of(prim, name)])
        lines.append('extern const int site_mo_%s = %s;  /* lib/%s%s %s */'
                     % (name, val, fn, ':%d' % line if line else '',
                        prim or 'no fence'))
    return '\n'.join(lines) + '\n'


MACRO = {
    'load': '#define SITE_%s(p) dr_atomic_load ((p), site_mo_%s)',
    'store': '#define SITE_%s(p, v) dr_atomic_store ((p), (v), site_mo_%s)',
    'fetch_or': '#define SITE_%s(p, v) dr_atomic_fetch_or ((p), (v), site_mo_%s)',
    'fetch_and': '#define SITE_%s(p, v) dr_atomic_fetch_and ((p), (v), site_mo_%s)',
    'cas': '#define SITE_%s(p, e, d) dr_atomic_cas ((p), (e), (d), site_mo_%s)',
    'fence': '#define SITE_%s() do { if (site_mo_%s > 0) '
             'dr_atomic_fence (site_mo_%s); } while (0)',
}


def header(lib):
    """sites.h: the declarations and SITE_* macros (kept in the tree, so
    that a change of lib/ does not rebuild the model; --check compares)."""
    lines = ['/* Written by tests/relacy/orderings.py --header: do not edit.',
             ' * SITE_X (...) is site X of lib/ with the memory order lib gives',
             ' * it, read from orderings.cpp at run time (generated). */',
             '#ifndef DORADMA_RELACY_SITES_H', '#define DORADMA_RELACY_SITES_H']
    for name, fn, line, prim, mo in found_sites(lib):
        k = kind_of(prim, name)
        lines.append('extern const int site_mo_%s;' % name)
        n = MACRO[k].count('%s')
        lines.append(MACRO[k] % ((name,) * n))
    lines.append('#endif')
    return '\n'.join(lines) + '\n'


def main():
    lib, out = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    want = header(lib)
    if out == '--header':
        sys.stdout.write(want)
        return
    if open(os.path.join(here, 'sites.h')).read() != want:
        sys.exit('orderings.py: tests/relacy/sites.h is stale: run '
                 'python3 tests/relacy/orderings.py lib --header '
                 '> tests/relacy/sites.h')
    with open(out, 'w') as f:
        f.write(values(lib))


if __name__ == '__main__':
    main()
