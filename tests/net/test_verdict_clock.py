"""The challenger's verdict clock over loopback (spec §6.4 step 3, §5 step 6): a challenger
that never judges the response -- silent, or killed the moment the response reaches it -- loses
its challenge by the host's `verdict-timeout`, and the table plays the round and the match to
the end instead of waiting for ever (before: "a missed judge-challenge has no timeout rule yet",
retried every 10 s); nobody is reported as a cheat, and the host's transcript audits clean."""

from __future__ import annotations

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import Challenge, make_rules
from unonet.net import _game
from unonet.net._game import SeatGame, bot_step, run_local_seat
from unonet.net._join import play_seat
from unonet.net._seat import SeatSide
from unonet.table import audit_transcript

from .net_helpers import run
from .session_helpers import config, live_table, recording_games


LIMIT = 120.0  # seconds one match may take (a few, unloaded)


class EagerChallenger(SeatGame):
    """A bot seat that challenges every Wild Draw Four played on it -- but one played as its
    player's last card: that challenge's evidence is an empty hand, which the wire refuses
    (`challenge.positions` 1..256: "the table failed: LocalProtocolError", a defect of its own,
    reported apart; the honest bots rarely challenge it)."""

    def bot_move(self):
        action = super().bot_move()
        rnd = self.view()
        me = self.side.seat
        if action is not None and any(type(a) is Challenge for a in rnd.legal_actions(me)) \
                and not rnd.wild_four.going_out:
            return Challenge(me)
        return action


class SilentChallenger(EagerChallenger):
    """... and never judges (nor disputes) the response: its verifier is never asked for the
    verdict, so the seat has no word the host could have withheld."""

    def _owed(self):
        if self.seat.verifier.pending_action in ("judge-challenge", "dispute-challenge"):
            return []
        return super()._owed()


class DyingChallenger(EagerChallenger):
    """... and its process dies the moment the challenge response reaches it (its link closes
    with the verdict owed)."""

    def receive(self, msg):
        event = msg.event()
        if event.EV == "challenge-response" and event.challenger == self.side.seat:
            raise _Killed()
        return super().receive(msg)


class _Killed(Exception):
    pass


def _match(monkeypatch, seat_cls, *, hold: float = 0.3):
    """A 2-seat match to 60 points: the host's own bot and one remote seat of `seat_cls`;
    returns the host's result and events, the seat's result (or the exception that ended
    it) and the host's transcript."""
    monkeypatch.setattr(_game, "SEED_TIMEOUT", 0.5)  # the verdict clock (as for every answer)
    cfg = config(2, rules=make_rules("official", [], target=60), bots=1, dealer_only=True, autostart=True,
                 hold_seats=hold)
    games, recording = recording_games()

    out: dict = {}

    async def seat(port):
        ident = P.Identity.generate()
        link = await N.connect("127.0.0.1", port, ident, name="r0")
        side = SeatSide(name="r0", identity=ident, host_public=link.peer_fair_identity, game_factory=seat_cls)
        try:
            out["result"] = await play_seat(link, side, bot_step=bot_step)
        except* _Killed:
            out["result"] = "killed"  # (its link goes with it: the host sees the seat drop)
            await link.aclose()

    async def main():
        async with live_table(cfg, game_factory=recording, local_seat=run_local_seat(None)) as table:
            with trio.move_on_after(LIMIT):
                async with trio.open_nursery() as n:
                    n.start_soon(seat, table.port)
                    while table.result is None:
                        await trio.sleep(0.05)
            return table.result, table.events

    result, events = run(main)
    if result is None:  # the table stalled: say where
        said = [f"{e.kind}: {e.text}" for e in events][-12:]
        tail = [line[:240] for line in games[0].transcript()[-8:]] if games else []
        raise AssertionError(f"no match result in {LIMIT:g} s; the host said {said}; its transcript ends {tail}")
    return result, events, out.get("result"), games[0].transcript()


def _challenged_match(monkeypatch, seat_cls, **kw):
    """`_match` again (at most 8 matches) until the seat challenged a Wild Draw Four (one is
    played on it in most matches, not all)."""
    for _ in range(8):
        result, events, seat_result, lines = _match(monkeypatch, seat_cls, **kw)
        if any('"ev":"verdict-timeout"' in line for line in lines):
            return result, events, seat_result, lines
        _no_cheat(events)
    pytest.fail("no Wild Draw Four played on the seat in 8 matches")


def _no_cheat(events):
    cheats = [e.text for e in events if e.kind == "problem" and e.data.get("cheat")]
    assert not cheats, cheats
    stuck = [e.text for e in events if "has no timeout rule" in e.text]
    assert not stuck, stuck


def test_a_challenger_that_never_judges_loses_its_challenges_and_the_match_ends(monkeypatch):
    result, events, seat_result, lines = _challenged_match(monkeypatch, SilentChallenger)
    timeouts = [line for line in lines if '"ev":"verdict-timeout"' in line]
    assert timeouts, "no challenge was made: the seat challenges every Wild Draw Four"
    _no_cheat(events)
    assert seat_result == result and max(result["scores"]) >= 60  # the seat agrees on the result
    report = audit_transcript(lines)
    assert report.ok and report.seat is None, report.summary


@pytest.mark.parametrize("hold", [0.0, 0.4])
def test_a_challenger_killed_when_the_response_reaches_it_does_not_stall_the_table(monkeypatch, hold):
    """Gone with its verdict owed: held for its player (`--hold-seats`), then timed out like a
    silent one; a bot of the host plays the seat for the rest of the match."""
    result, events, seat_result, lines = _challenged_match(monkeypatch, DyingChallenger, hold=hold)
    assert seat_result == "killed", seat_result
    assert sum('"ev":"verdict-timeout"' in line for line in lines) == 1
    _no_cheat(events)
    assert result is not None and max(result["scores"]) >= 60
    report = audit_transcript(lines)
    assert report.ok and report.seat is None, report.summary
