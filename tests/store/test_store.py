"""The score database on real files: recording, idempotence, refusals, teams and elimination,
names over time, and every kind of bad file refused in one line with the file untouched."""

from __future__ import annotations

import dataclasses
import hashlib
import sqlite3
import subprocess
import sys

import pytest

from unonet.engine import make_rules
from unonet.ledger import MatchLedger
from unonet.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    DatabaseCorrupt,
    DatabaseLocked,
    MissingDatabase,
    NewerSchema,
    NotOurDatabase,
    RecordRefused,
    RoundConflict,
    ScoreStore,
    default_db_path,
    history,
    match_view,
    standings,
    verify,
)
from unonet.store.testing import bot_match, bot_matches

from .helpers import NAMES, filled, played, record, unonet


def count(store, table):
    return store.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_a_new_database_is_ours_in_wal_with_full_sync(tmp_path):
    path = tmp_path / "deep" / "er" / "scores.db"
    with ScoreStore.open(path) as store:
        c = store.conn
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert c.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert c.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert store.schema_version == SCHEMA_VERSION


def test_recording_is_idempotent_and_the_head_is_the_chains(tmp_path):
    pm = played("standard", 4)
    with ScoreStore.open(tmp_path / "s.db") as store:
        mid = store.begin_match(pm.header, pm.names)
        assert [store.record_round(e) for e in pm.entries] == [True] * len(pm.entries)
        assert store.begin_match(pm.header, pm.names) == mid
        assert [store.record_round(e) for e in pm.entries] == [False] * len(pm.entries)
        assert count(store, "rounds") == len(pm.entries)
        assert count(store, "seat_points") == 4 * len(pm.entries)
        assert store.ledger(pm.header.match).head == pm.head
        assert store.conn.execute("SELECT winner, rounds FROM matches").fetchone() == (pm.winner, len(pm.entries))
    with ScoreStore.open(tmp_path / "s.db") as again:  # and after reopening
        assert not again.record_round(pm.entries[0])
        assert verify(again).ok


def test_a_different_round_under_a_recorded_number_is_refused_loudly(tmp_path):
    pm = played("standard", 5)
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm, upto=3)
        e = pm.entries[2]
        liar = dataclasses.replace(e, points=e.points + 50, scores=tuple(
            s + 50 if i == e.winner else s for i, s in enumerate(e.scores)))
        with pytest.raises(RoundConflict, match=r"round 3 \(attempt 0\): a different round is already recorded"):
            store.record_round(liar)
        assert count(store, "rounds") == 3
        assert store.ledger(pm.header.match).head == e.hash


def test_a_round_that_does_not_fit_is_refused_and_nothing_is_written(tmp_path):
    pm = played("standard", 6)
    with ScoreStore.open(tmp_path / "s.db") as store:
        with pytest.raises(RecordRefused, match="not registered"):
            store.record_round(pm.entries[0])
        record(store, pm, upto=2)
        with pytest.raises(RecordRefused, match="round 4 .* does not follow the head"):
            store.record_round(pm.entries[3])
        e = pm.entries[2]
        padded = dataclasses.replace(e, scores=tuple(s + 1 for s in e.scores))
        with pytest.raises(RecordRefused, match="do not follow from"):
            store.record_round(padded)
        other = played("teams", 6)  # same match id (same seed), other settings
        with pytest.raises(RecordRefused, match="other settings or seats"):
            store.begin_match(other.header, other.names)
        assert count(store, "rounds") == 2
        record(store, pm)
        ledger = store.ledger(pm.header.match)
        extra = ledger.entry(round=len(pm.entries) + 1, dealer=0, winner=0, points=10, hand_points=[0, 5, 5, 0],
                             scores=[s + 10 * (i == 0) for i, s in enumerate(ledger.scores)],
                             digest=bytes(32), host=pm.header.seats[0])
        with pytest.raises(RecordRefused, match="already won"):
            store.record_round(extra)
        assert count(store, "rounds") == len(pm.entries)
        assert verify(store).ok


def test_a_disputed_round_is_kept_never_counted_and_the_round_played_again(tmp_path):
    pm = played("teams", 7)
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm, upto=2)
        ledger = store.ledger(pm.header.match)
        bad = ledger.disputed(round=3, dealer=pm.entries[2].dealer, winner=1, points=400,
                              reason="seat 1's play of R7 does not open its commitment", host=pm.header.seats[0])
        assert store.record_round(bad)
        ledger.append(bad)
        real = pm.entries[2]
        again = ledger.entry(round=3, attempt=1, dealer=real.dealer, winner=real.winner, points=real.points,
                             hand_points=real.hand_points, scores=real.scores, digest=real.digest, host=real.host)
        assert store.record_round(again)
        view = match_view(store, "1")
        assert [(r.round, r.attempt, r.status) for r in view.round_lines] == [
            (1, 0, "verified"), (2, 0, "verified"), (3, 0, "disputed"), (3, 1, "verified")]
        assert view.round_lines[2].scores == list(pm.entries[1].scores)  # carried over, not counted
        assert view.scores == list(real.scores) and view.disputed == 1
        points = {s.name: s.points for s in standings(store)}
        assert sum(points.values()) == sum(e.points for e in pm.entries[:3] if e.winner is not None)
        report = verify(store)
        assert report.ok and report.disputed == 1 and report.rounds == 4


def test_teams_and_elimination_are_recorded_and_shown(tmp_path):
    matches = filled(tmp_path / "s.db")
    with ScoreStore.open(tmp_path / "s.db", readonly=True) as store:
        views = history(store)
        assert [v.scoring for v in views] == ["standard", "standard", "elimination"]
        std, teams, elim = views
        assert std.winner == matches[0].winner and std.scores[std.winner] >= 500 and std.team_scores == []
        assert teams.teams and teams.team_scores == [sum(teams.scores[0::2]), sum(teams.scores[1::2])]
        assert teams.winner == matches[1].winner and teams.team_scores[teams.winner] >= 500
        assert teams.winner_text.startswith(f"team {'AB'[teams.winner]} (")
        assert set(elim.eliminated) == {s for s in range(4) if elim.scores[s] >= 500}
        assert elim.winner == matches[2].winner and elim.winner not in elim.eliminated
        won = {s.name: s.wins for s in standings(store)}
        for seat in (teams.winner, teams.winner + 2):  # both partners win a partners match
            assert won[NAMES[seat]] >= 1
        assert sum(won.values()) == 1 + 2 + 1
        assert [(v.rounds, v.head) for v in views] == [(len(m.entries), m.head.hex()) for m in matches]


def test_the_next_match_at_the_same_table_is_a_new_match_row(tmp_path):
    with ScoreStore.open(tmp_path / "s.db") as store:
        ms = list(bot_matches(make_rules(), NAMES, 9, 3, table=b"kitchen"))
        for pm in ms:
            record(store, pm)
        assert count(store, "tables") == 1 and count(store, "matches") == 3 and count(store, "players") == 4
        assert [v.match for v in history(store)] == [pm.header.match.hex() for pm in ms]


def test_a_players_history_follows_the_key_not_the_name(tmp_path):
    rules = make_rules()
    first = bot_match(rules, NAMES, 21)
    renamed = bot_match(rules, NAMES, 22)  # the same keys, Ana now goes by Annie
    impostor = bot_match(rules, ["Eve", "Ben", "Cleo", "Dev"], 23)  # another key calling itself Ana
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, first)
        store.begin_match(renamed.header, ["Annie", "Ben", "Cleo", "Dev"])
        for e in renamed.entries:
            store.record_round(e)
        store.begin_match(impostor.header, ["Ana", "Ben", "Cleo", "Dev"])
        for e in impostor.entries:
            store.record_round(e)
        by_key = {s.key: s for s in standings(store)}
        ana = by_key[first.header.seats[0].hex()]
        assert ana.names == ["Ana", "Annie"] and ana.name == "Annie" and ana.matches == 2
        eve = by_key[impostor.header.seats[0].hex()]
        assert eve.names == ["Ana"] and eve.matches == 1
        assert [v.match for v in history(store, ana.key[:8])] == [first.header.match.hex(),
                                                                 renamed.header.match.hex()]
        assert len(history(store, "annie")) == 2
        assert len(history(store, "ana")) == 3  # the name names both keys
        names = store.conn.execute("SELECT count(*) FROM player_names").fetchone()[0]
        assert names == 4 + 1 + 1  # Annie and the impostor's Ana


def test_two_writers_on_one_file_never_double_a_round(tmp_path):
    pm = played("elimination", 8)
    a, b = ScoreStore.open(tmp_path / "s.db"), ScoreStore.open(tmp_path / "s.db")
    try:
        a.begin_match(pm.header, pm.names)
        b.begin_match(pm.header, pm.names)
        done = [(a if i % 3 else b).record_round(e) for i, e in enumerate(pm.entries)]
        done += [(b if i % 3 else a).record_round(e) for i, e in enumerate(pm.entries)]
        assert done.count(True) == len(pm.entries)
        assert count(a, "rounds") == len(pm.entries)
        assert a.ledger(pm.header.match).head == b.ledger(pm.header.match).head == pm.head
    finally:
        a.close()
        b.close()


def test_the_default_path_follows_unonet_home_then_xdg(tmp_path):
    assert default_db_path({"UNONET_HOME": "/u", "XDG_DATA_HOME": "/x"}) == default_db_path({"UNONET_HOME": "/u"})
    assert str(default_db_path({"UNONET_HOME": "/u"})) == "/u/scores.db"
    assert str(default_db_path({"XDG_DATA_HOME": "/x"})) == "/x/unonet/scores.db"
    assert str(default_db_path({"HOME": "/h"})).endswith("/.local/share/unonet/scores.db")


# -- bad files: one line, non-zero, the file byte for byte as it was ---------------------------
def _other_program(path):
    c = sqlite3.connect(path)
    c.execute("CREATE TABLE recipes (name TEXT)")
    c.execute("INSERT INTO recipes VALUES ('soup')")
    c.commit()
    c.close()


def _newer(path):
    filled(path, kinds=("standard",))
    c = sqlite3.connect(path)
    c.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    c.close()


def _corrupt(path):
    filled(path)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    start = 3 * page  # the fourth page: a table's b-tree
    data[start:start + page] = bytes([0xA5]) * page
    path.write_bytes(bytes(data))


def _truncated(path):
    filled(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


BAD = {
    "text": (lambda p: p.write_text("name,score\nAna,500\n"), NotOurDatabase, "not an SQLite file at all"),
    "other-program": (_other_program, NotOurDatabase, "SQLite database of another program"),
    "newer": (_newer, NewerSchema, "written by a newer unonet"),
    "corrupt": (_corrupt, DatabaseCorrupt, "corrupted"),
    "truncated": (_truncated, DatabaseCorrupt, "corrupted"),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_bad_file_is_refused_in_one_line_and_left_untouched(tmp_path, kind):
    make, error, needle = BAD[kind]
    path = tmp_path / "scores.db"
    make(path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    for readonly in (False, True):
        with pytest.raises(error, match=needle) as info:
            ScoreStore.open(path, readonly=readonly)
        assert "\n" not in str(info.value) and str(path) in str(info.value)
    for args in (["standings"], ["verify"], ["match", "1"]):
        proc = unonet("score", *args, "--db", str(path))
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.count("\n") == 1 and needle in proc.stderr, proc.stderr
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) in (["scores.db"], ["scores.db", "scores.db-shm",
                                                                           "scores.db-wal"])


LOCKER = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA locking_mode = EXCLUSIVE")
c.execute("BEGIN EXCLUSIVE")
c.execute("SELECT count(*) FROM sqlite_master").fetchone()
print("locked", flush=True)
sys.stdin.read()
c.execute("ROLLBACK")
"""


def test_a_database_locked_by_another_process_is_refused_and_untouched(tmp_path):
    path = tmp_path / "scores.db"
    filled(path, kinds=("standard",))
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        for readonly in (False, True):
            with pytest.raises(DatabaseLocked, match="locked by another process"):
                ScoreStore.open(path, readonly=readonly, timeout=0.3)
        proc = unonet("score", "standings", "--db", str(path))
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "locked by another process" in proc.stderr
    finally:
        locker.stdin.close()
        locker.wait(timeout=30)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    with ScoreStore.open(path, readonly=True) as store:  # and fine once the lock is gone
        assert verify(store).ok


def test_the_views_never_create_a_database(tmp_path):
    path = tmp_path / "none.db"
    with pytest.raises(MissingDatabase, match="no score database"):
        ScoreStore.open(path, readonly=True)
    proc = unonet("score", "history", "--db", str(path))
    assert proc.returncode == 2 and "no score database" in proc.stderr
    assert not path.exists()
    path.write_bytes(b"")
    proc = unonet("score", "verify", "--db", str(path))
    assert proc.returncode == 2 and "no score database" in proc.stderr and path.read_bytes() == b""
    with ScoreStore.open(path) as store:  # an empty file is a new database to the recorder
        assert store.schema_version == SCHEMA_VERSION


def test_a_directory_is_not_a_database(tmp_path):
    with pytest.raises(NotOurDatabase, match="is a directory"):
        ScoreStore.open(tmp_path)


def test_resuming_from_the_database_gives_the_same_chain(tmp_path):
    pm = played("teams", 12)
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm, upto=5)
    with ScoreStore.open(tmp_path / "s.db") as store:
        ledger = store.ledger(pm.header.match)
        assert ledger.entries == list(pm.entries[:5]) and ledger.head == pm.entries[4].hash
        assert MatchLedger(pm.header, ledger.entries).scores == pm.entries[4].scores
        assert store.ledger(bytes(16)) is None


WRITER = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")  # a write transaction: in WAL mode others may still read
print("writing", flush=True)
sys.stdin.read()
c.execute("ROLLBACK")
"""


def test_a_scorekeeper_refuses_a_database_another_process_writes_before_connecting(tmp_path):
    """Issue 23 item 7: a database another process holds a write transaction on could be
    opened (WAL lets readers on) and the lock was found only at the first round's write,
    that round lost.  Now `unonet score` refuses it before connecting: one line, exit 2 (the
    address it was given is never contacted: port 1 would say "connection refused")."""
    path = tmp_path / "scores.db"
    ScoreStore.open(path).close()
    locker = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "writing"
        with ScoreStore.open(path, readonly=True, timeout=0.3):
            pass  # readers are still welcome
        proc = unonet("score", "--no-ui", "--db", str(path), "127.0.0.1:1")
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and "locked by another process" in proc.stderr
        assert "refused" not in proc.stderr
    finally:
        locker.stdin.close()
        locker.wait(timeout=30)
