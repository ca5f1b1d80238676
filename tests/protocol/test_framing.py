import pytest

import unonet.protocol as P
from unonet.protocol._framing import FrameReader, encode_frame


def frames_from(chunks, max_frame=P.MAX_FRAME):
    r = FrameReader(max_frame)
    out = []
    for c in chunks:
        r.receive_data(c)
        while (f := r.next_frame()) is not P.NEED_DATA:
            out.append(f)
    return out, r


def test_header_is_4_byte_big_endian():
    assert encode_frame(b"abc") == b"\x00\x00\x00\x03abc"


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7, 1000])
def test_any_chunking_gives_the_same_frames(chunk):
    bodies = [b"x", b"hello" * 50, bytes(range(256)) * 3]
    stream = b"".join(encode_frame(b) for b in bodies)
    got, r = frames_from([stream[i:i + chunk] for i in range(0, len(stream), chunk)])
    assert got == bodies and r.buffered == 0


def test_oversized_header_refused_before_body_arrives():
    r = FrameReader(1000)
    r.receive_data((1001).to_bytes(4, "big"))
    with pytest.raises(P.RemoteProtocolError) as exc:
        r.next_frame()
    assert exc.value.code == "too-large" and exc.value.value == 1001
    with pytest.raises(P.RemoteProtocolError):  # stays broken
        r.next_frame()


def test_max_frame_is_accepted_and_one_more_is_not():
    body = bytes(P.MAX_FRAME)
    assert frames_from([encode_frame(body)])[0] == [body]
    with pytest.raises(P.LocalProtocolError):
        encode_frame(bytes(P.MAX_FRAME + 1))
    with pytest.raises(P.RemoteProtocolError):
        frames_from([(P.MAX_FRAME + 1).to_bytes(4, "big")])


def test_zero_length_frame_refused():
    with pytest.raises(P.RemoteProtocolError):
        frames_from([b"\x00\x00\x00\x00"])
    with pytest.raises(P.LocalProtocolError):
        encode_frame(b"")


def test_clean_eof_and_truncated_eof():
    r = FrameReader()
    r.receive_data(encode_frame(b"ok"))
    r.receive_data(b"")
    assert r.next_frame() == b"ok"
    assert r.next_frame() is P.CLOSED
    r = FrameReader()
    r.receive_data(encode_frame(b"okay")[:-1])
    r.receive_data(b"")
    with pytest.raises(P.RemoteProtocolError) as exc:
        r.next_frame()
    assert exc.value.code == "truncated"


def test_sentinels_have_readable_reprs():
    assert repr(P.NEED_DATA) == "NEED_DATA" and repr(P.CLOSED) == "CLOSED"
