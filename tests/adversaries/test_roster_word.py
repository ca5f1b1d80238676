"""What the roster says is the host's unsigned word: a scorekeeper and the screens go by what
is signed (trust18).

Three ways a host's roster (spec §10 `roster`, signed by nobody) reached past the screens:

- the scorekeeper stored each seat's name from the roster, not from the host-signed
  `match-start` (`names`, which every seat's `match-join` signs over): a host could record a
  match, on the board and in `score history`, under other names than the seats joined under;
- a seat's lobby showed the roster entry's `team`, while the match scores partners by seat
  parity (spec §5 step 3): a host could show a player the wrong partner before the deal;
- the scorekeeper marked "incomplete" every open match of the roster's `table` id other than
  the one going on: a host that named another table's id had that table's open match marked
  so in a database the two tables share.

Real `HostTable`s on loopback that tell those lies (each signs its own records with its own
key), remote bot seats, and the real scorekeeper path (`unonet.store.attach.attach_table`,
a `Recorder` over a real SQLite file)."""

from __future__ import annotations

import dataclasses

import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._game import HostGame, SeatGame, run_local_seat
from unonet.net._host import HostTable
from unonet.net._seat import SeatSide
from unonet.store import ScoreStore, history
from unonet.store._board import board
from unonet.store.attach import Recorder, attach_table

from ..net.session_helpers import config, live_table
from ..net.test_session_match import _remote_seat


def _lying_roster(table: HostTable, change) -> None:
    """The host's roster from now on is ``change(roster)``: its own word, signed by nobody."""
    honest = HostTable.roster

    def roster(self=table):
        return change(honest(self))

    table.roster = roster


async def _keeper(port: int, store: ScoreStore, out: dict) -> None:
    """The scorekeeper's own attach path (`unonet score HOST:PORT`) into ``store``."""
    got: list = []
    out["lines"] = got
    out["recorder"] = recorder = Recorder(store, got.append)
    try:
        out["ended"] = await attach_table(f"127.0.0.1:{port}", recorder=recorder, code=None, name="keeper",
                                          emit=got.append, identity=P.Identity.generate())
    except Exception as exc:  # noqa: BLE001 - what it concluded is asserted by the caller
        out["error"] = exc


# ---------------------------------------------------------------------------- 1. names


def test_the_scorekeeper_stores_the_names_the_match_start_signed_not_the_rosters(tmp_path):
    """The roster calls seat 0 "Mallory" and seat 1 "p0"; the signed match-start (every seat's
    join signs over it) names them p0 and p1.  The file, `score history` and the board say p0
    and p1; no name the roster made up is kept for anyone's key."""
    rules = make_rules("official", [], target=60)
    cfg = config(2, rules=rules, dealer_only=True, autostart=True, turn_timeout=0.01, matches=1)
    lies = {0: "Mallory", 1: "p0"}
    hosts: list[HostGame] = []
    seats: dict = {}
    keeper: dict = {}

    def factory(table):
        hosts.append(HostGame(table))
        return hosts[-1]

    def renamed(r):
        return dataclasses.replace(r, players=tuple(dataclasses.replace(p, name=lies.get(p.seat, p.name))
                                                    for p in r.players))

    async def played(port, name):
        try:
            await _remote_seat(port, name, seats)
        except Exception as exc:  # noqa: BLE001 - (none expected: nothing signed is wrong)
            seats[name]["error"] = exc

    with ScoreStore.open(tmp_path / "scores.db") as store:
        async def main():
            async with live_table(cfg, game_factory=factory, local_seat=run_local_seat(None)) as table:
                _lying_roster(table, renamed)
                with trio.fail_after(120):
                    async with trio.open_nursery() as n:
                        n.start_soon(_keeper, table.port, store, keeper)
                        while not table.observers:
                            await trio.sleep(0.01)
                        for name in ("p0", "p1"):
                            n.start_soon(played, table.port, name)
                            await trio.sleep(0.1)

        trio.run(main)
        assert "error" not in keeper, keeper.get("error")
        assert keeper["recorder"].rounds >= 1 and keeper["recorder"].overs == 1, keeper["lines"]
        signed = list(hosts[0].host.match.start.names)
        assert signed == ["p0", "p1"], signed
        stored = [n for (n,) in store.conn.execute("SELECT name FROM match_seats ORDER BY seat")]
        assert stored == signed, stored
        (view,) = history(store)
        assert view.names == signed, view.names
        shown = str(board(store, "1"))
        assert "Mallory" not in shown, shown
        kept = {n for (n,) in store.conn.execute("SELECT name FROM player_names")}
        assert kept == {"p0", "p1"}, kept


# ---------------------------------------------------------------------------- 2. teams


def test_a_lobby_shows_partners_by_seat_parity_whatever_the_roster_says():
    """A partners table of four whose roster puts seats 0 and 1 together (and 2 and 3): the
    match scores seats 0 & 2 against 1 & 3, and that is what every lobby shows."""
    rules = make_rules("official", [], teams=True)
    cfg = config(4, rules=rules, teams=True, dealer_only=True)
    lobbies = []

    def wrong_partners(r):
        return dataclasses.replace(r, players=tuple(dataclasses.replace(p, team=(p.seat // 2) % 2)
                                                    for p in r.players))

    async def main():
        async with live_table(cfg) as table:
            _lying_roster(table, wrong_partners)
            with trio.fail_after(30):
                sides = []
                links = []
                for name in ("p0", "p1", "p2", "p3"):
                    ident = P.Identity.generate()
                    link = await N.connect("127.0.0.1", table.port, ident, name=name, timeouts=N.Timeouts(idle=3.0))
                    links.append(link)
                    sides.append(SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity,
                                          game_factory=SeatGame))
                    while table.book.taken < len(sides):
                        await trio.sleep(0.01)
                # the last roster (every seat taken), as each seat reads it
                for link, side in zip(links, sides):
                    while side.roster is None or len(side.roster.players) < 4:
                        side.receive(await link.receive())
                    lobbies.append(side.lobby())
                for link in links:
                    await link.aclose()

    trio.run(main)
    for lobby in lobbies:
        # (the host did lie: its roster's entries pair 0 with 1)
        assert [s.team for s in sorted(lobby.seats, key=lambda s: s.seat)] == [0, 1, 0, 1], lobby.seats


# ---------------------------------------------------------------------------- 3. table id


def test_a_host_naming_another_tables_id_does_not_close_that_tables_open_match(tmp_path):
    """Table B's match is open in the file (its scorekeeper went away after a round: killed, its
    table plays on).  Table A, another host, names B's table id in its roster and plays a match
    to its end with a scorekeeper on the same file.  B's match stays open: A signed none of it."""
    db = tmp_path / "scores.db"
    b_keeper: dict = {}
    a_keeper: dict = {}
    tables: dict = {}

    async def table_b():
        cfg = config(3, rules=make_rules("official", [], target=5000), bots=2, turn_timeout=0.01)
        with ScoreStore.open(db) as store:
            async with live_table(cfg, local_seat=run_local_seat(None), game_factory=HostGame) as table:
                tables["b"] = table.table_id
                with trio.fail_after(60):
                    async with trio.open_nursery() as n:
                        n.start_soon(_keeper, table.port, store, b_keeper)
                        while not table.observers:
                            await trio.sleep(0.01)
                        table.start()
                        while "recorder" not in b_keeper or b_keeper["recorder"].rounds < 1:
                            await trio.sleep(0.01)
                        # the scorekeeper is gone (killed); table B is left in the middle of its match
                        n.cancel_scope.cancel()

    async def table_a():
        cfg = config(3, rules=make_rules("official", [], target=60), bots=2, turn_timeout=0.01, matches=1)
        with ScoreStore.open(db) as store:
            async with live_table(cfg, local_seat=run_local_seat(None), game_factory=HostGame) as table:
                table.table_id = tables["b"]  # its beacons, roster and ledgers name B's table id
                with trio.fail_after(120):
                    async with trio.open_nursery() as n:
                        n.start_soon(_keeper, table.port, store, a_keeper)
                        while not table.observers:
                            await trio.sleep(0.01)
                        table.start()
                        while "ended" not in a_keeper and "error" not in a_keeper:
                            await trio.sleep(0.02)

    trio.run(table_b)
    with ScoreStore.open(db) as store:
        before = store.conn.execute("SELECT id, match_key FROM matches WHERE incomplete IS NULL AND abandoned IS NULL "
                                    "AND winner IS NULL").fetchall()
    assert len(before) == 1, before  # B's match, open
    trio.run(table_a)
    assert "error" not in a_keeper, a_keeper.get("error")
    assert a_keeper["recorder"].overs == 1, a_keeper["lines"]
    assert not [x for x in a_keeper["lines"] if x["t"] == "incomplete"], a_keeper["lines"]
    with ScoreStore.open(db) as store:
        rows = store.conn.execute("SELECT id, match_key, incomplete, abandoned, winner FROM matches ORDER BY id").fetchall()
        hist = history(store)
    assert len(rows) == 2, rows
    b_row, a_row = rows
    assert b_row[:2] == before[0], (b_row, before)
    assert b_row[2] is None and b_row[3] is None and b_row[4] is None, b_row  # B's match: open, as B left it
    assert a_row[4] is not None, a_row  # A's own match: won
    assert not hist[0].incomplete, hist[0]
