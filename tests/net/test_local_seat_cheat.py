"""A seat the host runs in its own process (its own seat, its bots) that catches its host in a
lie says so, as a remote seat does: a problem line marked a cheat.  (It closes its own link on
the way out, which was read as "the table is closing": the seat fell silent, its seat stood
still until the table's 5-second default moves, and nobody was told why.)"""

from __future__ import annotations

import trio

from unonet.engine import make_rules
from unonet.fair import Act, sign_seat_event
from unonet.net._game import HostGame, run_local_seat
from unonet.protocol import Fair

from .net_helpers import run
from .session_helpers import config, live_table


def test_a_local_seat_that_catches_its_host_forging_its_act_says_so():
    peers: dict = {}
    start = run_local_seat(None)

    def local_seat(table, peer, identity, *, bot):
        peers[peer.seat] = (peer, identity)
        start(table, peer, identity, bot=bot)

    cfg = config(3, rules=make_rules("official", [], target=500), bots=2, autostart=True)

    async def main():
        async with live_table(cfg, game_factory=HostGame, local_seat=local_seat) as table:
            with trio.fail_after(60):
                while table.game is None or table.game.host.round is None:
                    await trio.sleep(0.01)
                lg = table.game.host.dealer.ledger
                peer, ident = peers[1]
                # the host's lie, signed with the key it holds for its bot in seat 1: an act that
                # seat never made, told to that seat alone
                forged = sign_seat_event(ident, lg.table, lg.round_no, lg.start_digest,
                                         Act(seat=1, n=lg.acts[1] + 7, action={"t": "draw", "seat": 1}))
                peer.outbox.send_nowait(Fair.of(forged, lg.round_no))
                while not [e for e in table.events if e.data.get("cheat")]:
                    await trio.sleep(0.01)
            return [(e.kind, e.text) for e in table.events if e.data.get("cheat")]

    said = run(main)
    assert said and said[0][0] == "problem" and "(seat 1): the host failed a fair-play check" in said[0][1], said
