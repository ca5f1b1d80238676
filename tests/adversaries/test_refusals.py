"""A host that refuses a seat's legal act, over real loopback links (spec §4.6, §6.3).

A refusal (`error`, non-fatal) is the host's word alone: nobody else sees it, the act it refuses
is never published. A host that answered a seat's legal play "stale: too late" each time (the
code a lost reaction race gets, and the seat's screen shows it as news, "Too late: the table
moved on"), until the turn clock ran out, turned that seat's winning turn into the default move
(a draw) with every record in order: the others and the audit saw an ordinary timeout, and the
seat took each refusal and tried again. The seat knows better: an honest host answers an act
before anything that came in after it, so when the refusal reaches the seat, the seat's own
engine copy is at the moment the host refused it; the rules allowing the act then (the seat's
turn, its number, a live round, no challenge) is proof the host refused a legal move. The seat
refuses the refusal, naming the host. A refusal names what it refuses (`error.refuses`, the
SHA-256 of the refused `fair` body), so one of another message of the seat's (a late co-sign)
is never taken for its act's; an older host's unnamed refusal of an act the rules allow is
taken as a refusal of something else (the act stays on its way, and the seat's watch judges
the host's answer: tests/adversaries/test_host_clock.py).

Class 8: an honest host's refusals (a race lost, a late reaction) are never refused back:
tests/net/test_session_match.py's catch races and test_host_clock.py play on to the end. And a
seat whose reader was kept from the link (a full screen feed; its process held up) reads a
backlog late and may send a word its host's clock already gave up on: it does not contest the
timeout, abort or waiver that follows (spec §5 step 6: no check of the host spans a moment the
seat itself was held up); before, it accused the honest host of withholding its co-sign."""

from __future__ import annotations

import functools
import hashlib

import pytest
import trio

import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._game import HostGame, bot_step

from tests.adversaries.test_host_clock import _recording, _table, _victim, _victim_erred


def _refusal(msg, code: str, reason: str, *, named: bool) -> P.ErrorReport:
    """The refusal an honest host sends for `msg` (named: with `refuses`, as a host of this
    version; unnamed: as an older host)."""
    kw = {"refuses": hashlib.sha256(msg.body).digest()} if named else {}
    return P.ErrorReport(code=code, message=reason, ref="fair", fatal=False, **kw)


class _FalseStale(HostGame):
    """Refuses every play of seat 1 as a lost race ("stale: too late"), signed words and all
    (the act is checked and valid); its clock then times the turn out: the seat draws."""

    named = True

    def on_message(self, peer, msg):
        if peer.seat == 1 and getattr(msg, "ev", None) == "act" and msg.event().action.get("t") == "play":
            self.refused = getattr(self, "refused", 0) + 1
            self.table.send(peer, _refusal(msg, "stale", "too late: the table moved on", named=self.named))
            return
        super().on_message(peer, msg)


class _FalseStaleUnnamed(_FalseStale):
    named = False


def _paced(side):
    side.bot_pace = 1.0  # (a person's pace: a try a second)
    return bot_step(side)


def _done(seats, table, games):
    return _victim_erred(seats, table) or any(
        getattr(g, "refused", 0) and any(getattr(m, "ev", None) == "host-act" and m.event().seat == 1
                                          for m in g.history) for g in games)


@pytest.mark.parametrize("cls", [_FalseStale, _FalseStaleUnnamed], ids=["named", "unnamed"])
def test_a_host_that_refuses_a_legal_play_as_stale_until_the_clock_runs_out_is_refused_by_that_seat(cls):
    seats: dict = {}
    games: list = []
    _table(_recording(cls, games), seats, steps={0: _paced, 1: _paced},
           until=lambda s, t: _done(s, t, games), turn_timeout=30.0, autojump=True, limit=100_000,
           rules=make_rules("official", [], target=500))
    (game,) = games
    assert getattr(game, "refused", 0) >= 1, "seat 1 never played"
    victim = _victim(seats)
    err = victim.get("error")
    assert err is not None, "seat 1 took the false refusals and was timed out: " + repr(
        [v for v in victim["feed"] if type(v).__name__ in ("Refused", "Notice")][-4:])
    text = str(err)
    assert err.cheat and text.startswith("the host failed a fair-play check: the host refused seat 1's act "), text
    assert "(stale: too late: the table moved on), but the rules allow it now" in text, text
    # nobody else accused anyone: the host's timeout never came
    assert not any(getattr(m, "ev", None) == "host-act" and m.event().seat == 1 for m in game.history)


# ------------------------------------------ class 8: a seat that reads a backlog late
async def _late_reader(port: int, name: str, out: dict, *, freeze: float) -> None:
    """A remote seat (its bot plays) whose reader is kept from the link for ``freeze`` s from
    the first round-end on (a full screen feed, a process held up): the host's messages wait
    in order, only its heartbeats get through (the seat's own keep it at the table), and the
    backlog is then read at once, the driver marking the seat held up as its reader does when
    it comes back late (`_join.reader`, `SeatSide.held_up`)."""
    import unonet.net as N
    from unonet.net._game import SeatGame
    from unonet.net._join import play_seat
    from unonet.net._seat import SeatSide

    ident = P.Identity.generate()
    link = await N.connect("127.0.0.1", port, ident, name=name, timeouts=N.Timeouts(idle=5.0))
    side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame)
    feed: list = []
    out[name] = {"side": side, "feed": feed}
    real = link.receive
    send, recv = trio.open_memory_channel(10_000)
    held: list = []
    state = {"until": None}

    async def pump():
        while True:
            try:
                msg = await real()
            except Exception as exc:  # noqa: BLE001 - handed to the reader, in order
                await send.send(exc)
                return
            await send.send(msg)

    async def receive():
        while True:
            if held and (state["until"] == -1 or trio.current_time() >= state["until"]):
                if state["until"] != -1:
                    state["until"] = -1
                    side.held_up(trio.current_time())  # (the reader comes back late)
                item = held.pop(0)
            else:
                item = None
                with trio.move_on_after(0.05):
                    item = await recv.receive()
                if item is None:
                    continue
                if state["until"] is None and getattr(item, "ev", None) == "round-end":
                    state["until"] = trio.current_time() + freeze
                if state["until"] not in (None, -1) and not isinstance(item, P.Heartbeat):
                    held.append(item)
                    continue
            if isinstance(item, Exception):
                raise item
            return item

    link.receive = receive
    async with trio.open_nursery() as n:
        n.start_soon(pump)
        try:
            out[name]["result"] = await play_seat(link, side, bot_step=bot_step, on_feed=feed.append)
        except Exception as exc:  # noqa: BLE001 - what the test looks at
            out[name]["error"] = exc
        n.cancel_scope.cancel()


def test_a_seat_that_reads_a_backlog_late_does_not_contest_the_honest_waiver_of_its_co_sign():
    """p1's reader is away 33 s as round 1 ends (a full screen feed; its heartbeats go on):
    the host's co-sign clock (30 s) and its wait for the seat's ready run out, and it starts
    round 2 waiving p1's co-sign, as an honest host does. p1, reading the backlog,
    co-signs round 1 (it owed it) and then reads the round-start that waives it: it sent its
    co-sign, but after the host's clock ran out, by its own doing. It does not accuse the host
    (before: 'the host starts round 2 waiving seat 1's co-sign of round 1, which seat 1 sent (it
    withheld it ...)'), and plays on."""
    from tests.net.net_helpers import run
    from tests.net.session_helpers import config, live_table
    from unonet.net._game import run_local_seat

    seats: dict = {}
    games: list = []

    async def main():
        async with live_table(config(2, rules=make_rules("official", [], target=500), dealer_only=True,
                                     autostart=True), game_factory=_recording(HostGame, games),
                              local_seat=run_local_seat(None)) as table:
            with trio.fail_after(10_000):
                async with trio.open_nursery() as n:
                    n.start_soon(functools.partial(_late_reader, table.port, "p0", seats, freeze=0.0))
                    n.start_soon(functools.partial(_late_reader, table.port, "p1", seats, freeze=33.0))
                    while not (any("error" in v or "result" in v for v in seats.values())
                               or (games and games[-1].host.round_no >= 3)):
                        await trio.sleep(0.5)
                    n.cancel_scope.cancel()

    run(main, autojump=True)
    (game,) = games
    late = seats["p1"]["side"].seat
    waived = [m.event() for m in game.history if getattr(m, "ev", None) == "round-start"
              and late in (m.event().waived or ())]
    assert waived, f"the host never waived seat {late}'s co-sign (the reader was not late enough)"
    for name, v in seats.items():
        assert "error" not in v, f"{name}: {v['error']}"
