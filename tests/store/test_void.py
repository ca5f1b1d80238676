"""`ScoreStore.void_rounds`: rounds a host election deals again leave the chain for the
voided history (counted nowhere, checked by verify), and the round dealt again is recorded in
their place.  Real SQLite files; the live case is tests/store/test_attach_redeal.py."""

from __future__ import annotations

import dataclasses
import sqlite3

import pytest

from unonet.ledger import MatchLedger
from unonet.store import ScoreStore, match_view, standings, verify

from .helpers import played, record


def _dealt_again(pm, rounds: int, seed_byte: int = 7):
    """The match's first ``rounds`` entries, then round ``rounds + 1`` dealt again: the same
    result under another digest (what the elected host's fresh commit-reveal gives)."""
    led = MatchLedger(pm.header, pm.entries[:rounds])
    e = pm.entries[rounds]
    return led.entry(round=e.round, attempt=e.attempt, dealer=e.dealer, winner=e.winner, points=e.points,
                     hand_points=e.hand_points, scores=e.scores, digest=bytes([seed_byte]) * 32, host=e.host)


@pytest.mark.parametrize("kind", ["standard", "teams", "elimination"])
def test_a_voided_round_leaves_the_chain_is_kept_and_the_round_dealt_again_counts(tmp_path, kind):
    db = tmp_path / "scores.db"
    pm = played(kind, attempt=1)
    with ScoreStore.open(db) as store:
        record(store, pm, upto=3)
        old = pm.entries[2]
        assert store.void_rounds([old], "dealt again by the new host") == [old]
        assert store.ledger(pm.header.match).head == pm.entries[1].hash
        assert store.void_rounds([old], "again") == []          # voided already: nothing more
        assert store.record_round(old) is False                 # a replay reads it again: known, not news
        again = _dealt_again(pm, 2)
        assert store.record_round(again) is True                # (was: RoundConflict)
        assert store.void_rounds([old], "again") == []
        report = verify(store)
        assert report.ok and report.voided == 1 and report.rounds == 3, report
        m = match_view(store, "1")
        assert m.rounds == 3 and m.head == again.hash.hex()
        assert [v["round"] for v in m.voided] == [3] and m.voided[0]["hash"] == old.hash.hex()
        assert m.voided[0]["why"] == "dealt again by the new host"
        assert sum(s.rounds for s in standings(store)) == 3 * len(pm.names)  # the voided one counted nowhere
        assert m.scores == list(again.scores) and m.team_scores == list(again.team_scores)


def test_voiding_more_than_was_recorded_voids_what_was_and_refuses_a_chain_that_is_not_theirs(tmp_path):
    db = tmp_path / "scores.db"
    pm = played(attempt=1)
    with ScoreStore.open(db) as store:
        record(store, pm, upto=3)
        # the scorekeeper signed off rounds 3 and 4 but had written only round 3 when it died
        assert store.void_rounds(list(pm.entries[2:4]), "why") == [pm.entries[2]]
        record(store, pm, upto=3)  # round 3 as it was: voided, not recorded again
        assert store.ledger(pm.header.match).rounds == 2
        store.record_round(_dealt_again(pm, 2))
        try:
            store.void_rounds([pm.entries[1], pm.entries[2]], "why")  # round 2 is followed by another round 3
        except Exception as e:  # noqa: BLE001
            assert "are not the ones the election voids" in str(e), e
        else:
            raise AssertionError("voided a chain that is not the one given")
        assert verify(store).ok


def test_verify_catches_an_edited_or_stray_voided_round(tmp_path):
    db = tmp_path / "scores.db"
    pm = played(attempt=1)
    with ScoreStore.open(db) as store:
        record(store, pm, upto=3)
        store.void_rounds([pm.entries[2]], "why")
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("UPDATE voided_rounds SET entry = replace(entry, '\"points\": ', '\"points\": 1')")
    conn.close()
    with ScoreStore.open(db) as store:
        report = verify(store)
    assert not report.ok and "voided_rounds row 1" in report.problem and "edited" in report.problem, report.problem
    # a round of the match's chain moved out by hand, the head left: the head no longer matches
    db2 = tmp_path / "b.db"
    with ScoreStore.open(db2) as store:
        record(store, pm, upto=3)
    other = dataclasses.replace(pm.entries[2], prev=bytes(32))
    with ScoreStore.open(db2) as store:
        from unonet.store._rows import insert_voided

        store.conn.execute("BEGIN IMMEDIATE")
        insert_voided(store.conn, 1, other, {}, "t", "t", "forged")
        store.conn.execute("COMMIT")
        report = verify(store)
    assert not report.ok and "does not follow any round" in report.problem, report.problem
