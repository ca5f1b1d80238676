"""A link over a real socket pair (the other link tests run over memory streams): a read's
timeout, its cancellation while waiting and a close under a waiting read."""

from __future__ import annotations

import pytest
import trio

import unonet.net as N
import unonet.protocol as P

from .net_helpers import run


async def _socket_pair(host_timeouts=None, joiner_timeouts=None):
    a, b = trio.socket.socketpair()
    out = {}

    async def one(key, sock, initiator, timeouts):
        out[key] = await N.open_link(trio.SocketStream(sock), P.Identity.generate(), initiator=initiator,
                                     name=key, timeouts=timeouts or N.Timeouts())

    async with trio.open_nursery() as n:
        n.start_soon(one, "joiner", a, True, joiner_timeouts)
        n.start_soon(one, "host", b, False, host_timeouts)
    return out["host"], out["joiner"]


def test_socket_link_times_out_an_idle_peer_and_tells_it():
    async def main():
        host, joiner = await _socket_pair(N.Timeouts(idle=3), N.Timeouts(idle=None))
        start = trio.current_time()
        with pytest.raises(N.LinkTimeout, match=r"waiting for a message from .*\(3 s\)"):
            await host.receive()
        assert trio.current_time() - start == pytest.approx(3)
        with pytest.raises(N.PeerRefused) as exc:
            await joiner.receive()
        assert exc.value.code == "timeout"

    run(main, autojump=True)


def test_socket_link_read_cancelled_while_waiting_loses_nothing():
    async def main():
        host, joiner = await _socket_pair()
        with trio.move_on_after(1):
            await joiner.receive()
        host.send_now(P.Heartbeat(seq=7))
        host.send_now(P.Heartbeat(seq=8))
        assert host.flush_now()
        assert (await joiner.receive()).seq == 7
        assert (await joiner.receive()).seq == 8
        await host.aclose()
        with pytest.raises(N.LinkClosed, match="closed the link"):
            await joiner.receive()

    run(main, autojump=True)


def test_socket_link_closed_under_a_waiting_read_ends_it():
    async def main():
        host, joiner = await _socket_pair()

        async def closer():
            await trio.sleep(1)
            await joiner.aclose()

        async with trio.open_nursery() as n:
            n.start_soon(closer)
            with pytest.raises(N.LinkClosed):
                await joiner.receive()
        await host.aclose()

    run(main, autojump=True)
