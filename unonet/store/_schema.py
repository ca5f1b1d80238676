"""The score database's schema, as a list of migrations keyed by ``PRAGMA user_version``.

Version N is what migrations 1..N build.  A database at version k < N is brought up to N
one step at a time, each step in its own transaction (a crash mid-migration leaves version
k, intact); a database above N is refused untouched.  ``application_id`` marks the file as
ours, so a SQLite file of another program is never mistaken for an empty score database.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

#: "UNOS" — PRAGMA application_id of every score database
APPLICATION_ID = 0x554E4F53


@dataclass(frozen=True)
class Migration:
    version: int
    summary: str
    sql: str
    after: Callable[[sqlite3.Connection], None] | None = None


def _backfill_results(conn: sqlite3.Connection) -> None:
    """Version 3 keeps each match's winner: replay every recorded match's counted rounds."""
    from ..ledger import LedgerError
    from ._rows import read_match

    for (mid,) in conn.execute("SELECT id FROM matches").fetchall():
        try:
            m = read_match(conn, mid, check_result=False)
        except LedgerError:
            continue  # a match that does not check keeps no result; `unonet score verify` names it
        if m.rescorer.over:
            conn.execute("UPDATE matches SET winner = ?, finished = ? WHERE id = ?",
                         (m.rescorer.winner, m.last_recorded, mid))


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "tables, players, matches, seats, rounds and per-seat points", """
        CREATE TABLE tables (
            id INTEGER PRIMARY KEY,
            table_key BLOB NOT NULL UNIQUE,
            first_seen TEXT NOT NULL
        );
        CREATE TABLE players (
            id INTEGER PRIMARY KEY,
            key BLOB NOT NULL UNIQUE CHECK (length(key) = 32),
            first_seen TEXT NOT NULL
        );
        CREATE TABLE matches (
            id INTEGER PRIMARY KEY,
            match_key BLOB NOT NULL UNIQUE CHECK (length(match_key) = 16),
            table_id INTEGER NOT NULL REFERENCES tables (id),
            preset TEXT NOT NULL,
            deck TEXT NOT NULL,
            house TEXT NOT NULL,
            teams INTEGER NOT NULL,
            scoring TEXT NOT NULL,
            target INTEGER NOT NULL,
            genesis BLOB NOT NULL,
            head BLOB NOT NULL,
            rounds INTEGER NOT NULL DEFAULT 0,
            started TEXT NOT NULL
        );
        CREATE TABLE match_seats (
            match_id INTEGER NOT NULL REFERENCES matches (id),
            seat INTEGER NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players (id),
            name TEXT NOT NULL,
            PRIMARY KEY (match_id, seat)
        ) WITHOUT ROWID;
        CREATE TABLE rounds (
            id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches (id),
            round INTEGER NOT NULL,
            attempt INTEGER NOT NULL,
            dealer INTEGER NOT NULL,
            winner INTEGER,
            points INTEGER NOT NULL,
            status TEXT NOT NULL,
            reason TEXT NOT NULL,
            digest BLOB NOT NULL,
            host BLOB NOT NULL,
            cosigners TEXT NOT NULL,
            prev BLOB NOT NULL,
            hash BLOB NOT NULL UNIQUE,
            recorded TEXT NOT NULL,
            UNIQUE (match_id, round, attempt)
        );
        CREATE TABLE seat_points (
            round_id INTEGER NOT NULL REFERENCES rounds (id),
            seat INTEGER NOT NULL,
            hand_points INTEGER,
            score INTEGER NOT NULL,
            PRIMARY KEY (round_id, seat)
        ) WITHOUT ROWID;
    """),
    Migration(2, "per-team points; players' display names over time", """
        CREATE TABLE team_points (
            round_id INTEGER NOT NULL REFERENCES rounds (id),
            team INTEGER NOT NULL,
            points INTEGER NOT NULL,
            score INTEGER NOT NULL,
            PRIMARY KEY (round_id, team)
        ) WITHOUT ROWID;
        INSERT INTO team_points (round_id, team, points, score)
            SELECT r.id, sp.seat % 2,
                   CASE WHEN r.status = 'verified' AND r.winner % 2 = sp.seat % 2 THEN r.points ELSE 0 END,
                   SUM(sp.score)
            FROM rounds r JOIN matches m ON m.id = r.match_id JOIN seat_points sp ON sp.round_id = r.id
            WHERE m.teams = 1
            GROUP BY r.id, sp.seat % 2;
        CREATE TABLE player_names (
            player_id INTEGER NOT NULL REFERENCES players (id),
            name TEXT NOT NULL,
            first_seen TEXT NOT NULL,
            last_seen TEXT NOT NULL,
            PRIMARY KEY (player_id, name)
        ) WITHOUT ROWID;
        INSERT INTO player_names (player_id, name, first_seen, last_seen)
            SELECT s.player_id, s.name, MIN(m.started), MAX(m.started)
            FROM match_seats s JOIN matches m ON m.id = s.match_id
            GROUP BY s.player_id, s.name;
    """),
    Migration(3, "match results; indexes for the history views", """
        ALTER TABLE matches ADD COLUMN winner INTEGER;
        ALTER TABLE matches ADD COLUMN finished TEXT;
        CREATE INDEX match_seats_by_player ON match_seats (player_id);
        CREATE INDEX matches_by_table ON matches (table_id);
    """, _backfill_results),
    Migration(4, "a match whose table closed before it was won: abandoned", """
        ALTER TABLE matches ADD COLUMN abandoned TEXT;
    """),
    Migration(5, "the players' co-signatures of each round's result, and the keys that check them", """
        CREATE TABLE seat_identities (
            match_id INTEGER NOT NULL REFERENCES matches (id),
            seat INTEGER NOT NULL,
            sign_key BLOB NOT NULL CHECK (length(sign_key) = 32),
            dh_key BLOB NOT NULL CHECK (length(dh_key) = 32),
            static_key BLOB NOT NULL CHECK (length(static_key) = 32),
            cert BLOB NOT NULL CHECK (length(cert) = 64),
            PRIMARY KEY (match_id, seat)
        ) WITHOUT ROWID;
        CREATE TABLE round_cosigns (
            round_id INTEGER NOT NULL REFERENCES rounds (id),
            seat INTEGER NOT NULL,
            sig BLOB NOT NULL CHECK (length(sig) = 64),
            PRIMARY KEY (round_id, seat)
        ) WITHOUT ROWID;
    """),
    Migration(6, "rounds voided by a host election that dealt them again, kept apart from the chain", """
        CREATE TABLE voided_rounds (
            id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches (id),
            round INTEGER NOT NULL,
            attempt INTEGER NOT NULL,
            entry TEXT NOT NULL,
            hash BLOB NOT NULL UNIQUE,
            cosigns TEXT NOT NULL,
            recorded TEXT NOT NULL,
            voided TEXT NOT NULL,
            why TEXT NOT NULL
        );
        CREATE INDEX voided_rounds_by_match ON voided_rounds (match_id);
    """),
    Migration(7, "a match whose end the scorekeeper was away for: incomplete, and why", """
        ALTER TABLE matches ADD COLUMN incomplete TEXT;
    """),
    Migration(8, "the key that signed each match's match-start (which table's word may close it)", """
        ALTER TABLE matches ADD COLUMN host BLOB;
    """),
)

SCHEMA_VERSION = MIGRATIONS[-1].version


def migrate(conn: sqlite3.Connection, *, begin: Callable[[], None], upto: int = SCHEMA_VERSION) -> int:
    """Apply the missing migrations, each in its own transaction; return the final version.

    ``begin()`` starts a write transaction (BEGIN IMMEDIATE, under the caller's lock
    handling); the version is read again inside it, so two processes that open an old
    file at once apply each step once.  ``upto`` stops early (the tests build old files)."""
    for step in MIGRATIONS[:upto]:
        begin()
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version >= step.version:
                conn.execute("ROLLBACK")
                continue
            if version != step.version - 1:
                raise RuntimeError(f"schema version {version} cannot be migrated by step {step.version}")
            for statement in _statements(step.sql):
                conn.execute(statement)
            if step.after is not None:
                step.after(conn)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {step.version}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return conn.execute("PRAGMA user_version").fetchone()[0]


def shape_problem(conn: sqlite3.Connection, version: int) -> str | None:
    """What is missing from ``conn``'s tables for a schema at ``version`` (None: nothing).

    A file with our application id whose pages check may still have lost a table or a
    column (a torn schema entry, an edit): found at open, not at the first read or write
    that needs it.  Tables and columns a user added are left alone."""
    want = _shape(version)
    for table, columns in want.items():
        have = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
        if not have:
            return f"table {table} is missing"
        lacking = [c for c in columns if c not in have]
        if lacking:
            return f"table {table} lacks column{'s' if len(lacking) > 1 else ''} {', '.join(lacking)}"
    return None


@functools.cache
def _shape(version: int) -> dict[str, tuple[str, ...]]:
    """Each table and its columns, as migrations 1..version make them (built in memory)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate(conn, begin=lambda: conn.execute("BEGIN IMMEDIATE"), upto=version)
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: tuple(r[1] for r in conn.execute(f"PRAGMA table_info({t})")) for t in tables}
    finally:
        conn.close()


def _statements(sql: str) -> list[str]:
    """Split a migration's SQL into statements (sqlite3.executescript would COMMIT first)."""
    out, buf = [], ""
    for line in sql.strip().splitlines():
        buf += line + "\n"
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        raise ValueError(f"incomplete SQL statement in a migration: {buf.strip()[:60]!r}")
    return out
