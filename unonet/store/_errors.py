"""What can go wrong with a score database, each a one-line message naming the file."""

from __future__ import annotations


class StoreError(Exception):
    """The database cannot be used, or refuses what was asked; ``str()`` is one line."""


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
