"""The header of a core state's bytes (``src/state/codec.rs``, the one encoder):

``b"KSTM"``, the component's format version (u32 little-endian), the CRC-32 of the
rest (u32 little-endian: ``zlib.crc32`` of bytes 0-8 and of the payload), then the
payload, MessagePack with fields by name. Read here only to report a state's format
version without decoding it, and to re-seal edited payloads in the tests and fuzzers
(so that they reach the decoder's and validators' checks behind the checksum).
"""

from __future__ import annotations

import struct
import zlib

#: First bytes of every core state of the tagged format.
MAGIC = b"KSTM"
#: Bytes before the payload.
HEADER = 12


def version_of(state: bytes) -> int | None:
    """The format version in a state's header, or ``None`` without the header."""
    if len(state) < HEADER or state[:4] != MAGIC:
        return None
    return int(struct.unpack_from("<I", state, 4)[0])


def checksum(state: bytes) -> int:
    """The CRC-32 the header of ``state`` should hold."""
    return zlib.crc32(state[HEADER:], zlib.crc32(state[:8])) & 0xFFFFFFFF


def seal(state: bytes, version: int | None = None) -> bytes:
    """``state`` with its checksum recomputed (and its version set to ``version``)."""
    head = bytearray(state[:HEADER].ljust(HEADER, b"\0"))
    head[:4] = MAGIC
    if version is not None:
        struct.pack_into("<I", head, 4, version)
    out = bytes(head[:8]) + b"\0\0\0\0" + bytes(state[HEADER:])
    return out[:8] + struct.pack("<I", checksum(out)) + out[HEADER:]
