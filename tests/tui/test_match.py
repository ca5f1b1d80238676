"""Whole matches through the controller: the view never disagrees with the engine."""

from __future__ import annotations

import pytest

from unonet.engine import make_rules
from unonet.tui.local import LocalTable, run_bots_sync, seat_names

from .helpers import attach


def human_move(view, ctl, step):
    if view.can_catch is not None:
        ctl.key("x")
        return
    if view.round_over:
        ctl.enter()
        return
    if not view.my_turn:
        return
    ph = view.phase
    if ph == "color":
        ctl.key("rygb"[step % 4])
    elif ph == "swap":
        seat = next(s for s in view.active if s != view.me)
        ctl.key(str(seat))
    elif ph == "challenge":
        ctl.key("c" if step % 2 else "d")
    elif ph == "drawn":
        if step % 3:
            ctl.enter()
            if ctl.mode == "color":
                ctl.key("g")
        else:
            ctl.key("k")
    else:
        playable = [c for c in view.sorted_hand() if c.id in view.playable]
        if playable and step % 5:
            card = playable[step % len(playable)]
            text = card.code.lower() + (" b" if card.wild else "") + ("!" if len(view.hand) == 2 else "")
            for ch in text:
                ctl.key(ch)
            ctl.enter()
        else:
            ctl.key("d")


@pytest.mark.parametrize("seed,players,preset,teams", [
    (1, 3, "official", False),
    (2, 4, "house", True),
    (3, 2, "house", False),
    (4, 5, "2018", False),
])
def test_a_whole_match_through_the_controller(seed, players, preset, teams):
    rules = make_rules(preset, teams=teams, target=150)
    table = LocalTable(rules, seat_names("You", players), seed=seed)
    view, ctl = attach(table)
    table.start()
    rounds = set()
    for step in range(20000):
        run_bots_sync(table)
        if view.match_over:
            break
        rnd = table.rnd
        assert sorted(c.id for c in view.hand) == sorted(c.id for c in rnd.hands[0])
        assert view.counts == [len(h) for h in rnd.hands]
        assert view.top is rnd.top and view.turn == rnd.turn
        rounds.add(view.round_no)
        human_move(view, ctl, step)
        assert view.notice is None, view.notice  # the client never sends a refused action
        assert ctl.message is None, ctl.message  # and never had to explain a key
    assert view.match_over and table.match.over
    assert view.scores == table.match.scores
    assert view.result.match_winner == table.match.winner
    assert view.prompt().startswith("Match over:")
    assert len(rounds) >= 1
    assert sum(line.startswith("you played") for line in view.log) >= 3
