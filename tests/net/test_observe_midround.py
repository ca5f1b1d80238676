"""A scorekeeper attached in the middle of a round: the host replays the match so far
(spec §7); the replay's deals are no news, but the round it stops in is.  The play-test's
late scorekeeper read "round 4 recorded; waiting for the next deal" through all of round 5."""

from __future__ import annotations

import trio

import unonet.protocol as P
from unonet import feed as F
from unonet.engine import make_rules
from unonet.net._game import HostGame, run_local_seat
from unonet.net._join import connect_table, play_seat
from unonet.net._observe import ObserverSide
from unonet.protocol._schema import OBSERVER

from .net_helpers import run
from .session_helpers import config, live_table


def test_a_scorekeeper_attached_mid_round_is_told_the_round_in_play():
    async def main():
        cfg = config(3, rules=make_rules("official", [], target=500), autostart=True, bots=2, bot_pace=0.02)
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            with trio.fail_after(60):
                for _ in range(40):  # (bounded) until an attach lands in the middle of a round past the first
                    while table.game is None:
                        await trio.sleep(0.05)
                    await trio.sleep(0.3)
                    link = await connect_table("127.0.0.1", table.port, P.Identity.generate(), name="keeper",
                                               role=OBSERVER)
                    side = ObserverSide(name="keeper", host_public=link.peer_fair_identity,
                                        on_round=lambda *a: None, on_match_over=lambda *a: None)
                    seen = []
                    async with trio.open_nursery() as n:
                        n.start_soon(lambda: play_seat(link, side, seated=True, on_feed=seen.append, matches=None))
                        while side.game is None or side.replaying or getattr(side, "_rejoin_msg", None) is None:
                            await trio.sleep(0.005)
                        game, setup = side.game, side.game.setup
                        number = game.offset + setup["round"] if setup is not None else 0
                        signed = game.ledger is not None and any(e.round == number for e in game.ledger.entries)
                        await trio.sleep(0.05)  # (the reader hands the feed on after the message)
                        news = [v.number for v in seen if isinstance(v, F.RoundStarted)]
                        n.cancel_scope.cancel()
                    await link.aclose()
                    if number >= 2 and not signed:
                        return number, news
            raise AssertionError("no attach in the middle of a round")

    number, news = run(main)
    assert number in news, (number, news)  # (the next round's deal may follow it)
