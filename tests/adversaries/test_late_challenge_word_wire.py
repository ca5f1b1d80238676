"""Over loopback: a seat whose challenge answer reaches an honest host after its clock, while
the next challenge is open, is refused `stale` and plays on -- not dropped as a cheat
(redhost19; docs/fair-play.md §11.20).

An honest `HostTable` (no seat of its own), three remote bot seats that challenge every Wild
Draw Four.  Seat A's answer to the first challenge of it is held up (as a seat whose reader was
kept from its link reads the challenge from a backlog: its answer leaves late) until the host's
clock (0.5 s here) has found A guilty and the next challenge, between the two other seats, is
open; then it goes.  Before the fix the host checked it against that open challenge ("challenge
response names the wrong seats") and dropped A as a cheat."""

from __future__ import annotations

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net import _game
from unonet.net._game import bot_step, wire
from unonet.net._join import play_seat
from unonet.net._seat import SeatSide
from unonet.table import audit_transcript

from tests.net.net_helpers import run
from tests.net.session_helpers import config, live_table, recording_games
from tests.net.test_verdict_clock import EagerChallenger

LIMIT = 120.0


class Eager(EagerChallenger):
    """Challenges every Wild Draw Four played on it (but one played as the last card)."""


class HeldUp(Eager):
    """A: its first challenge answer waits (a process held up) until the next challenge of the
    round opens between the two other seats, and goes then; the host's timeout of it, which
    comes meanwhile, is read as a held-up seat reads it (no contest: its word left late)."""

    held = None      # the answer on its way
    sent = False     # it went, in another challenge
    refusals: list = []

    def receive(self, msg):
        event = msg.event()
        if event.EV == "challenge-timeout" and HeldUp.held is not None and not HeldUp.sent:
            self.seat.held_up = True
            try:
                self.seat.receive(event)
            finally:
                self.seat.held_up = False
            return []
        if event.EV == "round-end" and not HeldUp.sent:
            HeldUp.held = None  # (a word late by a whole round would come before the next one's
                                # seed word on its link: refused out of turn; try a later round)
        out = super().receive(msg)
        if event.EV == "challenge" and HeldUp.held is not None and not HeldUp.sent:
            if self.side.seat not in (event.challenger, event.challenged):
                HeldUp.sent = True
                return [wire(HeldUp.held, self.round_no)] + list(out or [])
        return out

    def _owed(self):
        out = super()._owed()
        if HeldUp.held is None and not HeldUp.sent:
            answer = [e for e in out if e.EV == "challenge-response"]
            if answer:
                HeldUp.held = answer[0]
                return [e for e in out if e.EV != "challenge-response"]
        return out

    def refused(self, msg):
        HeldUp.refusals.append((msg.code, msg.message))
        return super().refused(msg)


def _match(monkeypatch):
    monkeypatch.setattr(_game, "SEED_TIMEOUT", 0.5)
    cfg = config(3, rules=make_rules("official", [], target=200), bots=0, dealer_only=True, autostart=True,
                 hold_seats=5.0)
    games, recording = recording_games()

    out: dict = {}

    async def seat(port, name, factory):
        ident = P.Identity.generate()
        link = await N.connect("127.0.0.1", port, ident, name=name)
        side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=factory)
        try:
            out[name] = await play_seat(link, side, bot_step=bot_step)
        except Exception as exc:  # noqa: BLE001 - what ended it is the finding
            out[name] = exc

    async def main():
        async with live_table(cfg, game_factory=recording) as table:
            with trio.move_on_after(LIMIT):
                async with trio.open_nursery() as n:
                    for name, factory in (("a", HeldUp), ("b", Eager), ("c", Eager)):
                        n.start_soon(seat, table.port, name, factory)
                        await trio.sleep(0.2)
                    while table.result is None and len(out) < 3:
                        await trio.sleep(0.05)
                    await trio.sleep(0.5)
                    n.cancel_scope.cancel()
            return table.result, table.events

    result, events = run(main)
    return result, events, out, games[0].transcript() if games else []


def test_an_answer_late_for_its_clock_in_the_next_challenge_is_refused_stale_not_a_cheat(monkeypatch):
    for _ in range(12):
        HeldUp.held, HeldUp.sent, HeldUp.refusals = None, False, []
        result, events, out, lines = _match(monkeypatch)
        if HeldUp.sent:
            break
    else:
        pytest.skip("no two challenges in a row (the second between the other seats) in 12 matches")
    cheats = [e.text for e in events if e.kind == "problem" and e.data.get("cheat")]
    assert not cheats, cheats
    assert any(code == "stale" for code, _ in HeldUp.refusals), HeldUp.refusals
    assert result is not None and all(out.get(k) == result for k in "abc"), out
    report = audit_transcript(lines)
    assert report.ok, report.summary
