"""The live standings view model (built from the store, drawn by a layout that only reads it)
and the shared match-over line."""

from __future__ import annotations

import re

from unonet.ledger import MatchLedger
from unonet.store import ScoreStore, board, verify
from unonet.store.testing import with_dispute

from .helpers import NAMES, played, record


def test_a_match_in_play_shows_the_leader_the_distance_and_the_last_rounds(tmp_path):
    pm = with_dispute(played("standard", 31), 3, "the digest was not co-signed by seat 2")
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm, upto=5)  # rounds 1, 2, 3 (disputed), 3 again, 4
        b = board(store)
        scores = pm.entries[4].scores
        assert [s.score for s in b.sides] == list(scores)
        assert [s.to_target for s in b.sides] == [500 - s for s in scores]
        assert [s.leading for s in b.sides] == [i == scores.index(max(scores)) for i in range(4)]
        assert b.winner is None and b.head == pm.entries[4].hash.hex()
        assert b.last_rounds[2] == "round 3 (deal 1): disputed, not counted (the digest was not co-signed by seat 2)"
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


def test_rounds_of_a_live_table_are_numbered_plainly(tmp_path):
    """A live table numbers each round's first deal 1 (the wire's attempt): the board says
    "round 1", never "round 1.1"; which deal it was shows only where a round was dealt again."""
    live = played("standard", 35, attempt=1)
    assert all(e.attempt == 1 for e in live.entries)
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, live, upto=1)
        b = board(store)
        assert b.title.endswith("  1 round") and b.last_rounds[0].startswith("round 1: ")
        assert all("." not in r.split(":")[0] for r in b.last_rounds)
    disputed = with_dispute(played("standard", 36), 2, "the digest was not co-signed by seat 1")
    with ScoreStore.open(tmp_path / "d.db") as store:
        record(store, disputed, upto=4)
        b = board(store)
        assert b.title.endswith("  3 rounds")  # rounds 1, 2 and 3 counted, the disputed deal not
        assert [r.split(":")[0] for r in b.last_rounds] == ["round 1", "round 2 (deal 1)", "round 2 (deal 2)",
                                                          "round 3"]


def test_a_won_match_says_so_instead_of_nothing_to_go(tmp_path):
    pm = played("standard", 37)
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm)
        b = board(store)
        lines = b.lines()
        won = [line for line in lines if line.startswith(">")]
        assert len(won) == 1 and won[0].endswith("match won") and NAMES[pm.winner] in won[0]
        assert not any(re.search(r"\b0 to go", line) for line in lines)
        others = [line for line in lines[2:2 + 4] if not line.startswith(">")]
        assert all(line.endswith(" to go") for line in others), lines
