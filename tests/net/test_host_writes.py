"""The host writes every link's frames from its table task (docs/network.md, "Roles and
tasks"): a peer whose socket is full gets the rest from its own writer, in order, and one that
does not read at all is dropped when its outbox overflows; the other peers are served
throughout.  Real sockets on loopback, real Noise, small socket buffers so they fill."""

from __future__ import annotations

import socket

import trio

import unonet.net._host as H
import unonet.protocol as P

from .net_helpers import run
from .session_helpers import config, join, live_table, receive_until

FIRST = 1_000_000  # our heartbeats' numbers (the table's own count from 0)


def _peer(table, name):
    return next(p for p in table.peers if p.name == name)


def _small_buffers(table, link, name, size: int = 2048) -> None:
    """The joiner's receive buffer and the host's send buffer for it as small as the kernel allows
    (or ``size``)."""
    link._stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, size)
    _peer(table, name).link._stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)


async def _seated(table, name):
    link = await join(table, name)
    await receive_until(link, P.Roster)
    return link


async def _a_reader_and_a_laggard(table, laggard: str):
    """Two seated links, the second with small buffers; and the host's `Peer` of the second."""
    reader, lagging = await _seated(table, "reader"), await _seated(table, laggard)
    _small_buffers(table, lagging, laggard)
    return reader, lagging, _peer(table, laggard)


async def _count_beats(link, n: int, got: list[int], *, pause_every: int = 0, pause: float = 0.002) -> None:
    """Read until our heartbeat ``FIRST + n - 1``; ``pause_every``: a slow reader."""
    while not got or got[-1] != FIRST + n - 1:
        msg = await link.receive()
        if isinstance(msg, P.Heartbeat) and msg.seq >= FIRST:
            got.append(msg.seq)
            if pause_every and len(got) % pause_every == 0:
                await trio.sleep(pause)


async def _broadcast(table, n: int, step: int, watch) -> int:
    """``n`` heartbeats, ``step`` to a table step (each step flushed as the table task does);
    the most messages ``watch`` (a peer) had queued behind its writer at any step's end."""
    most = 0
    for k in range(0, n, step):
        for j in range(k, min(n, k + step)):
            table.broadcast(P.Heartbeat(seq=FIRST + j))
        table.flush()
        most = max(most, watch.queued)
        await trio.sleep(0)
    return most


def test_a_slow_reader_gets_every_message_in_order_and_the_others_are_not_held_up():
    async def main():
        async with live_table(config(3, dealer_only=True)) as table:
            fast, slow, watch = await _a_reader_and_a_laggard(table, "slow")
            n = 3000
            fast_got: list[int] = []
            slow_got: list[int] = []
            with trio.fail_after(30):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(_count_beats, fast, n, fast_got)
                    nursery.start_soon(lambda: _count_beats(slow, n, slow_got, pause_every=50))
                    most = await _broadcast(table, n, 25, watch)
            assert most > 0, "the slow reader's socket never filled: the test did not test its writer"
            assert fast_got == list(range(FIRST, FIRST + n))
            assert slow_got == list(range(FIRST, FIRST + n))  # every frame whole, in order
            assert not watch.gone
            await fast.aclose()
            await slow.aclose()

    run(main)


def test_a_peer_that_does_not_read_is_dropped_and_stalls_nobody(monkeypatch):
    monkeypatch.setattr(H, "OUTBOX", 64)

    async def main():
        async with live_table(config(3, dealer_only=True)) as table:
            reader, sleeper, watch = await _a_reader_and_a_laggard(table, "sleeper")
            n = 4000
            got: list[int] = []
            with trio.fail_after(30):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(_count_beats, reader, n, got)
                    await _broadcast(table, n, 20, watch)
            assert got == list(range(FIRST, FIRST + n))
            assert watch.gone
            assert any(e.kind == "left" and "sleeper" in e.text and "not reading" in e.text
                       for e in table.events), [e.text for e in table.events]
            await reader.aclose()
            await sleeper.aclose()

    run(main)


async def _table_closed_under(table, body):
    """Run ``table``; ``body(table)`` runs beside it and then closes it; returns how long (in
    the test's clock) the table took to end after the close."""
    closed = []
    async with trio.open_nursery() as nursery:
        await nursery.start(table.run)
        await body(table)
        table.close()
        closed.append(trio.current_time())
    return trio.current_time() - closed[0]


def test_a_slow_reader_at_the_close_is_given_every_last_word_while_it_keeps_reading(monkeypatch):
    """At the table's close a scorekeeper catching up (slowly, but reading) gets everything up to
    the goodbye however long that takes; a flat grace cut it off after `CLOSE_GRACE` (a busy
    scorekeeper lost its last match so)."""
    monkeypatch.setattr(H, "CLOSE_GRACE", 1.0)
    n = 2000
    got: list[int] = []
    ends: list = []

    async def main():
        table = H.HostTable(config(3, dealer_only=True), P.Identity.generate(), on_event=lambda e: None)

        async def read_slowly(link):
            try:
                # 50 pauses of 0.05 s: 2.5 s > CLOSE_GRACE (real time: virtual time would jump while
                # the kernel holds back a tiny window's ACKs, and time the reader out)
                await _count_beats(link, n, got, pause_every=40, pause=0.05)
                ends.append(type(await link.receive()).__name__)
                await link.receive()
            except Exception as exc:  # noqa: BLE001 - the goodbye read, the link then ends
                ends.append(f"{type(exc).__name__}: {exc}")

        async def body(table):
            slow = await _seated(table, "slow")
            # (small, not tiny: a window of a few hundred bytes stalls on TCP's own timers, which a
            # scorekeeper on a LAN never meets)
            _small_buffers(table, slow, "slow", 16384)
            nursery.start_soon(read_slowly, slow)
            await _broadcast(table, n, 50, _peer(table, "slow"))

        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                took = await _table_closed_under(table, body)
        return took

    took = run(main)
    assert got == list(range(FIRST, FIRST + n)), (len(got), got[-1:], ends)
    assert ends[:1] == ["Leave"], ends
    assert took > 1.0, took  # it did outlast the grace: the test tested the wait


def test_a_peer_that_reads_nothing_at_the_close_is_waited_for_only_the_grace(monkeypatch):
    monkeypatch.setattr(H, "CLOSE_GRACE", 1.0)

    async def main():
        table = H.HostTable(config(3, dealer_only=True), P.Identity.generate(), on_event=lambda e: None)
        links = []

        async def body(table):
            sleeper = await _seated(table, "sleeper")
            _small_buffers(table, sleeper, "sleeper")
            links.append(sleeper)
            await _broadcast(table, 2000, 50, _peer(table, "sleeper"))

        with trio.fail_after(60):
            took = await _table_closed_under(table, body)
        await links[0].aclose()
        return took

    took = run(main)
    assert took < 1.0 + 2.0, took  # (not the minute a reader is given)
