"""A Wild Draw Four challenge decided by the host's clock (spec §6.4: `challenge-timeout`, the
challenged seat never answered; `verdict-timeout`, the challenger never judged) on the players'
screens.  Before: no line said so, and the next one read "Ana challenged Ben's wild draw: guilty
(Ben held red)" - a hand nobody saw judged, said as fact (a false accusation when Ben held no
red).  Two seats over loopback, each fed to a `SessionView` as a person's screen would be."""

from __future__ import annotations

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net import _game
from unonet.net._game import HostGame, bot_step, run_local_seat
from unonet.net._join import play_seat
from unonet.net._operator import OperatorFeed
from unonet.net._seat import SeatSide
from unonet.tui.session import SessionView

from ..net.net_helpers import run
from ..net.session_helpers import config, live_table
from ..net.test_verdict_clock import EagerChallenger

LIMIT = 40.0


class Mute(EagerChallenger):
    """Challenges every Wild Draw Four on it, and then never judges the answer; never answers
    a challenge of its own Wild Draw Four either."""

    def _owed(self):
        if self.seat.verifier.pending_action in ("judge-challenge", "dispute-challenge", "answer-challenge"):
            return []
        return super()._owed()


def _match(monkeypatch):
    """One 2-seat match to 60 (dealer-only host): Ana answers, Mo never does; both screens' feeds."""
    monkeypatch.setattr(_game, "SEED_TIMEOUT", 0.5)  # the answer's and the verdict's clock
    cfg = config(2, rules=make_rules("official", [], target=60), bots=0, dealer_only=True, autostart=True)
    feeds: dict = {"Ana": [], "Mo": [], "host": []}   # (the host holds no seat: it watches)

    async def seat(port, name, cls):
        ident = P.Identity.generate()
        link = await N.connect("127.0.0.1", port, ident, name=name)
        side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=cls)
        side.screen = True
        await play_seat(link, side, bot_step=bot_step, on_feed=feeds[name].append)

    async def main():
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            table.on_game = OperatorFeed(-1, feeds["host"].append)
            with trio.move_on_after(LIMIT):
                async with trio.open_nursery() as n:
                    n.start_soon(seat, table.port, "Ana", EagerChallenger)
                    await trio.sleep(0.2)
                    n.start_soon(seat, table.port, "Mo", Mute)
                    while table.result is None:
                        await trio.sleep(0.05)
                    n.cancel_scope.cancel()
            return table.result, table.events

    result, events = run(main)
    assert result is not None, "\n".join(f"{e.kind}: {e.text}"[:200] for e in events[-30:])
    cheats = [e.text for e in events if e.kind == "problem"]
    assert not cheats, cheats
    return feeds


def _log(values) -> list[str]:
    v = SessionView()
    for x in values:
        if not isinstance(x, dict):
            v.apply(x)
    assert v.problem is None, v.problem
    return v.log


def test_a_challenge_decided_by_the_clock_says_so_and_claims_no_hand(monkeypatch):
    said = {"challenge-timeout": 0, "verdict-timeout": 0, "host": 0}
    for _ in range(8):
        feeds = _match(monkeypatch)
        logs = {name: _log(values) for name, values in feeds.items()}
        host = logs.pop("host")
        for i, line in enumerate(host):
            if "in time" in line:
                said["host"] += 1
                assert line in ("* Mo did not answer the challenge in time: the wild draw counts as guilty "
                                "(the hand was not shown)", "* Mo gave no verdict on Ana's hand in time: the challenge "
                                "is lost"), line
                assert host[i + 1] in ("Ana challenged Mo's wild draw: guilty", "Mo challenged Ana's wild draw: innocent"), \
                    host[i:i + 2]
        for name, log in logs.items():
            for i, line in enumerate(log):
                if "did not answer the challenge in time" in line:
                    said["challenge-timeout"] += 1
                    assert line == ("* you did not answer the challenge in time: the wild draw counts as guilty "
                                    "(the hand was not shown)" if name == "Mo" else
                                    "* Mo did not answer the challenge in time: the wild draw counts as guilty "
                                    "(the hand was not shown)"), line
                    # never "Mo's hand was: ..." (the copy's placeholders for a hand that never came)
                    verdict = log[i + 1]
                    assert verdict in ("Ana challenged your wild draw: guilty", "you challenged Mo's wild draw: guilty"), log[i:i + 3]
                if "gave no verdict" in line:
                    said["verdict-timeout"] += 1
                    assert line == ("* you gave no verdict on Ana's hand in time: your challenge is lost"
                                    if name == "Mo" else "* Mo gave no verdict on your hand in time: the challenge is lost"), line
                    # (the challenger saw the answer, sealed to it: that hand is true, and its own)
                    verdict = log[i + 2] if log[i + 1].startswith("Ana's hand was: ") else log[i + 1]
                    assert verdict in ("you challenged Ana's wild draw: innocent",
                                       "Mo challenged your wild draw: innocent"), log[i:i + 3]
            # no hand is ever said judged in a challenge nobody judged
            assert not [x for x in log if "challenged" in x and "held" in x and "Mo's" in x], log
        if all(said.values()):
            return
    pytest.fail(f"8 matches without both clocks running out: {said}")
