"""Issue 22 class 4 over real loopback links: a host that takes a remote seat's co-sign off the
wire must still start the next round with every co-sign relayed or waived, and with the round
history every seat computed itself. Dropped silently, or a forged history: both remote seats
and `unonet audit` of the host's own record convict the host. Waived though the seat is at the
table and sent it: that seat contests the waiver, naming the host."""

from __future__ import annotations

import unonet.protocol as P
from unonet.fair._match import MatchLedger
from unonet.net._game import HostGame
from unonet.table import audit_transcript
from tests.adversaries.helpers import assert_convicted_when_signed

from .test_relay_wire import _against
from .test_withheld import _Unwaiving


class _Swallowing(HostGame):
    """Takes seat 1's co-sign off the wire; its clock then waives it (the honest host's code)."""

    def on_message(self, peer, msg):
        if peer.seat == 1 and getattr(msg, "ev", None) == "round-sign":
            return
        super().on_message(peer, msg)


class _Dropping(_Swallowing):
    """... and starts the next round waiving nothing."""

    def _start_round(self):
        self.host.match.__class__ = _Unwaiving
        try:
            super()._start_round()
        finally:
            self.host.match.__class__ = MatchLedger


class _Forging(HostGame):
    """Starts round 2 with a round history that is not the chain of round 1's digest."""

    def _start_round(self):
        cur = self.host.match.current
        if cur is not None and cur.status == "ended":
            self.host.match.history = bytes(32)
        super()._start_round()


def _both_convict(cls, match: str) -> None:
    games: list = []

    def factory(table):
        games.append(cls(table))
        return games[-1]
    seats = _against(factory, target=2000, turn_timeout=0.05, ready_timeout=0.5)
    for name in ("p0", "p1"):
        err = seats[name].get("error")
        assert err is not None, f"{name} played on: {seats[name].get('result')}"
        assert err.cheat and "the host failed a fair-play check: " in str(err) and match in str(err), f"{name}: {err}"
    (game,) = games
    relayed = [m.event() for m in game.history if isinstance(m, P.Fair)]
    line = [i for i, e in enumerate(relayed, 1) if e.EV == "round-start"][1]
    # the host's own record stops at the lie: it blames nobody until the host signs that round
    assert_convicted_when_signed(game.transcript(), game.host.identity, line=line, match=match,
                                 auditor=audit_transcript)


def test_a_host_that_drops_a_co_sign_on_the_wire_without_a_waiver_is_convicted_by_every_seat():
    _both_convict(_Dropping, "round 2 starts without seat(s) [1]'s co-sign of round 1 and waives none of them")


def test_a_host_that_forges_the_round_history_on_the_wire_is_convicted_by_every_seat():
    _both_convict(_Forging, "round 2 carries the round history 0000000000000000...")


def test_a_host_that_waives_a_connected_seats_co_sign_on_the_wire_is_refused_by_that_seat():
    def victim_erred(seats):
        return any("error" in v and v["side"].seat == 1 for v in seats.values())
    seats = _against(_Swallowing, stop=victim_erred, target=2000, turn_timeout=0.05, ready_timeout=0.5)
    victim = next(v for v in seats.values() if v["side"].seat == 1)
    other = next(v for v in seats.values() if v["side"].seat == 0)
    err = victim["error"]
    assert err.cheat and "the host starts round 2 waiving seat 1's co-sign of round 1, which seat 1 sent" in str(err), err
    assert "error" not in other, other["error"]  # the other seat cannot tell: it plays on


# ------------------------------------------------------------- honest: nobody is accused
def test_a_seat_killed_as_a_round_ends_is_waived_comes_back_and_nobody_is_accused():
    """Seat 1's process dies as round 1 ends, before its co-sign leaves: the host's co-sign
    clock runs out, the seat comes back with its key, co-signs from the replay (or reads the
    waiver in it), and the match ends with no cheat reported by anyone; the host's record
    audits clean."""
    import functools

    import trio

    from unonet.engine import make_rules
    from unonet.net._game import SeatGame, run_local_seat
    from unonet.table._host import Owed

    from tests.net.net_helpers import run
    from tests.net.session_helpers import config, live_table
    from tests.net.session_helpers import recording_games
    from tests.net.test_rejoin import _seat, doomed_seat

    class Dying(SeatGame):
        """A seat whose process dies the moment round 1 ends: it never co-signs it."""

        def _owed(self):
            return [e for e in super()._owed() if e.EV != "round-sign"]

    # (to 500: a first round that scores the match's target ends it before the seat can come back)
    cfg = config(3, rules=make_rules("official", [], target=500), bots=1, autostart=True, hold_seats=30.0)
    hosts, factory = recording_games()
    ident = P.Identity.generate()
    result: dict = {}

    async def main():
        async with live_table(cfg, game_factory=factory, local_seat=run_local_seat(None)) as table:
            with trio.fail_after(240):
                async with trio.open_nursery() as n:
                    killed = doomed_seat(n, table.port, ident, "comeback", [], game_factory=Dying)
                    while not (hosts and Owed(1, "round-sign") in hosts[-1].host.owed()):
                        await trio.sleep(0.005)
                    killed.cancel()  # gone before its co-sign: its link closes without a word
                    while Owed(1, "round-sign") in hosts[-1].host.owed():
                        await trio.sleep(0.005)  # the co-sign clock of a dropped seat runs out
                    n.start_soon(functools.partial(_seat, table.port, ident, "comeback", [], result=result))
                    while table.result is None:
                        await trio.sleep(0.05)
            return table.result, list(table.events)

    final, events = run(main)
    assert result["over"] == final
    assert not any(e.data.get("cheat") for e in events), [e.text for e in events]
    (game,) = hosts
    report = audit_transcript(game.transcript())
    # seat 1's co-sign of round 1 came late from the replay's end (taken) or was waived
    assert report.ok and report.unsigned == () and report.waived in ((), ("round 1: seats [1]",)), report.summary
