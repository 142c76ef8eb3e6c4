#!/usr/bin/python3
"""Description: every reader check of the spec (§6) has a hostile pool that
doradmasrc refuses with the spec's message fragment, and never a frame;
names outside the grammar are refused before any system call; pools that
hold no video doradmasrc understands are refused with their JSON printed; an
ipc pool (header only, CUDA IPC handle) is refused clearly without a usable
CUDA handle; a pool nested past the JSON bound or a FIFO at the name is
refused (never a crash or a hang), and so is a pool another user owns or
anyone may write; no refusal prints a GStreamer-CRITICAL; doradmasink
refuses formats with no dora tensor form and
transports dora's writers do not create. Rule 9 ("JSON slice shorter than
json_len") cannot fire in a mapping once rules 2-4 passed, and rule 26
(FORK-B slot words) does not apply: doradma uses generation word 0 only.
"""
import json
import os
import shutil
import struct
import subprocess

from dorapool import (MAGIC, check, data_offset_for, gst_launch, gst_run,
                      rust_json, shm_dir, wait_size)

U64 = 2**64 - 1


def image(js=None, size_payload=64, json_len=None, data_offset=None,
          ipc_flag=0, seg_len=None, magic=MAGIC, raw=None, gen=2):
    body = raw if raw is not None else (js if js is not None else
                                        rust_json(64, "uint8", [64])).encode()
    do = data_offset_for(len(body)) if data_offset is None else data_offset
    if seg_len is None:
        seg_len = data_offset_for(len(body)) + size_payload
    buf = bytearray(max(seg_len, 256 + len(body)))
    buf[0:8] = magic
    struct.pack_into("<QQQ", buf, 8, len(body) if json_len is None else json_len,
                     do, ipc_flag)
    if ipc_flag == 1:
        buf[32:96] = bytes(range(64))
    struct.pack_into("<Q", buf, 96, gen)
    buf[256:256 + len(body)] = body
    return bytes(buf[:seg_len])


def put(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
    os.chmod(os.path.join(d, name), 0o600)


def src_refuses(d, tag, data, fragment, props=()):
    name = "dora_pool_df_node_%s" % tag
    if data is not None:
        put(d, name, data)
    rc, out = gst_run(["doradmasrc", "dora-pool=" + name,
                       "timeout=200000000", "num-buffers=1"] + list(props) +
                      ["!", "fakesink"])
    check(rc != 0 and fragment in out and "CRITICAL" not in out,
          "%s: refused with \"%s\", no CRITICAL%s" % (tag, fragment,
                                                     "" if fragment in out and
                                                     "CRITICAL" not in out else
                                                     " -- got: " + out[-600:]))


def main():
    d = shm_dir("hostile")
    js = rust_json
    try:
        # §6 rules, in the crate's order
        src_refuses(d, "r1-255", image(seg_len=255), "too small")
        src_refuses(d, "r1-8", MAGIC, "too small")
        src_refuses(d, "r2-past", image(data_offset=512 + 64 + 1),
                    "cannot bound the header region")
        src_refuses(d, "r2-past-end", image(data_offset=10**6), "past the end")
        src_refuses(d, "r3-overflow", image(json_len=U64), "overflows")
        src_refuses(d, "r4-nofit", image(json_len=4096, data_offset=256,
                                         seg_len=8192), "does not fit")
        src_refuses(d, "r5-magic", image(magic=b"XORADMA\0"), "magic")
        src_refuses(d, "r6-lt-header", image(data_offset=0),
                    "less than HEADER_SIZE")
        src_refuses(d, "r7-umax", image(data_offset=U64), "past the end")
        src_refuses(d, "r8-json-vs-offset", image(json_len=257, data_offset=512),
                    "does not fit before data_offset")
        bad = bytearray(image())
        bad[256] = 0xFF
        src_refuses(d, "r10-utf8", bytes(bad), "utf-8")
        src_refuses(d, "r11-json", image(raw=b"{\"size\":64,"), "invalid metadata json")
        src_refuses(d, "r12-nosize", image(js='{"dtype":"uint8","shape":[64]}'),
                    "missing `size`")
        src_refuses(d, "r12-strsize", image(js='{"size":"64","dtype":"uint8"}'),
                    "missing `size`")
        src_refuses(d, "r12-negsize", image(js='{"size":-1,"dtype":"uint8"}'),
                    "missing `size`")
        src_refuses(d, "r13-nodtype", image(js='{"size":64,"shape":[64]}'),
                    "missing `dtype`")
        src_refuses(d, "r13-numdtype", image(js='{"size":64,"dtype":5}'),
                    "missing `dtype`")
        src_refuses(d, "r14-shape-str", image(js='{"size":64,"dtype":"uint8","shape":"x"}'),
                    "`shape` is not an array")
        src_refuses(d, "r14-shape-elem", image(js='{"size":64,"dtype":"uint8","shape":[2,"x",3]}'),
                    "`shape` element 1")
        src_refuses(d, "r15-pinned", image(js='{"size":64,"dtype":"uint8","pinned_type":42}'),
                    "pinned_type")
        src_refuses(d, "r16-size", image(js='{"size":1000000,"dtype":"uint8"}'),
                    "size 1000000 exceeds")
        src_refuses(d, "r17-shmem-flag1", image(
            js=js(83886080, "uint8", [83886080]), ipc_flag=1, size_payload=0),
            "contradicts")
        src_refuses(d, "r17-ipc-flag0", image(js=js(64, "uint8", [64], "ipc")),
                    "contradicts")
        src_refuses(d, "r19-transport", image(
            js='{"size":64,"dtype":"uint8","transport":"rdma"}'),
            "unknown transport")
        src_refuses(d, "r20-size0", image(js='{"size":0,"dtype":"uint8"}'),
                    "greater than zero")
        src_refuses(d, "r21-shape-overflow", image(
            js='{"size":64,"dtype":"uint8","shape":[4611686018427387904,8]}'),
            "overflows")
        src_refuses(d, "r21-elem-overflow", image(
            js='{"size":64,"dtype":"float64","shape":[4611686018427387904]}'),
            "overflows")
        src_refuses(d, "r22-needs", image(js=js(64, "uint8", [4096, 4096])),
                    "needs 16777216 bytes but the pool declares only 64")
        src_refuses(d, "r22-float64", image(js=js(64, "float64", [32])),
                    "needs 256")
        src_refuses(d, "r23-missing", None, "dora_pool_df_node_r23-missing")
        # 25: a Python CUDA-receiver pool: header only, size = GPU bytes
        pyjs = json.dumps({"size": 8388608, "dtype": "uint8",
                           "shape": [1024, 2048, 4], "pinned_type": "cuda"})
        ipc = image(js=pyjs, ipc_flag=1, size_payload=0)
        check(len(ipc) == data_offset_for(len(pyjs)), "ipc pool is header-only")
        src_refuses(d, "r25-ipc", ipc, "is an ipc pool")
        # an ipc pool's size is only a number: no 4 GiB frame for it
        src_refuses(d, "caps-huge-ipc", image(js=json.dumps(
            {"size": 32000 * 32000 * 4, "dtype": "uint8",
             "shape": [32000, 32000, 4], "pinned_type": "cuda"}),
            ipc_flag=1, size_payload=0), "larger than dora's 1 GiB")
        # frames doradmasrc does not understand: the JSON is in the error
        src_refuses(d, "caps-float", image(js=js(192, "float32", [4, 4, 3]),
                                           size_payload=192),
                    '"dtype":"float32"')
        src_refuses(d, "caps-4d", image(js=js(16, "uint8", [2, 2, 2, 2]),
                                        size_payload=16), "[H, W, 3]")
        src_refuses(d, "caps-too-small", image(js=js(64, "uint8", [64])),
                    "do not describe this pool",
                    props=["caps=video/x-raw,format=RGB,width=64,height=64,"
                           "framerate=0/1"])
        # frames smaller than the pool would show the tensor's head as a
        # picture: refused as well (GRAY8 4x4 = 16 of the 64 bytes)
        src_refuses(d, "caps-smaller", image(js=js(64, "uint8", [64])),
                    "the `caps` property describes frames of 16 bytes",
                    props=["caps=video/x-raw,format=GRAY8,width=4,height=4,"
                           "framerate=0/1"])
        # a frame of neither layout: both sizes named (NV12 30x8 is 384
        # bytes in GStreamer's default layout, 360 packed; the pool 100)
        src_refuses(d, "caps-layouts", image(js=js(100, "uint8", [100]),
                                             size_payload=100),
                    "describes frames of 384 bytes (360 packed)",
                    props=["caps=video/x-raw,format=NV12,width=30,height=8,"
                           "framerate=0/1"])
        # N1: JSON nested far past the bound (json-glib recursed off the
        # stack: SIGSEGV), refused by the strict scan
        src_refuses(d, "n1-huge", image(raw=b"[" * 1000000),
                    "longer than the 4096 we accept")
        # 4,000 '[' (json_len 4000, under the 4096 bound): the nesting
        # bound itself refuses it, at the 33rd '[' (round 4, F10)
        src_refuses(d, "n1-deep", image(raw=b"[" * 4000), "nesting deeper "
                    "than 32 at byte 32")
        # N2: a FIFO at the name is refused at once (a blocking open hung
        # the pipeline for good)
        os.mkfifo(os.path.join(d, "dora_pool_df_node_n2-fifo"), 0o600)
        src_refuses(d, "n2-fifo", None, "is a FIFO")
        # the owner rule: nobody else may write the pool, and it is ours or
        # the allowed uid's
        put(d, "dora_pool_df_node_ow", image())
        os.chmod(os.path.join(d, "dora_pool_df_node_ow"), 0o666)
        src_refuses(d, "ow", None, "writable by others")
        if os.geteuid() == 0:
            put(d, "dora_pool_df_node_other", image(js=js(64, "uint8", [8, 8])))
            os.chown(os.path.join(d, "dora_pool_df_node_other"), 65534, 65534)
            src_refuses(d, "other", None, "uid 65534",
                        props=["allowed-uid=%d" % os.getuid()])
            rc, out = gst_run(["doradmasrc",
                               "dora-pool=dora_pool_df_node_other",
                               "allowed-uid=65534", "num-buffers=1", "!",
                               "fakesink"])
            check(rc == 0, "a pool of uid 65534 with allowed-uid=65534 (%s)"
                  % out[-300:])
        # a writer that shrinks its pool under a running source
        name = "dora_pool_df_node_shrink"
        path = os.path.join(d, name)
        put(d, name, image(js=js(64, "uint8", [8, 8]), gen=2))
        out_path = os.path.join(d, "shrink.raw")
        p = gst_launch("doradmasrc", "dora-pool=" + name, "num-buffers=2",
                       "!", "filesink", "location=" + out_path,
                       "buffer-mode=unbuffered", "sync=false")
        # the event, not a time: frame 1 (gen 2, 64 bytes) pushed, so the
        # source has the pool open and polls it (a source that opened only
        # after the shrink refused it at open instead, another message)
        wait_size(p, out_path, 64, "shrunk pool", limit=60)
        with open(path, "r+b") as f:
            f.truncate(256)
            f.seek(96)
            f.write(struct.pack("<Q", 4))
        try:
            out = "".join(p.communicate(timeout=20))
        except subprocess.TimeoutExpired:
            p.kill()
            out = "".join(p.communicate())
        check(p.returncode != 0 and "shrank below its payload" in out,
              "shrunk pool: refused before copying (%s)" % out[-200:])
        # names (spec §5.1 guard list and the 253-byte limit)
        for n in ["invalid_name", "/etc/passwd", "dora_pool_../../etc/passwd",
                  "dora_pool_a/b", "dora_pool_", "dora_pool_" + "x" * 244]:
            rc, out = gst_run(["doradmasrc", "dora-pool=" + n, "num-buffers=1",
                               "!", "fakesink"])
            check(rc != 0 and "Invalid dora pool name" in out,
                  "name %r refused before any system call" % n[:40])
        n = "dora_pool_" + "x" * 243
        rc, out = gst_run(["doradmasrc", "dora-pool=" + n, "timeout=1000000",
                           "num-buffers=1", "!", "fakesink"])
        check(rc != 0 and "Invalid dora pool name" not in out and n in out,
              "a 253-byte name is valid (missing pool named instead)")
        rc, out = gst_run(["doradmasrc", "dora-pool=dora_pool_a_b_c",
                           "channel=cam0", "!", "fakesink"])
        check(rc != 0 and "Both `channel` and `dora-pool` are set" in out,
              "src: channel and dora-pool together refused")
        # 24: pinned_type cuda with ipc_flag 0 and no transport opens as shmem
        put(d, "dora_pool_df_node_r24", image(
            js='{"size":64,"dtype":"uint8","shape":[8,8],"pinned_type":"cuda"}'))
        rc, out = gst_run(["doradmasrc", "dora-pool=dora_pool_df_node_r24",
                           "num-buffers=1", "!", "fakesink"])
        check(rc == 0, "r24: pinned_type cuda + ipc_flag 0 reads as shmem (%s)"
              % out[-300:])

        # the sink side
        rc, out = gst_run(["videotestsrc", "num-buffers=1", "!",
                           "video/x-raw,format=I420", "!", "doradmasink",
                           "dora-pool=dora_pool_df_node_i420"], timeout=10)
        check(rc != 0 and "I420 has no dora tensor form" in out and
              "planar YUV" in out, "sink: planar YUV refused clearly")
        rc, out = gst_run(["videotestsrc", "num-buffers=1", "!",
                           "video/x-raw,format=YUY2", "!", "doradmasink",
                           "dora-pool=dora_pool_df_node_yuy2"], timeout=10)
        check(rc != 0 and "YUY2 has no dora tensor form" in out,
              "sink: packed YUV refused clearly")
        rc, out = gst_run(["videotestsrc", "num-buffers=1", "!", "doradmasink",
                           "dora-pool=dora_pool_df_node_ipc", "transport=ipc"])
        check(rc != 0 and "cannot write a dora pool" in out,
              "sink: transport ipc refused (dora's writers never create ipc)")
        for v in [" unified", "ipc", "shmemm"]:
            env = dict(os.environ, DORA_MEMORY_POOL_TRANSPORT=v)
            rc, out = gst_run(["videotestsrc", "num-buffers=1", "!",
                               "doradmasink", "dora-pool=dora_pool_df_node_env"],
                              env=env)
            check(rc != 0 and "DORA_MEMORY_POOL_TRANSPORT=\"%s\"" % v in out,
                  "sink: DORA_MEMORY_POOL_TRANSPORT=%r refused, naming it" % v)
        rc, out = gst_run(["videotestsrc", "num-buffers=1", "!", "doradmasink",
                           "dora-pool=dora_pool_a_b_c", "channel=cam0"])
        check(rc != 0 and "Both `channel` and `dora-pool` are set" in out,
              "sink: channel and dora-pool together refused")
        rc, out = gst_run(["videotestsrc", "num-buffers=1", "!", "doradmasink",
                           "dora-pool=dora_pool_../x"])
        check(rc != 0 and "Invalid dora pool name" in out,
              "sink: a traversing name refused")
        left = [f for f in os.listdir(d) if f.startswith("dora_pool_df_node_i")
                or f.endswith("_env") or f.endswith("_yuy2")]
        check(left == [], "sink: nothing created by refused pipelines")
    finally:
        shutil.rmtree(d, ignore_errors=True)


main()
