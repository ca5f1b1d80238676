"""Byte encodings shared by every hash, MAC, signature and seal.

Every variable-length field is length-prefixed (4-byte big-endian) and every
hashed or signed message starts with its own length-prefixed domain tag, so no
two different messages of any kind can encode to the same bytes.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import struct

from ._errors import EventFormatError

_U32 = struct.Struct(">I")

VERSION = b"unonet/fair/v1/"


def u32(n: int) -> bytes:
    if type(n) is not int or not 0 <= n < 1 << 32:
        raise ValueError(f"{n!r} does not fit in an unsigned 32-bit field")
    return _U32.pack(n)


def u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def lp(data: bytes) -> bytes:
    """Length-prefixed bytes: u32(len) || data."""
    return _U32.pack(len(data)) + (data if type(data) is bytes else bytes(data))


@functools.lru_cache(maxsize=None)
def tag(name: str) -> bytes:
    """The length-prefixed domain tag b"unonet/fair/v1/<name>"."""
    return lp(VERSION + name.encode("ascii"))


def sha256(*parts: bytes) -> bytes:
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.digest()


def hmac_sha256(key: bytes, *parts: bytes) -> bytes:
    # the one-shot C HMAC (`hmac.new` builds two hash objects in Python for every MAC)
    return hmac.digest(key, parts[0] if len(parts) == 1 else b"".join(parts), "sha256")


@functools.lru_cache(maxsize=64)
def round_context(table: bytes, round_no: int) -> bytes:
    # (a round's every salt, commitment and signature prefix repeats it: made once)
    return lp(table) + u32(round_no)


# -- the hex and integer fields of the JSON forms (events, openings, identities) --


def parse_hex(value: object, name: str) -> bytes:
    # lowercase hex, nothing else: what fromhex reads (it also takes upper case and spaces)
    # written back exactly
    if type(value) is str or isinstance(value, str):
        try:
            data = bytes.fromhex(value)
        except ValueError:
            pass
        else:
            if data.hex() == value:
                return data
    raise EventFormatError(f"field {name!r} is not lowercase hex")


def parse_int(value: object, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 32:
        raise EventFormatError(f"field {name!r} is not an unsigned 32-bit integer")
    return value
