"""A host that slips its refusal of a seat's legal act inside another seat's act (spec §4.6).

A seat judges a refusal of its act by its own engine copy, which is whole only after a `game`
record: between another act's `act` and its `game` record the copy is behind the ledger and
the seat took any refusal there unjudged. An honest host never sends one there (it takes one
message at a time and relays each accepted act's events at once, through its record), so the
place itself is the lie. The cheat: seat 0 plays down to one card without calling UNO, seat 1
(on turn) plays at once, seat 0 calls a moment later. The host holds seat 1's legal play, takes
seat 0's call, and sends seat 1 "stale: too late" between the call's `act` and its `game`
record. After that record seat 1's play is still legal (a UNO call moves no turn), so the same
refusal sent after it is refused by the seat (tests/adversaries/test_refusals.py); inside it,
the seat used to take it and play again, its move turned back unseen. Now it refuses the
refusal, naming the host."""

from __future__ import annotations

import hashlib

import unonet.protocol as P
from unonet.engine import CallUno, Catch, Draw, Play, make_rules
from unonet.net._game import HostGame, bot_step, wire
from unonet.protocol import encode_message

from tests.adversaries.test_host_clock import _late_caller, _recording, _table, _victim, _victim_erred


class _RefusesInside(HostGame):
    """Holds seat 1's play while seat 0 may still call UNO; on seat 0's call, refuses the
    held play ("stale") between the call's `act` and its `game` record. Else honest."""

    held = None       # (peer, msg): seat 1's play, held
    inside = 0        # refusals sent inside a batch
    _pending = None   # the held play, to refuse inside the next batch

    def on_message(self, peer, msg):
        ev = getattr(msg, "ev", None)
        rnd = self.host.round
        if ev == "act" and peer.seat == 1 and self.held is None and rnd is not None and not rnd.over \
                and msg.event().action.get("t") == "play" and rnd.catchable == 0 and rnd.uno_call_valid(0):
            self.held = (peer, msg)
            return
        if self.held is not None:
            held, self.held = self.held, None
            if ev == "act" and peer.seat == 0 and msg.event().action.get("t") == "calluno":
                self._pending = held
                super().on_message(peer, msg)
                if self._pending is not None:  # (the call was refused: answer the play honestly)
                    self._pending = None
                    super().on_message(*held)
                return
            super().on_message(*held)  # anything else first: the play is answered in order
        super().on_message(peer, msg)

    def _relay(self, events):
        if self._pending is not None and events and events[0].EV == "act":
            (peer, msg), self._pending = self._pending, None
            first = wire(events[0], self.host.round_no)
            data = encode_message(first)
            self.history.append(first, data)
            self.table.broadcast(first, data)
            self.table.send(peer, P.ErrorReport(code="stale", message="too late: the table moved on", ref="fair",
                                                fatal=False, refuses=hashlib.sha256(msg.body).digest()))
            self.inside += 1
            events = events[1:]
        super()._relay(events)


def _caller(side):
    """Seat 0: plays without calling UNO and calls a moment later (a person's pace)."""
    side.bot_pace = 0.5
    return _late_caller(side)


def _player(side):
    """Seat 1: its bot, at once, but it plays (or draws) rather than catch."""
    side.bot_pace = 0.0
    v = bot_step(side)
    if isinstance(v, (Catch, CallUno)):
        game = side.game
        legal = game.view().legal_actions(side.seat)
        v = next((a for a in legal if isinstance(a, Play)), None) or next((a for a in legal if isinstance(a, Draw)),
                                                                            None)
    return v


def test_a_host_that_refuses_a_legal_play_inside_another_seats_act_is_refused_by_that_seat():
    seats: dict = {}
    games: list = []

    def done(seats, table):
        return _victim_erred(seats, table) or any(g.inside and len(g.history) > 400 for g in games) \
            or any("result" in v or ("error" in v and v["side"].seat != 1) for v in seats.values())

    _table(_recording(_RefusesInside, games), seats, steps={0: _caller, 1: _player}, until=done,
           turn_timeout=30.0, autojump=True, limit=200_000, rules=make_rules("official", [], target=500))
    (game,) = games
    assert game.inside >= 1, "seat 0 never called UNO late while seat 1's play was on its way"
    err = _victim(seats).get("error")
    assert err is not None, "seat 1 took a refusal of its legal play sent inside seat 0's UNO call"
    text = str(err)
    assert err.cheat and text.startswith("the host failed a fair-play check: the host refused seat 1's act "), text
    assert "(stale: too late: the table moved on) in the middle of seat 0's act, after its act and before its " \
           "game record" in text, text
    other = next(v for v in seats.values() if v["side"].seat == 0)
    assert "error" not in other, other.get("error")
