#!/usr/bin/env python3
"""N TCP connections to HOST:PORT, each sending 1 B - 64 KiB of random
bytes (seeded: the same every run) and closed 10 ms later (review N-5).
Usage: garbage.py HOST PORT N"""
import random
import socket
import sys
import time

host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(31)
refused = 0
for i in range(n):
    try:
        s = socket.create_connection((host, port), timeout=2)
        s.sendall(rng.randbytes(rng.randint(1, 65536)))
        time.sleep(0.01)
        s.close()
    except OSError:
        refused += 1
print(f"garbage: {n} connections, {refused} failed")
