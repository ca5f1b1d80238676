"""A link that drops BETWEEN matches (gap12, a tmux evening on the LAN rig): the player's
client went back to nobody ("the link to the host was lost between matches ...: no next
match here") while the host dealt the next match without them and refused their new join
("the table is full (the match has started: no seat is free)").  As mid-match (spec §7
rejoin) the client tries the host again for OUTAGE_LIMIT, and the host holds the person's
seat (their key) for --hold-seats: the seat is theirs at the next match."""

from __future__ import annotations

import contextlib

import trio

import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._election import OUTAGE_LIMIT, play_with_elections
from unonet.net._game import HostGame, SeatGame, bot_step, run_local_seat, scripted_feed
from unonet.net._join import JoinFailed, connect_table, play_seat
from unonet.net._seat import SeatSide
from unonet.net._serve import listener_port, open_listeners

from .net_helpers import run
from .session_helpers import config, live_table
from .test_rejoin import CuttableRelay

OUTAGE = 15.0  # the link is down this long after match 1's result (the rig's evening: ~15-20 s)


class DownRelay(CuttableRelay):
    """A `CuttableRelay` whose network can be down: a connection made meanwhile is closed at
    once (nothing reaches the host), as a laptop whose wifi dropped sees it."""

    down = False

    async def serve(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        try:
            await super().serve(task_status=task_status)
        except* trio.ClosedResourceError:
            pass  # (`gone`: its listener closed)

    async def gone(self) -> None:
        """The host's process is gone: its links end and its port refuses connections."""
        self.cut()
        await self.listener.aclose()

    async def _pair(self, left) -> None:
        if self.down:
            await left.aclose()
            return
        try:
            await super()._pair(left)
        except OSError:  # the host's table has closed: nothing listens behind the relay
            await left.aclose()


class MatchesJoiner:
    """A `join --bot --matches N` in this process (test_election's `Joiner`, for N matches)."""

    def __init__(self, name: str, matches: int) -> None:
        self.name, self.identity, self.matches = name, P.Identity.generate(), matches
        self.out: list[dict] = []
        self.result = None
        self.error: BaseException | None = None
        self.done = trio.Event()
        self.leave = trio.Event()  # set: the player quits (q, confirmed)

    async def run(self, port: int) -> None:
        listeners = await open_listeners(0, "127.0.0.1")
        link = await connect_table("127.0.0.1", port, self.identity, name=self.name,
                                   listen=listener_port(listeners))
        side = SeatSide(name=self.name, identity=self.identity, host_public=link.peer_fair_identity,
                        game_factory=SeatGame, bot=True)

        async def play(lk, sd):
            return await play_seat(lk, sd, bot_step=bot_step, on_feed=scripted_feed(self.out.append),
                                   matches=self.matches, leave=self.leave)

        try:
            self.result = await play_with_elections(link, side, identity=self.identity, listeners=listeners,
                                                    play=play, game_factory=SeatGame, emit=self.out.append,
                                                    matches=self.matches)
        except JoinFailed as exc:
            self.error = exc
        finally:
            self.done.set()

    def seen(self, kind: str) -> list[dict]:
        return [x for x in self.out if x.get("t") == kind]


def _kim_seated(table) -> bool:
    return any(s is not None and s.name == "Kim" and s.connected for s in table.book.seats)


@contextlib.asynccontextmanager
async def _kim_after_match_one(relayed: bool = False):
    """A table of three (the host's bot seat, one ``--bots`` bot, "Kim" joined directly or
    through a `DownRelay`) whose operator starts each match with its key, two matches: yields
    ``(kim, table, relay, seat Kim had)`` once Kim has read match 1's result."""
    rules = make_rules("official", [], target=30)
    cfg = config(3, rules=rules, bots=1, matches=2, hold_seats=60.0)
    kim = MatchesJoiner("Kim", 2)
    async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
        async with trio.open_nursery() as n:
            relay = DownRelay(table.port) if relayed else None
            n.start_soon(kim.run, await n.start(relay.serve) if relay is not None else table.port)
            while not _kim_seated(table):
                await trio.sleep(0.01)
            table.start()
            while not kim.seen("match-over"):
                await trio.sleep(0.01)
            yield kim, table, relay, next(s.seat for s in table.book.seats if s is not None and s.name == "Kim")
            n.cancel_scope.cancel()


async def _drop_after_match_one(press_start: bool):
    """`_kim_after_match_one` with Kim behind a relay; Kim's network goes
    down right after match 1's result and comes back `OUTAGE` s later.  ``press_start``: the
    operator presses start for match 2 while Kim is away (as the tmux host did); else once
    Kim is back.  Returns (kim, table, seat Kim had in match 1)."""
    with trio.fail_after(600):
        async with _kim_after_match_one(relayed=True) as (kim, table, relay, seat):
            relay.down = True
            relay.cut()
            while _kim_seated(table):
                await trio.sleep(0.01)  # the host saw the link end
            if press_start:
                table.start()
            await trio.sleep(OUTAGE)
            relay.down = False
            if not press_start:
                with trio.move_on_after(OUTAGE_LIMIT):
                    while not _kim_seated(table) and not kim.done.is_set():
                        await trio.sleep(0.01)
                table.start()
            with trio.move_on_after(300):
                await kim.done.wait()
    return kim, table, seat


def _kim_played_both(kim: MatchesJoiner, table, seat: int) -> None:
    assert kim.error is None, kim.error
    assert not kim.seen("host-gone"), kim.seen("host-gone")
    assert kim.seen("link-lost") and kim.seen("reconnected"), kim.out[-10:]  # back to its host by itself
    assert table.matches_played == 2, [e.text for e in table.events][-10:]
    started = [e for e in table.events if e.kind == "started"]
    assert len(started) == 2
    kims = [(s, k) for s, name, k in started[1].data["seats"] if name == "Kim"]
    assert kims == [(seat, "remote")], started[1].data["seats"]  # its own seat, played by Kim
    assert kim.result == table.result  # match 2's end, read at Kim's seat


def test_a_link_down_for_a_while_after_a_match_comes_back_for_the_next_one():
    kim, table, seat = run(_drop_after_match_one, False, autojump=True)
    _kim_played_both(kim, table, seat)


def test_the_host_holds_the_seat_of_a_player_away_between_matches_when_its_operator_starts():
    kim, table, seat = run(_drop_after_match_one, True, autojump=True)
    _kim_played_both(kim, table, seat)
    held = [e.text for e in table.events if "held" in e.text]
    assert held, [e.text for e in table.events][-12:]


def test_a_player_who_quits_between_matches_is_not_brought_back_and_its_seat_is_not_held():
    async def main():
        with trio.fail_after(120):
            async with _kim_after_match_one() as (kim, table, _, _):
                kim.leave.set()   # q, confirmed
                await kim.done.wait()
                while any(s is not None and s.name == "Kim" for s in table.book.seats):
                    await trio.sleep(0.01)  # its seat is free at once (no hold)
        return kim, table

    kim, table = run(main, autojump=True)
    assert kim.error is None, kim.error
    assert not kim.seen("link-lost") and not kim.seen("reconnected"), kim.out[-6:]
    assert not [e.text for e in table.events if e.data.get("held")]


def test_between_matches_a_second_link_with_a_seats_key_replaces_the_first():
    """The rig's drop is silent (no FIN): the player's client gives up on the host (10 s) and
    comes back before the host has given up on the old link.  Between matches the new link
    with the seat's key replaces the old one and gets the same seat (before: refused
    "this key already holds seat 1 at this table", and the client took that refusal as final)."""
    import unonet.net as N
    from unonet.net._join import take_seat

    async def main():
        with trio.fail_after(120):
            async with _kim_after_match_one() as (kim, table, _, seat):
                link = await N.connect("127.0.0.1", table.port, kim.identity, name="Kim",
                                       timeouts=N.Timeouts(idle=5.0))
                side = SeatSide(name="Kim", identity=kim.identity, host_public=link.peer_fair_identity,
                                game_factory=SeatGame, bot=True)
                await take_seat(link, side, 5.0)
                await link.aclose()
        return side.seat, seat

    got, had = run(main, autojump=True)
    assert got == had


def test_a_host_whose_port_refuses_between_matches_is_given_up_at_once():
    """The host's process is gone between matches (its port refuses connections: nothing
    listens there): the player is told there is no next match at once, not after the 30 s of
    tries a lost link gets (gap12 left that wait)."""
    async def main():
        with trio.fail_after(600):
            async with _kim_after_match_one(relayed=True) as (kim, table, relay, _):
                await relay.gone()
                t0 = trio.current_time()
                await kim.done.wait()
                return kim, trio.current_time() - t0

    kim, took = run(main, autojump=True)
    assert kim.error is None, kim.error
    assert kim.seen("link-lost") and kim.seen("host-gone"), kim.out[-6:]
    assert took < OUTAGE_LIMIT / 2, took
