"""A multi-process test's own deadline, below meson's, and its steps (the
Python twin of tests/lib/steps.h): step() prints each step as it starts
(stdout line-buffered, so a hang shows how far it got); track() records a
child process; when the deadline passes, the step, the child the test was
waiting for and every tracked child still alive (pid, command) are printed,
the children killed and the cleanups run, and the test exits 1.
"""
import os
import signal
import sys

_step = "start"
_children = []
_waiting = None
_cleanups = []
_seconds = 0


def deadline(seconds):
    """Arms the deadline (SIGALRM): `seconds` must stay below meson's
    timeout for the test, so that the report comes before meson kills;
    times $DORADMA_TEST_TIME_SCALE (the sanitizer runs' multiplier)."""
    global _seconds
    scale = os.environ.get("DORADMA_TEST_TIME_SCALE", "1")
    _seconds = seconds * (int(scale) if scale.isdigit() and int(scale) else 1)
    sys.stdout.reconfigure(line_buffering=True)
    signal.signal(signal.SIGALRM, _expired)
    signal.alarm(_seconds)


def step(msg):
    global _step
    _step = msg
    print("step: " + msg, flush=True)


def track(p):
    """Records a subprocess.Popen; returns it."""
    _children.append(p)
    return p


def waiting_for(p):
    """Names the child the test now blocks on (None: none)."""
    global _waiting
    _waiting = p


def on_deadline(fn):
    _cleanups.append(fn)


def _cmd(p):
    args = p.args if isinstance(p.args, (list, tuple)) else [p.args]
    return " ".join(str(a) for a in args)[:200]


def _expired(signum, frame):
    out = sys.stderr
    out.write("DEADLINE: %d s passed at step: %s\n" % (_seconds, _step))
    if _waiting is not None:
        out.write("  waiting for pid %d: %s\n" % (_waiting.pid, _cmd(_waiting)))
    for p in _children:
        if p.poll() is None:
            out.write("  alive, killed: pid %d: %s\n" % (p.pid, _cmd(p)))
            try:
                p.kill()
            except OSError:
                pass
    for fn in _cleanups:
        try:
            fn()
        except Exception as e:  # the report matters more than this cleanup
            out.write("  cleanup %r: %s\n" % (fn, e))
    out.flush()
    sys.stdout.flush()
    os._exit(1)
