"""A seat's client feed (`feed.SeatFeed` over its `TableSeat` engine copy, as a LAN seat with a
screen builds it after every event) shows the hand the seat holds, also after a hand moved.

play16: at a `--rules house` table over the LAN, after Ben's 7 swapped hands with Ana both
screens showed placeholder cards ("Y2 Y4 Y6 Y9" for Ana, who held Ben's R6 G2 G4 W), and they
stayed: the `NewHand` event is made while the moved hand is still placeholders in the copy
(the true cards are put in after it, in the same `game` record); Hal's screen then died on
"Exception" (the J hint looked for a jump-in card id in the stale hand).  The `TurnState`
that ends the batch carries the hand as the copy holds it then."""

from __future__ import annotations

from collections import Counter

from unonet.engine import make_bot, make_rules
from unonet.engine._events import NewHand
from unonet.fair.testing import det_randbytes
from unonet.feed import SeatFeed, TableInfo
from unonet.table import make_table
from unonet.table._round import action_from_json, action_json
from unonet.tui.view import TableView


def _watch(t, seat: int, view: TableView) -> None:
    """Feed `view` from seat's copy after every event the seat receives (net/_game.py's
    `_screen_feed`)."""
    s, sf = t.seats[seat], SeatFeed(seat)
    orig = s.receive

    def receive(e):
        orig(e)
        if s.round is not None:
            match = s.referee.match if s.referee is not None else None
            view.apply_all(sf.update(s.round, s.engine_events, 1, match, False))

    s.receive = receive


def test_a_swapped_or_passed_hand_shows_its_true_cards_on_every_seats_screen():
    moved = 0
    for k in range(6):
        t = make_table(make_rules("house"), 4, randbytes=det_randbytes(f"feed-hand-{k}"))
        rules = make_rules("house")
        views = [TableView() for _ in range(4)]
        for seat, v in enumerate(views):
            v.apply(TableInfo(("Hal", "Tod", "Ben", "Ana"), seat, rules.describe(), tuple(sorted(rules.house)), "house"))
        for seat in range(4):
            _watch(t, seat, views[seat])
        t.start_round().start()
        bots = [make_bot("heuristic", f"fh{k}/{s}") for s in range(4)]
        for _ in range(3000):
            h = t.host.round
            if h.over:
                break
            seat = t.host.owed()[0].seat
            mine = t.seats[seat].round
            events = t.act(action_from_json(h, action_json(mine, bots[seat].act(mine, seat))))
            moved += any(type(e) is NewHand for e in events)
            for s in range(4):
                want = Counter(c.full_code for c in h.hands[s])
                assert Counter(c.full_code for c in views[s].hand) == want, (k, s, events)
                views[s].prompt()  # (a J hint named a card id the stale hand lacked: StopIteration)
        assert t.host.round.over
    assert moved  # a 7 or a 0 moved hands at least once
