#!/usr/bin/env python3
"""N TCP connections to HOST:PORT, each sending 1 B - 64 KiB of random
bytes (seeded: the same every run) and closed 10 ms later (review N-5).
Prints how many of them UCX keeps: those of 2080 bytes or more whose
header announces more than its buffer holds (seeded: 99 of the first 100).
Usage: garbage.py HOST PORT N [badaddr | hold [WAIT]]
badaddr: instead, each sends a well-formed UCX 1.13-1.22 TCP connection
request (16-byte header, then private data: a v2 sa_data header and a
worker address of version 15) and closes after 1 s: UCP asserts on the
address version (address.c, ucp_address_unpack_header) when it accepts.
hold: instead, N connections held open at once, each sending 2081 B -
64 KiB (seeded) whose header announces 2^32 bytes: UCX reads 2080 of them
and leaves the rest unread, for good. Then waits up to WAIT s (default 30)
for the receiver to reset each (ECONNRESET), and prints how many it reset,
closed, left open or could not be made; closes nothing before."""
import random
import selectors
import socket
import struct
import sys
import time

host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
mode = sys.argv[4] if len(sys.argv) > 4 else ""
rng = random.Random(31)
# What UCX's TCP connection manager (1.13.1) reads of a request: its
# priv_data_len is UCX_TCP_CM_PRIV_DATA_LEN (2048) plus the 16-byte header
# (u64 length, a status byte, padding), and it receives priv_data_len plus
# the header again (tcp_sockcm.c, tcp_sockcm_ep.c recv_nb): 2080 bytes
BUF = 16 + 2048 + 16
# sa_data base (packed: ep_id, header = UCP_OBJECT_VERSION_V2 (1) << 5),
# then the address
PRIV = struct.pack("<QB", 0, 1 << 5) + bytes([0x0F]) + bytes(6)


def connect():
    # generous: a busy machine must not turn a connection into a failure
    return socket.create_connection((host, port), timeout=10)


if mode == "hold":
    wait = float(sys.argv[5]) if len(sys.argv) > 5 else 30.0
    socks, failed = [], 0
    for i in range(n):
        size = rng.randint(BUF + 1, 65536)
        data = struct.pack("<Q", 1 << 32) + rng.randbytes(size - 8)
        try:
            s = connect()
            s.sendall(data)
            socks.append(s)
        except OSError:
            failed += 1
    print(f"garbage hold: {len(socks)} connections open, {failed} failed",
          flush=True)
    sel = selectors.DefaultSelector()
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    reset = closed = other = 0
    end = time.monotonic() + wait
    while sel.get_map() and time.monotonic() < end:
        for key, _ in sel.select(timeout=max(0.0, end - time.monotonic())):
            s = key.fileobj
            try:
                got = s.recv(4096)
            except ConnectionResetError:
                reset += 1
            except BlockingIOError:
                continue
            except OSError:
                other += 1
            else:
                if got:
                    continue    # UCX answers garbage with nothing; ignore
                closed += 1
            sel.unregister(s)
    left = len(sel.get_map())
    for s in socks:
        s.close()
    print(f"garbage hold: {n} connections, {reset} reset by the receiver, "
          f"{closed} closed by it, {other} other errors, {left} still open "
          f"after {wait:g} s, {failed} failed")
    sys.exit(0)

refused = kept = 0
for i in range(n):
    try:
        s = connect()
        if mode == "badaddr":
            s.sendall(struct.pack("<QB7x", len(PRIV), 0) + PRIV)
            time.sleep(1)
        else:
            data = rng.randbytes(rng.randint(1, 65536))
            s.sendall(data)
            if len(data) >= BUF and struct.unpack_from("<Q", data)[0] > BUF - 16:
                kept += 1
            time.sleep(0.01)
        s.close()
    except OSError:
        refused += 1
print(f"garbage: {n} connections, {refused} failed, {kept} kept by UCX")
