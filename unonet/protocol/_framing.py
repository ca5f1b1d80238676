"""Length-prefixed frames over a byte stream, in any chunking (h11-style).

The cap is enforced on the 4-byte header, before any body is buffered, so a
peer cannot make us hold more than one frame's worth of memory.
"""

from __future__ import annotations

from ._errors import LocalProtocolError, RemoteProtocolError
from ._noise import MAX_NOISE_MESSAGE

__all__ = ["FrameReader", "encode_frame", "NEED_DATA", "CLOSED", "MAX_FRAME", "HEADER_LEN"]

MAX_FRAME = MAX_NOISE_MESSAGE  # 65535: a frame body is exactly one Noise message
HEADER_LEN = 4


class _Sentinel(type):
    def __repr__(cls) -> str:
        return cls.__name__


class NEED_DATA(metaclass=_Sentinel):
    """``next_frame()``/``next_event()``: feed more bytes first."""


class CLOSED(metaclass=_Sentinel):
    """The peer closed the stream cleanly between frames."""


def encode_frame(body: bytes, max_frame: int = MAX_FRAME) -> bytes:
    if not 1 <= len(body) <= max_frame:
        raise LocalProtocolError(f"frame body must be 1..{max_frame} bytes",
                                 code="too-large", value=len(body))
    return len(body).to_bytes(HEADER_LEN, "big") + body


class FrameReader:
    """Feed bytes with ``receive_data``; pull frames with ``next_frame``.

    ``receive_data(b"")`` signals end of stream.  After an error the reader stays
    broken: every later call raises the same error.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._buf = bytearray()
        self._eof = False
        self._error: RemoteProtocolError | None = None

    def receive_data(self, data: bytes) -> None:
        if self._eof:
            raise LocalProtocolError("data received after end of stream", code="internal")
        if not data:
            self._eof = True
        else:
            self._buf += data

    @property
    def buffered(self) -> int:
        return len(self._buf)

    def next_frame(self) -> bytes | type[NEED_DATA] | type[CLOSED]:
        if self._error is not None:
            raise self._error
        buf = self._buf
        if len(buf) >= HEADER_LEN:
            size = int.from_bytes(buf[:HEADER_LEN], "big")
            if not 1 <= size <= self.max_frame:
                self._error = RemoteProtocolError(
                    f"frame length must be 1..{self.max_frame}", code="too-large",
                    field="frame.length", value=size,
                )
                raise self._error
            end = HEADER_LEN + size
            if len(buf) >= end:
                with memoryview(buf) as view:  # one copy of the body (a bytearray slice is one more)
                    body = view[HEADER_LEN:end].tobytes()
                del buf[:end]
                return body
        if self._eof:
            if buf:
                self._error = RemoteProtocolError(
                    "stream ended in the middle of a frame", code="truncated", value=len(buf)
                )
                raise self._error
            return CLOSED
        return NEED_DATA
