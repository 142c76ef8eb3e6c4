"""The torn test's frames: write i is its index (u64 LE) followed by bytes
all equal to 2 + i % 32, so any mix of two writes is detectable."""
import struct


def body_value(i):
    return 2 + i % 32


def frame(i, size):
    return struct.pack("<Q", i) + bytes([body_value(i)]) * (size - 8)
