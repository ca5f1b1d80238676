"""A host that lies in its roster about who sits where (redteam15).

The roster is the host's word alone (no signature, spec §10 `roster`); the seats and their
keys are in the host-signed `match-start`, whose seat list every seat checks against its own
key and every verifier binds into the match id.  A player's and a scorekeeper's ledger header
(`unonet.ledger.MatchHeader.seats`: which key played which seat, what a scorekeeper stores and
ranks players by) was built from the roster, so a host that swapped two players' ids in the
roster it sent made every player and every scorekeeper record each of those players under the
other's results, with no check failing anywhere (the ledger heads all agreed, being built from
the same lie).  Now the header's seats are the signed `match-start`'s, whatever the roster says,
and a liar whose own match-over head is over its swapped ids is refused by every player.

Over loopback: a real `HostTable` whose roster swaps seats 0 and 1's ids, two remote bot seats
and an in-process scorekeeper (`ObserverSide`, the scorekeeper's session)."""

from __future__ import annotations

import dataclasses

import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._game import HostGame, SeatGame, bot_step, run_local_seat
from unonet.net._host import HostTable
from unonet.net._join import JoinFailed, play_seat
from unonet.net._observe import ObserverSide, watch_table
from unonet.net._seat import SeatSide
from unonet.protocol._schema import OBSERVER

from ..net.session_helpers import config, live_table


def _swapping_roster(table: HostTable) -> None:
    """The host's roster from now on names seat 0's player with seat 1's id and back."""
    honest = HostTable.roster

    def roster(self=table):
        r = honest(self)
        ids = {p.seat: p.id for p in r.players}
        if 0 not in ids or 1 not in ids:
            return r
        swap = {0: ids[1], 1: ids[0]}
        # (and another preset's name than the one its signed rules carry)
        return dataclasses.replace(r, rules="lie-preset", players=tuple(dataclasses.replace(p, id=swap.get(p.seat, p.id))
                                                    for p in r.players))

    table.roster = roster


def test_a_host_that_swaps_two_players_ids_in_its_roster_does_not_move_their_results_in_any_ledger():
    rules = make_rules("official", [], target=60)
    cfg = config(2, rules=rules, dealer_only=True, autostart=True, turn_timeout=0.01)
    hosts: list[HostGame] = []
    seats: dict = {}
    keeper: dict = {"headers": [], "rounds": 0}

    def factory(table):
        game = HostGame(table)
        # the liar keeps its own ledger (its match-over line's head) over the same swapped ids
        game.seat_ids[0], game.seat_ids[1] = game.seat_ids[1], game.seat_ids[0]
        hosts.append(game)
        return game

    async def seat(port: int, name: str) -> None:
        ident = P.Identity.generate()
        link = await N.connect("127.0.0.1", port, ident, name=name, timeouts=N.Timeouts(idle=3.0))
        side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame)
        games = []
        side.game_factory = lambda s: games.append(SeatGame(s)) or games[-1]
        seats[name] = {"side": side, "games": games, "identity": ident}
        try:
            seats[name]["result"] = await play_seat(link, side, bot_step=bot_step)
        except JoinFailed as exc:  # what it concluded is asserted below
            seats[name]["error"] = exc

    async def watch(port: int, done: trio.Event) -> None:
        ident = P.Identity.generate()
        link = await N.connect("127.0.0.1", port, ident, name="keeper", role=OBSERVER,
                               timeouts=N.Timeouts(idle=3.0))

        def on_round(led, entry, names):
            keeper["headers"].append(led.header)
            keeper["rounds"] += 1

        side = ObserverSide(name="keeper", host_public=link.peer_fair_identity, on_round=on_round,
                            on_match_over=lambda line: done.set())
        try:
            await watch_table(link, side, identity=ident)
        except Exception as exc:  # noqa: BLE001 - what it concluded is asserted below
            keeper["error"] = exc
        done.set()

    async def main():
        async with live_table(cfg, game_factory=factory, local_seat=run_local_seat(None)) as table:
            _swapping_roster(table)
            done = trio.Event()
            with trio.fail_after(120):
                async with trio.open_nursery() as n:
                    n.start_soon(watch, table.port, done)
                    await trio.sleep(0.2)
                    for name in ("p0", "p1"):
                        n.start_soon(seat, table.port, name)
                        await trio.sleep(0.1)
                    await done.wait()
                    n.cancel_scope.cancel()

    trio.run(main)
    # the scorekeeper refuses the liar's match-over line as the players do
    assert "the host's match result" in str(keeper.get("error")), keeper.get("error")
    assert keeper["rounds"] >= 1
    start = hosts[0].host.match.start
    signed = tuple(p.fingerprint_bytes for p in start.seats)
    assert signed[0] != signed[1]
    # the scorekeeper's ledger seats the keys the host signed into the match-start, not the roster's
    assert all(h.seats == signed for h in keeper["headers"]), (keeper["headers"][-1].seats, signed)
    assert all(h.preset == start.rules["preset"] == "official" for h in keeper["headers"])
    # and so does every player's own ledger (its match-over line's head is over it)
    for name in ("p0", "p1"):
        led = seats[name]["games"][-1].ledger
        assert led.header.seats == signed, (name, led.header.seats, signed)
        assert led.identities, name  # (the seats' public identities kept: co-signs checkable)
    # (the players' own heads agree with each other; the liar's match-over line, over its
    # swapped ids, does not, and each player refuses it, naming the host's result)
    assert seats["p0"]["games"][-1].ledger.head == seats["p1"]["games"][-1].ledger.head
    for name in ("p0", "p1"):
        assert "the host's match result" in str(seats[name].get("error")), (name, seats[name].get("error"))
