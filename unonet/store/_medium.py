"""Where the database file lives: a read-only medium, a full disk, the files SQLite keeps beside it.

A WAL database is read through two files beside it, ``-wal`` and ``-shm``, which SQLite
creates even to read.  On a read-only filesystem it cannot, so the views open such a file
``immutable=1`` (no locks, no side files: nobody can write a read-only filesystem while we
read), or ``mode=ro`` when a crashed writer left both side files there (its last rounds are
in the ``-wal``).  On a full disk SQLite creates the ``-shm`` but cannot size it and fails
with a bare "disk I/O error", leaving a 3-byte ``-shm`` and an empty ``-wal``: we say the disk
is full and remove the two files that we made.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ._errors import StoreError

#: the room SQLite needs beside a WAL database to read it (one 32 KiB -shm region)
SHM_ROOM = 32 * 1024


def side_files(path: Path) -> tuple[Path, Path]:
    """The ``-wal`` and ``-shm`` files SQLite keeps beside ``path``."""
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def read_only_medium(path: Path) -> bool:
    """Whether the filesystem holding ``path`` is mounted read-only (a CD, a ro bind mount)."""
    statvfs = getattr(os, "statvfs", None)
    if statvfs is None:  # Windows: no such flag; SQLite's own error says it
        return False
    try:
        return bool(statvfs(path.parent).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def read_only_uri(path: Path) -> str:
    """The URI that reads ``path`` on a read-only medium, where no side file can be made."""
    wal, shm = side_files(path)
    uri = path.absolute().as_uri()
    if _size(wal):
        if _size(shm) is None:
            raise StoreError(f"{path}: is on a read-only filesystem with rounds still in {wal.name} but no "
                             f"{shm.name} beside it, which SQLite cannot read there; copy {path.name} and "
                             f"{wal.name} to a writable place and read the copy")
        return uri + "?mode=ro"  # both side files there: SQLite reads them without writing
    return uri + "?immutable=1"


def no_room(path: Path) -> bool:
    """Whether the disk holding ``path`` has too little room left for SQLite to read it."""
    try:
        return shutil.disk_usage(path.parent).free < SHM_ROOM
    except OSError:
        return False


def disk_full(path: Path) -> StoreError:
    return StoreError(f"{path}: the disk holding it is full (SQLite needs room beside the database, in "
                      f"{path.name}-shm and -wal, even to read it); free some space and try again")


def remove_leftovers(path: Path, existed: set[Path]) -> None:
    """Remove the side files a failed open made and left unused: an empty ``-wal`` and a
    ``-shm`` too small to be any process's (a live one is at least 32 KiB)."""
    wal, shm = side_files(path)
    for p, most in ((wal, 0), (shm, 3)):
        size = _size(p)
        if p not in existed and size is not None and size <= most:
            try:
                p.unlink()
            except OSError:
                pass


def _size(p: Path) -> int | None:
    try:
        return p.stat().st_size
    except OSError:
        return None
