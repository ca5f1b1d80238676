"""A match's message history on disk: what a rejoin's replay (and an elected host) needs,
kept once, outside the process's memory.

A host keeps every message of the match for a player that rejoins, and a seat every message
its hosts sent it for the host it may elect; over a long match that is hundreds of kB a round
held for a replay that rarely comes.  `MessageSpool` writes each message's msgpack bytes to an
unnamed temporary file (gone with the process) and keeps only their offsets (8 bytes each);
reading decodes them again, with the checks a received message gets.
"""

from __future__ import annotations

import tempfile
from array import array
from typing import Iterable, Iterator

from unonet.protocol import Message, decode_message, encode_message

__all__ = ["MessageSpool"]


class MessageSpool:
    """An append-only sequence of link messages backed by a temporary file."""

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        self._file = tempfile.TemporaryFile(prefix="unonet-history-")
        self._ends = array("Q")
        self._size = 0  # the file's length (the last end)
        self._at_end = True  # the file's position is its end (no read since the last append)
        self.types: dict[str, int] = {}  # messages held, by type (counted without reading them back)
        for m in messages:
            self.append(m)

    def append(self, msg: Message, data: bytes | None = None) -> None:
        """Keep ``msg``; ``data``: its msgpack bytes, if the caller has them (`encode_message`'s,
        or as a link received them: read back, either decodes to ``msg`` with every check)."""
        if data is None:
            data = encode_message(msg)
        if not self._at_end:
            self._file.seek(0, 2)
            self._at_end = True
        self._file.write(data)
        self._size += len(data)
        self._ends.append(self._size)
        types = self.types
        types[msg.TYPE] = types.get(msg.TYPE, 0) + 1

    def __len__(self) -> int:
        return len(self._ends)

    def __bool__(self) -> bool:
        return bool(self._ends)

    def _read(self, i: int) -> Message:
        start = self._ends[i - 1] if i else 0
        self._at_end = False
        self._file.seek(start)
        return decode_message(self._file.read(self._ends[i] - start))

    def __iter__(self) -> Iterator[Message]:
        for i in range(len(self._ends)):  # (appends made while iterating are read too)
            yield self._read(i)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._read(i) for i in range(*index.indices(len(self._ends)))]
        if index < 0:
            index += len(self._ends)
        if not 0 <= index < len(self._ends):
            raise IndexError("message spool index out of range")
        return self._read(index)

    def close(self) -> None:
        self._file.close()
