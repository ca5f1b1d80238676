"""msgpack <-> message objects, driven by the schema table.

Decoding is total: whatever bytes arrive, the result is a message or a
``RemoteProtocolError`` naming what was wrong; nothing else escapes, so the
network layer needs exactly one ``except`` per link.
"""

from __future__ import annotations

from typing import Any

import msgpack

from ._errors import LocalProtocolError, RemoteProtocolError
from ._noise import MAX_NOISE_MESSAGE, TAGLEN
from ._schema import _Bad, DATAGRAM, LINK, MESSAGE_TYPES, Message

__all__ = ["encode_message", "decode_message", "encode_datagram", "decode_datagram",
           "encode_plaintext", "decode_plaintext", "decode_plaintext_kept", "pad_length",
           "message_to_json", "message_from_json",
           "MAX_PLAINTEXT", "MAX_MESSAGE", "MAX_DATAGRAM", "PAD_BLOCK"]

MAX_PLAINTEXT = MAX_NOISE_MESSAGE - TAGLEN  # one transport plaintext fills at most one Noise frame
# Link plaintexts are padded with zero bytes to a multiple of PAD_BLOCK, so a
# sniffer sees only the size class of a message, not its kind or content (a
# heartbeat, a draw and a played card all travel as 256 bytes).  256 holds
# every session and game message and the small fair events; see spec §4.1.
PAD_BLOCK = 256
MAX_MESSAGE = MAX_PLAINTEXT // PAD_BLOCK * PAD_BLOCK  # 65280: padded, it still fits a frame
MAX_DATAGRAM = 1200  # fits any LAN MTU without IP fragmentation


class _DuplicateKey(Exception):
    pass


def _pairs(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        raise _DuplicateKey([k for k, _ in pairs])
    for k in d:
        if type(k) is not str:
            raise _Bad("<key>", "map keys must be strings", k)
    return d


def _pack(msg: Message, cap: int) -> bytes:
    if not isinstance(msg, Message):
        raise LocalProtocolError("not a protocol message", code="internal", value=msg)
    body = {"t": msg.TYPE}
    body.update(msg._to_map())
    data = msgpack.packb(body, use_bin_type=True)
    if len(data) > cap:
        raise LocalProtocolError(
            f"encoded {msg.TYPE} is {len(data)} bytes, over the {cap}-byte cap",
            code="too-large", field=msg.TYPE, value=len(data),
        )
    return data


def encode_message(msg: Message) -> bytes:
    """One link message as its canonical msgpack bytes (unpadded: what vectors pin)."""
    if msg.CHANNEL != LINK:
        raise LocalProtocolError(f"{msg.TYPE} is a datagram, not a link message",
                                 code="unexpected", field="t", value=msg.TYPE)
    return _pack(msg, MAX_MESSAGE)


def pad_length(n: int) -> int:
    """Length of the transport plaintext that carries an ``n``-byte message."""
    return -(-n // PAD_BLOCK) * PAD_BLOCK


def encode_plaintext(msg: Message) -> bytes:
    """The Noise transport plaintext: the message, then zero bytes up to the next
    multiple of ``PAD_BLOCK`` (spec §4.1)."""
    data = encode_message(msg)
    return data + bytes(pad_length(len(data)) - len(data))


def encode_datagram(msg: Message) -> bytes:
    """A discovery message as one UDP payload."""
    if msg.CHANNEL != DATAGRAM:
        raise LocalProtocolError(f"{msg.TYPE} is a link message, not a datagram",
                                 code="unexpected", field="t", value=msg.TYPE)
    return _pack(msg, MAX_DATAGRAM)


def _unpack(data: bytes, channel: str, cap: int, padded: bool = False) -> Message:
    return _unpack_end(data, channel, cap, padded)[0]


def _unpack_end(data: bytes, channel: str, cap: int, padded: bool = False) -> tuple[Message, int]:
    """The message, and where its msgpack value ends in ``data`` (the padding follows)."""
    if len(data) > cap:
        raise RemoteProtocolError(f"over the {cap}-byte cap", code="too-large", value=len(data))
    try:
        if padded:
            obj, end = _unpack_first(data)
            if end is None:  # (something is wrong: an Unpacker reads it again and says what)
                unpacker = msgpack.Unpacker(
                    raw=False, use_list=True, strict_map_key=False, object_pairs_hook=_pairs,
                    max_ext_len=0, max_buffer_size=len(data) or 1,
                )
                unpacker.feed(data)
                obj = unpacker.unpack()
                end = unpacker.tell()
            _check_padding(data, end)
        else:
            obj = msgpack.unpackb(
                data, raw=False, use_list=True, strict_map_key=False,
                object_pairs_hook=_pairs, max_ext_len=0,
            )
            end = len(data)
    except RemoteProtocolError:
        raise
    except _DuplicateKey as exc:
        raise RemoteProtocolError("map has a duplicate key", value=exc.args[0]) from None
    except _Bad as bad:
        raise RemoteProtocolError(bad.why, field=bad.path, value=bad.value) from None
    except Exception as exc:  # msgpack raises many types; all mean "not our msgpack"
        raise RemoteProtocolError(
            f"not a single valid msgpack value ({type(exc).__name__}: {exc})"[:200]
        ) from None
    if type(obj) is not dict:
        raise RemoteProtocolError("a message must be a msgpack map", value=obj)
    t = obj.get("t")
    if type(t) is not str:
        raise RemoteProtocolError("message type missing or not a string", field="t", value=t)
    cls = MESSAGE_TYPES.get(t)
    if cls is None:
        raise RemoteProtocolError("unknown message type", code="unknown-type", field="t", value=t)
    if cls.CHANNEL != channel:
        raise RemoteProtocolError(f"{t} is not allowed on a {channel}",
                                  code="unexpected", field="t", value=t)
    try:
        return cls._from_map(obj, t), end
    except _Bad as bad:
        raise RemoteProtocolError(bad.why, field=bad.path, value=bad.value) from None


def _unpack_first(data: bytes) -> tuple[Any, int | None]:
    """The msgpack value a padded plaintext holds and where it ends, read in one call (not by an
    `Unpacker` made for one message): the bytes before the zero padding are one whole value.
    ``(None, None)`` when they are not (a value that ends in zero bytes, or no value at all),
    for the `Unpacker` to read again and say what.  A value read here is the one the
    `Unpacker` reads, and ends where it ends: it is one value whose every length fits the
    shorter input, so it fits the `Unpacker`'s limits, made from the whole length."""
    value = data.rstrip(b"\0")
    try:
        return msgpack.unpackb(value, raw=False, use_list=True, strict_map_key=False,
                               object_pairs_hook=_pairs, max_ext_len=0), len(value)
    except Exception:
        return None, None


def _check_padding(data: bytes, end: int) -> None:
    n = len(data)
    if n % PAD_BLOCK:
        raise RemoteProtocolError(f"plaintext length is not a multiple of {PAD_BLOCK}",
                                  field="padding", value=n)
    if n - end >= PAD_BLOCK:
        raise RemoteProtocolError(f"more than {PAD_BLOCK - 1} bytes of padding",
                                  field="padding", value=n - end)
    if data.count(0, end) != n - end:  # (a non-zero byte in the padding)
        raise RemoteProtocolError("padding bytes must be zero", field="padding",
                                  value=data[end:].rstrip(b"\0")[-8:])


def decode_message(data: bytes) -> Message:
    """One bare msgpack message -> message; raises only ``RemoteProtocolError``."""
    return _unpack(data, LINK, MAX_MESSAGE)


def decode_plaintext(data: bytes) -> Message:
    """A padded transport plaintext -> message: one msgpack message, then fewer than
    ``PAD_BLOCK`` zero bytes, the whole a multiple of ``PAD_BLOCK`` long."""
    return _unpack(data, LINK, MAX_PLAINTEXT, padded=True)


def decode_plaintext_kept(data: bytes) -> tuple[Message, bytes]:
    """`decode_plaintext`, and the message's own msgpack bytes (the plaintext without its
    padding): what a reader that keeps the message on disk writes, instead of encoding it again."""
    msg, end = _unpack_end(data, LINK, MAX_PLAINTEXT, padded=True)
    return msg, data[:end]


def decode_datagram(data: bytes) -> Message:
    """UDP payload -> ``Beacon``/``Probe``; raises only ``RemoteProtocolError``."""
    return _unpack(data, DATAGRAM, MAX_DATAGRAM)


# -- JSON form (test vectors, transcripts): binary as lowercase hex ---------


def _kind_to_json(kind, v):
    from ._schema import Blob, ListOf, Nested

    if isinstance(kind, Blob):
        return v.hex()
    if isinstance(kind, ListOf):
        return [_kind_to_json(kind.item, x) for x in v]
    if isinstance(kind, Nested):
        return _record_to_json(v)
    return v


def _record_to_json(rec) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec in rec.FIELDS:
        v = getattr(rec, spec.name)
        if not spec.required and v == spec.default:
            continue
        out[spec.name] = _kind_to_json(spec.kind, v)
    return out


def _kind_from_json(kind, v, path):
    from ._schema import Blob, ListOf, Nested

    if isinstance(kind, Blob):
        if type(v) is not str:
            raise _Bad(path, "expected a hex string", v)
        try:
            return bytes.fromhex(v)
        except ValueError:
            raise _Bad(path, "not valid hex", v) from None
    if isinstance(kind, ListOf):
        if type(v) is not list:
            raise _Bad(path, "expected an array", v)
        return [_kind_from_json(kind.item, x, f"{path}[{i}]") for i, x in enumerate(v)]
    if isinstance(kind, Nested):
        return _record_from_json(kind.cls, v, path)
    return v


def _record_from_json(cls, d, path):
    if type(d) is not dict:
        raise _Bad(path, "expected an object", d)
    kwargs = {}
    for spec in cls.FIELDS:
        if spec.name in d:
            kwargs[spec.name] = _kind_from_json(spec.kind, d[spec.name], f"{path}.{spec.name}")
    unknown = set(d) - {s.name for s in cls.FIELDS} - {"t"}
    if unknown:
        raise _Bad(f"{path}.{sorted(unknown)[0]}", "unknown field", d[sorted(unknown)[0]])
    try:
        return cls(**kwargs)
    except TypeError as exc:  # missing required keyword
        raise _Bad(path, str(exc), None) from None


def message_to_json(msg: Message) -> dict[str, Any]:
    """``{"t": type, field: value}`` with binary as hex, defaults left out."""
    return {"t": msg.TYPE, **_record_to_json(msg)}


def message_from_json(d: dict[str, Any]) -> Message:
    """Inverse of ``message_to_json``; raises ``LocalProtocolError`` (it is our data)."""
    t = d.get("t") if isinstance(d, dict) else None
    cls = MESSAGE_TYPES.get(t) if isinstance(t, str) else None
    if cls is None:
        raise LocalProtocolError("unknown message type", code="unknown-type", field="t", value=t)
    try:
        return _record_from_json(cls, d, t)
    except _Bad as bad:
        raise LocalProtocolError(bad.why, field=bad.path, value=bad.value) from None
