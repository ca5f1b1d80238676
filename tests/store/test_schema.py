"""Schema migrations by PRAGMA user_version: from an empty file, and from a file of each older
version holding real matches (read as it is by the views, then migrated by the recorder)."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from unonet.store import MIGRATIONS, SCHEMA_VERSION, ScoreStore, history, standings, verify
from unonet.store._schema import migrate

from .helpers import filled, played, record


def schema(conn) -> dict:
    """Every table's columns and every index, as SQLite reports them."""
    out = {}
    for kind, name in conn.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
                                   "ORDER BY name"):
        out[name] = kind if kind == "index" else [tuple(r) for r in conn.execute(f"PRAGMA table_info({name})")]
    return out


def built(path, version: int) -> sqlite3.Connection:
    """A file that migrations 1..version built, as an older unonet left it."""
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, begin=lambda: conn.execute("BEGIN IMMEDIATE"), upto=version)
    return conn


def downgrade(path, version: int) -> None:
    """Undo the steps after ``version`` on a filled file, keeping its data (the old shape)."""
    conn = sqlite3.connect(path, isolation_level=None)
    if version < 8:
        conn.execute("ALTER TABLE matches DROP COLUMN host")
    if version < 7:
        conn.execute("ALTER TABLE matches DROP COLUMN incomplete")
    if version < 6:
        conn.execute("DROP TABLE voided_rounds")
    if version < 5:
        conn.execute("DROP TABLE round_cosigns")
        conn.execute("DROP TABLE seat_identities")
    if version < 4:
        conn.execute("ALTER TABLE matches DROP COLUMN abandoned")
    if version < 3:
        conn.execute("DROP INDEX match_seats_by_player")
        conn.execute("DROP INDEX matches_by_table")
        conn.execute("ALTER TABLE matches DROP COLUMN winner")
        conn.execute("ALTER TABLE matches DROP COLUMN finished")
    if version < 2:
        conn.execute("DROP TABLE team_points")
        conn.execute("DROP TABLE player_names")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.close()


def test_the_versions_are_one_step_each():
    assert [m.version for m in MIGRATIONS] == list(range(1, SCHEMA_VERSION + 1))


@pytest.mark.parametrize("version", range(SCHEMA_VERSION + 1))
def test_from_an_empty_file_or_any_version_each_step_once(tmp_path, version):
    fresh = tmp_path / "fresh.db"
    ScoreStore.open(fresh).close()
    old = tmp_path / "old.db"
    conn = built(old, version)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == version
    conn.close()
    with ScoreStore.open(old) as store, ScoreStore.open(fresh) as want:
        assert store.schema_version == SCHEMA_VERSION
        assert schema(store.conn) == schema(want.conn)


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
def test_a_filled_file_of_an_older_version_is_read_then_migrated(tmp_path, version):
    now, old = tmp_path / "now.db", tmp_path / "old.db"
    matches = filled(now)
    filled(old)
    downgrade(old, version)
    reference = tmp_path / "ref.db"
    with built(reference, version) as ref, sqlite3.connect(old) as got:
        assert schema(got) == schema(ref)  # the downgraded file is what that version built
    before = hashlib.sha256(old.read_bytes()).hexdigest()
    with ScoreStore.open(now, readonly=True) as a, ScoreStore.open(old, readonly=True) as b:
        assert b.schema_version == version
        assert verify(b).to_json()["heads"] == verify(a).to_json()["heads"]
        # the old shape kept no result time; and the two files were filled at different moments,
        # so their start times may fall in different seconds
        strip = lambda vs: [{**v.to_json(), "finished": None, "started": None} for v in vs]
        assert strip(history(b)) == strip(history(a))
        assert standings(b) == standings(a)
    assert hashlib.sha256(old.read_bytes()).hexdigest() == before  # the views did not migrate it
    with ScoreStore.open(old) as store, ScoreStore.open(now) as want:
        assert store.schema_version == SCHEMA_VERSION
        assert verify(store).ok
        for table, order in [("team_points", "round_id, team"), ("seat_points", "round_id, seat")]:
            q = f"SELECT * FROM {table} ORDER BY {order}"
            assert store.conn.execute(q).fetchall() == want.conn.execute(q).fetchall()
        q = "SELECT match_key, winner, finished IS NOT NULL FROM matches ORDER BY id"
        assert store.conn.execute(q).fetchall() == want.conn.execute(q).fetchall()
        assert [w for _, w, _ in store.conn.execute(q)] == [m.winner for m in matches]
        record(store, played("standard", 99))  # and it goes on recording
        assert verify(store).ok and verify(store).matches == 4
