"""A stranger that never stops connecting (redteam16): the held floods of test_strangers.py
and test_hostile.py are opened and then sat on, so the host has taken them all in before an
honest joiner comes.  Here a separate process -- as a machine on the LAN would -- opens
connection after connection from 64 addresses for the whole test, each with half a handshake
frame, so every honest handshake races a backlog of strangers' connections that the host's
accept loop takes in far faster than one round trip.  The handshake bounds (8 an address, 64
in all, the oldest given up) still let an observer and a player in at once, and the match
is played out under the flood.  What the flood puts on the operator's screen is bounded in all,
not only per address: on main it was 5 lines an address every 10 s, 320 lines in 20 s from one
machine holding 64 addresses, which buried any real refusal."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._game import HostGame, run_local_seat
from unonet.net._serve import listener_port

from .net_helpers import run
from .session_helpers import config, live_table

_FLOOD = textwrap.dedent("""
    import collections, socket, sys, time
    port, addresses, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    held, opened, end = collections.deque(), 0, time.monotonic() + seconds
    while time.monotonic() < end:
        for a in range(addresses):
            if time.monotonic() >= end:  # (a listener that accepts nobody: each connect waits 1 s)
                break
            s = socket.socket()
            s.settimeout(1.0)
            try:
                s.bind((f"127.0.{60 + a}.1", 0))
                s.connect(("127.0.0.1", port))
                s.send((32).to_bytes(4, "big") + bytes(10))  # half a handshake frame, then silence
            except OSError:
                s.close()
                continue
            held.append(s)
            opened += 1
            while len(held) > 1000:  # (bounded: the oldest are closed as new ones open)
                held.popleft().close()
    print(opened)
""")


_HOLD = textwrap.dedent("""
    import socket, sys, time
    held = []
    for port in sys.argv[1:]:
        for a in range(20):
            for _ in range(50):
                s = socket.socket()
                s.settimeout(5.0)
                try:
                    s.bind((f"127.0.{140 + a}.1", 0))
                    s.connect(("127.0.0.1", int(port)))
                    s.send((32).to_bytes(4, "big") + bytes(10))
                except OSError:
                    s.close()
                    continue
                held.append(s)
    print(len(held), flush=True)
    time.sleep(600)  # held until the test kills this process
""")


@pytest.mark.slow
def test_a_stranger_connecting_without_pause_from_64_addresses_keeps_nobody_out():
    async def main():
        cfg = config(3, rules=make_rules("official", [], target=100), bots=1, autostart=True, bot_pace=0.01,
                     hold_seats=1.0)
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            flood = subprocess.Popen([sys.executable, "-c", _FLOOD, str(table.port), "64", "20"],
                                     stdout=subprocess.PIPE, text=True)
            try:
                await trio.sleep(2.0)  # the flood under way: the backlog holds strangers' connections
                # each well inside the 10 s handshake limit a lock-out would need to outlast
                with trio.fail_after(8):
                    eye = await N.connect("127.0.0.1", table.port, P.Identity.generate(), name="eye",
                                          role=P.OBSERVER, timeouts=N.Timeouts(idle=30.0))
                    first = await eye.receive()
                with trio.fail_after(8):
                    pat = await N.connect("127.0.0.1", table.port, P.Identity.generate(), name="pat")
                    seat = await pat.receive()
                await pat.aclose()  # (its seat goes to a bot: the table plays on)
                with trio.fail_after(120):
                    while table.result is None:
                        await trio.sleep(0.1)
                await eye.aclose()
            finally:
                opened = await trio.to_thread.run_sync(lambda: flood.communicate(timeout=60)[0])
            refused = [e for e in table.events if e.kind == "refused"]
            return first, seat, table.result, int(opened.strip() or 0), refused

    first, seat, result, opened, refused = run(main)
    assert isinstance(first, P.Roster) and isinstance(seat, P.SeatAssignment) and result is not None
    assert opened > 1000, opened  # a flood, not a trickle
    # named, but never a line a connection: at most 5 an address every 10 s
    by_address: dict = {}
    for e in refused:
        host = e.data.get("address", "").rsplit(":", 1)[0]
        by_address[host] = by_address.get(host, 0) + 1
    assert by_address and max(by_address.values()) <= 5 * 3, by_address
    # ... and 20 lines every 10 s in all (the flood's ~25 s: three windows at most)
    assert len(refused) <= 20 * 3, (len(refused), len(by_address))
    print(f"\n{opened} connections from 64 addresses; {len(refused)} refusal lines; the match played out")


@pytest.mark.slow
def test_refusal_lines_past_the_bound_in_all_are_counted_on_the_next_line_shown():
    """The same flood against a lobby for 14 s: 20 lines in each 10 s in all, and the first line
    of the next window says how many were kept quiet (the operator learns the flood's size)."""
    async def main():
        async with live_table(config(3, dealer_only=True)) as table:
            flood = subprocess.Popen([sys.executable, "-c", _FLOOD, str(table.port), "64", "14"],
                                     stdout=subprocess.PIPE, text=True)
            try:
                while flood.poll() is None:
                    await trio.sleep(0.2)
            finally:
                await trio.to_thread.run_sync(lambda: flood.communicate(timeout=60))
            return [e.text for e in table.events if e.kind == "refused"]

    lines = run(main)
    assert 20 < len(lines) <= 40, len(lines)  # two windows of 20 at most
    told = [t for t in lines if "other refused connections not shown: too many at once" in t]
    assert told and all(t.split(": ", 1)[0].startswith("127.0.") for t in told), told[:2]
    print(f"\n{len(lines)} refusal lines; {told[0].rsplit('(', 1)[1]}")


@pytest.mark.slow
def test_an_election_under_a_strangers_flood_on_every_seats_listener_finishes_the_match():
    """Seats listen for an election (their hello's `listen`), but accept nobody until one: a
    stranger fills each seat's listener with 1,000 held connections from 20 addresses during
    the match (the kernel's backlog holds them), and once the host is killed floods both
    listeners without pause from 64 addresses.  The elected seat's door takes the backlog in
    under the handshake bounds, its followers get in, and the match is finished with one
    result everywhere."""
    import resource

    from .test_election import Joiner, _match_with_joiners

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 8192:
        if hard != resource.RLIM_INFINITY and hard < 8192:
            pytest.skip(f"the held connections need a descriptor limit of 8192 (the hard limit is {hard})")
        resource.setrlimit(resource.RLIMIT_NOFILE, (8192, hard))

    floods: list = []
    lost_at: list = []

    async def main():
        js = [Joiner("a"), Joiner("b")]
        held: list = []
        holders: list = []

        def on_lost(j) -> None:  # the host is gone: flood every listener while they elect
            if not floods:
                for x in js:
                    floods.append(subprocess.Popen(
                        [sys.executable, "-c", _FLOOD, str(listener_port(x.listeners)), "64", "15"],
                        stdout=subprocess.PIPE, text=True))

        for j in js:
            j.on_lost = on_lost

        async def backlog() -> None:
            while not all(j.listeners is not None and j.side is not None and j.side.seat is not None for j in js):
                await trio.sleep(0.05)
            ports = [str(listener_port(j.listeners)) for j in js]  # a's first: a is next in the succession
            proc = await trio.lowlevel.open_process([sys.executable, "-c", _HOLD, *ports],
                                                     stdout=subprocess.PIPE)
            holders.append(proc)
            said = b""
            while b"\n" not in said:
                chunk = await proc.stdout.receive_some(64)
                if not chunk:
                    break
                said += chunk
            held.append(int(said.split()[0]) if said.split() else 0)
            lost_at.append(bool(floods))  # (held before the host was killed?)

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(backlog)
                await _match_with_joiners(("--players", "4", "--bots", "1"), js,
                                          kill_after_rounds=2)
                nursery.cancel_scope.cancel()
        finally:
            for h in holders:
                h.kill()
                await h.wait()
            for f in floods:
                await trio.to_thread.run_sync(lambda: f.communicate(timeout=60))
        return js, sum(held)

    try:
        js, n = trio.run(main)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert n == 2000, n
    assert floods, "the host was never seen lost"
    assert lost_at == [False], lost_at  # the backlog was in place before the election
    assert all(j.error is None for j in js), [str(j.error) for j in js]
    assert js[0].result == js[1].result and js[0].result["scores"]
    assert all(any(x.get("t") == "election" for x in j.out) for j in js)
    assert any(x.get("t") == "election" and x.get("me") for x in js[0].out)  # a was elected: its door flooded
    print(f"\n{n} held connections on the seats' listeners and a flood during the election: "
          f"the match finished, {js[0].result['scores']}")
