#!/usr/bin/env python3
"""Independent recomputation of the transcript known answers in tests/transcript.

Implements docs/transcript.md with Python's hashlib.blake2b only, so the frozen values in
tests/transcript/test_transcript.cpp can be checked without the C++ code.
"""
import hashlib
import struct

ELL = 2**252 + 27742317777372353535851937790883648493


class Transcript:
    def __init__(self, app: bytes):
        self.h = hashlib.blake2b(digest_size=64)
        self.frame(0x00, b"gopa/transcript/v1", app)

    def header(self, op: int, label: bytes, n: int):
        self.h.update(bytes([op, len(label)]) + label + struct.pack("<Q", n))

    def frame(self, op: int, label: bytes, data: bytes):
        self.header(op, label, len(data))
        self.h.update(data)

    def challenge_bytes(self, label: bytes, n: int) -> bytes:
        self.header(0x03, label, n)
        out, block = b"", 0
        while len(out) < n:
            fork = self.h.copy()
            fork.update(struct.pack("<Q", block))
            out += fork.digest()
            block += 1
        out = out[:n]
        self.frame(0x04, label, out)
        return out

    def challenge_scalar(self, label: bytes) -> str:
        c = int.from_bytes(self.challenge_bytes(label, 64), "little") % ELL
        return c.to_bytes(32, "little").hex()


if __name__ == "__main__":
    base = bytes.fromhex("e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76")
    t = Transcript(b"gopa/kat v1")
    t.frame(0x01, b"dom-sep", b"kat-protocol v1")
    t.frame(0x02, b"n", struct.pack("<Q", 64))
    t.frame(0x02, b"s", (7).to_bytes(32, "little"))
    t.frame(0x02, b"P", base)
    t.frame(0x02, b"m", b"hello")
    print("c1   ", t.challenge_scalar(b"c"))
    print("c2   ", t.challenge_scalar(b"c"))
    print("bytes", t.challenge_bytes(b"bytes", 100).hex()[:64])
