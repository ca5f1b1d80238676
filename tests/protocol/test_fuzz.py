"""Fuzzing the decoder, the framer and the link: only the protocol's own errors.

Every test body runs under a wall-clock guard (hypothesis ``deadline``) so a
hang or quadratic blow-up fails the test.  The fast variants run on every
``pytest`` call; the ``slow`` ones multiply the example counts.
"""

import json
from datetime import timedelta
from pathlib import Path

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unonet.protocol as P
from unonet.protocol._framing import FrameReader, encode_frame

FAST = settings(max_examples=150, deadline=timedelta(seconds=2),
                suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=2_000, deadline=timedelta(seconds=2),
                suppress_health_check=[HealthCheck.too_slow])

VEC = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
VALID_WIRE = [bytes.fromhex(v["hex"]) for v in json.loads((VEC / "messages.json").read_text())["vectors"]]
TYPES = sorted(P.MESSAGE_TYPES)
FIELD_NAMES = sorted({s.name for c in P.MESSAGE_TYPES.values() for s in c.FIELDS}
                     | {"t", "pos", "card", "salt", "seat", "positions"})

scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats()
           | st.text(max_size=40) | st.binary(max_size=300) | st.sampled_from(TYPES)
           | st.sampled_from(["R7", "W+4", "W", "G", "player", "host"]))
structures = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=12)
    | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=8), kids, max_size=10),
    max_leaves=60,
)
typed_maps = st.builds(
    lambda t, body: {**body, "t": t},
    st.sampled_from(TYPES),
    st.dictionaries(st.sampled_from(FIELD_NAMES), structures, max_size=12),
)


def _decode_only_protocol_errors(data: bytes) -> None:
    for decode in (P.decode_message, P.decode_datagram):
        try:
            msg = decode(data)
        except P.RemoteProtocolError as exc:
            assert exc.code and str(exc)
        else:
            # anything accepted must re-encode and decode to the same message
            enc = P.encode_message if msg.CHANNEL == P.LINK else P.encode_datagram
            assert decode(enc(msg)) == msg


def _mutate(data: bytes, edits) -> bytes:
    buf = bytearray(data)
    for kind, pos, byte in edits:
        if not buf:
            break
        i = pos % len(buf)
        if kind == 0:
            buf[i] = byte
        elif kind == 1:
            buf.insert(i, byte)
        elif kind == 2:
            del buf[i]
        else:
            del buf[i:]
    return bytes(buf)


edits = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10**6), st.integers(0, 255)),
                 min_size=1, max_size=6)


def _random_bytes(data):
    _decode_only_protocol_errors(data)


def _random_structures(obj):
    try:
        data = msgpack.packb(obj, use_bin_type=True)
    except (OverflowError, ValueError):
        return
    _decode_only_protocol_errors(data)


def _mutated_vectors(index, ed):
    _decode_only_protocol_errors(_mutate(VALID_WIRE[index % len(VALID_WIRE)], ed))


def _framer(stream, cuts, max_frame):
    r = FrameReader(max_frame)
    cuts = sorted(c % (len(stream) + 1) for c in cuts)
    pieces = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)])]
    pieces = [p for p in pieces if p]  # b"" means end of stream: only at the very end
    total = 0
    try:
        for piece in pieces + [b""]:
            r.receive_data(piece)
            while True:
                f = r.next_frame()
                if f is P.NEED_DATA or f is P.CLOSED:
                    break
                assert 1 <= len(f) <= max_frame
                total += 4 + len(f)
            if f is P.CLOSED:
                assert total == len(stream)
    except P.RemoteProtocolError as exc:
        assert exc.code in {"too-large", "truncated"}


def _framer_roundtrip(bodies, cuts):
    stream = b"".join(encode_frame(b) for b in bodies)
    r = FrameReader()
    cuts = sorted(c % (len(stream) + 1) for c in cuts)
    got = []
    for a, b in zip([0, *cuts], [*cuts, len(stream)]):
        if a == b:
            continue
        r.receive_data(stream[a:b])
        while (f := r.next_frame()) is not P.NEED_DATA:
            got.append(f)
    r.receive_data(b"")
    assert r.next_frame() is P.CLOSED
    assert got == bodies


_PAIR = None


def _link_garbage(frames):
    from .protocol_helpers import ConnectionPair, feed

    pair = ConnectionPair()
    try:
        for body in frames:
            feed(pair.host, encode_frame(body))
    except P.RemoteProtocolError:
        assert pair.host.state is P.ERROR


framer_streams = st.binary(max_size=2000) | st.lists(
    st.binary(min_size=1, max_size=300).map(encode_frame), max_size=8).map(b"".join).flatmap(
    lambda s: st.tuples(st.just(s), st.binary(max_size=6)).map(lambda t: t[0] + t[1]))
cuts = st.lists(st.integers(0, 10**6), max_size=20)


# -- fast (every run) ------------------------------------------------------------

@FAST
@given(st.binary(max_size=2000))
def test_decoder_random_bytes(data):
    _random_bytes(data)


@FAST
@given(structures | typed_maps)
def test_decoder_random_msgpack(obj):
    _random_structures(obj)


@FAST
@given(st.integers(0, 10**6), edits)
def test_decoder_mutated_vectors(index, ed):
    _mutated_vectors(index, ed)


@FAST
@given(framer_streams, cuts, st.integers(1, 400))
def test_framer_random_streams(stream, cs, max_frame):
    _framer(stream, cs, max_frame)


@FAST
@given(st.lists(st.binary(min_size=1, max_size=500), max_size=10), cuts)
def test_framer_roundtrip_any_chunking(bodies, cs):
    _framer_roundtrip(bodies, cs)


@settings(FAST, max_examples=30)
@given(st.lists(st.binary(min_size=1, max_size=200), min_size=1, max_size=3))
def test_link_random_frames(frames):
    _link_garbage(frames)


def test_oversized_inputs():
    for data in (bytes(P.MAX_PLAINTEXT + 1), msgpack.packb({"t": "leave", "reason": "x" * 70000})):
        with pytest.raises(P.RemoteProtocolError) as exc:
            P.decode_message(data)
        assert exc.value.code == "too-large"
    deep = b"\x91" * 60000 + b"\xc0"
    with pytest.raises(P.RemoteProtocolError):
        P.decode_message(deep)
    for header in (b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff", b"\xc6\xff\xff\xff\xff"):
        with pytest.raises(P.RemoteProtocolError):
            P.decode_message(header)


# -- slow (CI) ---------------------------------------------------------------------

@pytest.mark.slow
@SLOW
@given(st.binary(max_size=5000))
def test_slow_decoder_random_bytes(data):
    _random_bytes(data)


@pytest.mark.slow
@SLOW
@given(structures | typed_maps)
def test_slow_decoder_random_msgpack(obj):
    _random_structures(obj)


@pytest.mark.slow
@SLOW
@given(st.integers(0, 10**6), edits)
def test_slow_decoder_mutated_vectors(index, ed):
    _mutated_vectors(index, ed)


@pytest.mark.slow
@SLOW
@given(framer_streams, cuts, st.integers(1, 400))
def test_slow_framer_random_streams(stream, cs, max_frame):
    _framer(stream, cs, max_frame)


@pytest.mark.slow
@settings(SLOW, max_examples=300)
@given(st.lists(st.binary(min_size=1, max_size=200), min_size=1, max_size=3))
def test_slow_link_random_frames(frames):
    _link_garbage(frames)
