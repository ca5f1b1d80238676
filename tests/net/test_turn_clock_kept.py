"""A seat's turn clock is restarted by the batches the host sends (spec §5 step 6), not by
another player dropping: the play7 evening's Pat watched his screen's clock sit at [0:00] for
a minute - Ann had quit mid-turn (her link dropped, then her hold ran out), and the host began
Pat's 90 s again at each.  The planned deadline of the seat whose turn it is stays the same."""

from __future__ import annotations

import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._game import SeatGame, run_local_seat
from unonet.net._join import play_seat
from unonet.net._seat import SeatSide

from .net_helpers import run
from .session_helpers import config, live_table, recording_games



def _owed_act(game):
    """The act the host waits for now, if any."""
    acts = [o for o in game.host.owed() if o.kind == "act"] if game.host.round is not None else []
    return acts[0] if acts else None

def _due(game, seat):
    return [d for d, o, _why in game._due if o.seat == seat and o.kind == "act"]


def test_another_seat_dropping_does_not_restart_the_clock_of_the_seat_to_play():
    cfg = config(2, rules=make_rules("official", [], target=60), bots=0, dealer_only=True, autostart=True,
                 turn_timeout=60.0, hold_seats=0.3)
    games, recording = recording_games()
    scopes: dict = {}

    async def seat(port, name):
        ident = P.Identity.generate()
        link = await N.connect("127.0.0.1", port, ident, name=name, timeouts=N.Timeouts(idle=3.0))
        side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame)
        with scopes.setdefault(name, trio.CancelScope()):
            try:
                await play_seat(link, side)   # no bot and no keys: the seat never acts
            finally:
                with trio.CancelScope(shield=True):
                    await link.aclose()

    async def main():
        async with live_table(cfg, game_factory=recording, local_seat=run_local_seat(None)) as table:
            with trio.fail_after(30):
                async with trio.open_nursery() as n:
                    n.start_soon(seat, table.port, "Pat")
                    await trio.sleep(0.2)
                    n.start_soon(seat, table.port, "Ann")
                    while not games or _owed_act(games[0]) is None:
                        await trio.sleep(0.02)
                    game = games[0]
                    turn = _owed_act(game).seat
                    before = _due(game, turn)
                    assert len(before) == 1, game._due
                    gone = game.table.book.seats[1 - turn]
                    scopes[gone.name].cancel()     # the other player quits: the link drops ...
                    while gone.connected or game._held(gone) > 0:
                        await trio.sleep(0.02)
                    await trio.sleep(0.3)           # ... and its hold runs out (the table plans again)
                    after = _due(game, turn)
                    assert _owed_act(game).seat == turn  # (nothing was played meanwhile)
                    n.cancel_scope.cancel()
                    return before, after

    before, after = run(main)
    assert after == before, f"the turn's deadline moved by {after[0] - before[0]:.2f} s"



def test_another_seat_coming_back_does_not_restart_the_clock_of_the_seat_to_play():
    """A seat that comes back does not move the turn's deadline: nor when it was dropped and
    rejoins (its hand replayed), nor when its match-join is relayed - what a seat away since an
    election sends on its return (evening18: Ben came back after Hal's table was taken over while
    Ana was to play; the host began her 20 s again at his match-join, which restarts no seat's
    own clock, and her screen read [0:00] for the 20 s more she was given)."""
    cfg = config(2, rules=make_rules("official", [], target=60), bots=0, dealer_only=True, autostart=True,
                 turn_timeout=60.0, hold_seats=30.0)
    games, recording = recording_games()
    scopes: dict = {}
    idents = {"Pat": P.Identity.generate(), "Ann": P.Identity.generate()}
    sides: dict = {}

    async def seat(port, name):
        link = await N.connect("127.0.0.1", port, idents[name], name=name, timeouts=N.Timeouts(idle=3.0))
        side = sides[name] = SeatSide(name=name, identity=idents[name], host_public=link.peer_fair_identity,
                                      game_factory=SeatGame)
        with scopes.setdefault(name, trio.CancelScope()) as scope:
            try:
                await play_seat(link, side)   # no bot and no keys: the seat never acts
            finally:
                with trio.CancelScope(shield=True):
                    await link.aclose()
        if scope.cancelled_caught:
            scopes.pop(name)

    async def main():
        async with live_table(cfg, game_factory=recording, local_seat=run_local_seat(None)) as table:
            with trio.fail_after(30):
                async with trio.open_nursery() as n:
                    n.start_soon(seat, table.port, "Pat")
                    await trio.sleep(0.2)
                    n.start_soon(seat, table.port, "Ann")
                    while not games or _owed_act(games[0]) is None:
                        await trio.sleep(0.02)
                    game = games[0]
                    turn = _owed_act(game).seat
                    before = _due(game, turn)
                    gone = game.table.book.seats[1 - turn]
                    name = gone.name
                    scopes[name].cancel()     # the other player's link drops ...
                    while gone.connected or name in scopes:
                        await trio.sleep(0.02)
                    n.start_soon(seat, table.port, name)  # ... and it comes back, its hand replayed
                    while not gone.connected or sides[name].game is None or sides[name].game.recovering \
                            or sides[name].game.seen < len(game.history):
                        await trio.sleep(0.02)
                    await trio.sleep(0.3)     # (whatever it sends on its return reaches the host)
                    rejoined = _due(game, turn)
                    # its match-join relayed again, as a seat away since an election sends it
                    join = next(m.event() for m in game.history
                                if type(m).__name__ == "Fair" and m.event().EV == "match-join"
                                and m.event().seat == gone.seat)
                    game._relay([join])
                    joined = _due(game, turn)
                    assert _owed_act(game).seat == turn  # (nothing was played meanwhile)
                    n.cancel_scope.cancel()
                    return before, rejoined, joined

    before, rejoined, joined = run(main)
    assert rejoined == before, f"the turn's deadline moved by {rejoined[0] - before[0]:.2f} s at the rejoin"
    assert joined == before, f"the turn's deadline moved by {joined[0] - before[0]:.2f} s at the match-join"
