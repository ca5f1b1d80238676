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


def _small_buffers(table, link, name) -> None:
    """The joiner's receive buffer and the host's send buffer for it as small as the kernel allows."""
    link._stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    _peer(table, name).link._stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 2048)


async def _seated(table, name):
    link = await join(table, name)
    await receive_until(link, P.Roster)
    return link


async def _a_reader_and_a_laggard(table, laggard: str):
    """Two seated links, the second with small buffers; and the host's `Peer` of the second."""
    reader, lagging = await _seated(table, "reader"), await _seated(table, laggard)
    _small_buffers(table, lagging, laggard)
    return reader, lagging, _peer(table, laggard)


async def _count_beats(link, n: int, got: list[int], *, pause_every: int = 0) -> None:
    """Read until our heartbeat ``FIRST + n - 1``; ``pause_every``: a slow reader."""
    while not got or got[-1] != FIRST + n - 1:
        msg = await link.receive()
        if isinstance(msg, P.Heartbeat) and msg.seq >= FIRST:
            got.append(msg.seq)
            if pause_every and len(got) % pause_every == 0:
                await trio.sleep(0.002)


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
