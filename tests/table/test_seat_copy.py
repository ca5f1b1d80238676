"""Each TableSeat's own engine copy of the round: its hand true, the others placeholders; it
agrees with the host's round on everything the seat may know, and a bot can play from it."""

from __future__ import annotations

from collections import Counter

import pytest

from unonet.engine import make_bot, make_rules, play_round
from unonet.fair.testing import det_randbytes
from unonet.table import make_table
from unonet.table._round import action_from_json, action_json


def _agree(t, where):
    h = t.host.round
    for s in t.everyone:
        c = s.round
        who = "observer" if s.seat is None else f"seat {s.seat}"
        assert c is not None, (where, who, s.copy.lost if s.copy else "no copy")
        assert (c.turn, c.phase, c.color, c.top.full_code, [len(x) for x in c.hands], len(c.draw_pile),
                c.over) == (h.turn, h.phase, h.color, h.top.full_code, [len(x) for x in h.hands],
                            len(h.draw_pile), h.over), (where, who)
        if s.seat is not None:
            assert Counter(x.full_code for x in c.hands[s.seat]) == Counter(x.full_code for x in h.hands[s.seat])
            if not h.over:
                mine = sorted(str(action_json(c, a)) for a in c.legal_actions(s.seat))
                assert mine == sorted(str(action_json(h, a)) for a in h.legal_actions(s.seat)), (where, who)
        if h.rules.deck == "flip":  # every held card's other face is public (play16: "sees:" was wrong)
            assert [Counter(x.other.code for x in hand) for hand in c.hands] == \
                [Counter(x.other.code for x in hand) for hand in h.hands], (where, who)


@pytest.mark.parametrize("preset, house", [("official", ()), ("official", ("stacking", "seven-o", "jump-in")),
                                           ("flip", ())])
def test_every_seats_copy_agrees_with_the_host_on_what_the_seat_may_know(preset, house):
    for k in range(2):
        t = make_table(make_rules(preset, house=set(house)), 4, randbytes=det_randbytes(f"copy-{preset}-{house}-{k}"))
        rnd = t.start_round()
        rnd.start()
        _agree(t, "start")
        steps = []

        def after(action, events):
            steps.append(action)
            _agree(t, f"after {action}")

        play_round(rnd, [make_bot("heuristic", f"c{k}/{s}") for s in range(4)], on_events=after)
        assert len(steps) > 5


def test_a_bot_plays_a_whole_round_from_its_own_seats_copy():
    """What a bot in another process does: it reads only its TableSeat's copy and sends the
    action by position; the host's round is never consulted for the choice."""
    t = make_table(make_rules(), 3, randbytes=det_randbytes("remote-bots"))
    rnd = t.start_round()
    rnd.start()
    bots = [make_bot("heuristic", f"r/{s}") for s in range(3)]
    for _ in range(2000):
        if t.host.round.over:
            break
        seat = t.host.owed()[0].seat  # whose move the table waits for (the turn, or a racer)
        mine = t.seats[seat].round
        choice = bots[seat].act(mine, seat)
        t.act(action_from_json(t.host.round, action_json(mine, choice)))
    assert t.host.round.over and t.host.finished and all(s.violation is None for s in t.everyone)
