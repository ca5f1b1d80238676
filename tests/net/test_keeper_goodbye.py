"""The scorekeeper says what the players see (words15): a player who quit with a goodbye
(`leave`) is "left; a bot plays" on its screen and in its printed lines, where it read
"(away)" as if the link were lost; a player whose link only dropped stays "(away)"."""

from __future__ import annotations

import functools

import trio

import unonet.net as N
import unonet.protocol as P
from unonet import feed as F
from unonet.engine import make_rules
from unonet.net._game import HostGame, SeatGame, bot_step, run_local_seat
from unonet.net._join import play_seat, reach_table
from unonet.net._observe import ObserverSide
from unonet.net._seat import SeatSide
from unonet.protocol._schema import OBSERVER
from unonet.tui.score_view import ScoreView

from .net_helpers import run
from .session_helpers import config, live_table


def test_the_scorekeeper_says_a_goodbye_as_players_do_and_a_lost_link_as_away():
    cfg = config(4, rules=make_rules("official", [], target=2000), target=2000, autostart=True, hold_seats=600.0)

    async def main():
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            lobbies: list = []
            with trio.fail_after(60):
                async with trio.open_nursery() as n:
                    link, _ = await reach_table(f"127.0.0.1:{table.port}", P.Identity.generate(), name="keeper",
                                                role=OBSERVER)
                    keeper = ObserverSide(name="keeper", host_public=link.peer_fair_identity,
                                          on_round=lambda *a: None, on_match_over=lambda *a: None)
                    n.start_soon(lambda: play_seat(link, keeper, seated=True,
                                                   on_feed=lambda v: lobbies.append(v) if isinstance(v, F.Lobby)
                                                   else None))
                    quit_, cut = trio.Event(), trio.CancelScope()
                    for name in ("Lee", "Kim", "Bo"):
                        ident = P.Identity.generate()
                        seat_link = await N.connect("127.0.0.1", table.port, ident, name=name,
                                                    timeouts=N.Timeouts(idle=5.0))
                        side = SeatSide(name=name, identity=ident, game_factory=SeatGame, bot=True,
                                        host_public=seat_link.peer_fair_identity)
                        go = functools.partial(play_seat, seat_link, side, bot_step=bot_step,
                                               leave=quit_ if name == "Lee" else None)
                        if name == "Kim":
                            async def doomed(go=go):
                                with cut:
                                    await go()
                            n.start_soon(doomed)
                        else:
                            n.start_soon(go)
                    while table.game is None or table.game.round_no < 1:
                        await trio.sleep(0.01)
                    quit_.set()   # Lee says goodbye (q, y in the client; Ctrl-C on `join --no-ui`)
                    cut.cancel()  # Kim's process is gone: its link closes without a word
                    while not (lobbies and {s.name: s.connected for s in lobbies[-1].seats}.get("Lee") is False
                               and {s.name: s.connected for s in lobbies[-1].seats}.get("Kim") is False):
                        await trio.sleep(0.01)
                    n.cancel_scope.cancel()
            return lobbies[-1]

    lobby = run(main)
    view = ScoreView()
    view.apply(lobby)
    text = "\n".join(view.lines(80))
    assert "Lee (left; a bot plays)" in text and "Lee (away)" not in text, text
    assert "Kim (away)" in text, text
