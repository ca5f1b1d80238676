"""A table never hangs silently on an act it is owed (issue 12, "Turn clock"): with no
turn clock (`--no-ui` without `--turn-timeout`) the host still plays a seat's turn after
`STALL_GUARD`, and one of its own bots that does not answer is stuck after `BOT_STALL`;
either way the operator hears which seat and why."""

from __future__ import annotations

import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net import _game
from unonet.net._game import HostGame, SeatGame, run_local_seat
from unonet.net._join import play_seat
from unonet.net._seat import SeatSide

from .net_helpers import run
from .session_helpers import config, live_table


def _play(cfg, remote: int, **seat_kw) -> tuple[dict, list, dict]:
    seats: dict = {}

    async def seat(port, name):
        ident = P.Identity.generate()
        link = await N.connect("127.0.0.1", port, ident, name=name)
        side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame)
        seats[name] = await play_seat(link, side, **seat_kw)

    async def main():
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            # (bounded, generously: a round where one seat never plays a card ends only when the
            # bot goes out, after tens to hundreds of turns: 3 to 30 s here, more on a loaded CI)
            with trio.fail_after(240):
                async with trio.open_nursery() as n:
                    for i in range(remote):
                        n.start_soon(seat, table.port, f"r{i}")
                    while table.result is None:
                        await trio.sleep(0.05)
            return table.result, table.events

    result, events = run(main)
    return result, events, seats


def test_a_remote_seat_that_never_acts_is_played_by_the_stall_guard(monkeypatch):
    """A joiner that owes its turn and sends nothing (a bot that cannot move looks
    like this to the host), no turn clock given: the table plays the turn after the guard,
    says so, and the match ends with that seat agreeing on the result."""
    # (a guard of 0.1 s: a seat that never plays a card may hold most of the deck before the bot
    # goes out, a hundred turns and more at the guard each; at 0.3 s that once took over 90 s in CI)
    monkeypatch.setattr(_game, "STALL_GUARD", 0.1)
    cfg = config(2, rules=make_rules("official", [], target=30), bots=1, dealer_only=True, autostart=True)
    assert cfg.turn_timeout is None
    result, events, seats = _play(cfg, 1)  # r0 plays nothing (no bot, no input)
    stalls = [e for e in events if e.kind == "problem" and e.data.get("stall") == "stall"]
    assert stalls and all(e.data["seat"] == 0 for e in stalls)
    assert "r0 (seat 0) has not played for 0.1 s: the table makes the default move for them" \
        == stalls[0].text
    assert seats["r0"] == result and max(result["scores"]) >= 30


def test_one_of_the_hosts_bots_that_does_not_answer_is_stuck(monkeypatch):
    """A host bot that never moves (wedged): after BOT_STALL the table plays its turn,
    whatever the turn clock (none)."""
    monkeypatch.setattr(_game, "BOT_STALL", 0.2)
    real = SeatGame.bot_move

    def frozen(self):
        return None if self.side.seat == 1 else real(self)

    monkeypatch.setattr(SeatGame, "bot_move", frozen)
    cfg = config(2, rules=make_rules("official", [], target=30), bots=2, dealer_only=True, autostart=True)
    result, events, _ = _play(cfg, 0)
    stuck = [e for e in events if e.kind == "problem" and e.data.get("stall") == "stuck bot"]
    assert stuck and {e.data["seat"] for e in stuck} == {1}
    assert "its bot is stuck" in stuck[0].text and max(result["scores"]) >= 30
