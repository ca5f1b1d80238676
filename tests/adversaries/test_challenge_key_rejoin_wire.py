"""Over loopback: a challenged seat whose link dies after it answered comes back, and a false
dispute of its answer is shown false (redhost19; docs/fair-play.md §11.19).

An honest `HostTable` (no seat of its own), two remote bot seats: the honest seat A plays a
Wild Draw Four on B; B (a cheating player, signing its lie with its own key) challenges every
one and disputes the answer although it opened for it.  A's process dies the moment its answer
comes back relayed (its link closes with the answer in the record), and A's player comes back at
once with the same key: a fresh seat rebuilt from the host's replay.  Before the fix the rebuilt
seat had lost the answer's seal key, owed nothing, and the host's clock timed it out: A guilty,
the record clean, B's lie unseen.  Now A discloses the key, B loses the challenge, and the audit
flags B's false claim; nobody is reported a cheat."""

from __future__ import annotations

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.fair import ChallengeDispute
from unonet.net._game import SeatGame, bot_step
from unonet.net._join import play_seat
from unonet.net._seat import SeatSide
from unonet.table import audit_transcript

from tests.net.net_helpers import run
from tests.net.session_helpers import config, live_table, recording_games
from tests.net.test_verdict_clock import EagerChallenger

LIMIT = 120.0


class _Killed(Exception):
    pass


class FalseDisputer(EagerChallenger):
    """B: challenges every Wild Draw Four played on it (but one played as the last card), and
    disputes the first answer it gets -- which opened for it -- signed with its own key."""

    disputed = 0

    def _owed(self):
        v = self.seat.verifier
        if v.pending_action == "judge-challenge" and not FalseDisputer.disputed:
            FalseDisputer.disputed += 1
            lg = v.ledger
            ch = lg.challenge
            v._judged[ch.number] = "challenge dispute"
            return [v._signed(ChallengeDispute(challenger=self.side.seat, challenged=ch.challenged, seen=lg.digest,
                                               number=ch.number))]
        return super()._owed()


class DiesAfterAnswering(SeatGame):
    """A, honest: its process dies the moment its own challenge answer comes back relayed."""

    def receive(self, msg):
        event = msg.event()
        if event.EV == "challenge-response" and event.challenged == self.side.seat and not FalseDisputer.disputed:
            raise _Killed()
        return super().receive(msg)


def _match():
    cfg = config(2, rules=make_rules("official", [], target=60), bots=0, dealer_only=True, autostart=True,
                 hold_seats=5.0)
    games, recording = recording_games()

    out: dict = {}

    async def seat(port, name, ident, factory, key):
        link = await N.connect("127.0.0.1", port, ident, name=name)
        side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=factory)
        try:
            out[key] = await play_seat(link, side, bot_step=bot_step)
        except* _Killed:
            out[key] = "killed"
            await link.aclose()

    async def main():
        async with live_table(cfg, game_factory=recording) as table:
            a, b = P.Identity.generate(), P.Identity.generate()
            with trio.move_on_after(LIMIT):
                async with trio.open_nursery() as n:
                    n.start_soon(seat, table.port, "a", a, DiesAfterAnswering, "a")
                    await trio.sleep(0.2)
                    n.start_soon(seat, table.port, "b", b, FalseDisputer, "b")
                    while out.get("a") is None and table.result is None:
                        await trio.sleep(0.01)
                    if out.get("a") == "killed":  # back at once, the same key, a fresh seat
                        n.start_soon(seat, table.port, "a", a, SeatGame, "a2")
                    while table.result is None:
                        await trio.sleep(0.05)
            return table.result, table.events

    result, events = run(main)
    assert result is not None, [f"{e.kind}: {e.text}" for e in events][-12:]
    return result, events, out, games[0].transcript()


def test_a_rebuilt_seat_discloses_its_answers_key_and_the_false_dispute_is_shown():
    for _ in range(10):
        FalseDisputer.disputed = 0
        result, events, out, lines = _match()
        if out.get("a") == "killed" and FalseDisputer.disputed:
            break
    else:
        pytest.skip("no Wild Draw Four played by A on B in 10 matches")
    cheats = [e.text for e in events if e.kind == "problem" and e.data.get("cheat")]
    assert not cheats, cheats
    assert any('"ev":"challenge-key"' in line for line in lines), "the rebuilt seat never disclosed its key"
    assert not any('"ev":"challenge-timeout"' in line for line in lines)
    assert out.get("a2") == result and out.get("b") == result
    report = audit_transcript(lines)
    assert report.ok, report.summary
    assert any("disputed seat" in f and "a false claim" in f for f in report.flags), report.flags
