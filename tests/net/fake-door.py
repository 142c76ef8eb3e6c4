#!/usr/bin/env python3
"""A receiver's door played without the key (docs/network.md, "The door"):
listens on ADDR:PORT for SECONDS (default 8), and to each sender that
comes answers its challenge with one of its own, reads its answer, and
sends a proof with a MAC of random bytes that names a port where this
script listens too (the port a real receiver's UCX listener would have).
A keyed doradmanetsink must refuse the proof and connect to that port
never. Prints "conversations: N" and "connections after the proof: N".
Usage: fake-door.py ADDR PORT [SECONDS]"""
import os
import select
import socket
import struct
import sys
import time

RECORD = struct.Struct("<8sHHI32s32s")  # struct doradma_net_auth, 0x50
DOOR_CHALLENGE, DOOR_RESPONSE, DOOR_PROOF = 4, 5, 6


def record(kind, flags=0, nonce=bytes(32), mac=bytes(32)):
    return RECORD.pack(b"DRNETAU\0", 1, kind, flags, nonce, mac)


def read_record(conn):
    data = b""
    while len(data) < RECORD.size:
        chunk = conn.recv(RECORD.size - len(data))
        if not chunk:
            return None
        data += chunk
    return RECORD.unpack(data)


addr, port = sys.argv[1], int(sys.argv[2])
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 8.0
family = socket.AF_INET6 if ":" in addr else socket.AF_INET
door = socket.socket(family, socket.SOCK_STREAM)
door.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
door.bind((addr, port))
door.listen(8)
told = socket.socket(family, socket.SOCK_STREAM)
told.bind((addr, 0))
told.listen(8)
told_port = told.getsockname()[1]

print("listening", flush=True)
conversations = connections = 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    ready, _, _ = select.select([door, told], [], [], 0.2)
    if told in ready:
        told.accept()[0].close()
        connections += 1
    if door in ready:
        conn, _ = door.accept()
        conn.settimeout(3)
        try:
            first = read_record(conn)
            if first is None or first[2] != DOOR_CHALLENGE:
                continue
            conn.sendall(record(DOOR_CHALLENGE, nonce=os.urandom(32)))
            answer = read_record(conn)
            if answer is None or answer[2] != DOOR_RESPONSE:
                continue
            conn.sendall(record(DOOR_PROOF, flags=told_port,
                                mac=os.urandom(32)))
            conversations += 1
            time.sleep(0.2)
        except OSError:
            pass
        finally:
            conn.close()
print(f"conversations: {conversations}")
print(f"connections after the proof: {connections}")
sys.exit(0 if conversations > 0 else 1)
