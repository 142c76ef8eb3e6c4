#!/usr/bin/env python3
"""N TCP connections to HOST:PORT, each sending 1 B - 64 KiB of random
bytes (seeded: the same every run) and closed 10 ms later (review N-5).
Usage: garbage.py HOST PORT N [badaddr]
badaddr: instead, each sends a well-formed UCX 1.13-1.22 TCP connection
request (16-byte header, then private data: a v2 sa_data header and a
worker address of version 15) and closes after 1 s: UCP asserts on the
address version (address.c, ucp_address_unpack_header) when it accepts."""
import random
import socket
import struct
import sys
import time

host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
badaddr = len(sys.argv) > 4 and sys.argv[4] == "badaddr"
rng = random.Random(31)
# sa_data base (packed: ep_id, header = UCP_OBJECT_VERSION_V2 (1) << 5),
# then the address
PRIV = struct.pack("<QB", 0, 1 << 5) + bytes([0x0F]) + bytes(6)
refused = 0
for i in range(n):
    try:
        s = socket.create_connection((host, port), timeout=2)
        if badaddr:
            s.sendall(struct.pack("<QB7x", len(PRIV), 0) + PRIV)
            time.sleep(1)
        else:
            s.sendall(rng.randbytes(rng.randint(1, 65536)))
            time.sleep(0.01)
        s.close()
    except OSError:
        refused += 1
print(f"garbage: {n} connections, {refused} failed")
