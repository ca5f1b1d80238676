"""What can go wrong with a score database, each a one-line message naming the file."""

from __future__ import annotations

from ..names import clean


class StoreError(Exception):
    """The database cannot be used, or refuses what was asked; ``str()`` is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


#: the longest message a damaged file can make us print (SQLite quotes what it found)
MAX_MESSAGE = 400


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` on one line of printable characters, at most ``limit`` long: SQLite's messages
    about a damaged file quote its bytes and its integrity check lists problems a line each."""
    text = clean(" ".join(str(text).split()))
    return text if len(text) <= limit else text[:limit - 1] + "…"


class MissingDatabase(StoreError):
    """No database at the path (views and verify never create one)."""


class NotOurDatabase(StoreError):
    """A file that is not a SQLite database, or a SQLite database of some other program."""


class DatabaseLocked(StoreError):
    """Another process holds a lock longer than we wait."""


class DatabaseCorrupt(StoreError):
    """SQLite's own integrity check fails (damaged pages, a torn file)."""


class NewerSchema(StoreError):
    """Written by a newer unonet: we do not know its schema, so we do not touch it."""


class RecordRefused(StoreError):
    """A match or round that does not fit what the database holds (chain, settings, scores)."""


class RoundConflict(RecordRefused):
    """A different round is already recorded under the same (match, round, attempt)."""


class UnknownMatch(StoreError):
    """A match reference (local number or match id prefix) that names no match, or several."""
