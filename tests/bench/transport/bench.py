#!/usr/bin/python3
"""doradma transport benchmark: one run, all transports interleaved.

Runs, round-robin over transports for several rounds, for each frame size:
  thr   : producer unthrottled for a fixed duration -> frames/s, CPU/frame
  paced : producer at a fixed period (consumer sleeps between frames)
          -> latency p50/p95/p99 and CPU/frame
and, once per round, the cross-process futex wake floor at each period.
Writes one JSON file (every trial's raw reports). report.py turns one or
more of these into docs/bench/results.md and PNGs.

Usage: bench.py --tools DIR --gst DIR --out FILE [--rounds N] [--quick]
Run it through run.sh, which builds everything first.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import zlib

SIZES = [(640, 480), (1920, 1080), (3840, 2160), (7680, 4320)]
# paced period per size (us): long enough that copy=true at 8K still keeps up
PERIOD_US = {(640, 480): 2000, (1920, 1080): 2000, (3840, 2160): 5000,
             (7680, 4320): 20000}
PACED_FRAMES = {(640, 480): 300, (1920, 1080): 300, (3840, 2160): 200,
                (7680, 4320): 100}
THR_MS = 1000
WARMUP_THR = 30
WARMUP_PACED = 10

TRANSPORTS = ["floor", "shm", "shm-copy", "dm-latest", "dm-lossless", "dm-copy",
              "dm-spin", "unixfd"]
# dm-spin: doradmasrc polls this long before sleeping: longer than the
# longest paced period, so the consumer never sleeps between frames
SPIN_NS = 100000000


def frame_size(w, h):
    return w * h * 3 // 2


class Runner:
    def __init__(self, tools, gstdir, verbose, pin):
        self.tools = tools
        self.pin = pin          # (producer cpu, consumer cpu) for dm-spin
        self.env = dict(os.environ)
        self.env["GST_PLUGIN_PATH"] = gstdir + ":" + tools
        # a registry per plugin folder: A/B runs of two builds alternate
        # without one registry answering for the other's plugin
        self.env["GST_REGISTRY_1_0"] = os.path.join(
            tools, "registry-%08x.bin" % zlib.crc32(
                os.path.abspath(gstdir).encode()))
        self.env.pop("GST_PLUGIN_PATH_1_0", None)
        self.env["DORADMA_SHM_DIR"] = "/dev/shm"
        self.verbose = verbose
        self.seq = 0

    def run_tool(self, args, timeout):
        return subprocess.run(args, env=self.env, capture_output=True,
                              text=True, timeout=timeout)

    def bench_run(self, pipeline, timeout, error_is_end=False, cpu=None):
        args = [os.path.join(self.tools, "bench-run"), "--timeout", str(timeout)]
        if cpu is not None:
            args = ["taskset", "-c", str(cpu)] + args
        if error_is_end:
            args.append("--error-is-end")
        args += pipeline.split()
        return subprocess.Popen(args, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    @staticmethod
    def collect(p, timeout):
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            return {"ok": False, "error": "killed after timeout",
                    "stderr": err[-2000:]}
        line = out.strip().splitlines()[-1] if out.strip() else ""
        try:
            d = json.loads(line)
        except ValueError:
            d = {"ok": False, "error": "no JSON", "stdout": out[-2000:]}
        if err.strip():
            d["stderr"] = err[-2000:]
        d["rc"] = p.returncode
        return d

    def futex(self, iters, period_us):
        r = self.run_tool([os.path.join(self.tools, "futex-floor"), str(iters),
                           str(period_us)], timeout=120)
        return json.loads(r.stdout)

    def ping(self, iters, period_us, pace, size, spin_ns=SPIN_NS):
        """The ring alone (spin-ping) with frames of SIZE bytes: a spinning
        reader (spin_ns 0: asleep on the futex), pinned like dm-spin; None
        when the tool was not built."""
        tool = os.path.join(self.tools, "spin-ping")
        if not os.path.exists(tool):
            return None
        wc, rc = self.pin if self.pin else (-1, -1)
        r = self.run_tool([tool, str(iters), str(period_us), str(spin_ns),
                           pace, str(wc), str(rc), str(size)], timeout=120)
        try:
            return json.loads(r.stdout)
        except ValueError:
            return {"error": r.stderr[-500:]}

    def iox_config(self, sizes):
        """RouDi's config: one mempool per frame size, chunks enough for
        one loaned, four queued and one held by the subscriber (6; at 8K
        that is 300 MB of /dev/shm)."""
        path = os.path.join(self.tools, "roudi-bench.toml")
        pools = sorted(set(frame_size(w, h) for w, h in sizes))
        with open(path, "w") as f:
            f.write("[general]\nversion = 1\n\n[[segment]]\n")
            for fs in [256] + pools:
                f.write("\n[[segment.mempool]]\nsize = %d\ncount = %d\n"
                        % ((fs + 4096 + 7) // 8 * 8, 6))
        return path

    def iox_start(self, config):
        """iceoryx (iox-ping) under a RouDi of its own: iox-run.sh, kept
        running for the round so that each iox-ping runs right after the
        spin-ping it is compared with. -> the process, or a string saying
        why there is none."""
        if not os.path.exists(os.path.join(self.tools, "iox-ping")):
            return ("iceoryx: not installed where the benchmark was built "
                    "(scripts/install-deps.sh installs it where the "
                    "distribution has it)")
        here = os.path.dirname(os.path.abspath(__file__))
        return subprocess.Popen(["bash", os.path.join(here, "iox-run.sh"),
                                 self.tools, config], env=self.env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, bufsize=1)

    def iox_ping(self, iox, iters, period_us, pace, size, wait):
        """One iox-ping run in the round's RouDi: a result, or a string
        saying why there is none (then iox is stopped)."""
        wc, rc = self.pin if self.pin else (-1, -1)
        try:
            iox.stdin.write("%d %d %d %s %s %d %d\n" % (
                iters, period_us, size, wait, pace, wc, rc))
            iox.stdin.flush()
            line = iox.stdout.readline()
        except OSError:
            line = ""
        if not line:
            return "iceoryx: " + (self.iox_stop(iox) or "iox-run.sh ended")
        try:
            return json.loads(line)
        except ValueError:
            return {"error": line[-300:]}

    @staticmethod
    def iox_stop(iox):
        """Stops the round's RouDi; its stderr's tail."""
        try:
            _, err = iox.communicate(input="", timeout=30)
        except (subprocess.TimeoutExpired, ValueError, OSError):
            iox.kill()
            _, err = iox.communicate()
        return (err or "").strip()[-300:]

    def trial(self, transport, w, h, phase):
        self.seq += 1
        tag = "dmb%d-%d" % (os.getpid(), self.seq)
        warm = WARMUP_THR if phase == "thr" else WARMUP_PACED
        if phase == "thr":
            srcprops = "duration-ms=%d" % THR_MS
            tmo = THR_MS / 1000 + 30
        else:
            # every paced trial splits its latency into stages (the push
            # probe costs every transport the same; doradmasrc's times come
            # in its frame meta)
            srcprops = "period-us=%d num-frames=%d stage-probe=true" % (
                PERIOD_US[(w, h)], PACED_FRAMES[(w, h)] + warm)
            tmo = PERIOD_US[(w, h)] * PACED_FRAMES[(w, h)] / 1e6 + 30
        src = ("benchstampsrc name=src width=%d height=%d warmup=%d %s"
               % (w, h, warm, srcprops))
        sink = "benchstampsink name=sink warmup=%d%s" % (
            warm, " stages=true" if phase == "paced" else "")
        caps = ("video/x-raw,format=I420,width=%d,height=%d,framerate=0/1,"
                "pixel-aspect-ratio=1/1" % (w, h))
        res = {"transport": transport, "w": w, "h": h, "phase": phase}
        t0 = time.monotonic()
        if transport == "floor":
            p = self.bench_run("%s ! %s" % (src, sink), tmo)
            d = self.collect(p, tmo + 10)
            res["prod"] = d
            res["cons"] = d
        elif transport.startswith("shm"):
            sock = "/tmp/%s.sock" % tag
            fs = frame_size(w, h)
            nbuf = 4
            shm_size = (fs + 65536) * (nbuf + 2) + (4 << 20)
            own = " own-pool=true" if transport == "shm-copy" else ""
            prod = self.bench_run(
                "%s pool-buffers=%d%s ! shmsink name=tx socket-path=%s shm-size=%d "
                "wait-for-connection=true sync=false" % (src, nbuf, own, sock,
                                                         shm_size), tmo)
            deadline = time.monotonic() + 10
            while not os.path.exists(sock) and time.monotonic() < deadline \
                    and prod.poll() is None:
                time.sleep(0.005)
            cons = self.bench_run(
                "shmsrc name=rx socket-path=%s is-live=true do-timestamp=true ! "
                "%s ! %s" % (sock, caps, sink), tmo, error_is_end=True)
            res["prod"] = self.collect(prod, tmo + 10)
            res["cons"] = self.collect(cons, tmo + 10)
            for f in (sock,):
                if os.path.exists(f):
                    os.unlink(f)
            # a crashed shmsink leaves /dev/shm/shmpipe.<pid>.*
            for f in os.listdir("/dev/shm"):
                if f.startswith("shmpipe.%d." % prod.pid):
                    os.unlink(os.path.join("/dev/shm", f))
        elif transport == "unixfd":
            # GStreamer >= 1.24: unixfdsink proposes a memfd allocator, so
            # benchstampsrc writes in place (zero copy); caps travel in band
            sock = "/tmp/%s.sock" % tag
            prod = self.bench_run(
                "%s ! unixfdsink name=tx socket-path=%s sync=false"
                % (src, sock), tmo)
            deadline = time.monotonic() + 10
            while not os.path.exists(sock) and time.monotonic() < deadline \
                    and prod.poll() is None:
                time.sleep(0.005)
            cons = self.bench_run(
                "unixfdsrc name=rx socket-path=%s ! %s" % (sock, sink), tmo,
                error_is_end=True)
            res["prod"] = self.collect(prod, tmo + 10)
            res["cons"] = self.collect(cons, tmo + 10)
            if os.path.exists(sock):
                os.unlink(sock)
        else:
            chan = tag
            pcpu = ccpu = None
            if transport == "dm-latest":
                smode, rmode, copy = "latest", "latest", ""
            elif transport == "dm-lossless":
                smode, rmode, copy = "lossless", "next", ""
            elif transport == "dm-spin":
                # the consumer polls instead of sleeping; producer and
                # consumer pinned to different cores
                smode, rmode, copy = "lossless", "next", \
                    " spin-time=%d" % SPIN_NS
                if self.pin:
                    pcpu, ccpu = self.pin
            else:  # dm-copy: every frame copied by the reader
                smode, rmode, copy = "lossless", "next", " copy=true"
            cons = self.bench_run(
                "doradmasrc name=rx channel=%s read-mode=%s%s ! %s"
                % (chan, rmode, copy, sink), tmo, cpu=ccpu)
            prod = self.bench_run(
                "%s ! doradmasink name=tx channel=%s mode=%s wait-for-readers=1 "
                "sync=false" % (src, chan, smode), tmo, cpu=pcpu)
            res["prod"] = self.collect(prod, tmo + 10)
            res["cons"] = self.collect(cons, tmo + 10)
            for f in ("doradma.%s" % chan, "doradma.%s~ctl" % chan):
                pth = os.path.join("/dev/shm", f)
                if os.path.exists(pth):
                    res.setdefault("leftovers", []).append(f)
                    os.unlink(pth)
        res["secs"] = round(time.monotonic() - t0, 3)
        return res


def gst_version():
    """The GStreamer that runs the pipelines: pkg-config where -dev
    packages are installed, else gst-launch-1.0's own answer (the GPU
    machine's runtime kit has no .pc files)."""
    for cmd in (["pkg-config", "--modversion", "gstreamer-1.0"],
                ["gst-launch-1.0", "--version"]):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True).stdout
        except OSError:
            continue
        for word in out.split():
            if word[:1].isdigit() and word.count(".") == 2:
                return word
    return ""


def machine():
    m = {"cores": os.cpu_count(), "kernel": platform.release(),
         "machine": platform.machine()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    m["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    m["gstreamer"] = gst_version()
    try:
        with open("/proc/meminfo") as f:
            m["mem_total"] = f.readline().split(":", 1)[1].strip()
    except OSError:
        pass
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tools", required=True)
    ap.add_argument("--gst", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--transports", default=",".join(TRANSPORTS))
    ap.add_argument("--sizes", default="all")
    ap.add_argument("--phases", default="thr,paced")
    ap.add_argument("--pin", default="auto",
                    help="PRODUCER_CPU,CONSUMER_CPU for dm-spin (auto: the "
                    "last two CPUs we may run on; none: no pinning)")
    ap.add_argument("--no-pings", action="store_true",
                    help="skip spin-ping and iox-ping (A/B runs of plugins)")
    ap.add_argument("--period-us", type=int, default=0,
                    help="one paced period for every size (default: per size; "
                    "separates what grows with the period from what grows "
                    "with the frame size)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if a.period_us > 0:
        for k in PERIOD_US:
            PERIOD_US[k] = a.period_us
            PACED_FRAMES[k] = max(100, min(300, 600000 // a.period_us))

    transports = a.transports.split(",")
    sizes = SIZES if a.sizes == "all" else [
        tuple(int(x) for x in s.split("x")) for s in a.sizes.split(",")]
    phases = a.phases.split(",")
    cpus = sorted(os.sched_getaffinity(0))
    if a.pin == "none" or (a.pin == "auto" and len(cpus) < 2):
        pin = None
    elif a.pin == "auto":
        pin = (cpus[-2], cpus[-1])
    else:
        pin = tuple(int(x) for x in a.pin.split(","))
    if pin and not shutil.which("taskset"):
        print("bench: taskset not found: dm-spin runs unpinned", file=sys.stderr)
        pin = None
    r = Runner(a.tools, a.gst, a.verbose, pin)
    skipped = []
    have_dm = subprocess.run(["gst-inspect-1.0", "doradmasrc"], env=r.env,
                             capture_output=True).returncode == 0
    if not have_dm:
        dropped = [t for t in transports if t.startswith("dm-")]
        transports = [t for t in transports if not t.startswith("dm-")]
        if dropped:
            print("bench: doradmasrc not found in %s: skipping %s"
                  % (a.gst, ",".join(dropped)), file=sys.stderr)
            skipped.append("dm-*: doradmasrc missing")
    have_unixfd = subprocess.run(["gst-inspect-1.0", "unixfdsrc"], env=r.env,
                                 capture_output=True).returncode == 0
    if "unixfd" in transports and not have_unixfd:
        transports.remove("unixfd")
        note = ("unixfd: unixfdsink/unixfdsrc not found (they are in "
                "GStreamer >= 1.24; this is %s)" % machine().get("gstreamer"))
        print("bench: " + note, file=sys.stderr)
        skipped.append(note)

    out = {"date": datetime.datetime.now().astimezone().isoformat(
        timespec="seconds"), "machine": machine(),
        "config": {"rounds": a.rounds, "sizes": sizes, "transports": transports,
                   "phases": phases, "thr_ms": THR_MS,
                   "period_us": {"%dx%d" % k: v for k, v in PERIOD_US.items()},
                   "paced_frames": {"%dx%d" % k: v for k, v in PACED_FRAMES.items()},
                   "warmup_thr": WARMUP_THR, "warmup_paced": WARMUP_PACED,
                   "spin_ns": SPIN_NS, "pin": list(pin) if pin else None,
                   "skipped": skipped},
        "futex": [], "ping": [], "trials": []}
    out["machine"]["loadavg_start"] = [round(x, 2) for x in os.getloadavg()]
    t_start = time.monotonic()
    periods = sorted(set(PERIOD_US[s] for s in sizes))

    def ping_iters(per):
        return max(100, min(400, int(2e6 / per)))

    def add_ping(pg, rnd, who):
        if pg is None or "e2e_p50" not in pg:
            if pg:
                print("round %d %s: %s" % (rnd, who, pg.get("error")),
                      file=sys.stderr)
            return
        pg["round"] = rnd
        pg.setdefault("kind", "ring")
        out["ping"].append(pg)
        print("round %d %s %s period %dus %dB %s %s: e2e p50 %.2f us"
              " publish->delivery p50 %.2f us" % (
                  rnd, who, pg["kind"], pg["period_us"], pg.get("size", 4096),
                  pg.get("wait", "spin"), pg["pace"], pg["e2e_p50"] / 1e3,
                  pg["pub_p50"] / 1e3), file=sys.stderr)

    iox_config = r.iox_config(sizes) if "dm-spin" in transports else None
    for rnd in range(a.rounds):
        for per in periods:
            f = r.futex(ping_iters(per), per)
            f["round"] = rnd
            out["futex"].append(f)
            print("round %d futex period %dus: p50 %.1f us p99 %.1f us" %
                  (rnd, per, f["p50"] / 1e3, f["p99"] / 1e3), file=sys.stderr)
        if "dm-spin" in transports and not a.no_pings:
            # the ring alone and iceoryx, same sizes, periods and pinning:
            # spinning readers with the writer's core idle or kept busy,
            # and sleeping readers (futex; waitset) with it idle
            iox = r.iox_start(iox_config)
            for (w, h) in sizes:
                per, fs = PERIOD_US[(w, h)], frame_size(w, h)
                it = ping_iters(per)
                for pace, spin in (("sleep", SPIN_NS), ("busy", SPIN_NS),
                                   ("sleep", 0)):
                    wait = "spin" if spin else "wait"
                    add_ping(r.ping(it, per, pace, fs, spin), rnd, "spin-ping")
                    if isinstance(iox, str):
                        continue
                    pg = r.iox_ping(iox, it, per, pace, fs, wait)
                    if isinstance(pg, str):
                        iox = pg
                    else:
                        add_ping(pg, rnd, "iox-ping")
            if isinstance(iox, str):
                if iox not in skipped:
                    print("bench: " + iox, file=sys.stderr)
                    skipped.append(iox)
            else:
                r.iox_stop(iox)
        rot = transports[rnd % len(transports):] + transports[:rnd % len(transports)]
        for (w, h) in sizes:
            for phase in phases:
                for t in rot:
                    res = r.trial(t, w, h, phase)
                    res["round"] = rnd
                    out["trials"].append(res)
                    ok = res["prod"].get("ok") and res["cons"].get("ok")
                    cs = res["cons"].get("sink", {})
                    fps = (cs.get("win_frames", 0) * 1e9 / cs["win_wall_ns"]
                           if cs.get("win_wall_ns") else 0)
                    print("round %d %5dx%-4d %-5s %-11s %s fps %9.0f p50 %8.1f us"
                          " (%.1fs)" % (rnd, w, h, phase, t, "ok " if ok else "ERR",
                                        fps, cs.get("lat_p50", 0) / 1e3,
                                        res["secs"]), file=sys.stderr)
                    if not ok:
                        for k in ("prod", "cons"):
                            e = res[k].get("error") or res[k].get("stderr")
                            if e:
                                print("   %s: %s" % (k, str(e)[:300]),
                                      file=sys.stderr)
    out["elapsed_s"] = round(time.monotonic() - t_start, 1)
    # a shared machine's load explains much of a spinning consumer's tail
    out["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    print("bench: wrote %s (%.0f s)" % (a.out, out["elapsed_s"]), file=sys.stderr)


if __name__ == "__main__":
    main()
