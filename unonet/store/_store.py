"""The score database: open it safely, record matches and rounds, each in one transaction.

Opening checks everything before writing anything, so a file that is not ours, is locked,
corrupted or from a newer unonet is refused with one line and left byte for byte as it was:
the SQLite magic is read from the file itself; the application id, schema version and
SQLite's quick check are read in a read transaction; only then is WAL switched on and the
schema migrated.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from ..dirs import data_dir
from ..ledger import LedgerError, MatchHeader, MatchLedger, RoundEntry
from ._errors import (
    DatabaseCorrupt,
    DatabaseLocked,
    MissingDatabase,
    NewerSchema,
    NotOurDatabase,
    RecordRefused,
    RoundConflict,
    StoreError,
    UnknownMatch,
)
from ._medium import disk_full, no_room, read_only_medium, read_only_uri, remove_leftovers, side_files
from ..fair._identity import PublicIdentity
from ._cosigns import insert_cosign, insert_identities, read_cosigns, read_identities
from ._rows import LoadedMatch, insert_round, insert_voided, read_match
from ._scoring import rules_for
from ._schema import APPLICATION_ID, SCHEMA_VERSION, migrate, shape_problem

SQLITE_MAGIC = b"SQLite format 3\x00"
DEFAULT_TIMEOUT = 2.0
MAX_NAME = 32


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def default_db_path(environ: dict[str, str] | None = None) -> Path:
    """``scores.db`` in `unonet.dirs.data_dir`: ``$UNONET_HOME`` (as the key store honours
    it), else ``$XDG_DATA_HOME/unonet``, else ``~/.local/share/unonet`` on Linux (the
    platform's place on macOS and Windows)."""
    return data_dir(environ) / "scores.db"


def sqlite_failure(path: Path, e: sqlite3.Error | UnicodeDecodeError) -> StoreError:
    """One line for an SQLite error met while opening or using ``path``.

    Python's sqlite3 raises UnicodeDecodeError where SQLite's own message quotes bytes of a
    damaged file that are not UTF-8 (a schema entry torn mid-character)."""
    if isinstance(e, UnicodeDecodeError):
        return DatabaseCorrupt(f"{path}: the database is corrupted (SQLite's message about it: "
                               f"{e.object.decode('utf-8', 'replace')})")
    text = str(e)
    name = getattr(e, "sqlite_errorname", "") or ""
    if "FULL" in name or "disk is full" in text or (("IOERR" in name or "CANTOPEN" in name) and no_room(path)):
        return disk_full(path)
    if ("READONLY" in name or "CANTOPEN" in name) and read_only_medium(path):
        return StoreError(f"{path}: is on a read-only filesystem: the scorekeeper cannot record there "
                          f"(the views read it: unonet score standings --db {path})")
    if "locked" in text or "BUSY" in name or "LOCKED" in name:
        return DatabaseLocked(f"{path}: the database is locked by another process (tried for a while; "
                              f"is another unonet score running on it?)")
    if ("malformed" in text or "CORRUPT" in name or "not a database" in text or "NOTADB" in name
            or "Could not decode" in text):
        return DatabaseCorrupt(f"{path}: the database is corrupted ({text})")
    if "readonly" in text or "READONLY" in name or "unable to open" in text or "CANTOPEN" in name:
        return StoreError(f"{path}: cannot open the database for writing ({text})")
    return StoreError(f"{path}: {text}")


class ScoreStore:
    """The scorekeeper's ledger in SQLite (WAL, synchronous=FULL).

    ``ScoreStore.open(path)`` checks and migrates; ``begin_match(header, names)`` registers
    a match; ``record_round(entry)`` appends one round (idempotent: the same round again is
    a no-op that returns False; a different round under the same (match, round, attempt)
    raises RoundConflict).  Reading views: `unonet.store` ``standings``, ``history``,
    ``match_board``; checking: ``verify``."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self._cache: dict[bytes, LoadedMatch] = {}
        #: (match row, seat) -> the seat's identity as stored, built once: a live attach checks
        #: every seat's co-signature of every round against it (the rows are written once per
        #: match, never changed; a failed write drops these with the chains, see _write)
        self._keys: dict[tuple[int, int], PublicIdentity] = {}

    # -- opening -------------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike, *, create: bool = True, readonly: bool = False,
             timeout: float = DEFAULT_TIMEOUT) -> "ScoreStore":
        """The database at ``path``, checked; made (and migrated) when ``create``.

        ``readonly`` (the views and verify) writes nothing at all: an older schema is read as
        it is, not migrated, and a missing or empty file is MissingDatabase."""
        path = Path(path)
        create = create and not readonly
        fresh = cls._precheck(path, create)
        if fresh and readonly:
            raise MissingDatabase(f"{path}: holds no score database yet (record a match first, or pass --db FILE)")
        if fresh and not path.exists():
            try:
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            except OSError as e:
                raise StoreError(f"{path}: cannot create its directory ({e.strerror})") from None
        existed = {p for p in side_files(path) if p.exists()}
        try:
            if readonly and read_only_medium(path):
                conn = sqlite3.connect(read_only_uri(path), uri=True, timeout=timeout, isolation_level=None,
                                       check_same_thread=False)
            else:
                conn = sqlite3.connect(str(path), timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as e:
            raise sqlite_failure(path, e) from None
        store = cls(conn, path)
        try:
            store._check_and_prepare(readonly)
        except BaseException as e:
            conn.close()
            remove_leftovers(path, existed)
            if isinstance(e, (sqlite3.Error, UnicodeDecodeError)):
                raise sqlite_failure(path, e) from None
            raise
        return store

    @staticmethod
    def _precheck(path: Path, create: bool) -> bool:
        """True when there is no database yet (missing or empty file)."""
        if not path.exists():
            if not create:
                raise MissingDatabase(f"{path}: no score database there (record a match first, or pass --db FILE)")
            return True
        if path.is_dir():
            raise NotOurDatabase(f"{path}: is a directory, not a score database")
        if not path.is_file():  # a FIFO would block the read below for ever; a device is no database
            raise NotOurDatabase(f"{path}: is not a regular file (a pipe or a device), not a score database")
        try:
            with open(path, "rb") as f:
                magic = f.read(len(SQLITE_MAGIC))
        except OSError as e:
            raise StoreError(f"{path}: cannot read it ({e.strerror})") from None
        if not magic:
            return True
        if magic != SQLITE_MAGIC:
            raise NotOurDatabase(f"{path}: is not a unonet score database (not an SQLite file at all)")
        return False

    def _check_and_prepare(self, readonly: bool) -> None:
        c, path = self.conn, self.path
        c.execute("PRAGMA foreign_keys = ON")
        if readonly:
            c.execute("PRAGMA query_only = ON")  # the views write nothing, whatever a bug asks
        c.execute("BEGIN")  # a read transaction: one consistent look, no write
        try:
            app_id = c.execute("PRAGMA application_id").fetchone()[0]
            version = c.execute("PRAGMA user_version").fetchone()[0]
            objects = c.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            empty = app_id == 0 and version == 0 and objects == 0
            if not empty and app_id != APPLICATION_ID:
                raise NotOurDatabase(f"{path}: is an SQLite database of another program, not a unonet score "
                                     f"database (application id {app_id:#x})")
            if version > SCHEMA_VERSION:
                raise NewerSchema(f"{path}: was written by a newer unonet (schema version {version}; this one "
                                  f"knows up to {SCHEMA_VERSION}); upgrade unonet to use it")
            if not empty:
                problems = [r[0] for r in c.execute("PRAGMA quick_check").fetchall()]
                if problems != ["ok"]:
                    raise DatabaseCorrupt(f"{path}: the database is corrupted (SQLite's check: {problems[0]})")
                shape = shape_problem(c, version)
                if shape:
                    raise DatabaseCorrupt(f"{path}: the database is damaged: {shape} (schema version {version} has it)")
        finally:
            if c.in_transaction:  # an IO error ends it already (a ROLLBACK then would hide the error)
                c.execute("ROLLBACK")
        if readonly:
            if empty:
                raise MissingDatabase(f"{path}: holds no score database yet (record a match first, or pass --db FILE)")
            return
        if c.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
            raise DatabaseLocked(f"{path}: cannot switch the database to WAL mode (another process holds it)")
        c.execute("PRAGMA synchronous = FULL")
        if version < SCHEMA_VERSION:
            migrate(c, begin=self._begin)
        # a writer that can read may still be kept from writing (another process holds a write
        # transaction; WAL lets readers on): find out now, before the scorekeeper connects to a
        # table, not at its first round
        c.execute("BEGIN IMMEDIATE")
        c.execute("ROLLBACK")

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "ScoreStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        return self.conn.execute("PRAGMA user_version").fetchone()[0]

    def _begin(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    # -- recording -------------------------------------------------------------
    def begin_match(self, header: MatchHeader, names: Sequence[str] | None = None,
                    identities: Sequence[dict] = (), host: bytes | None = None) -> int:
        """Register a match (idempotent) and the names its seats go by now; its local number.
        ``identities`` (each seat's public identity, JSON form) are kept to check the
        players' co-signatures; each must be the key the header seats there.  ``host`` is
        the fingerprint of the key that signed its match-start (kept once: whose word about
        its table may mark the match incomplete, `mark_incomplete`).

        A match id already recorded with other settings or seats is refused."""
        names = [_clean_name(n, s) for s, n in enumerate(names or [f"seat {s}" for s in range(header.players)])]
        if len(names) != header.players:
            raise RecordRefused(f"{self.path}: {header.players} seats need {header.players} names, got {len(names)}")
        try:
            rules_for(header)
        except LedgerError as e:
            raise RecordRefused(f"{self.path}: match {header.match.hex()}: {e}") from None
        if identities:
            try:
                idents = [PublicIdentity.from_json(i) for i in identities]
            except (ValueError, TypeError) as e:
                raise RecordRefused(f"{self.path}: match {header.match.hex()}: a seat identity is not one ({e})") from None
            if [i.fingerprint_bytes for i in idents] != list(header.seats):
                raise RecordRefused(f"{self.path}: match {header.match.hex()}: the seat identities are not the "
                                    f"match's seats")
        when = now()
        with self._write():
            row = self.conn.execute("SELECT id, genesis FROM matches WHERE match_key = ?", (header.match,)).fetchone()
            if row is not None:
                if row[1] != header.genesis:
                    raise RecordRefused(f"{self.path}: match {header.match.hex()} is already recorded with other "
                                        f"settings or seats")
                mid = row[0]
                if host:
                    self.conn.execute("UPDATE matches SET host = ? WHERE id = ? AND host IS NULL", (host, mid))
            else:
                table_id = self._upsert("tables", "table_key", header.table, when)
                mid = self.conn.execute(
                    "INSERT INTO matches (match_key, table_id, preset, deck, house, teams, scoring, target, genesis, "
                    "head, rounds, started, host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)",
                    (header.match, table_id, header.preset, header.deck, ",".join(header.house), int(header.teams),
                     header.scoring, header.target, header.genesis, header.genesis, when, host or None)).lastrowid
                for seat, key in enumerate(header.seats):
                    pid = self._upsert("players", "key", key, when)
                    self.conn.execute("INSERT INTO match_seats (match_id, seat, player_id, name) VALUES (?, ?, ?, ?)",
                                      (mid, seat, pid, names[seat]))
            if identities:
                insert_identities(self.conn, mid, identities)
            for seat, name in enumerate(names):
                pid = self.conn.execute("SELECT player_id FROM match_seats WHERE match_id = ? AND seat = ?",
                                        (mid, seat)).fetchone()[0]
                self.conn.execute("UPDATE match_seats SET name = ? WHERE match_id = ? AND seat = ?", (name, mid, seat))
                self.conn.execute(
                    "INSERT INTO player_names (player_id, name, first_seen, last_seen) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (player_id, name) DO UPDATE SET last_seen = excluded.last_seen",
                    (pid, name, when, when))
        return mid

    def abandon_match(self, match: bytes) -> bool:
        """The match's table closed before the match was won: mark it abandoned (True), unless
        it is won or unknown (False).  A round recorded later clears the mark."""
        with self._write():
            cur = self.conn.execute("UPDATE matches SET abandoned = ? WHERE match_key = ? AND finished IS NULL "
                                    "AND winner IS NULL", (now(), match))
        return cur.rowcount == 1

    def mark_incomplete(self, table: bytes, going_on: bytes | None, after: str,
                        host: bytes | None) -> list[tuple[int, bytes, int, str]]:
        """The table ``table`` went on without us (to the match ``going_on``, or closed: None):
        every match of it still open here (not won, not abandoned, not ``going_on``) ended while
        the scorekeeper was away, and its last rounds are not in this file.  Each is marked
        incomplete with why (``after``: what the table did, in words); ``(id, match, next round,
        why)`` of each marked.  A round recorded for it later (its tail given after all) clears
        the mark.

        Only the matches ``host`` (the fingerprint of the key that signed the match going on,
        or of the host that closed) signed: their match-start, or a round of theirs (a host
        elected in it).  The table id is the roster's, the host's unsigned word: a host that
        named another table's id there had that table's open match marked incomplete in a
        file the two tables share (trust18).  No host known: nothing is marked."""
        if not host:
            return []
        marked = []
        with self._write():
            rows = self.conn.execute(
                "SELECT m.id, m.match_key FROM matches m JOIN tables t ON t.id = m.table_id WHERE t.table_key = ? "
                "AND m.finished IS NULL AND m.winner IS NULL AND m.abandoned IS NULL AND m.incomplete IS NULL "
                "AND m.match_key != ? AND (m.host = ? OR EXISTS (SELECT 1 FROM rounds r WHERE r.match_id = m.id "
                "AND r.host = ?)) ORDER BY m.id", (table, going_on or b"", host, host)).fetchall()
            for mid, key in rows:
                (last,) = self.conn.execute("SELECT MAX(round) FROM rounds WHERE match_id = ?", (mid,)).fetchone()
                nxt = (last or 0) + 1
                why = f"the scorekeeper was away from round {nxt} on ({after})"
                self.conn.execute("UPDATE matches SET incomplete = ? WHERE id = ?", (why, mid))
                marked.append((mid, key, nxt, why))
        return marked

    def open_matches(self, limit: int = 8) -> list[bytes]:
        """The match ids this file holds open (not won, not abandoned), newest first: the ones a
        scorekeeper attaching again may have missed the end of (its hello's `resume`)."""
        rows = self.conn.execute("SELECT match_key FROM matches WHERE finished IS NULL AND winner IS NULL "
                                 "AND abandoned IS NULL ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [r[0] for r in rows]

    def record_round(self, entry: RoundEntry) -> bool:
        """Append one round in one transaction: True if recorded now, False if it was already.

        Refused (RecordRefused, nothing written) when the match is unknown, the entry does
        not follow the chain, its scores do not follow from its points, or the match was
        already won; RoundConflict when another round holds its (match, round, attempt)."""
        where = f"{self.path}: match {entry.match.hex()[:12]}… round {entry.round} (attempt {entry.attempt})"
        with self._write():
            row = self.conn.execute("SELECT id, head FROM matches WHERE match_key = ?", (entry.match,)).fetchone()
            if row is None:
                raise RecordRefused(f"{where}: the match is not registered (begin_match first)")
            mid, head = row
            if self._is_voided(mid, entry.hash):
                return False  # voided by a host election already (a replay after a restart reads it again)
            same = self.conn.execute("SELECT hash FROM rounds WHERE match_id = ? AND round = ? AND attempt = ?",
                                     (mid, entry.round, entry.attempt)).fetchone()
            if same is not None:
                if same[0] == entry.hash:
                    return False
                raise RoundConflict(f"{where}: a different round is already recorded under this number "
                                    f"(recorded {same[0].hex()[:16]}…, offered {entry.hash.hex()[:16]}…)")
            loaded = self._loaded(mid, entry.match, head)
            try:
                loaded.ledger.check(entry)
                loaded.rescorer.check(entry)
            except LedgerError as e:
                raise RecordRefused(f"{where}: refused: {e}") from None
            when = now()
            insert_round(self.conn, mid, entry, when)
            loaded.rescorer.apply(entry)
            loaded.ledger.append(entry)
            over = loaded.rescorer.over
            # (a round recorded is a match going on: it is not abandoned, whatever an attach said before)
            self.conn.execute("UPDATE matches SET head = ?, rounds = rounds + 1, winner = ?, finished = ?, "
                              "abandoned = NULL, incomplete = NULL WHERE id = ?",
                              (entry.hash, loaded.rescorer.winner if over else None, when if over else None, mid))
        return True

    def record_cosign(self, entry: RoundEntry, seat: int, sig: bytes) -> bool:
        """Keep seat ``seat``'s co-signature of the recorded round ``entry``: True if kept now,
        False if it was already.  Refused (RecordRefused) when the round is not recorded as
        ``entry``, the match keeps no key for the seat, or the signature is not the seat's
        over the round's tally."""
        where = f"{self.path}: match {entry.match.hex()[:12]}… round {entry.round} (attempt {entry.attempt})"
        with self._write():
            row = self.conn.execute(
                "SELECT r.id, r.match_id FROM rounds r JOIN matches m ON m.id = r.match_id WHERE m.match_key = ? "
                "AND r.round = ? AND r.attempt = ? AND r.hash = ?",
                (entry.match, entry.round, entry.attempt, entry.hash)).fetchone()
            if row is None:
                voided = self.conn.execute("SELECT v.match_id FROM voided_rounds v JOIN matches m ON m.id = v.match_id "
                                           "WHERE m.match_key = ? AND v.hash = ?", (entry.match, entry.hash)).fetchone()
                if voided is not None:
                    return False  # a round an election voided (its co-signs, if any, went with it)
                raise RecordRefused(f"{where}: a co-signature of a round not recorded as this one")
            rid, mid = row
            key = self._keys.get((mid, seat))
            if key is None:
                stored = read_identities(self.conn, mid).get(seat)
                if stored is not None:
                    try:
                        key = self._keys[mid, seat] = PublicIdentity(*stored)
                    except (ValueError, TypeError) as e:  # (stored before keys of small order were refused)
                        raise RecordRefused(f"{where}: seat {seat}'s stored identity is not one ({e})") from None
            if key is None or not key.verify(sig, entry.tally()):
                raise RecordRefused(f"{where}: seat {seat}'s co-signature does not check against its key")
            return insert_cosign(self.conn, rid, seat, sig)

    def void_rounds(self, entries: Sequence[RoundEntry], why: str) -> list[RoundEntry]:
        """A host election continued the match from before ``entries`` (the last rounds of the
        scorekeeper's own chain, oldest first) and deals them again (spec §7 step 6): each one
        recorded leaves the chain for ``voided_rounds`` with its co-signatures, when and
        ``why`` (history, counted nowhere), and the match's head goes back to the round before,
        so the round dealt again is recorded in its place.  One transaction.  Returns the
        entries voided now (none: never recorded, or voided already); RecordRefused when
        what is recorded after the first of them is not theirs."""
        if not entries:
            return []
        first = entries[0]
        where = f"{self.path}: match {first.match.hex()[:12]}… round {first.round} (attempt {first.attempt})"
        with self._write():
            row = self.conn.execute("SELECT id FROM matches WHERE match_key = ?", (first.match,)).fetchone()
            if row is None:
                return []
            mid = row[0]
            rows = self.conn.execute("SELECT id, hash, recorded FROM rounds WHERE match_id = ? "
                                     "ORDER BY round, attempt, id", (mid,)).fetchall()
            start = next((i for i, r in enumerate(rows) if r[1] == first.hash), None)
            if start is None:
                return []
            tail = rows[start:]
            if [r[1] for r in tail] != [e.hash for e in entries[:len(tail)]]:
                raise RecordRefused(f"{where}: the rounds recorded from it on are not the ones the election voids "
                                    f"({len(tail)} recorded, {len(entries)} voided)")
            when = now()
            for (rid, _, recorded), e in zip(tail, entries):
                insert_voided(self.conn, mid, e, read_cosigns(self.conn, rid), recorded, when, why)
                for table in ("round_cosigns", "seat_points", "team_points"):
                    self.conn.execute(f"DELETE FROM {table} WHERE round_id = ?", (rid,))
                self.conn.execute("DELETE FROM rounds WHERE id = ?", (rid,))
            # (no verified round follows a won match, so the rounds before these won nothing)
            self.conn.execute("UPDATE matches SET head = ?, rounds = rounds - ?, winner = NULL, finished = NULL "
                              "WHERE id = ?", (first.prev, len(tail), mid))
            self._cache.pop(first.match, None)
        return list(entries[:len(tail)])

    def _is_voided(self, mid: int, digest: bytes) -> bool:
        return self.conn.execute("SELECT 1 FROM voided_rounds WHERE match_id = ? AND hash = ?",
                                 (mid, digest)).fetchone() is not None

    def ledger(self, match: bytes) -> MatchLedger | None:
        """The match's chain as recorded (what a restarted scorekeeper resumes from)."""
        row = self.conn.execute("SELECT id, head FROM matches WHERE match_key = ?", (match,)).fetchone()
        if row is None:
            return None
        self.conn.execute("BEGIN")
        try:
            loaded = self._loaded(row[0], match, row[1]).ledger
            return MatchLedger(loaded.header, loaded.entries)
        finally:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")

    def _loaded(self, mid: int, match: bytes, head: bytes) -> LoadedMatch:
        """The cached chain state of a match, re-read when another writer moved its head.

        A failed write drops the cache (see _write), so the cache never runs ahead of the file."""
        cached = self._cache.get(match)
        if cached is None or cached.ledger.head != head:
            try:
                cached = read_match(self.conn, mid)
            except LedgerError as e:
                raise RecordRefused(f"{self.path}: match #{mid} does not check ({e}); run `unonet score verify`") from None
            self._cache[match] = cached
        return cached

    def _upsert(self, table: str, column: str, key: bytes, when: str) -> int:
        row = self.conn.execute(f"SELECT id FROM {table} WHERE {column} = ?", (key,)).fetchone()
        if row is not None:
            return row[0]
        return self.conn.execute(f"INSERT INTO {table} ({column}, first_seen) VALUES (?, ?)", (key, when)).lastrowid

    def _write(self) -> "_WriteTxn":
        return _WriteTxn(self)

    # -- finding a match -----------------------------------------------------
    def find_match(self, ref: str) -> int:
        """A match's local number from ``ref``: the number itself, or a prefix of the match id (hex)."""
        ref = ref.strip().lower()
        if ref.startswith("#"):
            ref = ref[1:]
        if ref.isdigit() and len(ref) < 10:
            row = self.conn.execute("SELECT id FROM matches WHERE id = ?", (int(ref),)).fetchone()
            if row is not None:
                return row[0]
        if len(ref) >= 4 and all(ch in "0123456789abcdef" for ch in ref):
            ids = [r[0] for r in self.conn.execute("SELECT id FROM matches WHERE hex(match_key) LIKE ? ORDER BY id",
                                                   (ref.upper() + "%",))]
            if len(ids) == 1:
                return ids[0]
            if ids:
                raise UnknownMatch(f"{self.path}: {ref!r} names {len(ids)} matches (#{', #'.join(map(str, ids))}); "
                                   f"give more of the match id")
        raise UnknownMatch(f"{self.path}: no match {ref!r} (give its number from `unonet score history`, "
                           f"or 4 or more hex digits of its id)")


class _WriteTxn:
    """BEGIN IMMEDIATE … COMMIT, or ROLLBACK on any error; SQLite errors become one line."""

    def __init__(self, store: ScoreStore) -> None:
        self.store = store

    def __enter__(self) -> None:
        try:
            self.store.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise sqlite_failure(self.store.path, e) from None

    def __exit__(self, kind, exc, tb) -> bool:
        conn = self.store.conn
        if kind is None:
            try:
                conn.execute("COMMIT")
                return False
            except sqlite3.Error as e:
                kind, exc = type(e), e
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        self.store._cache.clear()
        self.store._keys.clear()
        if isinstance(exc, sqlite3.Error):
            raise sqlite_failure(self.store.path, exc) from None
        return False


def _clean_name(name: object, seat: int) -> str:
    text = " ".join(str(name).split())[:MAX_NAME]
    return text or f"seat {seat}"
