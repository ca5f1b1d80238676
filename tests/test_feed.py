"""The pure feed builders (`unonet.feed`): one seat's view of an engine round."""

from __future__ import annotations

import pytest

from unonet import feed
from unonet.engine import CallUno, CardPool, Match, Play, Round, make_rules
from unonet.engine import _events as ev
from unonet.tui import feed as tui_feed


def stacked(hands, deck, rules=None):
    rules = rules or make_rules()
    pool = CardPool(rules.deck)
    hs = [[pool.take(c) for c in h] for h in hands]
    pile = [pool.take(c) for c in deck]
    return Round.stacked(rules, len(hands), len(hands) - 1, hs, pile, seed=1)


def test_tui_feed_reexports_the_same_values():
    for name in ("TableInfo", "TurnState", "RoundScored", "Refused", "Ready", "Lobby", "LobbySeat",
                 "MatchOver", "TableProblem", "Start", "turn_state", "round_scored"):
        assert getattr(tui_feed, name) is getattr(feed, name)


def test_the_lan_values_are_read_through_feed_and_only_named_ones():
    """They live in `lan_feed` (loaded on first use); `feed.X` and `from unonet.feed import X`
    give the same classes, still dataclasses (the --json lines use dataclasses.asdict)."""
    import dataclasses

    from unonet import lan_feed
    from unonet.feed import Election, Start

    assert Election is lan_feed.Election and Start is lan_feed.Start and feed.match_over is lan_feed.match_over
    for name in sorted(feed._LAN_VALUES - {"match_over"}):
        assert getattr(feed, name) is getattr(lan_feed, name) and dataclasses.is_dataclass(getattr(feed, name))
    assert dataclasses.asdict(feed.Notice("Ana is back", seat=1, kind="back")) == \
        {"text": "Ana is back", "seat": 1, "kind": "back", "left": None, "clock_of": None}
    with pytest.raises(AttributeError, match="no attribute 'Lobbby'"):
        feed.Lobbby


def test_turn_state_gives_each_seat_its_own_options_only():
    rnd = stacked([["R1", "G2"], ["R3", "B4"], ["Y5", "Y6"]], ["R9", "B1", "B2", "B3", "B5", "B6"])
    rnd.start()
    assert rnd.turn == 0
    mine = feed.turn_state(rnd, 0)
    other = feed.turn_state(rnd, 1)
    ids = {c.code: c.id for h in rnd.hands for c in h}
    assert mine.playable == (ids["R1"],)
    assert other.playable == ()          # not its turn
    assert mine.counts == other.counts == (2, 2, 2)
    assert mine.turn == other.turn == 0 and mine.color == "R"


def test_note_uno_and_the_uno_tuple():
    rnd = stacked([["R1", "G2"], ["R3", "B4"], ["Y5", "Y6"]], ["R9", "B1", "B2", "B3", "B5", "B6"])
    called: set[int] = set()
    for e in rnd.start():
        feed.note_uno(called, e)
    card = next(c for c in rnd.hands[0] if c.code == "R1")
    for e in rnd.apply(Play(0, card)) + rnd.apply(CallUno(0)):
        feed.note_uno(called, e)
    assert feed.turn_state(rnd, 2, called).uno == (0,)
    feed.note_uno(called, _drew(0))
    assert feed.turn_state(rnd, 2, called).uno == ()


def _drew(seat):
    # the smallest real Drew event the engine makes (a draw by seat ``seat``)
    rnd = stacked([["R1", "G2"], ["R3", "B4"]], ["R9", "B1", "B2", "B3", "B5", "B6"])
    rnd.start()
    from unonet.engine import Draw
    events = rnd.apply(Draw(0))
    drew = next(e for e in events if type(e) is ev.Drew)
    assert drew.seat == seat
    return drew


def test_round_scored_needs_a_finished_round():
    rnd = stacked([["R1"], ["R3", "B4"]], ["R9", "B1", "B2", "B3"])
    rnd.start()
    with pytest.raises(ValueError, match="round 1 is not over"):
        feed.round_scored(1, rnd, Match(make_rules(), 2, 1))
    card = rnd.hands[0][0]
    rnd.apply(Play(0, card))
    m = Match(make_rules(), 2, 1)
    rec = m.record(rnd)
    scored = feed.round_scored(rec.number, rnd, m)
    assert scored.winner == 0 and scored.points == 3 + 4 and scored.scores == (7, 0)
    assert scored.hands[0] == () and [c.code for c in scored.hands[1]] == ["R3", "B4"]
    over = feed.match_over(m, 1, ("Ana", "Ben"), "ab")
    assert over == feed.MatchOver(None, (7, 0), 1, "ab", False, ("Ana", "Ben"))


def test_seat_feed_batches_what_the_seat_may_see():
    rnd = stacked([["R1", "G2"], ["R3", "B4"], ["Y5", "Y6"]], ["R9", "B1", "B2", "B3", "B5", "B6"])
    mine, watcher = feed.SeatFeed(0), feed.SeatFeed(-1)
    start = rnd.start()
    head = mine.round_started(1, 2, [0, 0, 0])
    assert head == feed.RoundStarted(1, 2, (0, 0, 0))
    batch = mine.batch(rnd, start, [head])
    dealt = [e for e in batch if type(e) is ev.Dealt]
    assert [c.code for c in dealt[0].cards] == ["R1", "G2"]          # my own cards
    assert all(not getattr(c, "known", True) for e in dealt[1:] for c in e.cards)  # hidden
    assert batch[0] is head and isinstance(batch[-1], feed.TurnState) and batch[-1].playable
    seen = watcher.batch(rnd, start)
    assert all(not getattr(c, "known", True) for e in seen if type(e) is ev.Dealt for c in e.cards)
    assert seen[-1].playable == () and seen[-1].counts == (2, 2, 2)
    card = next(c for c in rnd.hands[0] if c.code == "R1")
    out = mine.batch(rnd, rnd.apply(Play(0, card)) + rnd.apply(CallUno(0)))
    assert out[-1].uno == (0,) and mine.called == {0}
    mine.round_started(2, 0, [0, 0, 0])
    assert mine.called == set()


def test_seat_feed_update_sends_only_what_is_new():
    rules = make_rules()
    m = Match(rules, 2, 1)
    rnd = stacked([["R1"], ["R3", "B4"]], ["R9", "B1", "B2", "B3"])
    sf = feed.SeatFeed(1)
    assert sf.update(None, [], 1) == []
    start = rnd.start()
    first = sf.update(rnd, start, 1, m)
    assert first[0] == feed.RoundStarted(1, rnd.dealer, (0, 0)) and isinstance(first[-1], feed.TurnState)
    assert sf.update(rnd, start, 1, m) == []          # nothing new
    played = rnd.apply(Play(0, rnd.hands[0][0]))
    batch = sf.update(rnd, played, 1, m, finished=False)
    assert not any(isinstance(v, feed.RoundScored) for v in batch)  # over, not yet recorded
    m.record(rnd)
    scored = sf.update(rnd, played, 1, m, finished=True)
    assert scored == [feed.round_scored(1, rnd, m)]
    assert sf.update(rnd, played, 1, m, finished=True) == []
