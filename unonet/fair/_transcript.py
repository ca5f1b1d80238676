"""The public record: JSON Lines, each line chained to the one before by hash."""

from __future__ import annotations

import json
from collections.abc import Iterable

from ._encoding import sha256
from ._errors import TranscriptFormatError
from ._events import Event, canonical_json

#: `prev` of the first line of every transcript.
GENESIS = sha256(b"unonet/fair/v1/transcript-genesis").hex()


def line_hash(line: str) -> str:
    """SHA-256 of the line's exact UTF-8 bytes (no newline)."""
    return sha256(line.encode("utf-8")).hex()


class TranscriptWriter:
    """Turns events into chained lines. One writer may span a whole match."""

    def __init__(self, prev: str = GENESIS, *, keep: bool = True) -> None:
        self.head = prev
        self.keep = keep  # False: only the chain head (a long-running host: its wire history is the record)
        self.lines: list[str] = []

    def append(self, event: Event) -> str:
        obj = event.to_json()
        obj["prev"] = self.head
        line = canonical_json(obj)
        self.head = line_hash(line)
        if self.keep:
            self.lines.append(line)
        return line

    def extend(self, events: Iterable[Event]) -> list[str]:
        return [self.append(e) for e in events]

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)


def split_lines(lines: Iterable[str]) -> list[str]:
    """Normalise an iterable of lines (with or without newlines); a final blank line is dropped."""
    out = [ln[:-1] if ln.endswith("\n") else ln for ln in lines]
    out = [ln[:-1] if ln.endswith("\r") else ln for ln in out]
    while out and out[-1] == "":
        out.pop()
    return out


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")  # (Python reads NaN and Infinity; JSON has neither)


def parse_line(text: str, number: int) -> dict:
    try:
        obj = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        raise TranscriptFormatError(f"not JSON ({exc.args[0] if exc.args else exc})", line=number) from None
    if not isinstance(obj, dict):
        raise TranscriptFormatError("not a JSON object", line=number)
    return obj
