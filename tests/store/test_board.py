"""The live standings view model (built from the store, drawn by a layout that only reads it)
and the shared match-over line."""

from __future__ import annotations

from unonet.ledger import MatchLedger
from unonet.store import ScoreStore, board, verify
from unonet.store.testing import with_dispute

from .helpers import NAMES, played, record


def test_a_match_in_play_shows_the_leader_the_distance_and_the_last_rounds(tmp_path):
    pm = with_dispute(played("standard", 31), 3, "the digest was not co-signed by seat 2")
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm, upto=5)  # rounds 1, 2, 3 (disputed), 3.1, 4
        b = board(store)
        scores = pm.entries[4].scores
        assert [s.score for s in b.sides] == list(scores)
        assert [s.to_target for s in b.sides] == [500 - s for s in scores]
        assert [s.leading for s in b.sides] == [i == scores.index(max(scores)) for i in range(4)]
        assert b.winner is None and b.head == pm.entries[4].hash.hex()
        assert b.last_rounds[2] == "round 3: disputed, not counted (the digest was not co-signed by seat 2)"
        w = pm.entries[0].winner
        assert "round 1: " + NAMES[w] + " went out" in board(store, last=10).last_rounds[0]
        lines = b.lines(width=40)
        assert all(len(line) <= 40 for line in lines) and lines[0].startswith("match #1")


def test_the_winner_at_the_target_and_teams(tmp_path):
    pm = played("teams", 32)
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm)
        b = board(store, "1")
        team_scores = pm.entries[-1].team_scores
        assert [s.score for s in b.sides] == list(team_scores)
        assert b.sides[pm.winner].leading and b.sides[pm.winner].to_target == 0
        assert b.winner == f"{b.sides[pm.winner].label} wins the match ({team_scores[pm.winner]})"


def test_elimination_marks_who_is_out(tmp_path):
    pm = played("elimination", 33)
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm)
        b = board(store)
        final = pm.entries[-1].scores
        assert [s.out for s in b.sides] == [s >= 500 for s in final]
        assert [s.leading for s in b.sides] == [i == pm.winner for i in range(4)]


def test_no_matches_yet(tmp_path):
    with ScoreStore.open(tmp_path / "s.db") as store:
        assert board(store).title.startswith("no matches yet") and board(store).sides == ()


def test_the_match_over_line_is_the_chains(tmp_path):
    pm = with_dispute(played("teams", 34), 2, "nonsense from the table")
    ledger = MatchLedger(pm.header, pm.entries)
    line = ledger.match_over(pm.winner)
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm)
        assert line["ledger"] == verify(store).heads[pm.header.match.hex()]
        assert store.ledger(pm.header.match).match_over(pm.winner) == line
    assert line["rounds"] == len(pm.entries) - 1 and line["disputed"] == 1
    assert line["team_scores"][pm.winner] >= 500 and line["scores"] == list(pm.entries[-1].scores)
