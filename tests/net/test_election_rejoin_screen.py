"""A player back in its seat at an elected host reads the match so far, the election in it:
the screen is built once, for the round in play.  The play-test's Hal (the lost host, back by
`unonet join`) read "--- round 2: Ben (bot) deals ---" then "--- round 3: you deal ---": the
round the election voided was put on the screen as the replay passed the election."""

from __future__ import annotations

import trio

import unonet.net._election as E
from unonet import feed as F

from . import test_election
from .test_election import Joiner, _match_with_joiners
from .test_election_away import RESUMED_LIMIT


def test_a_rejoin_through_an_election_builds_the_screen_once_for_the_round_in_play(monkeypatch):
    honest = E.follow
    js = [Joiner("a"), Joiner("b"), Joiner("c")]

    async def follow(nxt, side, identity, **kw):
        if side.name == "c":  # c reaches the elected host once it resumed without c: a rejoin
            side.screen = True  # (its next side builds a person's screen: `SeatSide.like`)
            with trio.move_on_after(RESUMED_LIMIT):
                while not any(x.get("t") == "elected" for j in js for x in j.out):
                    await trio.sleep(0.01)
        return await honest(nxt, side, identity, **kw)

    def lines(emit):  # the joiners' feed as lines: its dicts, and each screen's round header
        def on_feed(value):
            if isinstance(value, dict):
                emit(value)
            elif isinstance(value, F.RoundStarted):
                emit({"t": "roundstarted", "number": value.number})
        return on_feed

    monkeypatch.setattr(E, "follow", follow)
    monkeypatch.setattr(test_election, "scripted_feed", lines)
    trio.run(_match_with_joiners, ("--players", "5", "--bots", "1"), js)
    c = js[2]
    at = next((i for i, x in enumerate(c.out) if x.get("t") == "rejoined"), None)
    assert at is not None, c.out[-5:]
    headers = [x["number"] for x in c.out[:at] if x.get("t") == "roundstarted"]
    assert len(headers) == 1, headers  # the round in play only, not the voided one before it
