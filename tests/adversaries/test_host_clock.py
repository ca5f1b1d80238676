"""Issue 22 class 3 over real loopback links: what only the seat can see of its host's timing.

A host that calls a present seat's turn "timed out" before the table's clock could have run
out (the act itself is the honest default move: the lie is the moment), or that sits on the
seat's signed act (a UNO call) while it relays later actions (the catch), is refused by that
seat, naming the host (`unonet/net/_host_watch.py`). Class 8: an honest host whose clock really
ran out — with `--turn-timeout`, with no clock (`STALL_GUARD`), after the seat came back and
read the replay — is never refused. In virtual time (trio's autojump clock) where the test
waits out a clock."""

from __future__ import annotations

import dataclasses
import functools

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import CallUno, Catch, Play, make_rules
from unonet.net import _game
from unonet.net._game import HostGame, SeatGame, bot_step, run_local_seat
from unonet.net._host_watch import NET_GRACE, clock_floor
from unonet.net._join import play_seat
from unonet.net._seat import SeatSide

from tests.net.net_helpers import relay_pump, run, serve_relay
from tests.net.session_helpers import config, live_table


async def _seat(port: int, name: str, out: dict, *, step=bot_step, ident=None, pace: float = 0.0,
                cancel: trio.CancelScope | None = None) -> None:
    """A remote seat over loopback (``step``: its bot, None: it never acts); what it ended with
    goes to ``out[name]``."""
    ident = ident or P.Identity.generate()
    link = await N.connect("127.0.0.1", port, ident, name=name, timeouts=N.Timeouts(idle=5.0))
    side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame)
    side.bot_pace = pace
    feed: list = []
    out[name] = {"side": side, "feed": feed}
    try:
        with cancel or trio.CancelScope():
            out[name]["result"] = await play_seat(link, side, bot_step=step, on_feed=feed.append)
    except Exception as exc:  # noqa: BLE001 - the JoinFailed is what the test looks at
        out[name]["error"] = exc


def _recording(cls, games: list):
    """A host-game factory that keeps each game it makes (the host's truth, for the checks)."""
    def factory(table):
        games.append(cls(table))
        return games[-1]
    return factory


def _victim(seats: dict) -> dict:
    return next(v for v in seats.values() if v["side"].seat == 1)


def _by_seat(steps: dict):
    """A seat's step by the seat it was given (``steps``: seat -> step, None: never acts)."""
    def step(side):
        one = steps.get(side.seat, bot_step)
        return one(side) if one is not None else None
    return step


def _table(factory, seats: dict, *, steps: dict, until, autojump: bool = False, limit: float = 60, **cfg):
    """Two remote seats (p0, p1; ``steps``: seat -> its step) against the host ``factory``
    makes (a dealer-only host) until ``until(seats, table)`` holds; returns the host's table."""
    rules = cfg.pop("rules", None) or make_rules("official", [], target=60)
    kept: dict = {}

    async def main():
        async with live_table(config(2, rules=rules, dealer_only=True, autostart=True, **cfg), game_factory=factory,
                              local_seat=run_local_seat(None)) as table:
            kept["table"] = table
            with trio.fail_after(limit):
                async with trio.open_nursery() as n:
                    for name in ("p0", "p1"):
                        n.start_soon(functools.partial(_seat, table.port, name, seats, step=_by_seat(steps)))
                    while not until(seats, table):
                        await trio.sleep(1.0 if autojump else 0.02)  # (virtual time: a turn is 30 s)
                    n.cancel_scope.cancel()

    run(main, autojump=autojump)
    return kept["table"]


def _victim_erred(seats, table) -> bool:
    return any("error" in v and v["side"].seat == 1 for v in seats.values())


# ------------------------------------------------------------------ an early timeout
class _EarlyTimeout(HostGame):
    """Times seat 1's turn out the moment it begins (the honest default move, sent at once)."""

    def _plan_deadline(self, restart=True):
        rnd = self.host.round
        if rnd is not None and not rnd.over and rnd.phase.value == "play" and rnd.turn == 1 \
                and not getattr(self, "cut", False) and self.host.dealer.ledger.phase.value == "live":
            self.cut = True
            self._relay(self.host.timeout(1, "act"))
            return
        super()._plan_deadline(restart)


def test_a_host_that_times_out_a_present_seats_turn_at_once_is_refused_by_that_seat():
    seats: dict = {}
    _table(_EarlyTimeout, seats, steps={1: None}, until=_victim_erred, turn_timeout=30.0, autojump=True,
           limit=10_000)
    err = _victim(seats)["error"]
    assert err.cheat, err
    text = str(err)
    assert text.startswith("the host failed a fair-play check: the host times seat 1's turn out "), text
    assert "the table's turn clock is 30 s" in text and f"refused under {clock_floor(30.0):.1f} s" in text, text


# ------------------------------------------------------------ a swallowed UNO call
class _Swallowing(HostGame):
    """Takes seat 1's UNO call off the wire: neither relayed nor refused (so the catch that
    follows costs seat 1 two cards); everything else as an honest host."""

    def on_message(self, peer, msg):
        if peer.seat == 1 and getattr(msg, "ev", None) == "act" and msg.event().action.get("t") == "calluno":
            self.swallowed = msg
            return
        super().on_message(peer, msg)


def _late_caller(side):
    """Plays like the seat's bot but never calls UNO with the play; calls it right after."""
    game = side.game
    rnd = game.view() if game is not None else None
    me = side.seat
    if rnd is not None and not rnd.over and not game.recovering and game._last_act is None \
            and rnd.catchable == me and CallUno(me) in rnd.legal_actions(me) \
            and getattr(game, "_called_at", None) != game.records:
        game._called_at = game.records
        return CallUno(me)
    v = bot_step(side)
    return dataclasses.replace(v, uno=False) if isinstance(v, Play) and v.uno else v


def _catcher(side):
    """Catches whoever it can, at once; else its bot."""
    game = side.game
    rnd = game.view() if game is not None else None
    me = side.seat
    if rnd is not None and not rnd.over and game._last_act is None and rnd.catchable not in (None, me) \
            and rnd.can_catch(me) is not None:
        return Catch(me, rnd.catchable)
    return bot_step(side)


def test_a_host_that_swallows_a_uno_call_and_lets_it_be_caught_is_refused_by_the_caller():
    seats: dict = {}
    games: list = []

    factory = _recording(_Swallowing, games)

    def pace(seats, table):  # (a human pace: the catch comes, then the table plays on)
        for v in seats.values():
            v["side"].bot_pace = 0.3
        return _victim_erred(seats, table)

    _table(factory, seats, steps={0: _catcher, 1: _late_caller}, until=pace, turn_timeout=5.0, autojump=True,
           limit=100_000, rules=make_rules("official", [], target=500))  # (the match goes on after the call)
    (game,) = games
    assert getattr(game, "swallowed", None) is not None, "seat 1 never called UNO late"
    err = _victim(seats)["error"]
    text = str(err)
    assert err.cheat and text.startswith("the host failed a fair-play check: the host "), text
    assert f"after seat 1 sent its act {game.swallowed.event().n} (its UNO call), which it neither relayed nor " \
           "refused (its heartbeat said it had it " in text and ": it withheld the seat's act" in text, text


# ------------------------------------------------------ an act left unanswered
class _Sitting(HostGame):
    """Takes seat 1's first act off the wire and says nothing until seat 1's clock runs out."""

    def on_message(self, peer, msg):
        if peer.seat == 1 and getattr(msg, "ev", None) == "act" and getattr(self, "held", None) is None:
            self.held = msg
            return
        super().on_message(peer, msg)


def test_a_seat_whose_act_is_neither_relayed_nor_refused_says_so_and_is_not_frozen():
    """10 s on, the seat says loudly (a non-fatal problem line naming the host's table and key)
    and takes its act back: its bot makes it again, the host relays that one, and the match
    goes on to its end, agreed (nothing was relayed meanwhile: no refusal)."""
    seats: dict = {}
    games: list = []

    factory = _recording(_Sitting, games)

    def over(seats, table):
        return len(seats) == 2 and all(v.keys() & {"result", "error"} for v in seats.values())

    table = _table(factory, seats, steps={}, until=over, turn_timeout=30.0, autojump=True, limit=10_000)
    victim = _victim(seats)
    held = games[0].held.event()
    said = [v for v in victim["feed"] if type(v).__name__ == "TableProblem" and not v.fatal]
    assert len(said) == 1, victim["feed"][-5:]
    assert f"has neither relayed nor refused seat 1's act {held.n} " in said[0].message and \
        "for 10 s: it may be withholding it; the act is taken back" in said[0].message, said[0].message
    assert "the host of 'unonet' (key " in said[0].message, said[0].message
    for name, v in seats.items():
        assert "error" not in v, f"{name}: {v['error']}"
        assert v["result"] == table.result


# ------------------------------------------------------- class 8: honest clocks
def _timeouts(game) -> int:
    """The host acts the host made for seat 1 in this match so far."""
    return sum(1 for m in game.history if getattr(m, "ev", None) == "host-act" and m.event().seat == 1)


@pytest.mark.parametrize("clock", [30.0, None], ids=["turn-timeout", "no-clock-stall-guard"])
def test_an_honest_host_whose_clock_ran_out_is_not_refused(clock):
    """Seat 1 never acts: each turn of it runs out on the host's clock (`--turn-timeout 30`, or
    none given: `STALL_GUARD`), in virtual time, turn after turn, and nobody is accused."""
    seats: dict = {}
    games: list = []

    factory = _recording(HostGame, games)

    def enough(seats, table):
        return any("error" in v for v in seats.values()) or (games and _timeouts(games[-1]) >= 8)

    table = _table(factory, seats, steps={1: None}, until=enough, autojump=True, limit=100_000,
                   turn_timeout=clock, rules=make_rules("official", [], target=500))
    for name, v in seats.items():
        assert "error" not in v, f"{name}: {v['error']}"
    watch = _victim(seats)["side"].game.watch
    assert watch is not None and watch.clock == (clock or _game.STALL_GUARD)
    assert clock_floor(watch.clock) > NET_GRACE  # (the check was on for every one of them)
    stalls = [e for e in table.events if e.data.get("stall") == "stall"]
    assert bool(stalls) == (clock is None)


def test_a_seat_back_from_a_crash_does_not_refuse_the_timeouts_it_reads_in_the_replay():
    """Seat 1 never acts; its turns time out while it is there, its process dies, it comes back
    with the same key and reads them in the replay (not live: never refused), then its turns
    time out again, timed from the replay's start: the match ends agreed, nobody accused."""
    rules = make_rules("official", [], target=500)
    ident = P.Identity.generate()
    seats: dict = {}
    hosts: list = []

    factory = _recording(HostGame, hosts)

    async def main():
        async with live_table(config(2, rules=rules, dealer_only=True, autostart=True, turn_timeout=30.0,
                                     hold_seats=10_000.0),
                              game_factory=factory, local_seat=run_local_seat(None)) as table:
            with trio.fail_after(100_000):
                async with trio.open_nursery() as n:
                    n.start_soon(functools.partial(_seat, table.port, "p0", seats))
                    while table.book.taken < 1:  # (p0 takes seat 0)
                        await trio.sleep(0.1)
                    killed = trio.CancelScope()
                    n.start_soon(functools.partial(_seat, table.port, "p1", seats, step=None, ident=ident,
                                                   cancel=killed))
                    while not (hosts and _timeouts(hosts[-1]) >= 3):
                        await trio.sleep(1)
                    killed.cancel()  # the process is gone: its link closes without a word
                    await trio.sleep(5)
                    first = seats.pop("p1")
                    n.start_soon(functools.partial(_seat, table.port, "p1", seats, step=None, ident=ident))
                    before = _timeouts(hosts[-1])
                    while not seats.get("p1", {}).keys() & {"error", "result"} and _timeouts(hosts[-1]) < before + 6:
                        await trio.sleep(1)
                    n.cancel_scope.cancel()
            return table, first

    table, first = run(main, autojump=True)
    assert "error" not in first, first["error"]
    back = seats["p1"]
    assert "error" not in back and "error" not in seats["p0"], back.get("error") or seats["p0"]["error"]
    assert any(isinstance(v, dict) and v.get("t") == "rejoined" for v in back["feed"])
    assert back["side"].game.watch is not None  # (timed: the turns after the rejoin were checked)
    assert not any(e.data.get("cheat") for e in table.events), [e.text for e in table.events]


# ------------------------------------------------ a trickle that keeps a burst open
class _TrickleTimeout(HostGame):
    """Keeps seat 1's burst of messages open from the match's start (a heartbeat every 50 ms:
    the seat never waits `IDLE_GAP` for a message, so every message seems part of one backlog
    begun at the start), then, once that burst is old, times seat 1's next turn out the
    moment it begins. A seat that measured its turn from the burst's start read the turn as
    begun long ago, and took the early timeout."""

    def begin(self):
        super().begin()
        self.trickle_from = trio.current_time()
        self.table._nursery.start_soon(self._trickle)

    async def _trickle(self):
        seq = [0]

        def beat():  # (in the table's own task: its frames are written at the end of its step)
            peer = next((p for p in self.table.peers if p.seat == 1 and not p.gone), None)
            if peer is not None:
                self.table.send(peer, P.Heartbeat(seq=seq[0] % (1 << 32)))
                seq[0] += 1

        while not self.over:
            self.table._inbox_send.send_nowait(("call", None, beat))
            await trio.sleep(0.05)

    def _plan_deadline(self, restart=True):
        rnd = self.host.round
        if rnd is not None and not rnd.over and rnd.phase.value == "play" and rnd.turn == 1 \
                and not getattr(self, "cut", False) and self.host.dealer.ledger.phase.value == "live" \
                and trio.current_time() - getattr(self, "trickle_from", float("inf")) > 40:
            self.cut = True
            self._relay(self.host.timeout(1, "act"))
            return
        super()._plan_deadline(restart)


def test_a_host_that_trickles_messages_to_keep_a_burst_open_cannot_time_a_turn_out_early():
    seats: dict = {}
    games: list = []
    factory = _recording(_TrickleTimeout, games)

    def done(seats, table):
        return _victim_erred(seats, table) or (games and getattr(games[-1], "cut", False)
                                               and trio.current_time() - games[-1].trickle_from > 60)

    _table(factory, seats, steps={1: None}, until=done, turn_timeout=30.0, autojump=True, limit=10_000,
           rules=make_rules("official", [], target=500))
    assert games and games[-1].cut  # (it did cut a turn of seat 1 short)
    err = _victim(seats).get("error")
    assert err is not None and err.cheat, err
    assert "the host times seat 1's turn out " in str(err) and "the table's turn clock is 30 s" in str(err), err


# ------------------------------------------- class 8: an act the seat's own uplink held back
class _HeldUplink:
    """A relay on loopback between seat 1 and the host whose seat-to-host direction can be held
    (a laptop's Wi-Fi uplink stalling, TCP resending) while the host's messages keep coming."""

    def __init__(self, target: int) -> None:
        self.target, self.hold_until, self.held = target, float("-inf"), 0

    async def serve(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        await serve_relay(self.target, functools.partial(relay_pump, hold=lambda: self.hold_until),
                          task_status=task_status)


def test_an_act_its_own_uplink_held_back_does_not_make_the_seat_accuse_its_honest_host():
    """Seat 1 calls UNO just after its play (out of turn); its uplink then holds the call 8 s,
    heartbeats and all, while the host, which never had it, relays seat 0's move 6 s on.  The
    seat used to refuse that move as the host withholding its act ("the host relays a act 6.0 s
    after seat 1 sent its act ..."): an honest host convicted for the seat's own network.  Now
    the seat accuses only after the host's heartbeat said it had the act (`took`, spec §5 step
    6): nobody is accused, the call is answered once it arrives, the match ends agreed."""
    seats: dict = {}
    hosts: list = []
    factory = _recording(HostGame, hosts)
    up: list = []

    thinking: dict = {}  # the game record seat 0 thinks at -> (its move, since when)

    def slow(side):
        """Seat 0 takes 6 s over its move when seat 1 has one card and has not called UNO, as a
        person may (asked again at each heartbeat; the bot decides once per game record)."""
        if side.game is None:
            return None
        now, key = trio.current_time(), side.game.seen
        if key in thinking:
            v, since = thinking[key]
            return thinking.pop(key)[0] if now - since >= 6.0 else None
        v = bot_step(side)
        if v is None or side.game.view().catchable != 1:
            return v
        thinking[key] = (v, now)
        return None

    def held_caller(side):
        v = _late_caller(side)
        if isinstance(v, CallUno) and up and not up[0].held:
            up[0].held += 1
            up[0].hold_until = trio.current_time() + 8.0  # (the call and what follows it, held)
        return v

    async def main():
        async with live_table(config(2, rules=make_rules("official", [], target=300), dealer_only=True,
                                     autostart=True, turn_timeout=30.0),
                              game_factory=factory, local_seat=run_local_seat(None)) as table:
            with trio.fail_after(100_000):
                async with trio.open_nursery() as n:
                    n.start_soon(functools.partial(_seat, table.port, "p0", seats, step=slow))
                    while table.book.taken < 1:  # (p0 takes seat 0)
                        await trio.sleep(0.1)
                    up.append(_HeldUplink(table.port))
                    port = await n.start(up[0].serve)
                    n.start_soon(functools.partial(_seat, port, "p1", seats, step=held_caller))
                    while not (any("error" in v for v in seats.values())  # (an accusation: at once)
                               or len(seats) == 2 and all("result" in v for v in seats.values())):
                        await trio.sleep(1.0)
                    n.cancel_scope.cancel()
            return table

    table = run(main, autojump=True)
    assert up[0].held, "seat 1 never called UNO late: the premise did not happen"
    assert not {name: v["error"] for name, v in seats.items() if "error" in v}
    assert all(v["result"] == table.result for v in seats.values())
    assert not any(e.data.get("cheat") for e in table.events), [e.text for e in table.events]
