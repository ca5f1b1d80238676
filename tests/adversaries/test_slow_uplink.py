"""A seat's own slow uplink must not make it accuse its honest host (issue 22 class 8, frame14).

A seat contests a host's timeout of a word it sent -- an abort naming it after it sent its seed
message, a `challenge-timeout` after its answer, a `verdict-timeout` after its verdict, a waiver
of its co-sign -- because only it knows it spoke.  But "sent" is not "arrived": a laptop uploading
something big over a slow line (bufferbloat) delivers everything it sends, heartbeats included,
seconds late, while the host's messages keep coming in.  The host's clock for the word runs out
with the word still on its way, the host honestly names the seat a staller, and the seat, which
sent the word, used to refuse the abort naming the host ("... but seat 1 sent its seed
commitment: the host withheld it"): an honest host convicted for the seat's own network, the case
`test_an_act_its_own_uplink_held_back_does_not_make_the_seat_accuse_its_honest_host` fixed for
acts.  Now the seat contests only what the host's heartbeat said it had (`took`, spec §5 step 5)
before the timeout, or a timeout that came before the host's clock could have run out.  Over real
loopback links, in virtual time."""

from __future__ import annotations

import functools
import math

import trio

from unonet.engine import make_rules
from unonet.net._game import HostGame, bot_step, run_local_seat

from tests.adversaries.test_host_clock import _recording, _seat, _table, _victim_erred
from tests.net.session_helpers import config, live_table
from tests.net.net_helpers import run, serve_relay


class _SlowUplink:
    """A relay on loopback between seat 1 and the host whose seat-to-host direction delivers
    every byte ``lag`` seconds after it was sent, in order (a bloated uplink queue: nothing is
    lost, the link never goes quiet for long, everything arrives late), from ``since`` on."""

    def __init__(self, target: int, most: float) -> None:
        self.target, self.most, self.since = target, most, None

    @property
    def lag(self) -> float:
        """The queue builds up at half the line's pace from ``since`` (the host hears the seat
        every 1.5 s meanwhile: never the 10 s of silence after which it drops a link)."""
        return 0.0 if self.since is None else min(self.most, (trio.current_time() - self.since) / 2)

    async def serve(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        await serve_relay(self.target, self._lagging, task_status=task_status)

    async def _lagging(self, a, b) -> None:
        send, recv = trio.open_memory_channel(math.inf)

        async def read():
            try:
                while True:
                    data = await a.receive_some(65536)
                    send.send_nowait((trio.current_time() + self.lag, data))
                    if not data:
                        return
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                send.send_nowait((trio.current_time(), b""))

        async with trio.open_nursery() as n:
            n.start_soon(read)
            try:
                async for due, data in recv:
                    await trio.sleep_until(due)
                    if not data:
                        await b.send_eof()
                        return
                    await b.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
            n.cancel_scope.cancel()


def test_a_seed_message_its_own_slow_uplink_delivers_late_does_not_make_the_seat_accuse_its_honest_host():
    """From seat 1's first move on, its uplink queue builds up to 10.5 s (its acts, co-sign and
    ready still in time: the turn and co-sign clocks are 30 s).  Its next round's commitment
    reaches the host after the 10 s seed clock: the host aborts naming seat 1 and drops it (a
    staller, dealt absent).  The seat must not call that abort the host's cheat."""
    seats: dict = {}
    hosts: list = []
    up: list = []

    def lagging(side):
        v = bot_step(side)
        if v is not None and up[0].since is None:
            up[0].since = trio.current_time()  # (from its first move on: 10.5 s late 21 s later)
        return v

    async def main():
        async with live_table(config(2, rules=make_rules("official", [], target=500), dealer_only=True,
                                     autostart=True, turn_timeout=30.0),
                              game_factory=_recording(HostGame, hosts), local_seat=run_local_seat(None)) as table:
            with trio.fail_after(100_000):
                async with trio.open_nursery() as n:
                    n.start_soon(functools.partial(_seat, table.port, "p0", seats, pace=2.0))
                    while table.book.taken < 1:  # (p0 takes seat 0)
                        await trio.sleep(0.1)
                    up.append(_SlowUplink(table.port, 10.5))
                    port = await n.start(up[0].serve)
                    n.start_soon(functools.partial(_seat, port, "p1", seats, step=lagging, pace=2.0))
                    while not (any("error" in v or "result" in v for v in seats.values())
                               or any("aborted" in e.text for e in table.events)):
                        await trio.sleep(1.0)
                    # (the abort and the drop that follows it: read by the seat, then the test ends)
                    await trio.sleep(30.0)
                    n.cancel_scope.cancel()
            return table

    table = run(main, autojump=True)
    assert up[0].since is not None, ("seat 1 never moved: the premise did not happen", seats, [e.text for e in table.events])
    aborts = [e.text for e in table.events if "aborted" in e.text]
    assert aborts and "stalled: seats [1]" in aborts[0], [e.text for e in table.events]
    victim = next(v for v in seats.values() if v["side"].seat == 1)
    err = victim.get("error")
    assert err is None or not err.cheat, err
    assert not any(e.data.get("cheat") for e in table.events), [e.text for e in table.events]


class _PatientWithholding(HostGame):
    """Takes seat 1's first seed reveal (now it could know the deck), withholds it, and lets its
    seed clock run out: the abort, 10 s on, names seat 1 as the staller.  Its heartbeats say
    truly that it had the reveal (`took`)."""

    def on_message(self, peer, msg):
        if peer.seat == 1 and getattr(msg, "ev", None) == "player-reveal" and not getattr(self, "kept", None):
            self.kept = msg
            return
        super().on_message(peer, msg)


def test_a_host_that_withholds_a_reveal_it_said_it_had_until_its_clock_runs_out_is_still_refused():
    """The seat waits for the host's word that it had the reveal before it contests an abort
    that comes as late as the host's clock; a host that said so, then aborted, is refused."""
    seats: dict = {}
    games: list = []
    _table(_recording(_PatientWithholding, games), seats, steps={}, until=_victim_erred, autojump=True,
           limit=10_000, turn_timeout=30.0)
    assert games and games[-1].kept is not None
    err = next(v for v in seats.values() if v["side"].seat == 1)["error"]
    assert err.cheat and "the host aborts round 1 (attempt 1) naming seat 1 as stalling, but seat 1 sent its " \
                         "seed reveal: the host withheld it" in str(err), err
